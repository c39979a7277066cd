import Foundation
import GambitTestSupport
import Results
import Runner
import Testing

/// `--output` must be a folder of its own: never the suite's folder, a folder holding it, or the folder
/// of a file the suite reads, where reports would mix with or overwrite the user's files.
@Suite("Output folder apart from the suite")
struct OutputFolderSuiteTests {
    /// `root/project/suite/suite.yaml` with a corpus inside its folder and one in `root/project/outside`.
    func suite() throws -> (root: URL, suite: Suite) {
        let root = try TestSupport.temporaryDirectory("output-apart")
        let folder = root.appendingPathComponent("project/suite")
        let outside = root.appendingPathComponent("project/outside")
        for url in [folder.appendingPathComponent("corpus"), outside] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        let line = #"{"id": "a", "audio": "a.wav", "text": "one"}"# + "\n"
        try line.write(to: folder.appendingPathComponent("corpus/manifest.jsonl"), atomically: true, encoding: .utf8)
        try line.write(to: outside.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        let file = folder.appendingPathComponent("suite.yaml")
        try """
        name: apart
        corpora:
          - {name: c, manifest: corpus/manifest.jsonl, role: anti-context}
          - {name: o, manifest: ../outside/manifest.jsonl, role: anti-context}
        variants: []
        modes: [baseline]

        """.write(to: file, atomically: true, encoding: .utf8)
        return (root, try Suite.load(file))
    }

    @Test(
        "the suite's folder, a folder holding it, or a corpus's folder is refused",
        arguments: ["project/suite", "project/suite/", "project", ".", "project/suite/corpus", "project/outside"])
    func refused(output: String) throws {
        let (root, suite) = try suite()
        let error = try #require(throws: OutputFolderError.self) {
            try OutputFolder.checkSeparate(root.appendingPathComponent(output), from: suite)
        }
        guard case .holdsSuite = error.problem else {
            Issue.record("unexpected problem \(error.problem)")
            return
        }
        #expect(error.description.contains("holds the suite's own files"), "\(error)")
        #expect(error.description.contains("--output"))
    }

    @Test(
        "a folder of its own is fine, inside the suite's folder or beside it",
        arguments: ["project/suite/Reports", "project/Reports", "Reports", "project/suite/corpus-reports"])
    func accepted(output: String) throws {
        let (root, suite) = try suite()
        try OutputFolder.checkSeparate(root.appendingPathComponent(output), from: suite)
    }

    @Test("a link to the suite's folder is refused: links are resolved before comparing")
    func link() throws {
        let (root, suite) = try suite()
        let link = root.appendingPathComponent("reports-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: suite.folder)
        #expect(throws: OutputFolderError.self) { try OutputFolder.checkSeparate(link, from: suite) }
    }

    @Test("gambit run --output on the suite's folder stops before writing anything, and says why")
    func runRefuses() throws {
        let (root, suite) = try suite()
        let before = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted()
        for output in [suite.folder.path, root.appendingPathComponent("project").path] {
            let run = try TestSupport.gambit(["run", suite.file.path, "--output", output], in: root)
            #expect(run.status != 0, "\(run.output)")
            #expect(run.output.contains("holds the suite's own files"), "\(run.output)")
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted() == before)
    }

    @Test("gambit sweep --output on the suite's folder is refused before the sweep starts")
    func sweepRefuses() throws {
        let (root, suite) = try suite()
        let run = try TestSupport.gambit(["sweep", suite.file.path, "--output", suite.folder.path], in: root)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("holds the suite's own files"), "\(run.output)")
    }
}
