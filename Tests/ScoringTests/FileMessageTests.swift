import Formats
import Foundation
import Scoring
import Testing

/// Files that used to get a message naming the wrong thing: a Cocoa error number for a folder, "found 3 columns"
/// for a row of 4 whose id is empty.
@Suite("Messages about transcript files")
struct FileMessageTests {
    func write(_ text: String, _ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The error scoring `reference` against a one-utterance hypothesis, with the folder's path shortened.
    func failure(_ reference: String, in directory: URL) throws -> String {
        let hypothesis = try write("u1 a\n", "hyps", in: directory)
        let url = try write(reference, "refs.tsv", in: directory)
        do {
            _ = try Scorer.score(reference: url, hypothesis: hypothesis)
            return "no error"
        } catch let error as ScoringError {
            return error.description.replacingOccurrences(of: directory.path + "/", with: "")
        }
    }

    @Test("A folder where a transcript belongs, and a file in a missing folder, say so in words")
    func folderOrMissingFolder() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: ScoringError.unreadableFile(path: directory.path, reason: "it is a folder, not a file")) {
            _ = try TranscriptIO.read(directory)
        }
        let inMissingFolder = directory.appendingPathComponent("none/hyp.trn")
        #expect(
            throws: ScoringError.unreadableFile(
                path: inMissingFolder.path, reason: "no such folder: \(directory.path)/none")
        ) { _ = try TranscriptIO.read(inMissingFolder) }
        let error = try #require(throws: ScoringError.self) {
            _ = try Scorer.score(reference: try write("a (u1)\n", "ref.trn", in: directory), hypothesis: directory)
        }
        #expect(!error.description.contains("NSCocoaErrorDomain"), "\(error)")
    }

    @Test("An empty or blank file says so and what it means, whatever its format; /dev/null is named a device")
    func emptyFileOrDevice() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = "is empty, so it has no utterances"
        let blank = "holds only blank lines and comments, so it has no utterances"
        // By extension, by content, and in a format named for it.
        #expect(try failure("", in: directory).contains("refs.tsv: the file \(empty)"))
        #expect(try failure("\n \t\n\n", in: directory).contains("refs.tsv: the file \(blank)"))
        for (name, format) in [("hyp.trn", nil), ("hyp.txt", nil), ("hyp.txt", TranscriptFormat.kaldi)] {
            let file = try write("", name, in: directory)
            #expect(throws: ScoringError.emptyFile(path: file.path, blank: false)) {
                _ = try TranscriptIO.read(file, format: format)
            }
        }
        let comments = try write(";; nothing yet\n", "hyp.txt", in: directory)
        #expect(throws: ScoringError.emptyFile(path: comments.path, blank: true)) {
            _ = try TranscriptIO.read(comments)
        }
        let reference = try write("a (u1)\n", "ref.trn", in: directory)
        let error = try #require(throws: ScoringError.self) {
            _ = try Scorer.score(reference: reference, hypothesis: URL(fileURLWithPath: "/dev/null"))
        }
        #expect(error == .notAFile(path: "/dev/null", kind: "a character device"))
        #expect("\(error)".contains("/dev/null: this is a character device, not a file"), "\(error)")
        #expect(!"\(error)".contains("ermission"), "\(error)")
        #expect(throws: ScoringError.notAFile(path: "/dev/null", kind: "a character device")) {
            _ = try TranscriptIO.format(of: URL(fileURLWithPath: "/dev/null"))
        }
    }

    @Test(
        "Half a UTF-16 surrogate pair in a JSON line is refused, naming the line, not read as U+FFFD",
        arguments: [#"caf\ud800"#, #"\udc00 gambit"#, #"\ud83d\u0041"#, #"\ud83d"#])
    func loneSurrogate(text: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try write(
            #"{"id": "u1", "text": "ok"}"# + "\n" + #"{"id": "u2", "text": ""# + text + "\"}\n", "hyp.jsonl",
            in: directory)
        let error = try #require(throws: ScoringError.self) { _ = try TranscriptIO.read(file) }
        #expect("\(error)".contains("hyp.jsonl:2: not a JSON object"), "\(error)")
        #expect("\(error)".contains("is half of a UTF-16 surrogate pair without its other half"), "\(error)")
        // A whole pair is one character.
        let paired = try write(#"{"id": "u1", "text": "\ud83d\ude00"}"# + "\n", "pair.jsonl", in: directory)
        #expect(try TranscriptIO.read(paired).utterances.first?.text == "\u{1F600}")
    }

    @Test(
        "A reader asked to keep lines that are not UTF-8 sets them aside by id with the byte's offset; an id that is not UTF-8 is still refused",
        arguments: [
            ("hyp.trn", "play the queen (u1)\n", "caf", " au lait (u2)\n"),
            ("hyp.txt", "u1 play the queen\n", "u2 caf", " au lait\n"),
            ("hyp.jsonl", #"{"id": "u1", "text": "play the queen"}"# + "\n", #"{"id": "u2", "text": "caf"#, "\"}\n"),
        ])
    func keptNotUTF8(name: String, first: String, before: String, after: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(name)
        let offset = first.utf8.count + before.utf8.count
        try Data(Array(first.utf8) + Array(before.utf8) + [0xE9] + Array(after.utf8)).write(to: url)
        #expect(throws: ScoringError.self) { _ = try TranscriptIO.read(url) }
        let kept = try TranscriptIO.read(url, keepingInvalidUTF8: true)
        #expect(kept.utterances.map(\.id) == ["u1", "u2"])
        #expect(kept.invalidUTF8 == [InvalidUTF8Utterance(id: "u2", line: 2, offset: offset, byte: 0xE9)])
        // An id that is not UTF-8 names no utterance: the file is refused, naming the line.
        let badID = directory.appendingPathComponent("id-" + name)
        let line =
            name == "hyp.jsonl"
            ? Array(#"{"id": "u"#.utf8) + [0xE9] + Array(#"", "text": "a"}"#.utf8)
            : name == "hyp.trn"
                ? Array("a (u".utf8) + [0xE9] + Array(")".utf8) : Array("u".utf8) + [0xE9] + Array(" a".utf8)
        try Data(Array(first.utf8) + line + [0x0A]).write(to: badID)
        let error = try #require(throws: ScoringError.self) {
            _ = try TranscriptIO.read(badID, keepingInvalidUTF8: true)
        }
        #expect("\(error)".contains(":2: invalid UTF-8"), "\(error)")
    }

    @Test("A biasing row with an empty id or an empty last column has its 4 columns counted, and says which is empty")
    func emptyFirstOrLastColumn() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emptyID = try failure("u1\ta\t[\"a\"]\t[\"a\"]\n\tb c\t[]\t[]\n", in: directory)
        #expect(emptyID.contains("refs.tsv:2: column 1 (the utterance id) is empty, before the reference text \"b c\""))
        #expect(!emptyID.contains("found 3") && !emptyID.contains("trn line"), "\(emptyID)")
        let emptyLast = try failure("u1\ta\t[\"a\"]\t\n", in: directory)
        #expect(emptyLast.contains("refs.tsv:1: utterance 'u1': column 4 (the whole biasing list) is not a JSON list"))
        #expect(emptyLast.contains("write [] for none") && !emptyLast.contains("found 3"), "\(emptyLast)")
        // Spaces before the id and a CRLF line end are still no columns.
        #expect(try failure("  u1\ta\t[\"a\"]\t[\"a\"]\r\n", in: directory) == "no error")
    }
}
