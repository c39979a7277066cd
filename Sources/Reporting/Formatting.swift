import Formats
import Foundation
import Results
import Scoring

/// Number and text formatting shared by the renderers, independent of the locale.
enum Format {
    /// `12.50%`.
    static func percent(_ value: Double, digits: Int = 2) -> String {
        String(format: "%.\(digits)f%%", value * 100)
    }

    /// What a rate over an empty set shows: never 0% or 100%.
    static let noData = "no data"

    /// `12.50%`, or "no data" for `nil` (a rate over nothing, or a metric that was not measured).
    static func percent(_ value: Double?) -> String { value.map { percent($0) } ?? noData }

    /// `0.305`, or "no data" for `nil`.
    static func decimal(_ value: Double?, digits: Int = 3) -> String {
        value.map { decimal($0, digits: digits) } ?? noData
    }

    /// A change in percentage points with a true minus sign: `−3.20`, `+0.50`, `±0.00`.
    static func points(_ delta: Double, digits: Int = 2) -> String {
        let text = String(format: "%.\(digits)f", abs(delta) * 100)
        if Double(text) == 0 { return "±" + text }
        return (delta < 0 ? "−" : "+") + text
    }

    /// A change in a count or a rate per hour with a true minus sign: `−3.2`, `+0.5`, `±0.0`.
    static func signed(_ delta: Double, digits: Int = 1) -> String {
        let text = String(format: "%.\(digits)f", abs(delta))
        if Double(text) == 0 { return "±" + text }
        return (delta < 0 ? "−" : "+") + text
    }

    /// False alarms per hour: `12.3/h`, or "no data" (no audio, or no boosted word to hear).
    static func perHour(_ value: Double?) -> String {
        value.map { String(format: "%.1f/h", $0) } ?? noData
    }

    /// A comparison's false alarms per hour, baseline then customized, and the change with its interval:
    /// `0.0 → 12.3/h (+12.3 [+4.1, +20.5] ✱)`; "no data" when the variant has no boosted word.
    static func falseAlarms(_ comparison: Comparison) -> String {
        guard let base = comparison.baseline.falseAlarmsPerHour, let custom = comparison.customized.falseAlarmsPerHour
        else { return noData }
        let change = comparison.deltaFalseAlarmsPerHour.map { delta in
            " (\(signed(delta.observedDelta)) [\(signed(delta.lower)), \(signed(delta.upper))]"
                + mark(delta) + ")"
        }
        return String(format: "%.1f", base) + " → " + perHour(custom) + (change ?? "")
    }

    /// The mark after a change: ` ✱` when significant, ` †` when too few utterances were compared to judge it
    /// (``Significance/minimumUtterances``), nothing when it is not significant.
    static func mark(significant: Bool, tooFewUtterances: Int?) -> String {
        significant ? " ✱" : tooFewUtterances != nil ? " †" : ""
    }

    static func mark(_ interval: BootstrapInterval) -> String {
        mark(significant: interval.significant, tooFewUtterances: interval.tooFewUtterances)
    }

    /// The legend of ``mark(significant:tooFewUtterances:)``'s dagger.
    static let tooFewLegend =
        "† too few utterances to judge (fewer than \(Significance.minimumUtterances) paired): never significant"

    /// `[−5.00, +1.20]` in percentage points.
    static func interval(_ interval: BootstrapInterval) -> String {
        "[\(points(interval.lower)), \(points(interval.upper))]"
    }

    /// A rate with its bootstrap interval in percent: `12.50% [8.10, 17.00]`; "no data" for `nil`.
    static func rate(_ value: Double?, _ interval: RateInterval?) -> String {
        guard let value else { return noData }
        guard let interval else { return percent(value) }
        return percent(value)
            + " [\(String(format: "%.2f", interval.lower * 100)), \(String(format: "%.2f", interval.upper * 100))]"
    }

    /// The breakdowns of a corpus's systems worth a table: a label with at least two groups, in
    /// ``Aggregation/breakdownFields`` order. Rows go by group, then by system in the run's order, so the systems
    /// of one speaker sit together.
    static func breakdowns(
        of systems: [SystemResults]
    ) -> [(field: String, rows: [(system: SystemResults, group: GroupRates)])] {
        Aggregation.breakdownFields.compactMap { field in
            let breakdowns = systems.compactMap { system in
                system.breakdowns?.first { $0.field == field }.map { (system, $0) }
            }
            guard breakdowns.contains(where: { $0.1.groups.count > 1 }) else { return nil }
            let rows = breakdowns.enumerated().flatMap { order, entry in
                entry.1.groups.map { (order: order, system: entry.0, group: $0) }
            }.sorted { ($0.group.label, $0.order) < ($1.group.label, $1.order) }
            return (field, rows.map { ($0.system, $0.group) })
        }
    }

    /// Seconds with three decimals: `0.412 s`.
    static func seconds(_ value: Double?) -> String {
        value.map { String(format: "%.3f s", $0) } ?? "—"
    }

    /// `170 ms`: a latency, to the millisecond; "—" for none.
    static func milliseconds(_ value: Double?) -> String {
        value.map { String(format: "%.0f ms", $0 * 1000) } ?? "—"
    }

    /// `0.305`.
    static func decimal(_ value: Double, digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

    /// A system's real-time factor (and its inverse): "no data" when nothing was timed (transcripts imported from
    /// files), never 0.
    static func realTimeFactor(_ timing: SystemTiming, inverse: Bool = false) -> String {
        guard timing.realTimeFactor > 0 else { return noData }
        return inverse ? decimal(timing.inverseRealTimeFactor, digits: 2) + "×" : decimal(timing.realTimeFactor)
    }

    /// A measured value or threshold in its unit.
    static func measure(_ value: Double?, unit: String) -> String {
        guard let value else { return "—" }
        switch unit {
        case "fraction": return percent(value)
        case "seconds": return seconds(value)
        case "count": return String(Int(value.rounded()))
        default: return String(format: "%.4g", value)
        }
    }

    /// Escapes text for HTML and XML content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                // Control characters are not allowed in XML 1.0.
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// The display name of a system: the variant, or the mode.
    static func systemName(_ system: SystemResults) -> String {
        guard let recognizer = system.recognizer else { return system.variant ?? system.mode.rawValue }
        return recognizer + (system.variant.map { " · \($0)" } ?? "") + (system.list.map { " · \($0.name) list" } ?? "")
    }
}

/// Writes bytes atomically, creating the directory.
enum AtomicFile {
    static func write(_ text: String, to url: URL) throws {
        try write(Data(text.utf8), to: url)
    }

    static func write(_ data: Data, to url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw ReportError.unwritable(path: url.path, detail: FileSystemReason.writing(url, error))
        }
    }
}

/// Why a report could not be written.
public enum ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    case unwritable(path: String, detail: String)

    public var description: String {
        switch self {
        case .unwritable(let path, let detail):
            return "\(path): cannot write the report (\(detail)). Check that the output directory is writable."
        }
    }
}
