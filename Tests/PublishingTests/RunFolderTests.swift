import Foundation
import GambitTestSupport
import Publishing
import Reporting
import Results
import ResultsFixtures
import Runner
import Testing

@Suite("A run folder")
struct RunFolderTests {
    /// A suite folder holding the fixture's audio files, and an output folder beside it.
    struct Layout {
        var suite: URL
        var output: URL

        init() throws {
            let root = try TestSupport.temporaryDirectory("run-folder")
            let suiteFolder = root.appendingPathComponent("suite")
            suite = suiteFolder.appendingPathComponent("demo.yaml")
            output = root.appendingPathComponent("Reports")
            try FileManager.default.createDirectory(at: suiteFolder, withIntermediateDirectories: true)
            try "name: demo\n".write(to: suite, atomically: true, encoding: .utf8)
            for system in Fixture.results().systems {
                for record in system.utterances {
                    let audio = suiteFolder.appendingPathComponent(record.audioPath)
                    try FileManager.default.createDirectory(
                        at: audio.deletingLastPathComponent(), withIntermediateDirectories: true)
                    FileManager.default.createFile(atPath: audio.path, contents: Data("RIFF".utf8))
                }
            }
        }
    }

    /// Every `<audio src>` of the output folder's report.html, resolved from that folder.
    static func audioLinks(in output: URL) throws -> [URL] {
        let html = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: "<audio [^>]*src=\"([^\"]+)\"")
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
            Range(match.range(at: 1), in: html).flatMap { html[$0].removingPercentEncoding }.map {
                output.appendingPathComponent($0).standardizedFileURL
            }
        }
    }

    @Test("Reports written for a run, and again after a sweep is recorded, play audio that is there")
    func audioLinksResolveAfterASweep() throws {
        let layout = try Layout()
        let folder = RunFolder(layout.output)
        var results = Fixture.results()
        results.sweep = nil
        results = folder.rebasing(results, suite: layout.suite)
        try folder.writeResults(results)
        try folder.writeReports(results)
        let before = try Self.audioLinks(in: layout.output)
        #expect(!before.isEmpty)
        #expect(before.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "\(before.prefix(3))")

        // A sweep re-renders the reports; its audio players point where the run's did.
        #expect(try folder.record(sweep: Fixture.sweep))
        #expect(FileManager.default.fileExists(atPath: folder.sweepFile.path))
        #expect(try RunResults.load(from: folder.resultsFile).sweep == Fixture.sweep)
        let after = try Self.audioLinks(in: layout.output)
        #expect(after == before)
        #expect(after.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "\(after.prefix(3))")
    }

    @Test("A sweep recorded in a folder without a run's results writes sweep.json and no report")
    func sweepWithoutARun() throws {
        let layout = try Layout()
        let folder = RunFolder(layout.output)
        #expect(try !folder.record(sweep: Fixture.sweep))
        #expect(FileManager.default.fileExists(atPath: folder.sweepFile.path))
        #expect(!FileManager.default.fileExists(atPath: layout.output.appendingPathComponent("report.html").path))
    }
}
