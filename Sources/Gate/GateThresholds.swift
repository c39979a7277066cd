import Foundation
import StrictYAML
import Yams

/// How much one metric may get worse before the gate fails.
///
/// A change fails when it is larger than ``maxIncrease`` or (relative to the old value) larger than
/// ``maxIncreasePercent`` — whichever limits are set — and, when ``requireSignificance`` is on, the change is also
/// statistically significant. Decreases never fail.
public struct Limit: Codable, Sendable, Equatable {
    /// Largest allowed increase in the metric's display unit: percentage points for error rates (`1.0` = +1.0
    /// point), seconds for latency, the plain ratio for the real-time factor, a count for failed utterances.
    /// `nil`: no absolute limit.
    public var maxIncrease: Double?
    /// Largest allowed increase in percent of the old value (`10` = +10%). `nil`: no relative limit.
    public var maxIncreasePercent: Double?
    /// Fail only when the change is significant (paired bootstrap 95% interval excludes 0, or MAPSSWE p < 0.05).
    /// Ignored for latency, the real-time factor and failures, which have no per-utterance pairing test.
    public var requireSignificance: Bool
    /// Largest allowed value in this run, in the display unit (points for rates, a count per hour for false
    /// alarms), whatever the baseline run measured and whether or not the change is significant. `nil`: none.
    public var ceiling: Double?

    public init(
        maxIncrease: Double? = nil, maxIncreasePercent: Double? = nil, requireSignificance: Bool = false,
        ceiling: Double? = nil
    ) {
        self.maxIncrease = maxIncrease
        self.maxIncreasePercent = maxIncreasePercent
        self.requireSignificance = requireSignificance
        self.ceiling = ceiling
    }

    enum CodingKeys: String, CodingKey { case maxIncrease, maxIncreasePercent, requireSignificance, ceiling }

    /// Missing keys mean “no limit” and “no significance required”.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxIncrease = try container.decodeIfPresent(Double.self, forKey: .maxIncrease)
        maxIncreasePercent = try container.decodeIfPresent(Double.self, forKey: .maxIncreasePercent)
        requireSignificance = try container.decodeIfPresent(Bool.self, forKey: .requireSignificance) ?? false
        ceiling = try container.decodeIfPresent(Double.self, forKey: .ceiling)
    }

    /// No limit at all: the metric is reported but never fails.
    public static let unlimited = Limit()
}

/// The limits of the regression gate: the `gate:` section of a suite file.
///
/// Every field is optional in YAML or JSON; a missing one takes its default. Example:
///
/// ```yaml
/// gate:
///   wer: { maxIncrease: 1.0, maxIncreasePercent: 10, requireSignificance: true }
///   antiContextWER: { maxIncrease: 0.5 }
///   corpora:
///     medical: { wer: { maxIncrease: 2.0 } }
/// ```
public struct GateThresholds: Codable, Sendable, Equatable {
    /// WER of every system on a domain corpus. Default +1.0 point or +10%.
    public var wer: Limit
    /// B-WER of customized systems. Default +1.0 point.
    public var boostedWER: Limit
    /// WER of every system on an anti-context corpus. Default +1.0 point.
    public var antiContextWER: Limit
    /// 95th percentile of final latency after end of audio. Default +25%, and significant: a paired bootstrap of the
    /// p95 over the utterances both runs streamed excludes no change (at least 10 of them; see
    /// ``Significance/pairedQuantileBootstrap(metric:valuesA:valuesB:quantile:options:)``).
    public var finalLatencyP95: Limit
    /// Real-time factor. Default +25%.
    public var realTimeFactor: Limit
    /// Utterances that failed to decode. Default: no new failures.
    public var failedUtterances: Limit
    /// False alarms per hour of customized systems: boosted words heard where the reference does not have them.
    /// Default: a significant rise of more than 5 per hour.
    public var falseAlarmsPerHour: Limit
    /// Per-corpus overrides of ``wer``, ``boostedWER``, ``antiContextWER`` and ``falseAlarmsPerHour``.
    public var corpora: [String: CorpusThresholds]
    /// Where the thresholds were read, when from a file: its path and the line of each ``corpora`` entry, so that
    /// an entry naming a corpus the results lack is reported there. Not part of the thresholds' value.
    public var origin: Origin?

    /// A thresholds file and the lines of its per-corpus entries.
    public struct Origin: Sendable {
        public var path: String
        public var corpusLines: [String: Int]
    }

