import Formats
import Foundation
import Testing

@testable import Scoring

/// `ScoreReport.jsonData()` writes the per-utterance array itself; these tests hold it to what `JSONEncoder` writes.
struct ReportJSONTests {
    static func encoderBytes(_ report: ScoreReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(report)
    }

    @Test func matchesJSONEncoderByteForByte() throws {
        // Ids and speakers with every character JSON escapes, non-ASCII text, missing speakers, aligned text and
        // boosted words: each optional field both present and absent somewhere.
        let reference = [
            Utterance(id: "a/b", text: "the cat sat", speaker: "spk \"one\""),
            Utterance(id: "tab\tquote\"back\\slash", text: "über café naïve", speaker: nil),
            Utterance(id: "ctl\u{1}\u{1f}\u{8}\u{c}\n\r\u{7f}", text: "cat", speaker: "s/2"),
            Utterance(id: "emoji😀\u{2028}", text: "a b c d", speaker: "spk \"one\""),
            Utterance(id: "empty", text: "", speaker: nil),
        ]
        let hypothesis = [
            Utterance(id: "a/b", text: "the hat sat down"),
            Utterance(id: "tab\tquote\"back\\slash", text: "uber cafe naïve"),
            Utterance(id: "ctl\u{1}\u{1f}\u{8}\u{c}\n\r\u{7f}", text: ""),
            Utterance(id: "emoji😀\u{2028}", text: "a c d e"),
            Utterance(id: "empty", text: "spurious"),
        ]
        for options in [
            ScoringOptions(),
            ScoringOptions(boostedWords: ["cat", "naïve"], terms: ["cat sat"], includeAlignedText: true),
        ] {
            let report = try Scorer.score(reference: reference, hypothesis: hypothesis, options: options)
            let ours = try report.jsonData()
            let expected = try Self.encoderBytes(report)
            #expect(
                ours == expected,
                "first difference at byte \(Array(zip(ours, expected)).firstIndex { $0 != $1 } ?? min(ours.count, expected.count))"
            )
            #expect(try JSONDecoder().decode(ScoreReport.self, from: ours) == report)
        }
    }

    @Test func writesExtremeIntegers() throws {
        var writer = UtteranceJSONWriter(capacity: 64)
        for value in [0, 7, 10, -1, -4200, Int.max, Int.min] {
            writer.bytes.removeAll()
            writer.integer(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
        }
    }

    @Test func reportWithoutUtterancesIsTheEncodersOwn() throws {
        var report = try Scorer.score(
            reference: [Utterance(id: "u", text: "a")], hypothesis: [Utterance(id: "u", text: "a")])
        report.utterances = []
        #expect(try report.jsonData() == Self.encoderBytes(report))
    }
}
