import Foundation
import Testing

@testable import TrainingData

@Suite("Validation errors")
struct ValidationTests {
    /// Loads YAML and returns the first error from loading or validating it.
    func firstError(_ yaml: String, limits: TrainingDataLimits = .default, requested: Locale? = nil)
        -> TrainingDataError?
    {
        do {
            let data = try CustomLanguageModelData(yaml: yaml, file: "data.yaml")
            try data.validate(limits: limits, requestedLocale: requested)
            return nil
        } catch let error as TrainingDataError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    static let header = """
        locale: en-US
        identifier: test
        version: "1"

        """

    @Test("an unknown class names the class, suggests the right one and gives the line")
    func unknownClass() throws {
        let error = try #require(
            firstError(
                Self.header + """
                    templates:
                      - classes: {piece: [pawn, rook]}
                        items:
                          - {template: "<pice> takes <piece>", count: 10}
                    """))
        #expect(error.description.contains("data.yaml:7"))
        #expect(error.description.contains("unknown class <pice>"))
        #expect(error.description.contains("did you mean <piece>?"))
    }

    @Test("an unclosed class reference is malformed")
    func unclosedReference() throws {
        let data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "x", version: "1") {
            PhraseCountsFromTemplates(classes: ["piece": ["pawn"]]) {
                TemplatePhraseCountGenerator.Template("<piece to e4", count: 1)
            }
        }
        let error = #expect(throws: TrainingDataError.self) { try data.validate() }
        #expect(error?.description.contains("never closed") == true)
        #expect(error?.description.contains("ValidationTests.swift") == true)
    }

    @Test("an empty phrase is rejected with its line")
    func emptyPhrase() throws {
        let error = try #require(firstError(Self.header + "phrases:\n  - {phrase: \"?!\", count: 3}\n"))
        #expect(error.description.contains("data.yaml:5"))
        #expect(error.description.contains("has no words"))
    }

    @Test("a grapheme of two words is refused with its line")
    func multiWordGrapheme() throws {
        let error = try #require(
            firstError(
                Self.header + """
                    pronunciations:
                      - {grapheme: winawer, phonemes: ["w I n aU @r"]}
                      - {grapheme: "winawer variation", phonemes: ["w I n aU @r v E r i eI S @ n"]}
                    """))
        #expect(error.location?.line == 6)
        #expect(error.kind == .multiWordGrapheme(grapheme: "winawer variation", words: ["winawer", "variation"]))
        #expect(error.description.contains("a pronunciation is for one word"))
    }

    @Test(
        "a decoder marker inside a phrase is refused with its line",
        arguments: [
            "play the gambit </s>", "<s> play the gambit", "play the <unk> gambit", "[noise] play it",
            "play ++breath++ it",
        ])
    func reservedTokenInPhrase(phrase: String) throws {
        let error = try #require(
            firstError(Self.header + "phrases:\n  - {phrase: hello, count: 1}\n  - {phrase: \"\(phrase)\", count: 3}\n")
        )
        #expect(error.location?.line == 6)
        guard case .reservedToken(let what, let text, _) = error.kind else {
            Issue.record("expected .reservedToken, got \(error)")
            return
        }
        #expect(what == "phrase" && text == phrase)
        #expect(error.description.contains("a recognizer marker, not a word"))
    }

    @Test("a decoder marker in a class value or a grapheme is refused")
    func reservedTokenElsewhere() throws {
        let inClass = try #require(
            firstError(
                Self.header + """
                    templates:
                      - classes: {piece: [pawn, "<unk>"]}
                        items:
                          - {template: "<piece> to e4", count: 10}
                    """))
        #expect(inClass.kind == .reservedToken(what: "value of class <piece>", text: "<unk>", token: "<unk>"))
        #expect(inClass.location?.line == 5)
        let inGrapheme = try #require(
            firstError(Self.header + "pronunciations:\n  - {grapheme: \"[noise]\", phonemes: [\"n OI z\"]}\n"))
        #expect(inGrapheme.kind == .reservedToken(what: "grapheme", text: "[noise]", token: "[noise]"))
        // Ordinary punctuation and a lone angle bracket are not markers.
        #expect(firstError(Self.header + "phrases:\n  - {phrase: \"1 < 2, isn't it?\", count: 3}\n") == nil)
    }

    @Test("huge counts saturate instead of wrapping, so they cannot slip under the budget")
    func hugeCounts() throws {
        let huge = 6_000_000_000_000_000_000
        let yaml =
            Self.header
            + "phrases:\n  - {phrase: play it, count: \(huge)}\n  - {phrase: \"play, it\", count: \(huge)}\n"
        let data = try CustomLanguageModelData(yaml: yaml, file: "data.yaml")
        #expect(data.totalSamples == Int.max)
        let error = try #require(firstError(yaml))
        #expect(error.kind == .budgetExceeded(total: Int.max, budget: TrainingDataLimits.default.sampleBudget))
        // The two phrases are one word sequence; its effective count saturates too.
        let report = data.lint()
        #expect(report.phrases.map(\.effectiveCount) == [Int.max, Int.max])
        #expect(report.budget.used == Int.max && report.budget.share > 1)
    }

    @Test("zero and negative counts are rejected", arguments: [0, -4])
    func nonPositiveCount(count: Int) throws {
        let error = try #require(firstError(Self.header + "phrases:\n  - {phrase: hello, count: \(count)}\n"))
        #expect(error.description.contains("count \(count)"))
        #expect(error.description.contains("must be positive"))
        #expect(error.location?.line == 5)
    }

    @Test("an unsupported X-SAMPA symbol is named with its grapheme and line")
    func unsupportedPhoneme() throws {
        let error = try #require(
            firstError(
                Self.header + """
                    pronunciations:
                      - {grapheme: winawer, phonemes: ["w I n aU @r"]}
                      - {grapheme: zlotnik, phonemes: ["z l Q t n I x"]}
                    """))
        #expect(error.location?.line == 6)
        #expect(error.description.contains("\"x\""))
        #expect(error.description.contains("zlotnik"))
        #expect(error.description.contains("supportedPhonemes"))
    }

    @Test("a locale mismatch names both locales")
    func localeMismatch() throws {
        let error = try #require(
            firstError(
                Self.header.replacingOccurrences(of: "en-US", with: "en-GB") + "phrases:\n  - {phrase: hi, count: 1}\n",
                requested: Locale(identifier: "en_US")))
        #expect(error.description.contains("en-GB"))
        #expect(error.description.contains("en-US"))
    }

    @Test("a locale without a phone set is unsupported")
    func unsupportedLocale() throws {
        let data = CustomLanguageModelData(locale: Locale(identifier: "fr_FR"), identifier: "x", version: "1")
        let error = #expect(throws: TrainingDataError.self) { try data.validate() }
        #expect(error?.description.contains("fr-FR is not supported") == true)
        #expect(CustomLanguageModelData.supportedPhonemes(locale: Locale(identifier: "fr_FR")).isEmpty)
    }

    @Test("exceeding the budget says by how much")
    func budgetExceeded() throws {
        let error = try #require(
            firstError(
                Self.header + "phrases:\n  - {phrase: a, count: 600}\n  - {phrase: b, count: 500}\n",
                limits: TrainingDataLimits(sampleBudget: 1_000)))
        #expect(error.description.contains("1100 samples, 100 over the budget of 1000"))
    }

    @Test("a template that expands too far is an error naming it, without expanding it")
    func expansionTooLarge() throws {
        let values = (0..<1_000).map { "w\($0)" }
        let data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "x", version: "1") {
            PhraseCountsFromTemplates(classes: ["big": values]) {
                TemplatePhraseCountGenerator.Template("<big> <big> <big>", count: 10)
            }
        }
        let error = #expect(throws: TrainingDataError.self) { try data.validate() }
        #expect(error?.description.contains("\"<big> <big> <big>\" expands to 1000000000 phrases") == true)
        #expect(error?.description.contains("limit of 1000000") == true)
        let overflow = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "x", version: "1") {
            PhraseCountsFromTemplates(classes: ["big": values]) {
                TemplatePhraseCountGenerator.Template(String(repeating: "<big> ", count: 10), count: 10)
            }
        }
        let overflowError = #expect(throws: TrainingDataError.self) { try overflow.validate() }
        #expect(overflowError?.description.contains("more than") == true)
    }

    @Test("malformed YAML reports its line")
    func malformedYAML() throws {
        let error = try #require(firstError(Self.header + "phrases:\n  - {phrase: hi, count: 1\n  - x: [\n"))
        #expect(error.description.contains("malformed YAML"))
        #expect(error.location?.line != nil)
        #expect(error.description.hasPrefix("data.yaml:"))
    }

    @Test("a duplicate key reports its line")
    func duplicateKey() throws {
        let error = try #require(firstError(Self.header + "version: \"2\"\n"))
        #expect(error.description.contains("duplicate key"))
        #expect(error.location?.line != nil)
    }

    @Test("missing required keys are named with their line")
    func missingKey() throws {
        let top = try #require(firstError("locale: en-US\nversion: \"1\"\n"))
        #expect(top.description.contains("missing required key `identifier`"))
        let phrase = try #require(firstError(Self.header + "phrases:\n  - {phrase: hi}\n"))
        #expect(phrase.description.contains("missing required key `count` in phrases[0]"))
        #expect(phrase.location?.line == 5)
    }

    @Test("wrong types are named with their line")
    func wrongType() throws {
        let count = try #require(firstError(Self.header + "phrases:\n  - {phrase: hi, count: ten}\n"))
        #expect(count.description.contains("`count` must be a whole number, found \"ten\""))
        #expect(count.location?.line == 5)
        let fractional = try #require(firstError(Self.header + "phrases:\n  - {phrase: hi, count: 2.5}\n"))
        #expect(fractional.description.contains("whole number"))
        let list = try #require(firstError(Self.header + "phrases: {phrase: hi}\n"))
        #expect(list.description.contains("`phrases` must be a list, found a mapping"))
        #expect(list.location?.line == 4)
        let flag = try #require(firstError(Self.header + "private: maybe\n"))
        #expect(flag.description.contains("`private` must be true or false"))
    }

    @Test("an unknown key suggests the right one")
    func unknownKey() throws {
        let error = try #require(firstError(Self.header + "phrases:\n  - {phrse: hi, count: 1}\n"))
        #expect(error.description.contains("unknown key `phrse`"))
        #expect(error.description.contains("did you mean `phrase`?"))
        #expect(error.location?.line == 5)
    }

    @Test("an empty document is an error")
    func emptyDocument() throws {
        let error = try #require(firstError(""))
        #expect(error.description.contains("empty"))
    }

    @Test("every problem is listed, not only the first")
    func allProblems() throws {
        let data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "x", version: "1") {
            PhraseCount(phrase: "", count: 1)
            PhraseCount(phrase: "ok", count: 0)
            CustomPronunciation(grapheme: "q", phonemes: ["k j u", "Y"])
        }
        let problems = data.problems()
        #expect(problems.count == 3)
    }
}