    public init(
        wer: Limit = Self.defaultWER, boostedWER: Limit = Limit(maxIncrease: 1.0),
        antiContextWER: Limit = Limit(maxIncrease: 1.0),
        finalLatencyP95: Limit = Limit(maxIncreasePercent: 25, requireSignificance: true),
        realTimeFactor: Limit = Limit(maxIncreasePercent: 25), failedUtterances: Limit = Limit(maxIncrease: 0),
        falseAlarmsPerHour: Limit = Limit(maxIncrease: 5, requireSignificance: true),
        corpora: [String: CorpusThresholds] = [:]
    ) {
        self.wer = wer
        self.boostedWER = boostedWER
        self.antiContextWER = antiContextWER
        self.finalLatencyP95 = finalLatencyP95
        self.realTimeFactor = realTimeFactor
        self.failedUtterances = failedUtterances
        self.falseAlarmsPerHour = falseAlarmsPerHour
        self.corpora = corpora
    }

    public static let defaultWER = Limit(maxIncrease: 1.0, maxIncreasePercent: 10)

    /// Equal limits are equal thresholds, wherever they were read.
    public static func == (a: GateThresholds, b: GateThresholds) -> Bool {
        (a.wer, a.boostedWER, a.antiContextWER, a.finalLatencyP95) == (
            b.wer, b.boostedWER, b.antiContextWER, b.finalLatencyP95
        )
            && (a.realTimeFactor, a.failedUtterances, a.falseAlarmsPerHour) == (
                b.realTimeFactor, b.failedUtterances, b.falseAlarmsPerHour
            )
            && a.corpora == b.corpora
    }

    /// Each per-corpus entry that names a corpus not in `known` (a typo: its limits would never apply, and the
    /// gate would pass on the defaults), as an error with the file, the line and the nearest known name.
    ///
    /// - Parameters:
    ///   - known: The corpora of the results (or the suite) the thresholds are for.
    ///   - holder: What has them, as the message names it: "the results", "the suite".
    /// - Returns: One error per unknown name, in name order; empty when every name is known.
    public func unknownCorpora(known: [String], in holder: String = "the results") -> [GateThresholdsError] {
        corpora.keys.filter { !known.contains($0) }.sorted().map { name in
            let nearest = nearestKey(to: name, in: known).map { " Did you mean `\($0)`?" } ?? ""
            return GateThresholdsError(
                path: origin?.path ?? "the thresholds", line: origin?.corpusLines[name],
                message: "the limits for corpus `\(name)` name a corpus not in \(holder), so they would never "
                    + "apply.\(nearest) Its corpora: \(known.sorted().map { "`\($0)`" }.joined(separator: ", ")).")
        }
    }

    /// The defaults: WER +1.0 point or +10%, B-WER +1.0 point, anti-context WER +1.0 point, p95 final latency
    /// a significant +25%, RTF +25%, no new failed utterances, false alarms a significant +5 per hour.
    public static let `default` = GateThresholds()

    enum CodingKeys: String, CodingKey {
        case wer, boostedWER, antiContextWER, finalLatencyP95, realTimeFactor, failedUtterances, falseAlarmsPerHour
        case corpora
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = GateThresholds.default
        wer = try c.decodeIfPresent(Limit.self, forKey: .wer) ?? d.wer
        boostedWER = try c.decodeIfPresent(Limit.self, forKey: .boostedWER) ?? d.boostedWER
        antiContextWER = try c.decodeIfPresent(Limit.self, forKey: .antiContextWER) ?? d.antiContextWER
        finalLatencyP95 = try c.decodeIfPresent(Limit.self, forKey: .finalLatencyP95) ?? d.finalLatencyP95
        realTimeFactor = try c.decodeIfPresent(Limit.self, forKey: .realTimeFactor) ?? d.realTimeFactor
        failedUtterances = try c.decodeIfPresent(Limit.self, forKey: .failedUtterances) ?? d.failedUtterances
        falseAlarmsPerHour = try c.decodeIfPresent(Limit.self, forKey: .falseAlarmsPerHour) ?? d.falseAlarmsPerHour
        corpora = try c.decodeIfPresent([String: CorpusThresholds].self, forKey: .corpora) ?? [:]
    }

    /// Problems that make the thresholds unusable (negative limits), as messages.
    public var problems: [String] {
        var problems: [String] = []
        var limits: [(String, Limit)] = [
            ("wer", wer), ("boostedWER", boostedWER), ("antiContextWER", antiContextWER),
            ("finalLatencyP95", finalLatencyP95), ("realTimeFactor", realTimeFactor),
            ("failedUtterances", failedUtterances), ("falseAlarmsPerHour", falseAlarmsPerHour),
        ]
        for (name, corpus) in corpora.sorted(by: { $0.key < $1.key }) {
            let overrides = [corpus.wer, corpus.boostedWER, corpus.antiContextWER, corpus.falseAlarmsPerHour]
            limits += overrides.enumerated().compactMap { index, limit in
                limit.map {
                    ("corpora.\(name).\(["wer", "boostedWER", "antiContextWER", "falseAlarmsPerHour"][index])", $0)
                }
            }
        }
        for (name, limit) in limits {
            if let value = limit.maxIncrease, value < 0 || !value.isFinite {
                problems.append("gate.\(name).maxIncrease is \(value); it must be zero or positive")
            }
            if let value = limit.maxIncreasePercent, value < 0 || !value.isFinite {
                problems.append("gate.\(name).maxIncreasePercent is \(value); it must be zero or positive")
            }
            if let value = limit.ceiling, value < 0 || !value.isFinite {
                problems.append("gate.\(name).ceiling is \(value); it must be zero or positive")
            }
        }
        return problems
    }
}

