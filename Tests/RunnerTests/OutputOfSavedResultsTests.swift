import Foundation
import GambitTestSupport
import Results
import ResultsFixtures
import Testing

/// `gambit report` and `gambit merge` write reports too: like `gambit run`, they refuse an output
/// folder that holds the suite the results came from.
@Suite("Output of saved results")
struct OutputOfSavedResultsTests {
    @Test("report and merge refuse the suite's own folder and accept a folder of its own")
    func suiteFolderRefused() throws {
        let folder = try TestSupport.temporaryDirectory("saved-output")
        let suite = folder.appendingPathComponent("suite.yaml")
        try "name: demo\ncorpora:\n  - {name: chess, manifest: chess.jsonl}\n"
            .write(to: suite, atomically: true, encoding: .utf8)
        var results = Fixture.results()
        results.run.suite.path = suite.path
        let saved = try TestSupport.temporaryDirectory("saved-results").appendingPathComponent("results.json")
        try results.write(to: saved)

        for command in [["report", saved.path], ["merge", saved.path]] {
            let refused = try TestSupport.gambit(command + ["--output", folder.path])
            #expect(refused.status == 2, "\(refused.output)")
            #expect(refused.output.contains("the output folder holds the suite's own files"), "\(refused.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("report.html").path))

            let fine = try TestSupport.gambit(command + ["--output", folder.appendingPathComponent("Reports").path])
            #expect(fine.status != 2, "\(fine.output)")
            #expect(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("Reports/report.html").path))
        }
    }
}
