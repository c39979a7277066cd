import Foundation
import Results
import Testing

@Suite("Suggestions as the reports word them")
struct SuggestionsTests {
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
        #expect(suggestions.tally == "0 pronunciations, 0 counts")
        let some = VariantSuggestions(learnedOn: [:], pronunciations: [pronunciation], counts: [count, count])
        #expect(some.tally == "1 pronunciation, 2 counts" && !some.isEmpty)
    }
}
