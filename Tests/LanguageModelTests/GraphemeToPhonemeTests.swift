import Formats
import LanguageModel
import PocketSphinx
import Testing
import TrainingData

/// flite reads bytes and skipped every letter outside ASCII: "zoë" was pronounced "zo", "müller" "mller".
@Suite("Spelling-based pronunciations of letters outside ASCII")
struct GraphemeToPhonemeTests {
    @Test(
        "An accented or special Latin letter is read as its plain letters, not dropped",
        arguments: [
            ("zoë", "zoe"), ("josé", "jose"), ("björk", "bjork"), ("müller", "muller"), ("straße", "strasse"),
            ("æsir", "aesir"), ("łódź", "lodz"), ("e\u{301}clair", "eclair"), ("ZOË", "zoe"),
        ])
    func folded(word: String, plain: String) throws {
        let phones = try #require(GraphemeToPhoneme.pronounce(word))
        #expect(phones == GraphemeToPhoneme.pronounce(plain), "\(word): \(phones)")
    }

    @Test("A word of another script still gets no spelling-based pronunciation, so it is reported")
    func otherScripts() throws {
        #expect(GraphemeToPhoneme.pronounce("иван") == nil)
        #expect(GraphemeToPhoneme.pronounce("東京") == nil)
        let vocabulary = Vocabulary.build(
            words: ["zoë", "иван"], pronunciations: [:], dictionary: PronunciationDictionary(entries: [:]),
            spellingAlternates: true)
        // Sorted as Swift sorts strings: "zoë" before "иван".
        #expect(vocabulary.outOfVocabulary.map(\.word) == ["zoë", "иван"])
        #expect(vocabulary.outOfVocabulary.map(\.resolution) == [.generated, .unresolved])
        #expect(
            vocabulary.outOfVocabulary.first?.pronunciations == [try #require(GraphemeToPhoneme.pronounce("zoe"))])
    }
}
