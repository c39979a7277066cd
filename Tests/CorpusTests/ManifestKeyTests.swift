import Corpus
import Foundation
import GambitTestSupport
import Testing

/// A misspelt key in a JSON-lines manifest used to be ignored: `"spilt": "test"` left the entry in
/// every split.
@Suite("Manifest keys")
struct ManifestKeyTests {
    @Test(
        "A misspelt key is an error with the line and the nearest known key",
        arguments: [
            ("spilt", "did you mean \"split\"?"), ("txt", "did you mean \"text\"?"),
            ("Speaker", "did you mean \"speaker\"?"),
            ("durration", "did you mean \"duration\"?"),
        ])
    func unknownKey(key: String, message: String) throws {
        let folder = try TestSupport.temporaryDirectory("manifest-keys")
        let manifest = folder.appendingPathComponent("m.jsonl")
        try """
        {"id": "a1", "audio": "a1.wav", "text": "ten of clubs", "split": "test"}
        {"id": "a2", "audio": "a2.wav", "text": "ten of clubs", "\(key)": "x"}

        """.write(to: manifest, atomically: true, encoding: .utf8)
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(manifest) }
        #expect("\(error)".contains("m.jsonl:2"), "\(error)")
        #expect("\(error)".contains("unknown key \"\(key)\""), "\(error)")
        #expect("\(error)".contains(message), "\(error)")
    }

    @Test("Another tool's metadata, far from every key of ours, is kept out of the way")
    func otherMetadata() throws {
        let folder = try TestSupport.temporaryDirectory("manifest-keys")
        let manifest = folder.appendingPathComponent("m.jsonl")
        try #"{"id": "a1", "audio": "a1.wav", "text": "t", "offset": 0.5, "lang": "en", "extra": [1, 2]}"#
            .appending("\n").write(to: manifest, atomically: true, encoding: .utf8)
        #expect(try CorpusManifest.load(manifest).map(\.id) == ["a1"])
    }

    @Test("Every key Gambit writes is read back")
    func allKeys() throws {
        let folder = try TestSupport.temporaryDirectory("manifest-keys")
        let manifest = folder.appendingPathComponent("m.jsonl")
        try
            #"{"id": "a1", "audio": "a1.wav", "text": "t", "speaker": "s", "split": "dev", "condition": "clean", "duration": 1.5}"#
            .appending("\n").write(to: manifest, atomically: true, encoding: .utf8)
        let entries = try CorpusManifest.load(manifest)
        #expect(entries.first?.split == "dev" && entries.first?.duration == 1.5)
    }
}
