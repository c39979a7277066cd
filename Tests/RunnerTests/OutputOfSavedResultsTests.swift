import Foundation
import GambitTestSupport
import Results
import ResultsFixtures
import Runner
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

    @Test(
        "From any working directory, report and merge find the suite from the run's folder and keep out of its folder",
        arguments: ["report", "merge"])
    func suiteFoundFromTheRunFolder(command: String) throws {
        let root = try TestSupport.temporaryDirectory("saved-elsewhere")
        let project = root.appendingPathComponent("project")
        let elsewhere = root.appendingPathComponent("elsewhere")
        for url in [project, elsewhere] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        try "name: demo\ncorpora:\n  - {name: chess, manifest: chess.jsonl}\n"
            .write(to: project.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
        // The user's own file, where a report would go.
        let notes = project.appendingPathComponent("summary.md")
        try "my notes\n".write(to: notes, atomically: true, encoding: .utf8)
        // A run started in `root` (`gambit run project/suite.yaml --output Reports`) names its suite from there,
        // and from its output folder.
        var results = Fixture.results()
        results.run.suite.path = "project/suite.yaml"
        results.run.suite.pathFromOutput = "../project/suite.yaml"
        let run = root.appendingPathComponent("Reports")
        try FileManager.default.createDirectory(
            at: Runner.resultsFile(in: run).deletingLastPathComponent(), withIntermediateDirectories: true)
        try results.write(to: Runner.resultsFile(in: run))

        let refusals: [(arguments: [String], directory: URL)] = [
            ([run.path, "--output", project.path], elsewhere), (["../Reports", "--output", "../project/."], elsewhere),
            (["Reports", "--output", "project"], root), ([run.path, "--output", root.path], elsewhere),
        ]
        for (arguments, directory) in refusals {
            let refused = try TestSupport.gambit([command] + arguments, in: directory)
            #expect(refused.status == 2, "\(arguments): \(refused.output)")
            #expect(refused.output.contains("the output folder holds the suite's own files"), "\(refused.output)")
        }
        #expect(try String(contentsOf: notes, encoding: .utf8) == "my notes\n")
        #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("report.html").path))

        // A folder of its own is fine; what is written there finds the suite from there in turn.
        let fine = try TestSupport.gambit([command, "../Reports", "--output", "../project/Reports"], in: elsewhere)
        #expect(fine.status != 2, "\(fine.output)")
        let again = try TestSupport.gambit(
            ["report", "../project/Reports/report.json", "--output", "../project"], in: elsewhere)
        #expect(again.status == 2, "\(again.output)")
        #expect(again.output.contains("the output folder holds the suite's own files"), "\(again.output)")
        #expect(try String(contentsOf: notes, encoding: .utf8) == "my notes\n")
    }
}
