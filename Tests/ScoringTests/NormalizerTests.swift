import Foundation
import Testing

@testable import Scoring

@Suite("Normalization")
struct NormalizerTests {
    @Test func standardPipeline() {
        let words = Normalizer.standard.normalize(
            "<s> The Albin Counter-Gambit, [NOISE] was(2) ++BREATH++ <sil> ok! </s>")
        #expect(words == ["the", "albin", "counter", "gambit", "was", "ok"])
    }

    /// A report's privacy masks stay whole, so masked transcripts score as their masked alignments read; other
    /// text in single guillemets is not a mask and is normalized as usual.
    @Test func privacyMasksPassWhole() {
        #expect(
            Normalizer.standard.normalize("Call ‹contact-1› ‹contact-12› ‹term-3›,") == [
                "call", "‹contact-1›", "‹contact-12›", "term", "3",
            ])
        #expect(Normalizer.standard.normalize("‹oui› ‹a-b› ‹-1› ‹x-1›‹y-2›") == ["oui", "a", "b", "1", "x", "1y", "2"])
        #expect(Normalizer.verbatim.normalize("‹term-2›") == ["‹term-2›"])
    }

    @Test func apostrophes() {
        #expect(
            Normalizer.standard.normalize("Don't 'quote' students' rock’n’roll") == [
                "don't", "quote", "students", "rock'n'roll",
            ])
    }

    @Test(arguments: [
        (Normalizer.HyphenHandling.split, ["counter", "gambit"]), (.join, ["countergambit"]),
        (.keep, ["counter-gambit"]),
    ])
    func hyphens(handling: Normalizer.HyphenHandling, expected: [String]) {
        var normalizer = Normalizer.standard
        normalizer.hyphens = handling
        #expect(normalizer.normalize("counter-gambit") == expected)
    }

    @Test func verbatimLeavesTokensAlone() {
        #expect(Normalizer.verbatim.normalize("The <s> was(2) a-b") == ["The", "<s>", "was(2)", "a-b"])
    }

    @Test func summary() {
        #expect(
            Normalizer.standard.summary
                == "lowercase, strip punctuation, drop <s> </s> <sil> [noise], strip (N) alternates, split hyphens")
        #expect(
            Normalizer.standardEnglish.summary.hasSuffix("english (contractions, numbers, US spelling, drop fillers)"))
    }

    @Test func englishRules() {
        let words = Normalizer.standardEnglish.normalize(
            "Um I won't say we're twenty five, one hundred and five or one two — the colour, uh, of the centre")
        #expect(
            words == [
                "i", "will", "not", "say", "we", "are", "25", "105", "or", "1", "2", "the", "color", "of", "the",
                "center",
            ])
    }

    @Test func englishNumbers() {
        let english = EnglishNormalization()
        #expect(english.apply(to: ["two", "thousand", "and", "twenty", "four"]) == ["2024"])
        #expect(english.apply(to: ["hundred"]) == ["hundred"])
        #expect(english.apply(to: ["zero", "one"]) == ["0", "1"])
        #expect(english.apply(to: ["e", "four"]) == ["e", "4"])
    }

    @Test func fastPathAgreesWithStringPipeline() {
        // The loader interns plain tokens straight from bytes; every other token goes through normalize(_:).
        let samples = [
            "abc", "don't", "'tis", "x'", "a''b", "A", "a-b", "a(2)", "(2)", "<s>", "[x]", "++x++", "é", "naïve",
            "o'-k",
            "3.5", "u.s.a.", "a'b'c", "-", "'", "''", "ok)",
        ]
        for normalizer in [
            Normalizer.standard, Normalizer.verbatim, Normalizer(hyphens: .keep), Normalizer(lowercase: false),
            Normalizer(stripPunctuation: false),
        ] {
            let loader = CorpusLoader(normalizer: normalizer)
            for sample in samples {
                var tokens: [Int32] = []
                var text = sample
                text.withUTF8 { loader.tokenize($0, into: &tokens) }
                #expect(tokens.map { loader.words.string($0) } == normalizer.normalize(sample), "\(sample)")
            }
        }
    }
}
