import Formats
import Foundation
import Testing

@testable import Scoring

/// The same words in two Unicode normal forms must score as the same words, in every normalization mode and on
/// every path: in-memory utterances, files, boosted words and terms.
@Suite("Text in two Unicode normal forms")
struct UnicodeNormalFormTests {
    /// Precomposed (NFC) references; ``decomposed(_:)`` gives the same text in NFD.
    static let references = [
        "the café serves crème brûlée",
        "Noël à São Paulo",
        "naïve Zoë met Chloë in Köln",
        "한국어 발음",
        "Ångström",
    ]

    static let normalizers: [Normalizer] = [
        .standard, .standardEnglish, .verbatim,
        Normalizer(lowercase: false), Normalizer(stripPunctuation: false), Normalizer(hyphens: .join),
    ]

    static func decomposed(_ text: String) -> String { text.decomposedStringWithCanonicalMapping }

    @Test("The test texts really differ in their bytes")
    func textsDiffer() {
        for text in Self.references { #expect(Array(text.utf8) != Array(Self.decomposed(text).utf8)) }
    }

    @Test("An NFD hypothesis against NFC references has no errors", arguments: normalizers.indices)
    func inMemory(normalizer index: Int) throws {
        let options = ScoringOptions(normalizer: Self.normalizers[index])
        let reference = Self.references.enumerated().map { Utterance(id: "u\($0.offset)", text: $0.element) }
        let hypothesis = reference.map { Utterance(id: $0.id, text: Self.decomposed($0.text)) }
        for (ref, hyp) in [(reference, hypothesis), (hypothesis, reference)] {
            let report = try Scorer.score(reference: ref, hypothesis: hyp, options: options)
            #expect(report.totals.counts.errors == 0, "\(Self.normalizers[index].summary)")
            #expect(report.totals.characterErrors == 0)
            #expect(report.confusions.isEmpty)
        }
    }

    @Test("NFD and NFC transcript files score with no errors", arguments: normalizers.indices)
    func files(normalizer index: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-nfc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = Self.references.enumerated().map { Utterance(id: "u\($0.offset)", text: $0.element) }
        let hypothesis = reference.map { Utterance(id: $0.id, text: Self.decomposed($0.text)) }
        let refURL = folder.appendingPathComponent("ref.trn")
        let hypURL = folder.appendingPathComponent("hyp.trn")
        try Data(TranscriptIO.trn(reference).utf8).write(to: refURL)
        try Data(TranscriptIO.trn(hypothesis).utf8).write(to: hypURL)
        let report = try Scorer.score(
            reference: refURL, hypothesis: hypURL, options: ScoringOptions(normalizer: Self.normalizers[index]))
        #expect(report.totals.counts.errors == 0, "\(Self.normalizers[index].summary)")
        #expect(report.totals.counts.referenceWords > 10)
    }

    @Test("A boosted word or term written in NFD still matches NFC and NFD transcripts", arguments: normalizers.indices)
    func boosted(normalizer index: Int) throws {
        let reference = [Utterance(id: "a", text: "order a crème brûlée"), Utterance(id: "b", text: "visit Köln")]
        let hypothesis = [
            Utterance(id: "a", text: Self.decomposed("order a crème brûlée")),
            Utterance(id: "b", text: "visit Koln"),
        ]
        let options = ScoringOptions(
            normalizer: Self.normalizers[index],
            boostedWords: [Self.decomposed("crème brûlée"), Self.decomposed("Köln")],
            terms: [Self.decomposed("crème brûlée"), Self.decomposed("Köln")])
        let report = try Scorer.score(reference: reference, hypothesis: hypothesis, options: options)
        let boosted = try #require(report.boosted)
        #expect(boosted.boostedReferenceWords == 3)
        // "Koln" for "Köln" is the only error, but for the English rules, which drop accents as Whisper does.
        let foldsAccents = Self.normalizers[index].english != nil
        #expect(boosted.boostedErrors == (foldsAccents ? 0 : 1))
        let terms = try #require(report.keywords).terms.prefix(2)
        #expect(terms.map(\.said) == [1, 1])
        #expect(terms.map(\.hits) == (foldsAccents ? [1, 1] : [1, 0]))
    }

    @Test("The normalizer's words are NFC whatever form they came in")
    func normalizerComposes() {
        for normalizer in Self.normalizers {
            for text in Self.references {
                let words = normalizer.normalize(Self.decomposed(text))
                #expect(words.map { Array($0.utf8) } == normalizer.normalize(text).map { Array($0.utf8) })
                #expect(words.allSatisfy { Array($0.utf8) == Array($0.precomposedStringWithCanonicalMapping.utf8) })
            }
        }
    }

    @Test("Character distance and alignment count an NFD accent as no error")
    func characters() {
        for text in Self.references {
            #expect(Aligner.characterDistance(reference: text, hypothesis: Self.decomposed(text)) == 0)
            #expect(Aligner.alignCharacters(reference: text, hypothesis: Self.decomposed(text)).counts.errors == 0)
        }
    }
}
