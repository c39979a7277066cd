import Testing
import TrainingData

/// How a variant's phrase list is derived: its terms ranked by their counts in the training data, cut at a limit,
/// distractors drawn and mixed in, an utterance's own terms found in its reference.
@Suite("Phrase list arithmetic")
struct PhraseListArithmeticTests {
    /// albin is said 30 + 5 times, winawer 20, taimanov 8, grob 2.
    static let openings = """
        locale: en-US
        identifier: com.example.openings
        version: "1"
        phrases:
          - {phrase: "play the albin", count: 30}
          - {phrase: "the albin again", count: 5}
          - {phrase: "play the winawer", count: 20}
          - {phrase: "play the taimanov", count: 8}
          - {phrase: "play the grob", count: 2}

        """

    @Test("A limit in words stops at the first term that does not fit; ranking, draw and mixing are fixed")
    func listArithmetic() throws {
        let data = try CustomLanguageModelData(yaml: PhraseListArithmeticTests.openings)
        let ranked = try PhraseList.ranked(["grob", "taimanov", "albin", "the albin", "winawer"], in: data)
        #expect(ranked.map(\.text) == ["albin", "the albin", "winawer", "taimanov", "grob"])
        #expect(ranked.map(\.count) == [35, 35, 20, 8, 2])
        #expect(
            PhraseList.cut(["the albin", "albin", "winawer"], limit: 3, countingWords: true) == ["the albin", "albin"])
        #expect(
            PhraseList.cut(["the albin", "albin", "winawer"], limit: 2, countingWords: false) == ["the albin", "albin"])
        let pool = ["a", "b", "c", "d", "albin"]
        let drawn = PhraseList.distractors(3, from: pool, excluding: ["albin"], seed: "v")
        #expect(
            drawn.count == 3 && !drawn.contains("albin")
                && drawn == PhraseList.distractors(3, from: pool, excluding: ["albin"], seed: "v"))
        #expect(PhraseList.distractors(9, from: pool, excluding: [], seed: "v").count == 5)
        #expect(PhraseList.mixed(["x", "y"], [], seed: "s") == ["x", "y"])
        #expect(Set(PhraseList.mixed(["x", "y"], ["z"], seed: "s")) == ["x", "y", "z"])
        #expect(
            PhraseList.said(["albin", "najdorf", "counter gambit", "gambit"], in: "Play the Albin counter-gambit!")
                == ["albin", "counter gambit", "gambit"])
    }
}
