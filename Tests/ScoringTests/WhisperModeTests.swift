import Foundation
import Testing

@testable import Scoring

/// The `whisper` normalization mode as scoring uses it: words, term forms, keywords and B-WER on Whisper's words.
@Suite struct WhisperModeTests {
    @Test func wordsAreWhispers() {
        let normalizer = Normalizer.whisper
        #expect(
            normalizer.normalize("It's $12.50, E5, the colour") == ["it", "is", "$12.50", "e", "5", "the", "color"])
        #expect(normalizer.normalize("O'Brien's queen's gambit") == ["0", "brien", "is", "queen", "is", "gambit"])
        // Gambit's English rules are Whisper's without its faults: the possessives stay.
        #expect(Normalizer.standardEnglish.normalize("O'Brien's queen's E5") == ["o'brien's", "queen's", "e", "5"])
        #expect(normalizer.summary == "whisper (openai-whisper 20250625)")
    }

    @Test func privacyMasksPassWhole() {
        let mask = Normalizer.privacyMask(label: "contact", number: 2)
        #expect(
            Normalizer.whisper.normalize("Call Dr. \(mask) at 3:30pm, um, twenty five") == [
                "call", "doctor", mask, "at", "3", "30", "pm", "25",
            ])
    }

    @Test func recordedWithItsRelease() throws {
        let forms = Normalizer.whisper.withTermForms(["albin's": "albin"])
        let decoded = try JSONDecoder().decode(Normalizer.self, from: try JSONEncoder().encode(forms))
        #expect(decoded == forms && decoded.whisper == WhisperNormalizer.version)
        #expect(decoded.summary == "whisper (openai-whisper 20250625), 1 term form")
        #expect(decoded != Normalizer.standard.withTermForms(["albin's": "albin"]))
        // Under Whisper's rules `albin's` is `albin is`, so the form is two words and still becomes the term.
        #expect(decoded.normalize("the Albin's gambit") == ["the", "albin", "gambit"])
        let standard = try JSONDecoder().decode(Normalizer.self, from: try JSONEncoder().encode(Normalizer.standard))
        #expect(standard.whisper == nil && standard == .standard)
    }

    /// A recognizer that writes `E5` and a reference that says `e five`: the same words under Whisper's rules,
    /// a substitution and a deletion under Gambit's standard ones, through the files' whole-text path.
    @Test func keywordsAndBoostedWordsOnWhispersWords() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = folder.appendingPathComponent("ref.trn")
        let hypothesis = folder.appendingPathComponent("hyp.trn")
        try "play e five now (u1)\nthe colour of ten cents (u2)\n".write(
            to: reference, atomically: true, encoding: .utf8)
        try "Play E5 now. (u1)\nThe color of 10 cents. (u2)\n".write(to: hypothesis, atomically: true, encoding: .utf8)
        let score = { (normalizer: Normalizer) in
            try Scorer.score(
                reference: reference, hypothesis: hypothesis,
                options: ScoringOptions(normalizer: normalizer, boostedWords: ["five"], terms: ["e five"]))
        }
        let whisper = try score(.whisper)
        #expect(whisper.totals.wordErrorRate == 0)
        let keyword = try #require(whisper.keywords?.terms.first)
        #expect((keyword.term, keyword.said, keyword.hits) == ("e 5", 1, 1))
        #expect(whisper.boosted?.boostedWordErrorRate == 0)
        let standard = try score(.standard)
        #expect(standard.totals.wordErrorRate > 0)
        #expect(standard.keywords?.terms.first?.hits == 0)
        #expect(standard.boosted?.boostedWordErrorRate == 1)
    }
}
