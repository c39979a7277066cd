import Foundation
import Results
import Testing

@Suite("Suggested counts")
struct SuggestionsTests {
    @Test("A fixing weight above the variant's raises the count; below, lowers it; by the set's own scaling")
    func counts() throws {
        // 0.5 → 0.99 scales the custom side against the base by 99; before the language weight 6.5 that is a
        // probability 99^(1/6.5) ≈ 2.03 times larger.
        let raised = try #require(CountSuggestion.count(25, of: 1000, weight: 0.5, fixing: 0.99, languageWeight: 6.5))
        let factor = pow(99.0, 1 / 6.5)
        let share = Double(raised) / Double(1000 - 25 + raised)
        #expect(share >= factor * 25 / 1000 && share < factor * 26 / 1000, "\(raised)")
        // A weight barely above still raises it by at least one.
        #expect(CountSuggestion.count(25, of: 1000, weight: 0.5, fixing: 0.5001, languageWeight: 6.5) == 26)
        let lowered = try #require(CountSuggestion.count(25, of: 1000, weight: 0.5, fixing: 0.2, languageWeight: 6.5))
        #expect(lowered < 25 && lowered >= 1)
        #expect(CountSuggestion.count(1, of: 1000, weight: 0.5, fixing: 0.05, languageWeight: 6.5) == 1)
        // Only the base model alone removes it: the least count there is.
        #expect(CountSuggestion.count(25, of: 1000, weight: 0.5, fixing: 0, languageWeight: 6.5) == 1)
        #expect(CountSuggestion.count(1, of: 1000, weight: 0.5, fixing: 0, languageWeight: 6.5) == nil)
        // No answer outside (0, 1), or for a phrase that is all the data (its share cannot change).
        #expect(CountSuggestion.count(25, of: 1000, weight: 0.5, fixing: 1, languageWeight: 6.5) == nil)
        #expect(CountSuggestion.count(25, of: 1000, weight: 0, fixing: 0.7, languageWeight: 6.5) == nil)
        #expect(CountSuggestion.count(25, of: 1000, weight: 0.5, fixing: -0.1, languageWeight: 6.5) == nil)
        #expect(CountSuggestion.count(25, of: 25, weight: 0.5, fixing: 0.7, languageWeight: 6.5) == nil)
        // A share that would pass the whole data cannot be reached.
        #expect(CountSuggestion.count(900, of: 1000, weight: 0.5, fixing: 0.99, languageWeight: 6.5) == nil)
    }

    @Test("Each suggestion says what it does and why")
    func evidence() {
        let count = CountSuggestion(
            kind: .phrase, text: "play the winawer variation", from: 25, to: 31, word: "winawer", fixingWeight: 0.7,
            variantWeight: 0.5, cost: "anti-context WER +0.00 points")
        #expect(
            count.evidence == "raise: weight 0.7 (not 0.5) fixes the misses of winawer (anti-context WER +0.00 points)")
        let pronunciation = PronunciationSuggestion(
            word: "winawer", phones: ["W", "IH", "N", "AH", "V", "ER"], xsampa: "w I n @ v @r", source: .phoneLoop,
            current: [["W", "IH", "N", "AW", "ER"]], margin: 812.4, better: 5, segments: 6, errors: 3)
        #expect(
            pronunciation.evidence
                == "fits 5 of 6 segments better than W IH N AW ER (margin 812.4 per segment; from a phone loop over its audio)"
        )
        let suggestions = VariantSuggestions(learnedOn: ["chess": "dev", "carrier-chess": "dev"])
        #expect(suggestions.provenance == "learned on carrier-chess (dev), chess (dev)")
        #expect(suggestions.isEmpty)
    }
}
