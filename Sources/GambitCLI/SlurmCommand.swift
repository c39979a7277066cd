import ArgumentParser
import Foundation
import Results
import Runner

/// `gambit slurm`: a run spread over a Slurm cluster, as a prepare job, an array of shards and a merge.
struct SlurmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slurm",
        abstract: "Run a suite on a Slurm cluster: a prepare job, an array job of shards, and a merge job.",
        discussion: """
            `gambit slurm SUITE --tasks N --output DIR` submits three jobs with sbatch: one prepares every \
            variant into a cache all tasks share; an array of N tasks each runs `gambit run --shard I/N` into \
            DIR/shards/I; the last, once every task has ended (afterany), runs `gambit slurm merge DIR`, which \
            writes the reports to DIR or names each failed shard with its log. The output folder must be on \
            storage every node sees, and `gambit` and the PocketSphinx model must be installed on every node.
            """,
        subcommands: [Submit.self, MergeShards.self],
        defaultSubcommand: Submit.self)

    struct Submit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "submit",
            abstract: "Submit the prepare, shard and merge jobs (the default subcommand).",
            discussion: ExitStatus.doneOrRefused)

        @Argument(help: "Suite file.")
        var suite: String

        @Option(parsing: .unconditional, help: "Array tasks, one shard of the run each.")
        var tasks: Int

        @Option(help: "Output folder, on storage every node sees: reports, shards, logs and the batch scripts.")
        var output = "Reports"

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "sbatch options for every job, e.g. \"--partition=cpu --time=2:00:00 --cpus-per-task=4\".",
                discussion:
                    "Each task decodes with as many workers as --cpus-per-task gives it (1 by default). The options "
                    + "go into the scripts as #SBATCH lines."))
        var sbatchArgs = ""

        @Option(help: "Submit only these shards again, e.g. 1,2 (their tasks resume from their journals).")
        var shards: String?

        @Option(help: "The models' cache, on storage every node sees (default: DIR/.gambit/cache).")
        var cacheDir: String?

        @Option(help: "The gambit executable as the nodes see it (default: this one).")
        var gambit: String?

        @Flag(help: "Print the batch scripts and the sbatch commands; submit nothing and write nothing.")
        var dryRun = false

        @Argument(
            parsing: .postTerminator,
            help: ArgumentHelp(
                "More `gambit run` options for every task, after --, e.g. -- --split dev --no-deny-network.",
                valueName: "run-options"))
        var runOptions: [String] = []

        /// `gambit run` options this command sets itself.
        static let ownRunOptions = ["--shard", "--output", "--cache-dir", "--prepare-only", "--plan", "--json"]

        func run() throws {
            guard tasks >= 1 else { throw ValidationError("--tasks is \(tasks); it must be at least 1") }
            for option in runOptions {
                let name = String(option.split(separator: "=", maxSplits: 1).first ?? "")
                if Self.ownRunOptions.contains(name) {
                    throw ValidationError("\(name) after --: gambit slurm sets it for every job itself")
                }
            }
            let run = try Self.runCommand(suite: suite, options: runOptions)
            let selected = try selectedShards()
            let suiteURL = URL(fileURLWithPath: suite).standardizedFileURL
            let outputURL = URL(fileURLWithPath: output).standardizedFileURL
            // A typo in the suite is caught here, not in the prepare job's log.
            let loaded = try Suite.load(suiteURL)
            try OutputFolder.checkSeparate(outputURL, from: loaded)
            var jobs = SlurmJobs(
                gambit: gambit ?? Run.executable().path, suite: suiteURL.path, output: outputURL.path, tasks: tasks,
                cacheFolder: cacheDir.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                    ?? Runner.outputCacheFolder(in: outputURL).path,
                workingDirectory: FileManager.default.currentDirectoryPath, runArguments: runOptions,
                sbatchOptions: try SlurmJobs.sbatchOptions(from: sbatchArgs))
            try jobs.checkScriptValues()
            // A task whose shard holds no utterance would fail: refused here, as `gambit run --shard` refuses it.
            let ids = try run.loadSuite().scoredUtteranceIDs(allowOutsidePaths: run.allowOutsidePaths)
            try RunPlan.checkShards(of: ids, count: tasks)
            let array = SlurmJobs.arraySpec(selected)
            if dryRun {
                for (url, text) in [
                    (jobs.prepareScript, jobs.prepareScriptText()), (jobs.arrayScript, jobs.arrayScriptText()),
                    (jobs.mergeScript, jobs.mergeScriptText()),
                ] {
                    print("# \(url.path)\n\(text)")
                }
                print("# submitted as (PREPARE and SHARDS stand for the job ids sbatch prints):")
                var standIns = ["PREPARE", "SHARDS", "MERGE"].makeIterator()
                _ = jobs.submitChain(shards: selected) { arguments in
                    print((["sbatch"] + arguments).map(SlurmJobs.quoted).joined(separator: " "))
                    return standIns.next() ?? ""
                }
                return
            }
            guard Self.sbatch != nil else { throw SlurmError.sbatchNotFound }
            // Earlier submissions into this folder are kept in the record.
            if let earlier = try? SlurmJobs.load(output: outputURL), earlier.tasks == tasks {
                jobs.submissions = earlier.submissions
            }
            try write(jobs, clearing: selected)
            let chain = try jobs.submitChain(shards: selected, Self.submit)
            let (prepare, shardsJob, merge) = (chain.prepare, chain.array, chain.merge)
            jobs.submissions.append(
                SlurmJobs.Submission(prepare: prepare, array: shardsJob, merge: merge, shards: selected, date: Date()))
            try jobs.save()
            let shown = selected.count == tasks ? "\(tasks)" : "\(selected.count) of \(tasks)"
            print(
                """
                submitted \(Summary.printable(loaded.name)) as 3 jobs:
                  prepare  \(prepare)  log \(jobs.prepareLog.path)
                  shards   \(shardsJob)  \(shown) tasks (--array=\(array)), logs \(jobs.logs.path)/shard-I.log
                  merge    \(merge)  after every task, log \(jobs.mergeLog.path)
                report: \(outputURL.path)/report.html when job \(merge) ends (squeue -j \(prepare),\(shardsJob),\(merge))
                """)
        }

        /// The `gambit run` every task runs, parsed by `gambit run`'s own parser from the suite and the options
        /// after `--`, so that an option it does not know is refused before anything is written or submitted, not
        /// in every job's log.
        static func runCommand(suite: String, options: [String]) throws -> Run {
            do {
                return try Run.parse([suite] + options)
            } catch  where Run.exitCode(for: error) == .success {
                throw ValidationError(
                    "--help after --: every task would print gambit run's help; run gambit run --help")
            } catch {
                let message = Run.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init)
                throw ValidationError(
                    "the options after -- are not all `gambit run`'s: \(message ?? "\(error)") "
                        + "(see gambit run --help)")
            }
        }

        /// The shards to submit: every one, or `--shards`.
        func selectedShards() throws -> [Int] {
            guard let shards else { return Array(0..<tasks) }
            var selected: [Int] = []
            for word in shards.split(separator: ",") {
                guard let index = Int(word.trimmingCharacters(in: .whitespaces)), (0..<tasks).contains(index) else {
                    throw ValidationError("--shards \(shards): \"\(word)\" is not a shard of 0…\(tasks - 1)")
                }
                if !selected.contains(index) { selected.append(index) }
            }
            guard !selected.isEmpty else { throw ValidationError("--shards names no shard") }
            return selected.sorted()
        }

        /// Writes the scripts and the record, and removes the exit statuses of the jobs about to run, so that
        /// the merge never reads an earlier attempt's.
        func write(_ jobs: SlurmJobs, clearing shards: [Int]) throws {
            let manager = FileManager.default
            for folder in [jobs.folder, jobs.logs, jobs.statusFolder] {
                try OutputFolder.prepare(folder)
            }
            for (url, text) in [
                (jobs.prepareScript, jobs.prepareScriptText()), (jobs.arrayScript, jobs.arrayScriptText()),
                (jobs.mergeScript, jobs.mergeScriptText()),
            ] {
                try OutputPath.check(url, isInside: jobs.folder)
                try Data(text.utf8).write(to: url, options: .atomic)
                try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            }
            try? manager.removeItem(at: jobs.prepareStatus)
            for shard in shards { try? manager.removeItem(at: jobs.taskStatus(shard)) }
            try jobs.save()
        }

        static var sbatch: URL? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("sbatch") }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        }

        /// Runs sbatch and returns the job id it prints (`--parsable`: `ID` or `ID;CLUSTER`).
        static func submit(_ arguments: [String]) throws -> String {
            guard let sbatch else { throw SlurmError.sbatchNotFound }
            let process = Process()
            process.executableURL = sbatch
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            let id = text.split(whereSeparator: \.isNewline).last.map { String($0.split(separator: ";")[0]) } ?? ""
            guard process.terminationStatus == 0, !id.isEmpty, id.allSatisfy(\.isNumber) else {
                throw SlurmError.sbatchFailed(
                    command: (["sbatch"] + arguments).joined(separator: " "), status: process.terminationStatus,
                    output: text)
            }
            return id
        }
    }

    struct MergeShards: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Merge a Slurm run's shards into its reports, or name the shards that failed (the merge job).",
            discussion: ExitStatus.help([
                .success: "merged; every check passed and every utterance decoded",
                .checkFailed: "merged; a check failed in a shard",
                .refused: "a shard failed or has not run (each named, with its log), or unreadable input",
                .utterancesFailed: "merged; every other check passed, but some utterances failed to decode",
            ]))

        @Argument(help: "The output folder given to `gambit slurm`.")
        var output: String

        @Flag(help: "Merge the shards that finished even when some failed; every report says which are missing.")
        var partial = false

        func run() throws {
            let outputURL = URL(fileURLWithPath: output).standardizedFileURL
            let jobs = try SlurmJobs.load(output: outputURL)
            let failed = jobs.failedShards()
            if !failed.isEmpty {
                let report =
                    "\(failed.count) of \(jobs.tasks) shards have no results:\n" + jobs.failureReport(failed)
                FileHandle.standardError.write(Data((report + "\n").utf8))
                guard partial, failed.count < jobs.tasks else { throw ExitCode(ExitStatus.refused.rawValue) }
            }
            let finished = (0..<jobs.tasks).filter { shard in !failed.contains { $0.shard == shard } }
            try Merge.merge(
                finished.map { Runner.resultsFile(in: jobs.shardFolder($0)) }, output: outputURL, partial: partial)
        }
    }
}
