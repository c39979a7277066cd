import Formats
import Foundation
import Testing

@testable import Scoring

@Suite("Transcript files and malformed input")
struct InteropTests {
    func write(_ text: String, _ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func scoringError(_ body: () throws -> Void) -> ScoringError? {
        do {
            try body()
            return nil
        } catch let error as ScoringError {
            return error
        } catch {
            return nil
        }
    }

    @Test func readsTRN() throws {
        let file = try TranscriptIO.parse(
            "the cat (spk1_u1)\n\n;; comment\n  (spk2_u2)\nx y z\t(u3)  \r\n", format: .trn)
        #expect(
            file.utterances == [
                Utterance(id: "spk1_u1", text: "the cat", speaker: "spk1"),
                Utterance(id: "spk2_u2", text: "", speaker: "spk2"),
                Utterance(id: "u3", text: "x y z", speaker: nil),
            ])
    }

    @Test func missingIDNamesFileAndLine() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ref = try write("a b (u1)\nno id here\n", "ref.trn", in: directory)
        let hyp = try write("a b (u1)\n", "hyp.trn", in: directory)
        let error = scoringError { _ = try Scorer.score(reference: ref, hypothesis: hyp) }
        #expect(error == .missingUtteranceID(path: ref.path, line: 2, text: "no id here"))
        #expect(error?.description.contains("ref.trn:2: missing utterance id") == true)
    }

    @Test func duplicateIDNamesBothLines() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ref = try write("a b (u1)\nc (u2)\nd (u1)\n", "ref.trn", in: directory)
        let hyp = try write("a b (u1)\n", "hyp.trn", in: directory)
        let error = scoringError { _ = try Scorer.score(reference: ref, hypothesis: hyp) }
        #expect(error == .duplicateUtteranceID(path: ref.path, id: "u1", firstLine: 1, line: 3))
        #expect(error?.description.contains("duplicate utterance id 'u1' (first on line 1)") == true)
    }

    @Test("Ids that differ but would print alike are told apart: control characters escaped, code points shown")
    func idsThatPrintAlike() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift compares canonically: only the code points tell them apart.
        #expect(PrintedName.escaped("u1\u{0}") == "u1\\u{0}")
        #expect(PrintedName.escaped("a\u{200B}b\nc") == "a\\u{200B}b\\nc")
        #expect(
            PrintedName.distinguished([nfc, "u2"], from: [nfd]) == ["caf\u{E9} (U+0063 U+0061 U+0066 U+00E9)", "u2"])
        #expect(PrintedName.alone(nfd) == "cafe\u{301} (U+0063 U+0061 U+0066 U+0065 U+0301)")
        let none = ScoringError.noCommonUtterances(
            reference: "ref.trn", hypothesis: "hyp.trn", referenceSample: [nfc, "u1"],
            hypothesisSample: [nfd, "u1\u{0}"])
        #expect(none.description.contains("reference has e.g. caf\u{E9} (U+0063 U+0061 U+0066 U+00E9), u1;"), "\(none)")
        #expect(
            none.description.contains(
                "hypothesis has e.g. cafe\u{301} (U+0063 U+0061 U+0066 U+0065 U+0301), u1\\u{0})"),
            "\(none)")
        #expect(!none.description.contains("\u{0}"))
        let duplicate = ScoringError.duplicateUtteranceID(path: "ref.trn", id: nfd, firstLine: 1, line: 2)
        #expect(duplicate.description.contains("'cafe\u{301} (U+0063 U+0061 U+0066 U+0065 U+0301)'"), "\(duplicate)")

        // In `gambit score`, an id each file has in another normal form is named in both warnings with its code
        // points.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ref = try write("a b (u1)\nc (\(nfc))\n", "ref.trn", in: directory)
        let hyp = try write("a b (u1)\nc (\(nfd))\n", "hyp.trn", in: directory)
        let report = try Scorer.score(reference: ref, hypothesis: hyp)
        let messages = report.warnings.map(\.message)
        #expect(report.unscored.onlyInHypothesis == 1)
        #expect(messages.contains { $0.contains("(caf\u{E9} (U+0063 U+0061 U+0066 U+00E9))") }, "\(messages)")
        #expect(messages.contains { $0.contains("(cafe\u{301} (U+0063 U+0061 U+0066 U+0065 U+0301))") }, "\(messages)")
    }

    @Test func invalidUTF8NamesLineAndID() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ref = try write("a b (u1)\n", "ref.trn", in: directory)
        let hyp = directory.appendingPathComponent("hyp.trn")
        try Data("a b (u1)\nca".utf8 + [0xE9] + Data(" (u2)\n".utf8)).write(to: hyp)
        let error = scoringError { _ = try Scorer.score(reference: ref, hypothesis: hyp) }
        #expect(error == .invalidUTF8(path: hyp.path, line: 2, id: "u2"))
    }

    @Test func idsOnlyOnOneSideAreWarnedAndCounted() throws {
        let reference = [
            Utterance(id: "u1", text: "a b"), Utterance(id: "u2", text: "c d"), Utterance(id: "u3", text: "e"),
        ]
        let hypothesis = [Utterance(id: "u1", text: "a b"), Utterance(id: "u9", text: "x")]
        // By default, as in sclite, a missing hypothesis is scored as empty: all deletions.
        let report = try Scorer.score(reference: reference, hypothesis: hypothesis)
        #expect(report.unscored == UnscoredUtterances(onlyInReference: 0, onlyInHypothesis: 1, scoredAsEmpty: 2))
        #expect(report.totals.utterances == 3)
        #expect(report.totals.counts.deletions == 3)
        #expect(report.totals.wordErrorRate == 3.0 / 5.0)
        let onlyRef = try #require(report.warnings.first { $0.kind == .onlyInReference })
        #expect(onlyRef.ids == ["u2", "u3"])
        #expect(onlyRef.description.contains("u2, u3"))
        let onlyHyp = try #require(report.warnings.first { $0.kind == .onlyInHypothesis })
        #expect(onlyHyp.ids == ["u9"])

        var options = ScoringOptions()
        options.missingHypothesis = .skip
        let skipped = try Scorer.score(reference: reference, hypothesis: hypothesis, options: options)
        #expect(skipped.unscored == UnscoredUtterances(onlyInReference: 2, onlyInHypothesis: 1))
        #expect(skipped.totals.utterances == 1)

        options.missingHypothesis = .error
        let error = scoringError {
            _ = try Scorer.score(reference: reference, hypothesis: hypothesis, options: options)
        }
        #expect(error == .missingHypotheses(hypothesis: "hypothesis", missing: 2, references: 3, sample: ["u2", "u3"]))
    }

    @Test func noCommonIDs() {
        let error = scoringError {
            _ = try Scorer.score(
                reference: [Utterance(id: "a", text: "x")], hypothesis: [Utterance(id: "b", text: "x")])
        }
        guard case .noCommonUtterances(_, _, let referenceSample, let hypothesisSample) = error else {
            Issue.record("expected noCommonUtterances, got \(String(describing: error))")
            return
        }
        #expect(referenceSample == ["a"])
        #expect(hypothesisSample == ["b"])
    }

    @Test func readsJSONLines() throws {
        let text = """
            {"id": "u1", "text": "caf\\u00e9 \\"ok\\"", "speaker": "s1", "extra": {"nested": [1, 2]}}
            {"id": 42, "text": "", "duration": 1.5}

            """
        let file = try TranscriptIO.parse(text, format: .jsonl)
        #expect(
            file.utterances == [
                Utterance(id: "u1", text: "café \"ok\"", speaker: "s1"), Utterance(id: "42", text: "", speaker: nil),
            ])
    }

    @Test func malformedJSONLines() {
        #expect(
            scoringError { _ = try TranscriptIO.parse("{\"text\": \"a\"}\n", format: .jsonl) }
                == .missingUtteranceID(path: "<memory>", line: 1, text: "{\"text\": \"a\"}"))
        guard
            case .malformedLine(_, 2, let reason) = scoringError({
                _ = try TranscriptIO.parse("{\"id\": \"a\", \"text\": \"\"}\n{\"id\": \"b\"}\n", format: .jsonl)
            })
        else {
            Issue.record("expected malformedLine on line 2")
            return
        }
        #expect(reason.contains("'b' has no \"text\""))
    }

    @Test func ctmAndSTMRoundTrip() throws {
        let words = [
            TimedWord(file: "f1", start: 1.0, duration: 0.2, word: "cat", confidence: 0.9),
            TimedWord(file: "f1", start: 0.5, duration: 0.2, word: "the"),
            TimedWord(file: "f2", start: 0.1, duration: 0.3, word: "hello"),
        ]
        let ctm = try TranscriptIO.parse(TranscriptIO.ctm(words), format: .ctm)
        #expect(ctm.utterances == [Utterance(id: "f1", text: "the cat"), Utterance(id: "f2", text: "hello")])

        let segments = [
            Segment(file: "f1", speaker: "alice", begin: 0, end: 1, text: "the cat"),
            Segment(file: "f2", speaker: "bob", begin: 0, end: 2, text: "hello"),
        ]
        let stm = try TranscriptIO.parse(TranscriptIO.stm(segments) + ";; comment\n", format: .stm)
        #expect(
            stm.utterances == [
                Utterance(id: "f1", text: "the cat", speaker: "alice"),
                Utterance(id: "f2", text: "hello", speaker: "bob"),
            ])
        #expect(scoringError { _ = try TranscriptIO.parse("f1 1 x y\n", format: .ctm) } != nil)
    }

    @Test(
        "a ctm line with a negative duration, a time that is not finite or a confidence outside 0…1 is refused",
        arguments: [
            ("f1 1 0.50 -0.20 cat", "duration '-0.20'"), ("f1 1 nan 0.20 cat", "start time 'nan'"),
            ("f1 1 0.50 inf cat", "duration 'inf'"), ("f1 1 -1 0.20 cat", "start time '-1'"),
            ("f1 1 0.50 0.20 cat 7.5", "confidence '7.5'"), ("f1 1 0.50 0.20 cat high", "confidence 'high'"),
        ])
    func badCTMLines(line: String, expected: String) {
        let error = scoringError { _ = try TranscriptIO.parse("f1 1 0.10 0.20 the\n" + line + "\n", format: .ctm) }
        guard case .malformedLine(_, let number, let reason) = error else {
            Issue.record("expected malformedLine, got \(String(describing: error))")
            return
        }
        #expect(number == 2)
        #expect(reason.contains(expected), "\(reason)")
    }

    @Test("an stm segment that ends before it begins is refused")
    func badSTMTimes() {
        let error = scoringError { _ = try TranscriptIO.parse("f1 1 alice 2.0 1.0 the cat\n", format: .stm) }
        guard case .malformedLine(_, 1, let reason) = error else {
            Issue.record("expected malformedLine, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("0 ≤ begin ≤ end"))
    }

    @Test func trnRoundTripAndFormatInference() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let utterances = [
            Utterance(id: "s_1", text: "a b", speaker: "s"), Utterance(id: "s_2", text: "", speaker: "s"),
        ]
        let url = try write(TranscriptIO.trn(utterances), "hyp.txt", in: directory)
        #expect(try TranscriptIO.read(url).utterances == utterances)
        // A line that is no other format is Kaldi text: the id, then the words.
        let kaldi = try write("plain words\n", "x.dat", in: directory)
        #expect(try TranscriptIO.read(kaldi).utterances == [Utterance(id: "plain", text: "words")])
        let unknown = try write("\n  \n", "x.dat", in: directory)
        #expect(scoringError { _ = try TranscriptIO.read(unknown) } == .emptyFile(path: unknown.path, blank: true))
        let missing = directory.appendingPathComponent("missing.trn")
        #expect(
            scoringError { _ = try TranscriptIO.read(missing) }
                == .unreadableFile(path: missing.path, reason: "no such file"))
    }

    @Test(
        "Kaldi text whose words are digits is Kaldi text when a line is no other format",
        arguments: [
            // Line 1 reads as ctm and stm too (start 2, duration 0, confidence 1; begin 0, end 7).
            "utt1 4 2 0 7 1\nutt2 nine one one\nutt3 5 5 5\n",
            // Line 1 reads as stm too; line 2 is too short for either.
            "u1 1 2 3 4 5 6 7\nu2 9 1 1\n",
            // Line 2 reads as ctm too, after a line that does not.
            "u1 call home\nu2 0 1 2 3\n",
        ])
    func digitKaldiText(text: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try write(text, "text", in: directory)
        let file = try TranscriptIO.read(url)
        #expect(file.format == .kaldi)
        #expect(file.utterances == (try TranscriptIO.parse(text, format: .kaldi)).utterances)
        let guess = try TranscriptIO.format(of: url)
        #expect(guess.format == .kaldi && guess.fromContent)
        // Scored against itself, every word is right: no line was read as a ctm word or an stm segment.
        let report = try Scorer.score(reference: url, hypothesis: url)
        #expect(report.totals.counts.errors == 0 && report.totals.utterances == file.utterances.count)
    }

    @Test("A file whose every line reads as several formats is refused until the format is named")
    func ambiguousFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let digits = try write("u1 1 2 3 4\nu2 5 6 7 8\n", "text", in: directory)
        #expect(
            scoringError { _ = try TranscriptIO.read(digits) }
                == .ambiguousFormat(path: digits.path, formats: [.ctm, .stm, .kaldi]))
        let pins = try write("u1 0 1 2 3\nu2 3 2 1 0\n", "pins", in: directory)
        let error = scoringError { _ = try TranscriptIO.read(pins) }
        #expect(error == .ambiguousFormat(path: pins.path, formats: [.ctm, .kaldi]))
        #expect(error?.description.contains("every line reads as ctm and Kaldi text alike") == true)
        #expect(error?.description.contains("--ref-format or --hyp-format (ctm, kaldi)") == true)
        // Named, the format is taken as it is, for either side.
        #expect(try TranscriptIO.read(digits, format: .kaldi).utterances.map(\.text) == ["1 2 3 4", "5 6 7 8"])
        let report = try Scorer.score(
            reference: digits, hypothesis: pins,
            options: ScoringOptions(referenceFormat: .kaldi, hypothesisFormat: .kaldi))
        #expect(report.totals.utterances == 2 && report.totals.counts.referenceWords == 8)
    }

    @Test("ctm and stm files are still told from Kaldi text: their file names repeat, Kaldi ids do not")
    func timedFilesByContent() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ctm = try write(
            "f1 1 0.00 0.30 the\nf1 1 0.30 0.20 cat\nf2 1 0.10 0.30 hello 0.9\n", "hyp.txt", in: directory)
        #expect(try TranscriptIO.format(of: ctm).format == .ctm)
        #expect(try TranscriptIO.read(ctm).utterances.map(\.text) == ["the cat", "hello"])
        // A final "(uh)", sclite's optionally deleted word, reads as trn too; the other line does not.
        let stm = try write(
            "f1 1 alice 0.0 1.0 the cat\n;; comment\nf1 1 alice 1.0 2.0 sat (uh)\n", "ref.txt", in: directory)
        #expect(try TranscriptIO.format(of: stm).format == .stm)
        // The extension still decides where it names a format, without a guess to tell.
        let named = try TranscriptIO.format(of: try write("u1 1 2 3 4\n", "ref.ctm", in: directory))
        #expect(named.format == .ctm && !named.fromContent)
    }

    @Test(
        "A file whose lines are in different formats is refused, naming the first line not in the format most are in",
        arguments: [
            (
                "{\"id\": \"u1\", \"text\": \"a\"}\n{\"id\": \"u2\", \"text\": \"b\"}\nc d (u3)\n", 3,
                TranscriptFormat.jsonl, [TranscriptFormat.trn]
            ),
            ("a b (u1)\n\nc d (u2)\nno id here\n", 4, .trn, [.kaldi]),
            (
                "u1\tplay\talbin\talbin\nu2\tcall maria\t[\"maria\"]\t[\"maria\"]\nu3\tx\t[]\t[]\n", 1, .biasingTSV,
                [.kaldi]
            ),
            // A word holding a space shifts the confidence; as Kaldi text, f1 would repeat line 1's id.
            ("f1 1 0.00 0.30 the\nf1 1 0.30 0.20 cat\nf1 1 0.50 0.40 new york\n", 3, .ctm, []),
        ])
    func mixedFiles(text: String, line: Int, format: TranscriptFormat, lineFormats: [TranscriptFormat]) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try write(text, "mixed.txt", in: directory)
        let lines = text.split(separator: "\n").count
        let expected = ScoringError.mixedFormats(
            path: url.path, line: line, format: format, count: lines - 1, lines: lines, lineFormats: lineFormats)
        let error = scoringError { _ = try Scorer.score(reference: url, hypothesis: url) }
        #expect(error == expected)
        #expect(error?.description.hasPrefix("\(url.path):\(line): this line is not \(format.name)") == true)
        // Named, the file is read as that format, and its reader says what is wrong with the line.
        let named = scoringError { _ = try TranscriptIO.read(url, format: format) }
        switch named {
        case .malformedLine(_, line, _)?, .missingUtteranceID(_, line, _)?: break
        default:
            Issue.record("expected the \(format.name) reader to refuse line \(line), got \(String(describing: named))")
        }
    }

    @Test("Kaldi text with a repeated id is still refused for the id, naming both lines")
    func repeatedKaldiID() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try write("u1 a\nu2 b\nu1 c\n", "text", in: directory)
        #expect(
            scoringError { _ = try TranscriptIO.read(url) }
                == .duplicateUtteranceID(path: url.path, id: "u1", firstLine: 1, line: 3))
    }

    /// How fast this is belongs to `ScoringBenchmark`; here, that a large file loads whole and in order.
    @Test func hundredThousandUtterancesLoad() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = ""
        for index in 0..<100_000 {
            text += "the quick brown fox jumps over the lazy dog number \(index % 97) (u\(index))\n"
        }
        let url = try write(text, "big.trn", in: directory)
        let loader = CorpusLoader(normalizer: .standard)
        let transcript = try loader.load(url, format: nil)
        #expect(transcript.count == 100_000)
        #expect(Set(transcript.ids).count == 100_000)
        #expect(transcript.tokens.count == 100_000 * 11)
    }
}
