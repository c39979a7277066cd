import Foundation
import Testing

@testable import TrainingData

@Suite("Templates and weighted sentences")
struct TemplateTests {
    @Test("a template's count is divided evenly over its expansions")
    func division() throws {
        let data = ChessFixture.swiftData()
        let templates = try data.compiledTemplates()
        let template = try #require(templates.first)
        #expect(template.expansionCount == 6 * 2 * 6 * 8)
        #expect(abs(template.countPerExpansion - 10_000.0 / 576.0) < 1e-12)
        let expansions = Array(template.expansions())
        #expect(expansions.count == 576)
        #expect(Set(expansions.map(\.tokens)).count == 576)
        #expect(abs(expansions.reduce(0) { $0 + $1.count } - 10_000) < 1e-6)
    }

    @Test("a word in two classes (queen, king) expands in both places")
    func wordInTwoClasses() throws {
        let template = try #require(try ChessFixture.swiftData().compiledTemplates().first)
        let sentences = Set(template.expansions().map { $0.tokens.joined(separator: " ") })
        #expect(sentences.contains("queen to king queen 1"))
        #expect(sentences.contains("king to queen king 8"))
        #expect(sentences.contains("pawn to queen rook 4"))
        #expect(!sentences.contains("pawn to rook rook 4"))
    }

    @Test("weighted sentences: phrases first, then streamed expansions, deterministic")
    func weightedSentences() throws {
        let sentences = try ChessFixture.swiftData().weightedSentences()
        #expect(sentences.sentenceCount == 2 + 576)
        #expect(sentences.totalCount == 10_015)
        let all = Array(sentences)
        #expect(all.count == 578)
        #expect(all[0] == WeightedSentence(tokens: ["play", "the", "albin", "counter", "gambit"], count: 10))
        #expect(all[2].tokens == ["pawn", "to", "queen", "pawn", "1"])
        #expect(all == Array(try ChessFixture.swiftData().weightedSentences()))
    }

    @Test("data gathered at run time is inserted like builder data")
    func runtimeInsertion() throws {
        var data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "calls", version: "1")
        data.isPrivate = true
        let callHistory = [("Alice Smith", 12), ("Bob", 3)]
        for (name, count) in callHistory {
            data.insert(phraseCount: PhraseCount(phrase: "call \(name)", count: count))
        }
        data.insert(template: "text <name> now", count: 10, classes: ["name": callHistory.map(\.0)])
        data.insert(term: CustomPronunciation(grapheme: "Siobhan", phonemes: ["S @ v O n"]))
        let sentences = Array(try data.weightedSentences())
        #expect(sentences.map(\.tokens.count) == [3, 2, 4, 3])
        #expect(sentences[2] == WeightedSentence(tokens: ["text", "alice", "smith", "now"], count: 5))
        #expect(data.totalSamples == 25)
    }

    @Test("a large template streams: 1,000,000 expansions without materializing them")
    func largeTemplateStreams() throws {
        let values = (0..<100).map { "w\($0)" }
        let data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "x", version: "1") {
            PhraseCountsFromTemplates(classes: ["a": values]) {
                TemplatePhraseCountGenerator.Template("say <a> <a> <a>", count: 1_000_000)
            }
        }
        var count = 0
        var weight = 0.0
        for sentence in try data.weightedSentences() {
            count += 1
            weight += sentence.count
        }
        #expect(count == 1_000_000)
        #expect(abs(weight - 1_000_000) < 1e-3)
    }

    @Test("a class reference glued to a word is tokenized as a whole")
    func gluedReference() throws {
        let template = try CompiledTemplate(
            TemplatePhraseCountGenerator.Template("two <piece>s, please", count: 2),
            classes: ["piece": ["pawn", "rook"]])
        #expect(
            Array(template.expansions()).map(\.tokens) == [["two", "pawns", "please"], ["two", "rooks", "please"]])
        #expect(template.text(at: 1) == "two rooks, please")
    }

    @Test("multi-word class values")
    func multiWordValues() throws {
        let template = try CompiledTemplate(
            TemplatePhraseCountGenerator.Template("castle <side>", count: 4),
            classes: ["side": ["king-side", "Queen Side"]])
        #expect(
            Array(template.expansions()).map(\.tokens) == [["castle", "king", "side"], ["castle", "queen", "side"]])
        #expect(template.countPerExpansion == 2)
    }

    @Test(
        "tokenization",
        arguments: [
            ("Play the Albin counter-gambit!", ["play", "the", "albin", "counter", "gambit"]),
            ("Don't move O’Brien's rook", ["don't", "move", "o'brien's", "rook"]),
            ("'quoted' words", ["quoted", "words"]),
            ("pawn to e4, 1 and 3.5 and 1,000", ["pawn", "to", "e4", "1", "and", "3.5", "and", "1,000"]),
            ("  ", []),
        ])
    func tokenization(text: String, expected: [String]) {
        #expect(WordTokenizer.tokenize(text) == expected)
    }
}