/// Overrides for one corpus; `nil` fields fall back to the suite-wide limits.
public struct CorpusThresholds: Codable, Sendable, Equatable {
    public var wer: Limit?
    public var boostedWER: Limit?
    public var antiContextWER: Limit?
    public var falseAlarmsPerHour: Limit?

    public init(
        wer: Limit? = nil, boostedWER: Limit? = nil, antiContextWER: Limit? = nil, falseAlarmsPerHour: Limit? = nil
    ) {
        self.wer = wer
        self.boostedWER = boostedWER
        self.antiContextWER = antiContextWER
        self.falseAlarmsPerHour = falseAlarmsPerHour
    }
}

extension GateThresholds {
    /// The keys a thresholds file (or a suite's `gate:` section) may have.
    public static let schema: KeySchema = {
        let limit = KeySchema.mapping([
            "maxIncrease": .value, "maxIncreasePercent": .value, "requireSignificance": .value, "ceiling": .value,
        ])
        return .mapping([
            "wer": limit, "boostedWER": limit, "antiContextWER": limit, "finalLatencyP95": limit,
            "realTimeFactor": limit, "failedUtterances": limit, "falseAlarmsPerHour": limit,
            "corpora": .namedEntries(
                .mapping([
                    "wer": limit, "boostedWER": limit, "antiContextWER": limit, "falseAlarmsPerHour": limit,
                ])),
        ])
    }()

    /// Reads thresholds from a suite file's `gate:` section, or from a YAML or JSON file of
    /// thresholds. A suite without a `gate:` section gives the defaults.
    ///
    /// - Parameter url: The file.
    /// - Returns: The thresholds, with defaults for what the file leaves out.
    /// - Throws: ``GateThresholdsError`` naming the file and line of an unknown key (with the nearest
    ///   known one) or a value of the wrong type.
    public static func load(from url: URL) throws(GateThresholdsError) -> GateThresholds {
        guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else {
            throw GateThresholdsError(path: url.path, line: nil, message: "cannot read the file as UTF-8 text")
        }
        let root: Node?
        do {
            // JSON is read as YAML too, so that its errors have lines.
            root = try Yams.compose(yaml: text)
        } catch {
            throw GateThresholdsError(path: url.path, line: nil, message: "malformed YAML or JSON: \(error)")
        }
        guard let root else { throw GateThresholdsError(path: url.path, line: 1, message: "the file is empty") }
        guard let mapping = root.mapping else {
            throw GateThresholdsError(path: url.path, line: root.mark?.line, message: "expected a mapping of limits")
        }
        let section: Node
        let context: String
        if let gate = mapping["gate"] {
            (section, context) = (gate, "gate")
        } else if mapping["corpora"]?.sequence != nil || mapping["variants"] != nil {
            // A suite without thresholds of its own.
            return .default
        } else {
            (section, context) = (root, "the top level")
        }
        do {
            try schema.check(section, context: context)
        } catch {
            throw GateThresholdsError(path: url.path, line: error.line, message: error.description)
        }
        let thresholds: GateThresholds
        do {
            // Decoded from the composed node itself, which keeps each value's line.
            thresholds = try YAMLDecoder().decode(GateThresholds.self, from: section)
        } catch {
            throw GateThresholdsError(
                path: url.path, line: line(of: error, in: section) ?? section.mark?.line, message: "\(error)")
        }
        // Negative limits are ``problems``, which the gate reports as bad input with every one listed.
        var located = thresholds
        var corpusLines: [String: Int] = [:]
        for (key, value) in section.mapping?["corpora"]?.mapping ?? [:] {
            if let name = key.string { corpusLines[name] = key.mark?.line ?? value.mark?.line }
        }
        located.origin = Origin(path: url.path, corpusLines: corpusLines)
        return located
    }
}

/// The line of the value a decoding error names (its coding path walked through `node`), when it has one.
private func line(of error: any Error, in node: Node) -> Int? {
    let path: [any CodingKey]
    switch error as? DecodingError {
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
        path = context.codingPath
    case .keyNotFound(_, let context)?:
        path = context.codingPath
    default:
        return nil
    }
    var current = node
    for key in path {
        if let index = key.intValue, let sequence = current.sequence, index < sequence.count {
            current = sequence[index]
        } else if let value = current.mapping?[key.stringValue] {
            current = value
        } else {
            break
        }
    }
    return current.mark?.line
}

/// A thresholds file that cannot be used.
public struct GateThresholdsError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// "FILE:LINE: error: MESSAGE".
    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): error: \(message)" }
}
