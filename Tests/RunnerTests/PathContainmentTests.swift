import Corpus
import Formats
import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// A manifest names audio only inside the suite's folder and the folders its corpus allows, and reports
/// name audio relative to the suite, never by an absolute path of the machine.
@Suite("Paths a suite may read")
struct PathContainmentTests {
    /// A suite folder with one corpus whose manifest line names `audio`.
    func suite(audio: String, allow: String? = nil) throws -> (Suite, Suite.Corpus, URL) {
        let folder = try TestSupport.temporaryDirectory("paths")
        let manifest = folder.appendingPathComponent("corpus/manifest.jsonl")
        try FileManager.default.createDirectory(
            at: manifest.deletingLastPathComponent(), withIntermediateDirectories: true)
        try """
        {"id": "inside", "audio": "audio/a.wav", "text": "one"}
        {"id": "second", "audio": "\(audio)", "text": "two"}

        """.write(to: manifest, atomically: true, encoding: .utf8)
        let file = folder.appendingPathComponent("suite.yaml")
        try """
        name: paths
        corpora:
          - {name: c, manifest: corpus/manifest.jsonl, role: anti-context\(allow.map { ", allow-outside-paths: \($0)" } ?? "")}
        variants: []
        modes: [baseline]

        """.write(to: file, atomically: true, encoding: .utf8)
        let suite = try Suite.load(file)
        return (suite, try #require(suite.corpora.first), manifest)
    }

    @Test("A ../ escape is refused, naming the manifest line; --allow-outside-paths reads it")
    func dotDotEscapeRefused() throws {
        let (suite, corpus, manifest) = try suite(audio: "../../../../../../etc/passwd")
        let error = try #require(throws: CorpusError.self) { try suite.entries(of: corpus, allowOutsidePaths: false) }
        guard case .outsideAllowedFolders(let path, let line, let audio, _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(path == manifest.path && line == 2 && audio == "../../../../../../etc/passwd")
        #expect(error.description.contains("manifest.jsonl:2") && error.description.contains("--allow-outside-paths"))
        let all = try suite.entries(of: corpus, allowOutsidePaths: true)
        #expect(all.map(\.audio.path).last == "/etc/passwd")
    }

    @Test("A ../ that stays inside the suite's folder is fine")
    func dotDotInsideAllowed() throws {
        let (suite, corpus, _) = try suite(audio: "../corpus/audio/b.wav")
        #expect(try suite.entries(of: corpus, allowOutsidePaths: false).count == 2)
    }

    @Test("An absolute path is refused without the flag, and read when the corpus allows its folder by name")
    func absolutePath() throws {
        let recording = try #require(TestSupport.cards.first)
        let (suite, corpus, _) = try suite(audio: recording.path)
        #expect(throws: CorpusError.self) { try suite.entries(of: corpus, allowOutsidePaths: false) }
        #expect(try suite.entries(of: corpus, allowOutsidePaths: true).count == 2)

        let (allowing, allowed, _) = try self.suite(audio: recording.path, allow: TestSupport.testData.path)
        #expect(allowed.allowedOutsideFolders == [TestSupport.testData])
        let entries = try allowing.entries(of: allowed, allowOutsidePaths: false)
        #expect(entries.last?.audio == recording)
        // A sibling folder whose name starts like the allowed one is still outside.
        let (sibling, siblingCorpus, _) = try self.suite(
            audio: TestSupport.testData.path + "-other/x.wav", allow: TestSupport.testData.path)
        #expect(throws: CorpusError.self) { try sibling.entries(of: siblingCorpus, allowOutsidePaths: false) }
    }

    @Test("A trn manifest's ids cannot climb out either")
    func trnIDsContained() throws {
        let folder = try TestSupport.temporaryDirectory("paths-trn")
        let manifest = folder.appendingPathComponent("m.trn")
        try "hello (a)\nsecret (../../../etc/shadow)\n".write(to: manifest, atomically: true, encoding: .utf8)
        #expect(throws: CorpusError.self) { try CorpusManifest.load(manifest, allowedFolders: [folder]) }
    }

    @Test("Audio is reported relative to the suite's folder, with .. steps for an allowed folder elsewhere")
    func reportedPaths() throws {
        let (suite, _, _) = try suite(audio: "audio/b.wav")
        #expect(suite.reportedPath(suite.folder.appendingPathComponent("corpus/audio/a.wav")) == "corpus/audio/a.wav")
        let outside = suite.reportedPath(URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data/cards/001.wav"))
        #expect(
            !outside.hasPrefix("/") && outside.hasPrefix("../")
                && outside.hasSuffix("/usr/share/pocketsphinx/test/data/cards/001.wav"))
        #expect(
            RelativePath.from(URL(fileURLWithPath: "/a/d"), to: URL(fileURLWithPath: "/a/b/c.wav"))
                == "../b/c.wav")
    }
}

@Suite("Reports name no absolute path", .serialized)
struct ReportPathTests {
    @Test(
        "gambit run writes report.json and report.html without an absolute path of the machine, and the player finds the audio"
    )
    func noAbsolutePaths() throws {
        let suite = try MiniSuite(extra: "cache: output")
        // Started from a sibling folder, so the suite's own path needs a `..` step too.
        let workingDirectory = try TestSupport.temporaryDirectory("elsewhere")
        let output = workingDirectory.appendingPathComponent("out")
        let run = try TestSupport.gambit(
            ["run", suite.suiteFile.path, "--output", "out", "--workers", "1"], in: workingDirectory)
        try #require(run.status == 0, "\(run.output)")
        let json = try String(contentsOf: output.appendingPathComponent("report.json"), encoding: .utf8)
        let html = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        // The recordings under /usr/share are reached by `..` steps from the suite's folder (the corpus allows
        // that folder by name); no value or text starts with a `/`.
        let machinePaths = [
            suite.folder.path, workingDirectory.path, FileManager.default.currentDirectoryPath, NSHomeDirectory(),
        ]
        let absolute = try Regex(#"["'>=\s]/[A-Za-z0-9_.~-]"#)
        for (name, text) in [("report.json", json), ("report.html", html)] {
            for path in machinePaths {
                #expect(!text.contains(path), "\(name) shows \(path)")
            }
            let found = text.matches(of: absolute).map { text[$0.range.lowerBound...].prefix(60) }
            #expect(found.isEmpty, "\(name) has absolute paths: \(found.prefix(3))")
        }
        // Every player's source is relative to the report and names a file that exists.
        let sources = html.components(separatedBy: "<audio controls preload=\"none\" src=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(sources.count > 10)
        try checkSuiteLocalCache(output, suite: suite)
        for source in sources {
            let decoded = try #require(source.removingPercentEncoding)
            #expect(!decoded.hasPrefix("/"))
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(decoded).path), "\(source)")
        }
    }

    /// The same run kept its models in its own output folder (`cache: output`), where `gambit cache list` finds
    /// them; nothing was written to the user's cache for it.
    func checkSuiteLocalCache(_ output: URL, suite: MiniSuite) throws {
        let cache = Runner.outputCacheFolder(in: output)
        let entries = ModelCache(folder: cache).entries()
        #expect(entries.map(\.kind) == ["prepared"], "\(entries.map(\.name))")
        let list = try TestSupport.gambit(["cache", "list", "--cache-dir", cache.path, "--suite", suite.suiteFile.path])
        #expect(list.status == 0 && list.output.contains("prepared/chess-"), "\(list.output)")
        let user = ModelCache(folder: Toolchain.defaultCacheFolder)
        #expect(user.entries(of: try Suite.load(suite.suiteFile)).isEmpty)
    }
}
