import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// `gambit slurm` against a real Slurm: a single-node cluster from Debian's slurm-wlm and munge, started by
/// `scripts/slurm/local-cluster.sh` with the configuration kept in the repository, and stopped by pid.
@Suite("gambit slurm on a real single-node Slurm", .serialized)
struct SlurmClusterTests {
    /// Root, and Slurm's and munge's daemons installed (scripts/install-deps.sh installs them). Under CI the
    /// test runs whatever this says, so that a machine without them fails it rather than skipping it.
    static let available =
        getuid() == 0
        && ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"].allSatisfy(TestSupport.hasTool)
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(
        "3 array tasks and a merge give the one-process run's results; cancelled tasks are named with their logs and resume",
        .enabled(if: available || required, "needs root, slurm-wlm and munge (scripts/install-deps.sh)"),
        .timeLimit(.minutes(15)))
    func threeTasksAndMerge() throws {
        let suite = try MiniSuite()
        let cluster = try LocalSlurm(state: suite.folder.appendingPathComponent("slurm-state"))
        defer {
            let pids = cluster.daemonPids()
            cluster.stop()
            for (name, pid) in pids { #expect(!LocalSlurm.runs(pid), "\(name) (pid \(pid)) still runs after stop") }
        }
        #expect(cluster.daemonPids().count == 3, "munged, slurmctld and slurmd each wrote their pid")
        let output = suite.folder.appendingPathComponent("cluster")

        // First attempt: every task stops itself after 2 journal lines (as if it were preempted) and is
        // cancelled; the merge then names every shard and its log, and no report is written.
        var stopping = cluster.environment
        stopping[Runner.stopAfterJournalLinesVariable] = "2"
        let first = try TestSupport.gambit(
            ["slurm", suite.suiteFile.path, "--tasks", "3", "--output", output.path], in: suite.folder,
            environment: stopping)
        #expect(first.status == 0, "\(first.output)")
        let firstJobs = try #require(try SlurmJobs.load(output: output).submissions.last, "\(first.output)")
        #expect(first.output.contains("merge    \(firstJobs.merge)"), "\(first.output)")
        let journals = (0..<3).map {
            output.appendingPathComponent("shards/\($0)/\(Runner.dataFolder)/\(Runner.journalName)")
        }
        try cluster.wait(timeout: 300) {
            journals.allSatisfy { (try? String(contentsOf: $0, encoding: .utf8))?.split(separator: "\n").count == 2 }
        }
        try cluster.run("scancel", [firstJobs.array])
        try cluster.waitForJobs([firstJobs.prepare, firstJobs.array, firstJobs.merge])
        let jobs = try SlurmJobs.load(output: output)
        let mergeLog = try String(contentsOf: jobs.mergeLog, encoding: .utf8)
        #expect(mergeLog.contains("3 of 3 shards have no results"), "\(mergeLog)")
        for shard in 0..<3 {
            #expect(mergeLog.contains("shard \(shard)/3 did not finish"), "\(mergeLog)")
            #expect(mergeLog.contains("log: \(jobs.taskLog(shard).path)"), "\(mergeLog)")
        }
        #expect(mergeLog.contains("slurm \(suite.suiteFile.path) --tasks 3 --output \(output.path)"), "\(mergeLog)")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("report.html").path))

        // Submitted again: each task resumes from its 2 journaled decodings and the merge writes the reports.
        let second = try TestSupport.gambit(
            ["slurm", suite.suiteFile.path, "--tasks", "3", "--output", output.path], in: suite.folder,
            environment: cluster.environment)
        #expect(second.status == 0, "\(second.output)")
        let secondJobs = try #require(try SlurmJobs.load(output: output).submissions.last)
        #expect(secondJobs != firstJobs)
        try cluster.waitForJobs([secondJobs.prepare, secondJobs.array, secondJobs.merge])
        let log = try String(contentsOf: jobs.mergeLog, encoding: .utf8)
        let merged = try RunResults.load(from: Runner.resultsFile(in: output))
        #expect(merged.run.partial == nil, "\(log)")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("report.html").path), "\(log)")
        for shard in 0..<3 {
            let results = try RunResults.load(from: Runner.resultsFile(in: jobs.shardFolder(shard)))
            #expect(results.timings?.journaled == 2, "shard \(shard) resumed from its journal")
            #expect(results.run.shard == Shard(index: shard, count: 3))
        }
        #expect(try SlurmJobs.load(output: output).submissions.count == 2)

        // The same suite in one process.
        let single = try suite.run(output: "single")
        #expect(AccuracyView(merged) == AccuracyView(single))
        #expect(merged.systems.map(\.key) == single.systems.map(\.key))
        // The checks are judged over every shard's utterances, as the one process judged them.
        #expect(merged.checks.map(\.name) == single.checks.map(\.name))
        for (a, b) in zip(merged.checks, single.checks) where !a.name.hasPrefix("canary") {
            #expect(a.passed == b.passed && a.message == b.message, "\(a.name): \(a.message) vs \(b.message)")
        }
    }
}

extension SlurmClusterTests {
    @Test(
        "A hostile --output (%, space, quote, command substitution) runs only gambit; a line break is refused",
        .enabled(if: available || required, "needs root, slurm-wlm and munge (scripts/install-deps.sh)"),
        .timeLimit(.minutes(10)))
    func hostileOutput() throws {
        let suite = try MiniSuite()
        let cluster = try LocalSlurm(state: suite.folder.appendingPathComponent("slurm-state"), portOffset: 2)
        defer { cluster.stop() }
        // Each payload would create a file named m1…m4 in the job's working directory if a shell ran it.
        let markers = ["m1", "m2", "m3", "m4"]
        func markersFound() -> [String] {
            let all = FileManager.default.enumerator(atPath: suite.folder.path).map { Array($0) } ?? []
            return all.compactMap { $0 as? String }.filter { markers.contains(($0 as NSString).lastPathComponent) }
        }

        // A line break: refused before any script is written or job submitted.
        let broken = suite.folder.appendingPathComponent("out\ntouch m4")
        let refused = try TestSupport.gambit(
            ["slurm", suite.suiteFile.path, "--tasks", "1", "--output", broken.path], in: suite.folder,
            environment: cluster.environment)
        #expect(refused.status == 2, "\(refused.output)")
        #expect(refused.output.contains("line break"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: broken.path))
        #expect(try cluster.run("squeue", ["-h", "-o", "%i"]).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)

        // %, spaces, a quote and three kinds of shell payload: the jobs run gambit alone, into that very folder.
        let hostile = suite.folder.appendingPathComponent("run %j %a it's $(touch m1) `touch m2` ;touch m3 #x")
        let submitted = try TestSupport.gambit(
            ["slurm", suite.suiteFile.path, "--tasks", "1", "--output", hostile.path], in: suite.folder,
            environment: cluster.environment)
        #expect(submitted.status == 0, "\(submitted.output)")
        let jobs = try SlurmJobs.load(output: hostile)
        let ids = try #require(jobs.submissions.last, "\(submitted.output)")
        try cluster.waitForJobs([ids.prepare, ids.array, ids.merge])
        let mergeLog = (try? String(contentsOf: jobs.mergeLog, encoding: .utf8)) ?? "(no merge log)"
        // Slurm wrote each log where the scripts said, not into a folder its patterns made up.
        for log in [jobs.prepareLog, jobs.taskLog(0), jobs.mergeLog] {
            #expect(FileManager.default.fileExists(atPath: log.path), "\(log.path)")
        }
        #expect(
            FileManager.default.fileExists(atPath: hostile.appendingPathComponent("report.html").path), "\(mergeLog)")
        let merged = try RunResults.load(from: Runner.resultsFile(in: hostile))
        #expect(merged.run.partial == nil, "\(mergeLog)")
        #expect(markersFound().isEmpty, "a payload ran: \(markersFound())")
    }
}

