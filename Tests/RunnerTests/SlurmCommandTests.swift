import Foundation
import GambitTestSupport
import Results
import ResultsFixtures
import Runner
import RunnerTestSupport
import Testing

/// `gambit slurm` without a cluster: the scripts it would submit, what it refuses, and the merge job's verdict
/// on shard folders and exit statuses laid out as the jobs leave them.
@Suite("gambit slurm: scripts, refusals and the merge's report")
struct SlurmCommandTests {
    let folder: URL

    init() throws {
        folder = try TestSupport.temporaryDirectory("slurm")
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A suite file the command can load (its corpora are not read before the jobs run).
    func suite() throws -> String {
        let suite = try MiniSuite()
        return suite.suiteFile.path
    }

    @Test("--dry-run prints the three scripts with their options and the sbatch commands, and writes nothing")
    func dryRun() throws {
        let suite = try suite()
        let (status, output) = try TestSupport.gambit([
            // Three tasks: the mini suite's 11 utterances leave none of the three shards empty (of four, one is).
            "slurm", suite, "--tasks", "3", "--output", path("out"), "--dry-run",
            "--sbatch-args", "--partition=cpu --time 1:00:00", "--", "--mix", "set",
        ])
        #expect(status == 0, "\(output)")
        for name in ["prepare.sbatch", "shards.sbatch", "merge.sbatch"] {
            #expect(output.contains("# \(path("out"))/slurm/\(name)\n#!/bin/bash"), "\(output)")
        }
        #expect(output.components(separatedBy: "#SBATCH --partition=cpu\n#SBATCH --time 1:00:00").count == 4)
        #expect(output.contains(" run \(suite) --prepare-only --cache-dir \(path("out"))/.gambit/cache --mix set"))
        #expect(output.contains(#"--shard "$shard/3" --output \#(path("out"))/shards/"$shard""#), "\(output)")
        #expect(output.contains(#"--workers "${SLURM_CPUS_PER_TASK:-1}" --mix set"#), "\(output)")
        #expect(output.contains("slurm merge \(path("out"))"), "\(output)")
        #expect(output.contains("--array=0-2 --dependency=afterok:PREPARE --kill-on-invalid-dep=yes"), "\(output)")
        #expect(output.contains("--dependency=afterany:SHARDS"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: path("out")))
    }

    @Test("Shards outside the run, options it sets itself, bad sbatch options and a missing sbatch are refused")
    func refusals() throws {
        let suite = try suite()
        let cases: [([String], String)] = [
            (["--tasks", "0"], "--tasks is 0"),
            (["--tasks", "3", "--shards", "1,5"], "\"5\" is not a shard of 0…2"),
            (["--tasks", "3", "--", "--shard", "0/2"], "--shard after --: gambit slurm sets it"),
            (["--tasks", "3", "--", "--output=elsewhere"], "--output after --"),
            (["--tasks", "3", "--sbatch-args", "cpu --time=1"], "\"cpu\" is not an option"),
            // gambit run's own parser reads the options after --, before any job is written.
            (
                ["--tasks", "3", "--", "--splt", "dev"],
                "the options after -- are not all `gambit run`'s: Unknown option '--splt'"
            ),
            (["--tasks", "3", "--", "--workers", "many"], "the options after -- are not all `gambit run`'s"),
            (["--tasks", "3", "--", "more.yaml"], "Unexpected argument 'more.yaml'"),
            (["--tasks", "3", "--", "--help"], "--help after --: every task would print gambit run's help"),
            // --split is checked as gambit run checks it: the mini suite's corpora name no split.
            (["--tasks", "3", "--", "--split", "dev"], "--split dev: no corpus of"),
            // 11 utterances: 40 tasks leave most shards empty; so do 4 (no id's hash puts it in shard 0).
            (
                ["--tasks", "40"],
                "would hold no utterance of this suite's 11 (an utterance's shard is a hash of its id)"
            ),
            (["--tasks", "4"], "shard 0/4 would hold no utterance of this suite's 11"),
        ]
        for (arguments, message) in cases {
            let (status, output) = try TestSupport.gambit(
                ["slurm", suite, "--output", path("out"), "--dry-run"] + arguments)
            #expect(status == 2, "\(arguments): \(output)")
            #expect(output.contains(message), "\(arguments): \(output)")
        }
        // No sbatch on PATH: said so before anything is written.
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "/nonexistent"
        let (status, output) = try TestSupport.gambit(
            ["slurm", suite, "--tasks", "2", "--output", path("out")], environment: environment)
        #expect(status == 2, "\(output)")
        #expect(output.contains("sbatch not found on PATH"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: path("out")))
    }

    @Test(
        "A hostile output folder goes into the scripts quoted, with Slurm's % escaped, or is refused with why",
        arguments: [
            "out dir", "run%j %a", "it's", #"say "hi""#, "$(touch m1)", "`touch m2`", ";touch m3 #x", "ü ñ 漢",
        ])
    func hostileOutputQuoted(name: String) throws {
        let suite = try suite()
        let output = path(name)
        let (status, text) = try TestSupport.gambit([
            "slurm", suite, "--tasks", "2", "--output", output, "--dry-run",
        ])
        #expect(status == 0, "\(text)")
        let escaped = output.replacingOccurrences(of: "%", with: "%%")
        let quote = output.contains("\"") ? "'" : "\""
        #expect(text.contains("#SBATCH --output=\(quote)\(escaped)/slurm/logs/prepare.log\(quote)\n"), "\(text)")
        #expect(text.contains("#SBATCH --output=\(quote)\(escaped)/slurm/logs/shard-%a.log\(quote)\n"), "\(text)")
        #expect(text.contains("#SBATCH --output=\(quote)\(escaped)/slurm/logs/merge.log\(quote)\n"), "\(text)")
        #expect(text.contains("slurm merge \(SlurmJobs.quoted(output))\n"), "\(text)")
        // Each script's #SBATCH block is its first lines; bash reads every other line.
        for script in text.components(separatedBy: "#!/bin/bash\n").dropFirst() {
            let directives = script.split(separator: "\n").prefix { $0.hasPrefix("#SBATCH ") }
            #expect(directives.count == 4, "\(script)")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test(
        "A line break, a backslash, or both quotes in --output are refused with the reason",
        arguments: [
            ("out\ntouch m1", "--output", "line break"), ("out\rx", "--output", "line break"),
            ("a\tb", "--output", "control character"), (#"a\b"#, "--output", "backslash"),
            (#"a'b"c"#, "--output", "both a single and a double quote"),
        ])
    func hostileOutputRefused(name: String, option: String, reason: String) throws {
        let suite = try suite()
        let (status, text) = try TestSupport.gambit([
            "slurm", suite, "--tasks", "2", "--output", path(name), "--dry-run",
        ])
        #expect(status == 2, "\(text)")
        #expect(text.contains("\(option) \(path(name).debugDescription) cannot go into a batch script"), "\(text)")
        #expect(text.contains(reason), "\(text)")
        #expect(!text.contains("#!/bin/bash"), "\(text)")
    }

    @Test("A line break in a run option or in the working directory is refused")
    func hostileOptionAndDirectoryRefused() throws {
        let suite = try suite()
        // A run option is quoted for the shell, but a line break in one is refused too.
        let (optionStatus, optionText) = try TestSupport.gambit([
            "slurm", suite, "--tasks", "2", "--output", path("out"), "--dry-run", "--", "--split", "dev\nrm -rf x",
        ])
        #expect(optionStatus == 2, "\(optionText)")
        #expect(optionText.contains("the run option \"dev\\nrm -rf x\" cannot go into a batch script"), "\(optionText)")
        // So is a working directory that holds one.
        let odd = folder.appendingPathComponent("work\ndir")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        let (cwdStatus, cwdText) = try TestSupport.gambit(
            ["slurm", suite, "--tasks", "2", "--output", path("out"), "--dry-run"], in: odd)
        #expect(cwdStatus == 2, "\(cwdText)")
        #expect(cwdText.contains("the working directory"), "\(cwdText)")
    }

    /// The output folder as the jobs leave it: the record, each shard's results (from the fixture, cut into
    /// `tasks` shards) and exit status, and a log per shard.
    func layout(tasks: Int, statuses: [Int: String], withResults: Set<Int>) throws -> SlurmJobs {
        let output = folder.appendingPathComponent("run")
        let jobs = SlurmJobs(
            gambit: "/opt/gambit/bin/gambit", suite: "/data/suite.yaml", output: output.path, tasks: tasks,
            cacheFolder: Runner.outputCacheFolder(in: output).path, workingDirectory: "/data",
            runArguments: ["--split", "dev"], sbatchOptions: ["--partition=cpu"])
        for url in [jobs.logs, jobs.statusFolder] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        try jobs.save()
        try "0 7 node1\n".write(to: jobs.prepareStatus, atomically: true, encoding: .utf8)
        let full = Fixture.results()
        for shard in 0..<tasks {
            try "== shard \(shard)\nerror: /data/audio/x.wav: the disk is full\n".write(
                to: jobs.taskLog(shard), atomically: true, encoding: .utf8)
            if let status = statuses[shard] {
                try status.write(to: jobs.taskStatus(shard), atomically: true, encoding: .utf8)
            }
            guard withResults.contains(shard) else { continue }
            let results = Runner.resultsFile(in: jobs.shardFolder(shard))
            try FileManager.default.createDirectory(
                at: results.deletingLastPathComponent(), withIntermediateDirectories: true)
            try MergeCommandTests.shard(full, index: shard, count: tasks).write(to: results)
        }
        return jobs
    }

    @Test("The merge names a refused shard and a shard that never ended, with their logs and the resubmission")
    func failedShards() throws {
        let jobs = try layout(tasks: 3, statuses: [0: "0 8_0 node1", 1: "2 8_1 node2"], withResults: [0, 2])
        let (status, output) = try TestSupport.gambit(["slurm", "merge", jobs.output])
        #expect(status == 2, "\(output)")
        #expect(output.contains("2 of 3 shards have no results"), "\(output)")
        #expect(
            output.contains(
                "shard 1/3 failed: gambit exited with status 2, refused input or an error that stopped it "
                    + "(job 8_1 on node2)"), "\(output)")
        #expect(output.contains("  log: \(jobs.taskLog(1).path)\n  | == shard 1\n  | error: /data/audio/x.wav"))
        // Shard 2 has results from an earlier attempt but no exit status from this one: not taken.
        #expect(output.contains("shard 2/3 did not finish: no exit status"), "\(output)")
        #expect(
            output.contains(
                "/opt/gambit/bin/gambit slurm /data/suite.yaml --tasks 3 --output \(jobs.output) --shards 1,2 "
                    + "--sbatch-args --partition=cpu -- --split dev"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: Runner.resultsFile(in: URL(fileURLWithPath: jobs.output)).path))

        // --partial merges the shard that finished, and every report says which are missing.
        let (partialStatus, partialOutput) = try TestSupport.gambit(["slurm", "merge", jobs.output, "--partial"])
        #expect(partialStatus == 1, "the fixture has a failing check: \(partialOutput)")
        let merged = try RunResults.load(from: Runner.resultsFile(in: URL(fileURLWithPath: jobs.output)))
        #expect(merged.run.partial == PartialRun(shardCount: 3, present: [0], missing: [1, 2]))
    }

    @Test("Every shard with results and a status that writes them (0, 1, 3) is merged into the reports")
    func merged() throws {
        let jobs = try layout(
            tasks: 3, statuses: [0: "0 9_0 n", 1: "1 9_1 n", 2: "3 9_2 n"], withResults: [0, 1, 2])
        let (status, output) = try TestSupport.gambit(["slurm", "merge", jobs.output])
        #expect(status == 1, "the fixture's failing check: \(output)")
        let merged = try RunResults.load(from: Runner.resultsFile(in: URL(fileURLWithPath: jobs.output)))
        #expect(merged.run.partial == nil)
        #expect(merged.systems.map(\.utterances.count) == Fixture.results().systems.map(\.utterances.count))
        #expect(FileManager.default.fileExists(atPath: jobs.output + "/report.html"))
    }

    @Test("A task killed by a signal is said to have been stopped, not to have failed")
    func signalled() throws {
        let jobs = try layout(tasks: 2, statuses: [0: "143 5_0 n", 1: "137 5_1 n"], withResults: [])
        let report = jobs.failureReport(jobs.failedShards())
        #expect(report.contains("shard 0/2 did not finish: gambit was stopped by SIGTERM: cancelled, or out of time"))
        #expect(report.contains("shard 1/2 did not finish: gambit was stopped by SIGKILL: out of memory, or killed"))
    }

    @Test("sbatch options: one per line, values joined to their option")
    func sbatchOptions() throws {
        #expect(
            try SlurmJobs.sbatchOptions(from: " --partition=cpu  -t 10 --mem 4G --exclusive")
                == ["--partition=cpu", "-t 10", "--mem 4G", "--exclusive"])
        #expect(throws: SlurmError.self) { try SlurmJobs.sbatchOptions(from: "gpu") }
    }
}