@Suite("X-SAMPA")
struct XSAMPATests {
    @Test(
        "mapping to CMU phones",
        arguments: [
            ("w I n aU @r", ["W", "IH", "N", "AW", "ER"]),
            ("wInaU@r", ["W", "IH", "N", "AW", "ER"]),
            ("\"w I n %aU @r:", ["W", "IH", "N", "AW", "ER"]),
            ("tS E s", ["CH", "EH", "S"]),
            ("dZ { z", ["JH", "AE", "Z"]),
            ("T i . 5 3`", ["TH", "IY", "L", "ER"]),
            ("b O I", ["B", "AO", "IH"]),
            ("b OI", ["B", "OY"]),
        ])
    func mapping(xsampa: String, phones: [String]) {
        let parse = XSAMPA.parse(xsampa)
        #expect(parse.unsupported.isEmpty)
        #expect(parse.phones == phones)
    }

    @Test("unsupported symbols are reported, not dropped")
    func unsupported() {
        let parse = XSAMPA.parse("w I x aU ?")
        #expect(parse.unsupported == ["x", "?"])
        #expect(XSAMPA.parse("ax").unsupported == ["ax"])
    }

    @Test("every mapped phone is one of the model's 39")
    func phonesAreModelPhones() {
        let model = Set(XSAMPA.cmuPhones)
        #expect(model.count == 39)
        for phones in XSAMPA.usEnglishPhones.values {
            #expect(phones.allSatisfy(model.contains))
        }
    }

    @Test("supported phonemes for en-US")
    func supported() {
        let symbols = CustomLanguageModelData.supportedPhonemes(locale: Locale(identifier: "en_US"))
        for symbol in ["aU", "@r", "tS", "{", "\"", "%", ":"] {
            #expect(symbols.contains(symbol))
        }
        #expect(symbols == CustomLanguageModelData.supportedPhonemes(locale: Locale(identifier: "en-US")))
    }
}

@Suite("Lint report")
struct LintTests {
    @Test("counts, budget, vocabulary, boosted terms")
    func chess() throws {
        var data = ChessFixture.swiftData()
        data.insert(phrase: "Play the Albin counter-gambit", count: 7)
        data.insert(term: CustomPronunciation(grapheme: "Zlotnik", phonemes: ["z l Q t n I x"]))
        let report = data.lint(maxSampleExpansions: 10)
        #expect(report.budget.used == 10_022)
        #expect(report.budget.remaining == 1_000_000 - 10_022)
        #expect(report.phrases[0].effectiveCount == 17)
        #expect(report.phrases[0].shareOfBudget == 10.0 / 1_000_000)
        let template = try #require(report.templates.first)
        #expect(template.expansions == 576)
        #expect(template.sampleExpansions.count == 10)
        #expect(!template.sampleIsComplete)
        #expect(template.sampleExpansions[0].text == "pawn to queen pawn 1")
        #expect(abs(template.sampleExpansions[0].count - 10_000.0 / 576.0) < 1e-9)
        #expect(report.vocabulary.contains("queen"))
        #expect(report.vocabulary.contains("8"))
        #expect(!report.vocabulary.contains("zlotnik"))
        #expect(report.vocabularySize == report.vocabulary.count)
        #expect(report.boostedTerms.contains("zlotnik"))
        #expect(report.boostedTerms.contains("winawer"))
        #expect(report.pronunciations[0].phones == ["W", "IH", "N", "AW", "ER"])
        #expect(report.pronunciationProblems.map(\.unsupportedSymbols) == [["x"]])
        #expect(report.problems.count == 1)
        #expect(report.oov.isEmpty)
        let encoded = try JSONEncoder().encode(report)
        #expect(try JSONDecoder().decode(LintReport.self, from: encoded) == report)
    }

    @Test("private data is masked by redacted()")
    func redaction() throws {
        var data = ChessFixture.swiftData()
        data.isPrivate = true
        data.insert(phrase: "call Alice Smith", count: 4)
        let report = data.lint().redacted()
        let json = try #require(String(data: try JSONEncoder().encode(report), encoding: .utf8))
        #expect(!json.contains("alice"))
        #expect(!json.contains("Alice"))
        #expect(!json.contains("albin"))
        #expect(report.vocabularySize > 0)
        #expect(report.phrases.count == 3)
    }
}