/// A single-node Slurm in a folder of the test's, through `scripts/slurm/local-cluster.sh`.
struct LocalSlurm {
    let state: URL
    let environment: [String: String]
    static let script = TestSupport.packageRoot.appendingPathComponent("scripts/slurm/local-cluster.sh")

    /// - Parameter portOffset: Added to the ports, so that two tests in one process never share them.
    init(state: URL, portOffset: Int = 0) throws {
        self.state = state
        // Ports of this test process's own, so that a Slurm already on the machine is not disturbed.
        let base = 20_000 + Int(getpid() % 5_000) * 4 + portOffset
        var environment = ProcessInfo.processInfo.environment
        environment["SLURM_CONTROLLER_PORT"] = String(base)
        environment["SLURM_NODE_PORT"] = String(base + 1)
        environment["SLURM_CONF"] = state.appendingPathComponent("slurm.conf").path
        // Three CPUs, so that the three tasks run at once whatever the machine has.
        environment["SLURM_NODE_CPUS"] = "3"
        self.environment = environment
        try run(Self.script.path, ["start", state.path])
        // The node's CPUs are this test's setting, not the machine's.
        #expect(try run("sinfo", ["-h", "-o", "%c"]).trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }

    func stop() {
        _ = try? run(Self.script.path, ["stop", state.path])
    }

    /// True while `pid` runs: it exists and is not a zombie (init may never reap a stopped daemon).
    static func runs(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// The daemons' pids, from the pid files the script gave them.
    func daemonPids() -> [(String, pid_t)] {
        ["munged", "slurmctld", "slurmd"].compactMap { name in
            let file = state.appendingPathComponent("\(name).pid")
            guard let text = try? String(contentsOf: file, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { return nil }
            return (name, pid)
        }
    }

    /// Runs a Slurm command against this cluster; throws with what it printed when it fails.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> String {
        try TestSupport.run(tool, arguments, environment: environment)
    }

    /// Waits until `condition` holds, polling; throws after `timeout` seconds with the daemons' logs.
    func wait(timeout: Double, until condition: () -> Bool) throws {
        let start = Date()
        while !condition() {
            if Date().timeIntervalSince(start) > timeout {
                let logs = ["slurmctld.log", "slurmd.log"].map {
                    (try? String(contentsOf: state.appendingPathComponent($0), encoding: .utf8))?.suffix(3000) ?? ""
                }
                throw SlurmFailure(
                    "no progress in \(Int(timeout)) s; the daemons' logs end:\n\(logs.joined(separator: "\n"))")
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    /// Waits until none of `jobs` is pending or running.
    func waitForJobs(_ jobs: [String], timeout: Double = 600) throws {
        try wait(timeout: timeout) {
            let queued = (try? run("squeue", ["-h", "-j", jobs.joined(separator: ","), "-o", "%i"])) ?? "?"
            return queued.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
    }
}

/// The local Slurm failed, or did not finish in time; the message holds what it printed.
struct SlurmFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
