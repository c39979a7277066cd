import Foundation

/// A run spread over a Slurm cluster (`gambit slurm`): three batch scripts and the folder they share.
///
/// 1. The prepare job prepares every variant (and oracle, and synthesised corpus) into one cache folder.
/// 2. An array job runs shard `$SLURM_ARRAY_TASK_ID` of `tasks` per task (`gambit run --shard I/N`),
///    each into a folder of its own under `shards/`, with its journal there: a task submitted again resumes.
/// 3. The merge job waits for every task and merges the shards into the output folder's reports, or says
///    which shards failed, with their logs (`gambit slurm merge`).
///
/// Everything lives under the output folder: `slurm/` holds the scripts, `jobs.json` (this value), the
/// logs and each job's exit status; `shards/I/` each shard's run; the reports go at the top.
public struct SlurmJobs: Codable, Equatable, Sendable {
    /// The `gambit` executable, as the cluster's nodes see it.
    public var gambit: String
    /// The suite file, absolute.
    public var suite: String
    /// The output folder, absolute.
    public var output: String
    /// The array's tasks: the run's shard count.
    public var tasks: Int
    /// The cache every job prepares into or reads from.
    public var cacheFolder: String
    /// The folder each job starts in (where `gambit slurm` ran), which relative paths in the run's
    /// arguments are read from.
    public var workingDirectory: String
    /// More `gambit run` arguments, given to the prepare job and to every task.
    public var runArguments: [String]
    /// `sbatch` options for every job, one `#SBATCH` line each (`--partition=cpu`, `--time 2:00:00`).
    public var sbatchOptions: [String]
    /// Every submission, first to last.
    public var submissions: [Submission] = []

    /// One `gambit slurm` submission: its job ids and the shards its array runs.
    public struct Submission: Codable, Equatable, Sendable {
        public var prepare: String
        public var array: String
        public var merge: String
        public var shards: [Int]
        public var date: Date

        public init(prepare: String, array: String, merge: String, shards: [Int], date: Date) {
            self.prepare = prepare
            self.array = array
            self.merge = merge
            self.shards = shards
            self.date = date
        }
    }

    public init(
        gambit: String, suite: String, output: String, tasks: Int, cacheFolder: String, workingDirectory: String,
        runArguments: [String] = [], sbatchOptions: [String] = []
    ) {
        self.gambit = gambit
        self.suite = suite
        self.output = output
        self.tasks = tasks
        self.cacheFolder = cacheFolder
        self.workingDirectory = workingDirectory
        self.runArguments = runArguments
        self.sbatchOptions = sbatchOptions
    }

    /// The name of the folder under the output that holds the scripts, logs and exit statuses.
    public static let folderName = "slurm"
    /// The name of the folder under the output that holds one run folder per shard.
    public static let shardsFolderName = "shards"

    var outputURL: URL { URL(fileURLWithPath: output) }
    /// The scripts, `jobs.json`, `logs/` and `status/`.
    public var folder: URL { outputURL.appendingPathComponent(Self.folderName) }
    /// This value, as saved by the submission and read by the merge.
    public var record: URL { folder.appendingPathComponent("jobs.json") }
    public var prepareScript: URL { folder.appendingPathComponent("prepare.sbatch") }
    public var arrayScript: URL { folder.appendingPathComponent("shards.sbatch") }
    public var mergeScript: URL { folder.appendingPathComponent("merge.sbatch") }
    public var logs: URL { folder.appendingPathComponent("logs") }
    public var statusFolder: URL { folder.appendingPathComponent("status") }
    public var prepareLog: URL { logs.appendingPathComponent("prepare.log") }
    public var mergeLog: URL { logs.appendingPathComponent("merge.log") }
    public func taskLog(_ shard: Int) -> URL { logs.appendingPathComponent("shard-\(shard).log") }
    public var prepareStatus: URL { statusFolder.appendingPathComponent("prepare") }
    public func taskStatus(_ shard: Int) -> URL { statusFolder.appendingPathComponent("shard-\(shard)") }
    /// The run folder of one shard.
    public func shardFolder(_ shard: Int) -> URL {
        outputURL.appendingPathComponent(Self.shardsFolderName).appendingPathComponent(String(shard))
    }

    /// Splits `--sbatch-args` into one option per `#SBATCH` line: a word that does not start with `-` goes
    /// with the option before it (`--time 2:00:00`).
    /// - Throws: A message when the text starts with a value, not an option.
    public static func sbatchOptions(from text: String) throws(SlurmError) -> [String] {
        var options: [String] = []
        for word in text.split(whereSeparator: \.isWhitespace).map(String.init) {
            if word.hasPrefix("-") {
                options.append(word)
            } else if let last = options.popLast() {
                options.append("\(last) \(word)")
            } else {
                throw .invalidSbatchArguments(
                    text, reason: "\"\(word)\" is not an option (sbatch options start with -)")
            }
        }
        for option in options where option.contains(where: { "\n\r#".contains($0) }) {
            throw .invalidSbatchArguments(text, reason: "\"\(option)\" holds a line break or #")
        }
        return options
    }

