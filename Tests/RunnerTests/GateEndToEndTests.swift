import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

@Suite("Gating CI on regressions, end to end", .serialized)
struct GateEndToEndTests {
    /// Runs `gambit gate` and returns its exit status and output.
    /// Timing on a shared test machine is noise; these runs gate accuracy.
    func gate(_ current: URL, baseline: URL) throws -> (Int32, String) {
        let thresholds = try TestSupport.temporaryDirectory("thresholds").appendingPathComponent("gate.yaml")
        try "gate:\n  finalLatencyP95: {maxIncrease: 100}\n  realTimeFactor: {maxIncreasePercent: 10000}\n"
            .write(to: thresholds, atomically: true, encoding: .utf8)
        return try TestSupport.gambit([
            "gate", current.path, "--baseline", baseline.path, "--thresholds", thresholds.path,
        ])
    }

    @Test("A weight that turns general speech into chess words fails the gate; an unchanged rerun passes")
    func regressionFails() throws {
        let good = try MiniSuite(weight: 0.3, streaming: true)
        _ = try good.run(output: "base")
        let baseline = Runner.resultsFile(in: good.folder.appendingPathComponent("base"))

        _ = try good.run(output: "rerun", fresh: true)
        let (passStatus, passOutput) = try gate(
            Runner.resultsFile(in: good.folder.appendingPathComponent("rerun")), baseline: baseline)
        #expect(passStatus == 0, "\(passOutput)")

        // Nearly all weight on a custom model with no background mass: general speech becomes chess words.
        let bad = try MiniSuite(weight: 0.999, backgroundMass: 0, streaming: true)
        let worse = try bad.run(output: "worse")
        let before = try RunResults.load(from: baseline)
        let generalBefore = try #require(before.system(corpus: "general", mode: .customized, variant: "chess-seed"))
        let generalAfter = try #require(worse.system(corpus: "general", mode: .customized, variant: "chess-seed"))
        #expect(generalAfter.metrics.rates.wordErrorRate > generalBefore.metrics.rates.wordErrorRate + 0.05)
        let (status, output) = try gate(
            Runner.resultsFile(in: bad.folder.appendingPathComponent("worse")), baseline: baseline)
        #expect(status == 1, "\(output)")
        #expect(output.contains("general"), "\(output)")
        #expect(output.contains(String(format: "%.2f", generalAfter.metrics.rates.wordErrorRate * 100)), "\(output)")
    }

    @Test("Unreadable input is exit code 2")
    func badInput() throws {
        let folder = try TestSupport.temporaryDirectory("gate")
        let junk = folder.appendingPathComponent("results.json")
        try Data("{not json".utf8).write(to: junk)
        let (status, output) = try gate(junk, baseline: junk)
        #expect(status == 2, "\(output)")
    }
}
