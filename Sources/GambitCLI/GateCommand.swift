import ArgumentParser
import Formats
import Foundation
import Gate
import Publishing
import Reporting
import Results
import Runner
import Scoring

struct GateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Compare results with a stored baseline; exit 1 on a regression beyond its threshold.",
        discussion: ExitStatus.help([
            .success: "no regression beyond its threshold",
            .checkFailed: "a regression beyond its threshold",
            .refused: "bad input or usage: unreadable results, invalid thresholds, runs that cannot be compared, "
                + "partial results (gambit merge --partial)",
        ])
    )

    @Argument(help: "Results of this run: Reports/.gambit/results.json or Reports/report.json.")
    var results: String

    @Option(help: "Baseline results (e.g. a report.json kept from the main branch).")
    var baseline: String

    @Option(help: "Thresholds: a suite file with a `gate:` section, or a YAML/JSON file of thresholds.")
    var thresholds: String?

    @Option(help: "Override: maximum absolute WER increase, in points.")
    var maxWerIncrease: Double?

    @Option(help: "Override: maximum anti-context WER increase, in points.")
    var maxAntiContextIncrease: Double?

    @Flag(help: "Fail on a WER regression only when it is also significant.")
    var requireSignificance = false

    @Option(help: "Also write the gate's findings as JUnit XML here.")
    var junit: String?

    func run() throws {
        var limits = GateThresholds.default
        do {
            if let thresholds { limits = try Self.loadThresholds(URL(fileURLWithPath: thresholds)) }
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(2)
        }
        if let maxWerIncrease { limits.wer.maxIncrease = maxWerIncrease }
        if let maxAntiContextIncrease { limits.antiContextWER.maxIncrease = maxAntiContextIncrease }
        if requireSignificance { limits.wer.requireSignificance = true }
        let outcome = Gate.evaluate(
            current: URL(fileURLWithPath: results), baseline: URL(fileURLWithPath: baseline), thresholds: limits)
        print(outcome.summary)
        for note in outcome.notes { print("  note: \(note)") }
        if let junit {
            let url = URL(fileURLWithPath: junit)
            do {
                try GateJUnitReport(outcome, name: "gambit gate").render()
                    .write(to: url, atomically: true, encoding: .utf8)
            } catch {
                throw ReportError.unwritable(path: junit, detail: FileSystemReason.writing(url, error))
            }
        }
        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
    }

    static func loadThresholds(_ url: URL) throws -> GateThresholds {
        try GateThresholds.load(from: url)
    }
}

struct Baseline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the stored baseline that `gambit gate` compares against.", subcommands: [Update.self])

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new baseline from results, deliberately (private terms masked).",
            discussion: ExitStatus.doneOrRefused)

        @Argument(help: "Results: Reports/.gambit/results.json, or a run's output folder.")
        var results = "Reports/.gambit/results.json"

        @Option(help: "Baseline file to write.")
        var to = "baseline.json"

        func run() throws {
            let loaded = try RunFolder.writeBaseline(
                of: Report.resultsFile(results), to: URL(fileURLWithPath: to))
            print("baseline written to \(to) (\(loaded.systems.count) systems, suite \(loaded.run.suite.name))")
        }
    }
}
