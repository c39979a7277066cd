import Formats
import Foundation
import Results
import Scoring

/// The terminal summary printed after a run.
enum Summary {
    /// "failed: 3 audio, 1 timeout (see report.html)": the failed utterances of every system by kind; nil when
    /// none failed.
    static func failuresByKind(_ results: RunResults) -> String? {
        let failed = results.systems.flatMap(\.utterances).filter { $0.failure != nil }
        guard !failed.isEmpty else { return nil }
        var parts = FailureKind.allCases.compactMap { kind -> String? in
            let count = failed.count { $0.failureKind == kind }
            return count == 0 ? nil : "\(count) \(kind.label)"
        }
        let unknown = failed.count { $0.failureKind == nil }
        if unknown > 0 { parts.append("\(unknown) of an unrecorded kind") }
        return "failed decodes: " + parts.joined(separator: ", ") + " (each with its cause in report.html)"
    }

    static func text(_ results: RunResults) -> String {
        // A terminal's output ends up in CI logs: it names private data no more than the reports do.
        let results = results.redactingPrivateTerms()
        func pct(_ value: Double?) -> String { value.map { String(format: "%6.2f%%", $0 * 100) } ?? "no data" }
        /// Boosted words heard where nobody said them, per hour of audio.
        func perHour(_ value: Double?) -> String {
            (value.map { String(format: "%.1f/h", $0) } ?? "no data").leftPadding(to: 12)
        }
        func name(_ system: SystemResults) -> String {
            let own =
                system.mode == .customized
                ? "customized: \(system.variant ?? "")" + (system.list.map { ", \($0.name) list" } ?? "")
                : system.mode.rawValue
            return printable(system.recognizer.map { "external \($0): \(own)" } ?? own)
        }
        // Columns as wide as their longest entry, so that no name is cut.
        let corpusWidth = max(results.systems.map { printable($0.corpus).count }.max() ?? 0, "corpus".count) + 1
        let systemWidth = max(results.systems.map { name($0).count }.max() ?? 0, 28)
        // A partial merge is said first and last, where a reader of a long summary looks.
        let partial = results.run.partial.map { "PARTIAL  \($0.summary)" }
        var lines = [
            "",
            partial,
            "corpus".padding(toLength: corpusWidth, withPad: " ", startingAt: 0)
                + "system".padding(toLength: systemWidth, withPad: " ", startingAt: 0)
                + "     WER     B-WER    U-WER     kw F1  false alarms  utts  failed",
        ].compactMap { $0 }
        for system in results.systems {
            let m = system.metrics
            lines.append(
                printable(system.corpus).padding(toLength: corpusWidth, withPad: " ", startingAt: 0)
                    + name(system).padding(toLength: systemWidth, withPad: " ", startingAt: 0)
                    + " \(pct(Rates.measured(m.rates.counts.errors, over: m.rates.counts.referenceWords)))  "
                    + "\(pct(m.boosted?.boostedWordErrorRate))  "
                    + "\(pct(m.boosted?.unboostedWordErrorRate))  \(pct(m.keywords?.overall.f1))  "
                    + perHour(m.keywords?.falseAlarmsPerHour)
                    + String(format: "  %4ld  %6ld", system.utterances.count, system.failures.failed))
        }
        lines.append("")
        if let failures = failuresByKind(results) { lines += [failures, ""] }
        for comparison in results.comparisons {
            let delta = comparison.deltaWER
            lines.append(
                String(
                    format: "%@ / %@: WER %.2f%% → %.2f%% (Δ %+.2f, 95%% CI %+.2f…%+.2f)%@%@",
                    printable(comparison.corpus),
                    printable(comparison.label),
                    comparison.baseline.wordErrorRate * 100,
                    comparison.customized.wordErrorRate * 100, delta.observedDelta * 100, delta.lower * 100,
                    delta.upper * 100,
                    comparison.significant || comparison.tooFewUtterances != nil ? ", \(comparison.verdict)" : "",
                    comparison.oracleGainCaptured.map { String(format: ", %.0f%% of oracle gain", $0 * 100) } ?? ""))
            if let base = comparison.baseline.falseAlarmsPerHour, let custom = comparison.customized.falseAlarmsPerHour,
                let change = comparison.deltaFalseAlarmsPerHour
            {
                lines.append(
                    String(
                        format: "    false alarms %.1f → %.1f per hour (Δ %+.1f, 95%% CI %+.1f…%+.1f)%@", base, custom,
                        change.observedDelta, change.lower, change.upper,
                        change.significant || change.tooFewUtterances != nil ? ", \(change.verdict)" : ""))
            }
        }
        lines.append("")
        // What needs attention first, in full; then each family of checks on one line.
        let checks = CheckSummary(results.checks)
        for check in checks.attention {
            lines.append("\(check.passed ? "WARN" : "FAIL")  \(printable(check.name)): \(printable(check.message))")
        }
        for group in checks.groups {
            lines.append("\(group.state.rawValue)  \(printable(group.line))")
        }
        if let partial { lines.append(partial) }
        return lines.joined(separator: "\n")
    }

    /// A name or message on one line of a terminal: control characters (a line break or tab that would
    /// break the table's columns, an escape that would start a terminal command) are shown escaped, as
    /// `\n`, `\t`, `\r` or `\u{1B}`.
    static func printable(_ text: String) -> String { PrintedName.escaped(text) }
}

extension Summary {
    /// Where the run's time went: each stage's wall and CPU time, the workers' time by kind of work, and the
    /// run's wall time against its decode floor.
    static func timings(_ timings: RunTimings) -> String {
        func seconds(_ value: Double) -> String { String(format: "%9.1f s", value) }
        let width =
            max(
                (timings.stages.map(\.name) + timings.workers.map(\.name)).map { printable($0).count }.max() ?? 0, 5)
            + 2
        func label(_ name: String) -> String {
            "  " + printable(name).padding(toLength: width, withPad: " ", startingAt: 0)
        }
        let floor = timings.decodeFloorSeconds
        let wall = timings.wallSeconds
        var lines = [
            String(
                format: "where the time went: %.1f s wall; decode floor %.1f s (%.0f%% of it) on %ld %@",
                wall, floor, floor / max(wall, 1e-9) * 100, timings.workerCount,
                timings.workerCount == 1 ? "worker" : "workers"),
            label("stage") + "     wall" + "        CPU",
        ]
        for stage in timings.stages {
            lines.append(label(stage.name) + seconds(stage.wallSeconds) + "  " + seconds(stage.cpuSeconds))
        }
        if !timings.workers.isEmpty {
            lines.append(
                "  in the workers, summed over the \(timings.decoded) decodings of this run"
                    + (timings.journaled > 0 ? " (\(timings.journaled) more came from the journal)" : "") + ":")
            for part in timings.workers {
                let unit = part.name == "model loads" ? (part.count == 1 ? "load" : "loads") : "utterances"
                let perAudio = part.costPerAudioSecond.map {
                    String(format: ", %.0f s of audio, %.3f s per audio second", part.audioSeconds ?? 0, $0)
                }
                lines.append(label(part.name) + seconds(part.seconds) + "  (\(part.count) \(unit)\(perAudio ?? ""))")
            }
            if let ratio = timings.customizedCostRatio {
                lines.append(
                    String(format: "  customized decodes cost %.2f× the baseline's per second of audio", ratio))
            }
        } else if timings.journaled > 0 {
            lines.append("  nothing decoded: all \(timings.journaled) answers came from the journal")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text right-aligned in `width` characters (never cut).
    fileprivate func leftPadding(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
