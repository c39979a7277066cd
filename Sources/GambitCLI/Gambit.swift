import ArgumentParser
import Foundation
import Results

@main
struct Gambit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gambit",
        abstract: "Did our custom phrases make speech recognition better, by how much, at what cost?",
        discussion: ExitStatus.help([
            .success: "it did what was asked (and, where it judges, everything passed)",
            .checkFailed: "what it judges failed: a check (run, merge), a regression (gate), a problem (lint)",
            .refused: "refused input or usage, or any error that stopped it; the message says which",
            .utterancesFailed: "every check passed but some utterances failed to decode (run, merge, decode)",
        ]),
        subcommands: [
            Init.self, Run.self, Decode.self, Lint.self, Prepare.self, Score.self, CorpusCommand.self, Report.self,
            Merge.self,
            Diagnose.self, Export.self,
            GateCommand.self, Baseline.self, SweepCommand.self, CacheCommand.self, SlurmCommand.self,
            Worker.self,
        ]
    )

    /// Runs the command line, with every error that is not a verdict ending in ``ExitStatus/refused``.
    ///
    /// swift-argument-parser's own `main()` ends a thrown error with status 1 (64 for a usage error), which a CI
    /// job cannot tell from a failed check; here 1 is only ever a verdict. The printed message is the same.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let verdict as ExitCode {
            exit(withError: verdict)
        } catch {
            // --help and --version are clean exits, printed as swift-argument-parser prints them.
            if exitCode(for: error) == .success { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(ExitStatus.refused.rawValue)
        }
    }
}

/// How `gambit` ends: one meaning per code in every command, so that CI can tell a failed check, failed
/// utterances and refused input apart.
///
/// When several apply, the lowest non-zero code wins: a failed check (1) over failed utterances (3), because a
/// check is what the run is for and a failed utterance is usually what made a check fail. Refused input (2)
/// ends a command before any verdict, so it never meets the others.
enum ExitStatus: Int32, CaseIterable {
    /// 0: the command did what was asked; where it judges (run, merge, gate, lint), everything passed.
    case success = 0
    /// 1: what the command judges failed: a run's or merge's check (on-device, canary, anti-context, B-WER gain…),
    /// a regression beyond its threshold (gate), a problem in training data (lint).
    case checkFailed = 1
    /// 2: refused input or usage (an unreadable or invalid file, an unknown option, missing shards in a merge,
    /// partial results given to the gate) or any other error that stopped the command; the message says which.
    case refused = 2
    /// 3: the run finished and every check passed except "every utterance decoded": some utterances failed to
    /// decode (run, merge), or some files did (decode).
    case utterancesFailed = 3

    /// The status to end a run or merge with: a failed check (other than the failed-utterance check) gives
    /// ``checkFailed``; else a failed utterance gives ``utterancesFailed``; else ``success``. Skipped checks and
    /// warnings do not fail.
    static func of(_ results: RunResults) -> ExitStatus {
        if results.checks.contains(where: { !$0.passed && !$0.isSkipped && $0.kind != .failures }) {
            return .checkFailed
        }
        return results.systems.contains { $0.failures.failed > 0 } ? .utterancesFailed : .success
    }

    /// The status as an error to throw from `run()`; `nil` for success.
    var error: ExitCode? { self == .success ? nil : ExitCode(rawValue) }

    /// A command's "Exit codes" help paragraph, for its `discussion`.
    /// - Parameter meanings: What each code means for this command; codes it never uses are left out.
    static func help(_ meanings: KeyValuePairs<ExitStatus, String>) -> String {
        "Exit codes: " + meanings.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: "; ") + "."
    }

    /// The help paragraph of a command that judges nothing (prepare, score, report, sweep, corpus, cache, baseline).
    static let doneOrRefused = help([
        .success: "done", .refused: "refused input or usage, or an error that stopped it; the message says which",
    ])

    /// The status's meaning in a few words, for the line printed when a command ends with it.
    var summary: String {
        switch self {
        case .success: "success"
        case .checkFailed: "a check failed"
        case .refused: "input refused"
        case .utterancesFailed: "every check passed, but some utterances failed to decode"
        }
    }

    /// Ends a run or merge: says why on standard error and throws the status when it is not success.
    /// - Throws: The status as an `ExitCode`, unless it is ``success``.
    static func end(with results: RunResults) throws {
        let status = of(results)
        guard let error = status.error else { return }
        FileHandle.standardError.write(Data("exit status \(status.rawValue): \(status.summary)\n".utf8))
        throw error
    }
}
