import Formats
import Foundation
import Testing

@testable import Scoring

/// Ids Gambit accepts are written into `trn` and `ctm` files the way the report writer does
/// (`TranscriptReport` calls ``TranscriptIO/trn(_:)`` and ``TranscriptIO/ctm(_:)`` with the utterance id as the
/// `trn` id and the `ctm` file) and must read back as the same ids; ids the readers would misread are refused with
/// their line.
@Suite("Utterance ids round-trip through trn and ctm")
struct UtteranceIDRoundTripTests {
    /// Ids the corpus loader accepts (no whitespace, parenthesis or control character, no leading `;;`).
    static let ids = [
        "chess-007-slt-noise15", "utt_01", "café.3", "分-1", "a:b", "x[1]", "y{2}", "a,b;c", "q'1", "1",
    ]

    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("trn references and ctm hypotheses written from accepted ids score with the same ids and no errors")
    func roundTrip() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let utterances = Self.ids.enumerated().map { index, id in
            Utterance(id: id, text: "play the albin counter gambit number \(index)")
        }
        let reference = directory.appendingPathComponent("ref.trn")
        try Data(TranscriptIO.trn(utterances).utf8).write(to: reference)
        let words = utterances.flatMap { utterance in
            utterance.text.split(separator: " ").enumerated().map { index, word in
                TimedWord(file: utterance.id, start: Double(index) * 0.3, duration: 0.3, word: String(word))
            }
        }
        let hypothesis = directory.appendingPathComponent("hyp.ctm")
        try Data(TranscriptIO.ctm(words).utf8).write(to: hypothesis)
        let hypothesisTRN = directory.appendingPathComponent("hyp.trn")
        try Data(TranscriptIO.trn(utterances).utf8).write(to: hypothesisTRN)

        #expect(try TranscriptIO.read(reference).utterances.map(\.id) == Self.ids)
        #expect(try TranscriptIO.read(hypothesis).utterances.map(\.id) == Self.ids)
        #expect(try TranscriptIO.readCTMWords(hypothesis).map(\.file) == words.map(\.file))
        for file in [hypothesis, hypothesisTRN] {
            let report = try Scorer.score(
                reference: reference, hypothesis: file, options: .init(missingHypothesis: .error))
            #expect(report.utterances.map(\.id) == Self.ids)
            #expect(report.totals.counts.errors == 0 && report.warnings.isEmpty)
        }
    }

    @Test(
        "A trn id holding a parenthesis is refused with its line instead of being read as a shorter id",
        arguments: [("good (a)\nplay it (utt(1))\n", "utt(1)"), ("good (a)\nplay it (a(b)\n", "a(b")])
    func trnParenthesis(text: String, id: String) throws {
        let error = try #require(throws: ScoringError.self) {
            try TranscriptIO.parse(text, format: .trn, path: "hyp.trn")
        }
        guard case .malformedLine("hyp.trn", 2, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(reason.contains("'\(id)'") && reason.contains("parenthesis"))
    }

    @Test("A trn id holding a control character is refused with its line")
    func trnControl() throws {
        let error = try #require(throws: ScoringError.self) {
            try TranscriptIO.parse("one (a)\ntwo (b\u{1}c)\n", format: .trn, path: "hyp.trn")
        }
        #expect(error.description.hasPrefix("hyp.trn:2:") && error.description.contains("control character"))
    }

    @Test("Parentheses that close inside a trn text stay text")
    func trnBalanced() throws {
        let file = try TranscriptIO.parse("um (%hesitation) yes (a)\n", format: .trn)
        #expect(file.utterances == [Utterance(id: "a", text: "um (%hesitation) yes", speaker: nil)])
    }

    @Test("A ctm line whose id held a space is refused, and the message says why")
    func ctmSpace() throws {
        let text = TranscriptIO.ctm([TimedWord(file: "utt 7", start: 0, duration: 0.5, word: "play")])
        let error = try #require(throws: ScoringError.self) {
            try TranscriptIO.parse(text, format: .ctm, path: "h.ctm")
        }
        #expect(error.description.hasPrefix("h.ctm:1:") && error.description.contains("cannot hold a space"))
    }
}
