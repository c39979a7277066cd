import Foundation
import Testing

@testable import TrainingData

/// The expanded phrase list a recognizer's phrase-list API is given (`gambit prepare --phrase-list`, and the
/// `{phrases}` placeholder of a recognizer's commands).
@Suite("The expanded phrase list")
struct PhraseListTests {
    struct List: Decodable {
        struct Phrase: Decodable {
            var phrase: String
            var count: Double
        }
        var formatVersion: Int
        var locale: String
        var identifier: String
        var budget: Int
        var total: Double
        var phrases: [Phrase]
    }

    func list(_ data: CustomLanguageModelData, limits: TrainingDataLimits = .default) throws -> List {
        try JSONDecoder().decode(List.self, from: try data.phraseListData(limits: limits))
    }

    @Test("Phrases first, then every expansion with its share of the template's count; the total is the data's")
    func expandsTemplates() throws {
        let list = try list(ChessFixture.swiftData())
        #expect(list.formatVersion == CustomLanguageModelData.phraseListFormatVersion)
        #expect(list.locale == "en-US" && list.identifier == "com.example.chess")
        #expect(list.budget == TrainingDataLimits.default.sampleBudget)
        // 6 pieces × 2 royals × 6 pieces × 8 ranks, each 10,000 / 576.
        #expect(list.phrases.count == 2 + 576)
        #expect(list.phrases[0].phrase == "play the albin counter gambit" && list.phrases[0].count == 10)
        #expect(list.phrases[1].phrase == "play the winawer variation" && list.phrases[1].count == 5)
        let expansion = try #require(list.phrases.first { $0.phrase == "knight to queen bishop 3" })
        #expect(abs(expansion.count - 10_000.0 / 576) < 1e-9)
        #expect(abs(list.total - 10_015) < 1e-6)
        #expect(abs(list.phrases.reduce(0) { $0 + $1.count } - list.total) < 1e-6)
    }

    @Test("A sentence given by a phrase and a template's expansion, or twice, is listed once with their counts added")
    func mergesRepeats() throws {
        var data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "t", version: "1") {
            PhraseCount(phrase: "Call Maeve.", count: 3)
            PhraseCountsFromTemplates(classes: ["name": ["maeve", "siobhan"]]) {
                TemplatePhraseCountGenerator.Template("call <name>", count: 10)
            }
        }
        data.insert(phrase: "call maeve", count: 2)
        let list = try list(data)
        #expect(list.phrases.map(\.phrase) == ["call maeve", "call siobhan"])
        #expect(list.phrases.map(\.count) == [3 + 2 + 5, 5])
    }

    @Test("Data over the budget is refused, as prepare refuses it")
    func overBudget() throws {
        #expect(throws: TrainingDataError.self) {
            try ChessFixture.swiftData().phraseListData(limits: TrainingDataLimits(sampleBudget: 100))
        }
    }
}
