import Corpus
import Foundation
import GambitTestSupport
import Testing

/// The rule that audio lies inside the allowed folders judges where a path leads once symbolic links are
/// followed, as the kernel follows them when the file is opened.
@Suite("Symbolic links and the allowed folders")
struct SymlinkContainmentTests {
    let recordings = TestSupport.testData.appendingPathComponent("cards")

    func link(_ name: String, to target: String, in folder: URL) throws {
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent(name).path, withDestinationPath: target)
    }

    func manifest(_ audio: [String], in folder: URL) throws -> URL {
        let lines = audio.enumerated().map {
            "{\"id\": \"u\($0.offset)\", \"audio\": \"\($0.element)\", \"text\": \"x\"}"
        }
        return try fixture("manifest.jsonl", lines.joined(separator: "\n") + "\n", in: folder)
    }

    @Test(
        "A link inside the suite folder to a file or folder outside it is refused",
        arguments: [
            ("passwd.wav", "/etc/passwd", "passwd.wav"),
            ("cards", "/usr/share/pocketsphinx/test/data/cards", "cards/001.wav"),
            ("up", "..", "up/secret.wav"),
            ("dangling.wav", "/etc/no-such-file.wav", "dangling.wav"),
        ])
    func linkOutside(name: String, target: String, audio: String) throws {
        let folder = try TestSupport.temporaryDirectory("links")
        try link(name, to: target, in: folder)
        let url = try manifest(["ok.wav", audio], in: folder)
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url, allowedFolders: [folder]) }
        guard case .outsideAllowedFolders(let path, let line, let shown, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == url.path && line == 2)
        #expect(shown.hasPrefix(audio) && shown.contains("a link to"))
        // Without the rule (--allow-outside-paths) the same manifest loads.
        #expect(try CorpusManifest.load(url).count == 2)
    }

    @Test("A link to a folder the corpus allows by name is accepted")
    func linkToAllowedFolder() throws {
        let folder = try TestSupport.temporaryDirectory("links")
        try link("cards", to: recordings.path, in: folder)
        let url = try manifest(["cards/001.wav"], in: folder)
        let entries = try CorpusManifest.load(url, allowedFolders: [folder, TestSupport.testData])
        #expect(FileManager.default.fileExists(atPath: try #require(entries.first).audio.path))
    }

    @Test("A suite folder that is itself a link holds what its target holds, named either way")
    func linkedSuiteFolder() throws {
        let real = try TestSupport.temporaryDirectory("real-suite")
        let parent = try TestSupport.temporaryDirectory("linked")
        try link("x", to: real.path, in: parent)
        let linked = parent.appendingPathComponent("x")
        try FileManager.default.createDirectory(
            at: real.appendingPathComponent("audio"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: recordings.appendingPathComponent("001.wav"), to: real.appendingPathComponent("audio/a.wav"))
        // A link inside the suite that stays inside it is fine too.
        try link("b.wav", to: "audio/a.wav", in: real)
        _ = try manifest(["audio/a.wav", "b.wav", "audio/not-yet-made.wav"], in: real)
        let viaLink = linked.appendingPathComponent("manifest.jsonl")
        for allowed in [linked, real] {
            #expect(try CorpusManifest.load(viaLink, allowedFolders: [allowed]).count == 3)
            #expect(
                try CorpusManifest.load(real.appendingPathComponent("manifest.jsonl"), allowedFolders: [allowed]).count
                    == 3)
        }
        #expect(CorpusManifest.isInside(linked.appendingPathComponent("audio/a.wav"), real))
        #expect(!CorpusManifest.isInside(linked.appendingPathComponent("../elsewhere.wav"), real))
    }
}
