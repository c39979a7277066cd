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
