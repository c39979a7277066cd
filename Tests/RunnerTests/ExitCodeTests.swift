import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// `gambit run`'s exit codes, through the command line: a failed check (1), refused input or usage (2) and failed
/// utterances (3) end differently.
@Suite("Exit codes of gambit run", .serialized)
struct ExitCodeTests {
    func run(_ suite: MiniSuite, output: String, _ extra: [String] = []) throws -> (status: Int32, output: String) {
        try TestSupport.gambit(
            [
                "run", suite.suiteFile.path, "--output", suite.folder.appendingPathComponent(output).path, "--workers",
                "2",
            ]
                + ["--cache-dir", suite.folder.appendingPathComponent("cache").path]
                + (MiniSuite.sharedDecodes.map { ["--decode-cache", $0.path] } ?? []) + extra)
    }

    func checks(_ suite: MiniSuite, output: String) throws -> [Check] {
        try RunResults.load(from: Runner.resultsFile(in: suite.folder.appendingPathComponent(output))).checks
    }

    @Test("A failed utterance alone is 3; a failed check with it is 1")
    func failedUtteranceThenFailedCheck() throws {
        let suite = try MiniSuite(badAudio: true)
        let (status, output) = try run(suite, output: "bad-audio")
        let failing = try checks(suite, output: "bad-audio").filter { !$0.passed && !$0.isSkipped }
        // The only failing check is the failed-utterance one: the other checks are what this run is judged on.
        #expect(failing.map(\.kind) == [.failures], "\(failing.map(\.message))")
        #expect(status == 3, "\(output)")
        #expect(output.contains("exit status 3: every check passed, but some utterances failed to decode"), "\(output)")
        // Where the time went, at the end of the run and in its results and report, the reports included.
        #expect(output.contains("where the time went: "), "\(output)")
        let folder = suite.folder.appendingPathComponent("bad-audio")
        let timings = try #require(try RunResults.load(from: Runner.resultsFile(in: folder)).timings)
        #expect(
            timings.stages.map(\.name) == [
                "synthesis", "prepare", "audio hashes", "plan", "decoding", "scoring", "reports",
            ])
        let report = try RunResults.load(from: folder.appendingPathComponent("report.json"))
        #expect(report.timings?.stages.last?.name == "reports")
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("Where the time went") && html.contains("<td>reports</td>"))

        // Without network denial the on-device check fails: 1 wins over the failed utterance.
        let (denied, deniedOutput) = try run(suite, output: "no-denial", ["--no-deny-network"])
        let failed = try checks(suite, output: "no-denial").filter { !$0.passed && !$0.isSkipped }
        #expect(failed.contains { $0.kind == .onDevice }, "\(failed.map(\.message))")
        #expect(denied == 1, "\(deniedOutput)")
        #expect(deniedOutput.contains("exit status 1: a check failed"), "\(deniedOutput)")
    }

    @Test("A run whose checks all pass and whose utterances all decode is 0")
    func success() throws {
        let suite = try MiniSuite()
        let (status, output) = try run(suite, output: "good")
        let failing = try checks(suite, output: "good").filter { !$0.passed && !$0.isSkipped }
        #expect(status == (failing.isEmpty ? 0 : 1), "\(failing.map(\.message)) \(output)")
        #expect(failing.isEmpty, "\(failing.map(\.message))")
    }

    @Test("A suite that cannot be read, a bad option value and an unknown option are 2, with their message")
    func refused() throws {
        let folder = try TestSupport.temporaryDirectory("exit-codes")
        let missing = folder.appendingPathComponent("nope.yaml").path
        let (status, output) = try TestSupport.gambit(["run", missing, "--output", folder.path])
        #expect(status == 2, "\(output)")
        #expect(output.contains("nope.yaml"), "\(output)")

        let garbage = folder.appendingPathComponent("suite.yaml")
        try "name: [unclosed\n".write(to: garbage, atomically: true, encoding: .utf8)
        let (garbageStatus, garbageOutput) = try TestSupport.gambit(["run", garbage.path, "--output", folder.path])
        #expect(garbageStatus == 2, "\(garbageOutput)")
        #expect(garbageOutput.contains("suite.yaml"), "\(garbageOutput)")

        let (shardStatus, shardOutput) = try TestSupport.gambit(["run", garbage.path, "--shard", "4/4"])
        #expect(shardStatus == 2, "\(shardOutput)")
        #expect(shardOutput.contains("--shard takes I/N"), "\(shardOutput)")

        let (unknownStatus, unknownOutput) = try TestSupport.gambit(["run", "--no-such-option"])
        #expect(unknownStatus == 2, "\(unknownOutput)")
        #expect(unknownOutput.contains("--no-such-option"), "\(unknownOutput)")

        // Help is not an error.
        let (helpStatus, helpOutput) = try TestSupport.gambit(["run", "--help"])
        #expect(helpStatus == 0 && helpOutput.contains("Exit codes: 0 every check passed"), "\(helpOutput)")
    }
}