    // MARK: The scripts

    /// Quotes a word for a POSIX shell.
    public static func quoted(_ word: String) -> String {
        if !word.isEmpty, word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }) {
            return word
        }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Quotes a value for an `#SBATCH` line, which sbatch splits at spaces and whose quotes it removes (22.05
    /// reads `"…"` and `'…'`, nothing else): in double quotes, or in single quotes when it holds a double quote.
    /// ``checkScriptValues()`` has refused what neither can carry (a line break, a backslash, both quotes).
    static func directiveQuoted(_ value: String) -> String {
        value.contains("\"") ? "'\(value)'" : "\"\(value)\""
    }

    /// Escapes Slurm's filename patterns (`%j`, `%a`, `%x`, …) in a path given to `--output`: `%%` is a literal
    /// `%`, so a folder named `run%j` is that folder, not one per job.
    static func patternEscaped(_ path: String) -> String {
        path.replacingOccurrences(of: "%", with: "%%")
    }

    /// Refuses a value that no batch script can carry safely, before anything is written or submitted.
    ///
    /// Every value goes into the scripts quoted: shell lines in single quotes (``quoted(_:)``), `#SBATCH` lines
    /// (the logs' folder and the working directory) as ``directiveQuoted(_:)`` with `%` escaped. What quoting
    /// cannot make safe is refused with the reason: a control character anywhere (a line break in an `#SBATCH`
    /// line would be a shell command of its own), and in `#SBATCH` values a backslash (sbatch keeps it and
    /// Slurm then writes the log elsewhere) or both kinds of quote (sbatch has no escape for them).
    /// - Throws: ``SlurmError/unsafeValue(_:_:reason:)`` naming the value and what to do.
    public func checkScriptValues() throws(SlurmError) {
        var values = [
            ("--gambit", gambit), ("the suite", suite), ("--output", output), ("--cache-dir", cacheFolder),
            ("the working directory", workingDirectory),
        ]
        values += runArguments.map { ("the run option", $0) }
        for (name, value) in values {
            if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw .unsafeValue(name, value, reason: "it holds a line break or another control character")
            }
        }
        for (name, value) in [("--output", output), ("the working directory", workingDirectory)] {
            if value.contains("\\") {
                throw .unsafeValue(name, value, reason: "it holds a backslash, which Slurm's log paths cannot carry")
            }
            if value.contains("'"), value.contains("\"") {
                throw .unsafeValue(
                    name, value, reason: "it holds both a single and a double quote, which an #SBATCH line cannot carry"
                )
            }
        }
    }

    func header(name: String, log: String, extra: [String] = []) -> String {
        var lines = [
            "#!/bin/bash",
            "#SBATCH --job-name=\(name)",
            "#SBATCH --output=\(log)",
            // A task submitted again adds to its log: the first attempt's error stays readable.
            "#SBATCH --open-mode=append",
            "#SBATCH --chdir=\(Self.directiveQuoted(workingDirectory))",
        ]
        lines += (extra + sbatchOptions).map { "#SBATCH \($0)" }
        return lines.joined(separator: "\n")
    }

    /// A log path for `#SBATCH --output`: the path with its `%` escaped, then `pattern` (Slurm's own, such as
    /// `%a` for the array task), quoted.
    static func logDirective(_ path: String, then pattern: String = "") -> String {
        directiveQuoted(patternEscaped(path) + pattern)
    }

    var runTail: String { runArguments.map { " " + Self.quoted($0) }.joined() }

    /// The prepare job: every variant into the shared cache.
    public func prepareScriptText() -> String {
        """
        \(header(name: "gambit-prepare", log: Self.logDirective(prepareLog.path)))
        # Written by `gambit slurm`: prepares every variant of the suite into the cache the shards share.
        set -u
        echo "== gambit prepare: job ${SLURM_JOB_ID:-?} on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        \(Self.quoted(gambit)) run \(Self.quoted(suite)) --prepare-only --cache-dir \(Self.quoted(cacheFolder))\(runTail)
        status=$?
        echo "$status ${SLURM_JOB_ID:-?} $(hostname)" > \(Self.quoted(prepareStatus.path))
        exit $status

        """
    }

    /// The array job: one shard per task.
    public func arrayScriptText() -> String {
        let shards = outputURL.appendingPathComponent(Self.shardsFolderName).path
        return """
            \(header(name: "gambit-shards", log: Self.logDirective(logs.path, then: "/shard-%a.log")))
            # Written by `gambit slurm`: task I runs shard I/\(tasks) of the suite into shards/I, with its journal there,
            # so a task submitted again (sbatch --array=I) resumes where it stopped.
            set -u
            shard=${SLURM_ARRAY_TASK_ID:?submit this script as an array job, e.g. sbatch --array=0-\(tasks - 1)}
            echo "== gambit shard $shard/\(tasks): job ${SLURM_ARRAY_JOB_ID:-?}_$shard on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
            \(Self.quoted(gambit)) run \(Self.quoted(suite)) --shard "$shard/\(tasks)" --output \(Self.quoted(shards))/"$shard" \\
                --cache-dir \(Self.quoted(cacheFolder)) --workers "${SLURM_CPUS_PER_TASK:-1}"\(runTail)
            status=$?
            echo "$status ${SLURM_ARRAY_JOB_ID:-?}_$shard $(hostname)" > \(Self.quoted(statusFolder.path))/"shard-$shard"
            # 1 (a check failed) and 3 (some utterances failed) wrote the shard's results: the merge judges them.
            case $status in 0 | 1 | 3) exit 0 ;; *) exit $status ;; esac

            """
    }

    /// The merge job: the reports, or which shards failed.
    public func mergeScriptText() -> String {
        """
        \(header(name: "gambit-merge", log: Self.logDirective(mergeLog.path)))
        # Written by `gambit slurm`: merges the shards into the reports, or names the shards that failed and their logs.
        set -u
        echo "== gambit merge: job ${SLURM_JOB_ID:-?} on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        exec \(Self.quoted(gambit)) slurm merge \(Self.quoted(output))

        """
    }

    // MARK: After the jobs

    /// How one job ended, from the status file its script writes last.
    public enum Outcome: Equatable, Sendable {
        /// `gambit` exited with this status (on this job and host).
        case exited(status: Int32, job: String, host: String)
        /// No status: the job has not run, or it was cancelled, timed out, ran out of memory or lost its node.
        case unfinished
    }

    public static func outcome(at url: URL) -> Outcome {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return .unfinished }
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = fields.first, let status = Int32(first) else { return .unfinished }
        return .exited(
            status: status, job: fields.count > 1 ? fields[1] : "?", host: fields.count > 2 ? fields[2] : "?")
    }

    /// A shard the merge cannot take, and why.
    public struct FailedShard: Equatable, Sendable {
        public var shard: Int
        public var outcome: Outcome
        /// The shard's results are missing although it exited with a status that writes them.
        public var resultsMissing: Bool
        public var log: URL
    }

    /// The shards whose task did not finish with results: no status, a status other than 0, 1 or 3 (every
    /// other status means no results were written), or no results file.
    public func failedShards() -> [FailedShard] {
        (0..<tasks).compactMap { shard in
            let outcome = Self.outcome(at: taskStatus(shard))
            let hasResults = FileManager.default.fileExists(atPath: Runner.resultsFile(in: shardFolder(shard)).path)
            if case .exited(let status, _, _) = outcome, [0, 1, 3].contains(status), hasResults { return nil }
            var resultsMissing = false
            if case .exited(let status, _, _) = outcome, [0, 1, 3].contains(status) { resultsMissing = true }
            return FailedShard(shard: shard, outcome: outcome, resultsMissing: resultsMissing, log: taskLog(shard))
        }
    }

    /// The last `count` lines of a log that say something, for a failure report.
    public static func tail(of url: URL, lines count: Int = 6) -> [String] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
        return Array(lines.suffix(count))
    }

    /// The job ids a ``submitChain(shards:_:)`` got.
    public struct ChainIDs: Sendable, Equatable {
        public var prepare: String
        public var array: String
        public var merge: String
    }

    /// The one chain of jobs, in order: the prepare job; the array of `shards`, once the prepare job has succeeded;
    /// the merge, once every task has ended. `submit` gets each job's `sbatch` arguments and returns its id, which
    /// the later jobs' dependencies name. A dry run passes a `submit` that prints and returns a stand-in id, so
    /// what it prints is what a submission would run.
    ///
    /// - Returns: The three ids `submit` returned.
    /// - Throws: What `submit` throws; the jobs after that one are not submitted.
    public func submitChain(shards: [Int], _ submit: (_ arguments: [String]) throws -> String) rethrows -> ChainIDs {
        let prepare = try submit(["--parsable", prepareScript.path])
        let array = try submit([
            "--parsable", "--array=\(Self.arraySpec(shards))", "--dependency=afterok:\(prepare)",
            "--kill-on-invalid-dep=yes", arrayScript.path,
        ])
        let merge = try submit(["--parsable", "--dependency=afterany:\(array)", mergeScript.path])
        return ChainIDs(prepare: prepare, array: array, merge: merge)
    }

    /// `0-3`, or `1,3` for a selection: the `--array` value for `shards`.
    public static func arraySpec(_ shards: [Int]) -> String {
        if let first = shards.first, let last = shards.last, shards == Array(first...last), shards.count > 1 {
            return "\(first)-\(last)"
        }
        return shards.map(String.init).joined(separator: ",")
    }

    /// The command that submits `shards` again (their tasks resume from their journals), and a merge.
    public func resubmitCommand(shards: [Int]) -> String {
        var words = [gambit, "slurm", suite, "--tasks", String(tasks), "--output", output]
        if !shards.isEmpty, shards.count < tasks {
            words += ["--shards", shards.map(String.init).joined(separator: ",")]
        }
        if cacheFolder != Runner.outputCacheFolder(in: outputURL).path { words += ["--cache-dir", cacheFolder] }
        if !sbatchOptions.isEmpty { words += ["--sbatch-args", sbatchOptions.joined(separator: " ")] }
        if !runArguments.isEmpty { words += ["--"] + runArguments }
        return words.map(Self.quoted).joined(separator: " ")
    }

    /// Why the merge cannot take every shard, for a person: each failed shard with its job, exit status, log
    /// and the log's last lines, and the command that submits them again.
    public func failureReport(_ failed: [FailedShard]) -> String {
        var lines: [String] = []
        if case .exited(let status, let job, let host) = Self.outcome(at: prepareStatus), status != 0 {
            lines.append("the prepare job failed: gambit exited with status \(status) (job \(job) on \(host))")
            lines.append("  log: \(prepareLog.path)")
            lines += Self.tail(of: prepareLog).map { "  | \($0)" }
        }
        for failure in failed {
            let name = "shard \(failure.shard)/\(tasks)"
            switch failure.outcome {
            case .exited(let status, let job, let host) where failure.resultsMissing:
                lines.append(
                    "\(name) ended with status \(status) (job \(job) on \(host)) but its results are missing from "
                        + shardFolder(failure.shard).path)
            case .exited(let status, let job, let host) where status > 128:
                // The shell reports a child killed by signal N as 128 + N.
                let signal = status - 128
                let cause =
                    switch signal {
                    case 15: "SIGTERM: cancelled, or out of time"
                    case 9: "SIGKILL: out of memory, or killed"
                    default: "signal \(signal)"
                    }
                lines.append("\(name) did not finish: gambit was stopped by \(cause) (job \(job) on \(host))")
            case .exited(let status, let job, let host):
                let meaning = status == 2 ? "refused input or an error that stopped it" : "an unexpected status"
                lines.append("\(name) failed: gambit exited with status \(status), \(meaning) (job \(job) on \(host))")
            case .unfinished:
                lines.append(
                    "\(name) did not finish: no exit status (not run, cancelled, out of time or memory, or its node "
                        + "failed; `sacct` or the log says which)")
            }
            lines.append("  log: \(failure.log.path)")
            lines += Self.tail(of: failure.log).map { "  | \($0)" }
        }
        lines.append("submit them again (each resumes from its journal), with a new merge:")
        lines.append("  " + resubmitCommand(shards: failed.map(\.shard)))
        return lines.joined(separator: "\n")
    }

    // MARK: Saving

    public func save() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: record, options: .atomic)
    }

    /// Reads the record a submission saved under `output`.
    public static func load(output: URL) throws(SlurmError) -> SlurmJobs {
        let url = output.appendingPathComponent(folderName).appendingPathComponent("jobs.json")
        guard let data = try? Data(contentsOf: url) else { throw .noRecord(url.path) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(SlurmJobs.self, from: data)
        } catch {
            throw .unreadableRecord(url.path, reason: "\(error)")
        }
    }
}

/// What `gambit slurm` refuses, naming what to fix.
public enum SlurmError: Error, CustomStringConvertible, Equatable {
    case invalidSbatchArguments(String, reason: String)
    case noRecord(String)
    case unreadableRecord(String, reason: String)
    case sbatchFailed(command: String, status: Int32, output: String)
    case sbatchNotFound
    case unsafeValue(String, String, reason: String)

    public var description: String {
        switch self {
        case .invalidSbatchArguments(let text, let reason): "--sbatch-args \"\(text)\": \(reason)"
        case .noRecord(let path):
            "\(path): no such file; this folder was not made by `gambit slurm SUITE --output …`"
        case .unreadableRecord(let path, let reason): "\(path): unreadable: \(reason)"
        case .sbatchFailed(let command, let status, let output):
            "\(command) failed with status \(status): \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        case .unsafeValue(let name, let value, let reason):
            "\(name) \(value.debugDescription) cannot go into a batch script: \(reason); use one without it"
        case .sbatchNotFound:
            "sbatch not found on PATH: run this on a Slurm login node (--dry-run prints the batch scripts anywhere)"
        }
    }
}
