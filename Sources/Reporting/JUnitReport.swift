import Foundation
import Results

/// A JUnit XML document, as read by Jenkins, GitLab, dorny/test-reporter and mikepenz/action-junit-report.
///
/// The output validates against the Jenkins xunit plugin's `junit-10.xsd`: a `testsuites` root, every suite with
/// `name`, `tests`, `failures` and `errors`, every case with `name` and `classname`, times with three decimals.
public struct JUnitDocument: Sendable, Equatable {
    /// How one test case ended.
    public enum Outcome: Sendable, Equatable {
        case passed
        /// A check that ran and was not met.
        case failure(message: String, detail: String)
        /// Something that could not be evaluated (e.g. utterances that failed to decode).
        case error(message: String, detail: String)
        case skipped(message: String)
    }

    public struct TestCase: Sendable, Equatable {
        public var name: String
        public var classname: String
        public var time: Double
        public var outcome: Outcome
        public var systemOut: String?

        public init(name: String, classname: String, time: Double = 0, outcome: Outcome, systemOut: String? = nil) {
            self.name = name
            self.classname = classname
            self.time = time
            self.outcome = outcome
            self.systemOut = systemOut
        }
    }

    public struct TestSuite: Sendable, Equatable {
        public var name: String
        /// ISO-8601 start time.
        public var timestamp: String?
        public var properties: [(name: String, value: String)]
        public var cases: [TestCase]

        public init(
            name: String, timestamp: String? = nil, properties: [(name: String, value: String)] = [],
            cases: [TestCase]
        ) {
            self.name = name
            self.timestamp = timestamp
            self.properties = properties
            self.cases = cases
        }

        public static func == (lhs: TestSuite, rhs: TestSuite) -> Bool {
            lhs.name == rhs.name && lhs.timestamp == rhs.timestamp && lhs.cases == rhs.cases
                && lhs.properties.map(\.name) == rhs.properties.map(\.name)
                && lhs.properties.map(\.value) == rhs.properties.map(\.value)
        }

        var failures: Int { cases.filter { if case .failure = $0.outcome { true } else { false } }.count }
        var errors: Int { cases.filter { if case .error = $0.outcome { true } else { false } }.count }
        var skipped: Int { cases.filter { if case .skipped = $0.outcome { true } else { false } }.count }
        var time: Double { cases.reduce(0) { $0 + $1.time } }
    }

    public var name: String
    public var suites: [TestSuite]

    public init(name: String, suites: [TestSuite]) {
        self.name = name
        self.suites = suites
    }

    /// The document as XML.
    public var xml: String {
        func time(_ seconds: Double) -> String { String(format: "%.3f", max(0, seconds)) }
        let e = Self.attribute
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<testsuites name=\"\(e(name))\" tests=\"\(suites.reduce(0) { $0 + $1.cases.count })\" "
            + "failures=\"\(suites.reduce(0) { $0 + $1.failures })\" errors=\"\(suites.reduce(0) { $0 + $1.errors })\" "
            + "time=\"\(time(suites.reduce(0) { $0 + $1.time }))\">\n"
        for suite in suites {
            out +=
                "  <testsuite name=\"\(e(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(suite.failures)\" "
                + "errors=\"\(suite.errors)\" skipped=\"\(suite.skipped)\" time=\"\(time(suite.time))\""
                + (suite.timestamp.map { " timestamp=\"\(e($0))\"" } ?? "") + ">\n"
            if !suite.properties.isEmpty {
                out += "    <properties>\n"
                for property in suite.properties {
                    out += "      <property name=\"\(e(property.name))\" value=\"\(e(property.value))\"/>\n"
                }
                out += "    </properties>\n"
            }
            for test in suite.cases {
                out +=
                    "    <testcase name=\"\(e(test.name))\" classname=\"\(e(test.classname))\" time=\"\(time(test.time))\""
                var body = ""
                switch test.outcome {
                case .passed: break
                case .failure(let message, let detail):
                    body +=
                        "      <failure type=\"threshold\" message=\"\(e(message))\">\(Format.escape(detail))</failure>\n"
                case .error(let message, let detail):
                    body += "      <error type=\"error\" message=\"\(e(message))\">\(Format.escape(detail))</error>\n"
                case .skipped(let message):
                    body += "      <skipped message=\"\(e(message))\"/>\n"
                }
                if let systemOut = test.systemOut {
                    body += "      <system-out>\(Format.escape(systemOut))</system-out>\n"
                }
                out += body.isEmpty ? "/>\n" : ">\n\(body)    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// Text escaped for an XML attribute value. A parser turns a literal tab or line break in an attribute
    /// into a space, so a name or message holding one is written as a character reference (`&#10;`) and
    /// reads back as it was.
    static func attribute(_ text: String) -> String {
        var out = ""
        for character in Format.escape(text).unicodeScalars {
            switch character {
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

/// The checks of a run as JUnit XML: one test case per check, plus one per decoded system that reports failed
/// utterances as errors.
public struct JUnitReport: Sendable {
    public var results: RunResults

    /// - Parameter results: Results to render; redact them first (``Reporter`` does).
    public init(_ results: RunResults) { self.results = results }

    /// The JUnit document.
    public var document: JUnitDocument {
        let suite = results.run.suite.name
        var checks: [JUnitDocument.TestCase] = []
        for check in results.checks {
            let numbers =
                check.measured == nil && check.threshold == nil
                ? ""
                : " (measured \(Format.measure(check.measured, unit: check.unit)), threshold "
                    + "\(Format.measure(check.threshold, unit: check.unit)))"
            checks.append(
                JUnitDocument.TestCase(
                    name: check.name, classname: "gambit.\(suite).\(check.kind.rawValue)",
                    outcome: check.isSkipped
                        ? .skipped(message: check.message)
                        : check.passed
                            ? .passed
                            : .failure(
                                message: check.message + numbers,
                                detail: [
                                    "check: \(check.name)", "kind: \(check.kind.rawValue)",
                                    check.corpus.map { "corpus: \($0)" }, check.variant.map { "variant: \($0)" },
                                    "measured: \(Format.measure(check.measured, unit: check.unit))",
                                    "threshold: \(Format.measure(check.threshold, unit: check.unit))",
                                    check.message,
                                ].compactMap { $0 }.joined(separator: "\n")),
                    systemOut: check.passed && !check.isSkipped ? check.message + numbers : nil))
        }
        var decoding: [JUnitDocument.TestCase] = []
        for system in results.systems {
            let rates = system.metrics.rates
            var summary =
                "WER \(Format.percent(rates.wordErrorRate)) over \(rates.counts.referenceWords) words, "
                + "\(rates.utterances) utterances; RTF \(Format.realTimeFactor(system.timing))"
            if let boosted = system.metrics.boosted {
                summary += "; B-WER \(Format.percent(boosted.boostedWordErrorRate))"
            }
            if let keywords = system.metrics.keywords {
                summary +=
                    "; keyword F1 \(Format.decimal(keywords.overall.f1)); false alarms \(keywords.overall.falseAlarms) "
                    + "(\(Format.perHour(keywords.falseAlarmsPerHour)))"
                let heard = keywords.terms.filter { $0.falseAlarms > 0 }
                if !heard.isEmpty {
                    summary += ": " + heard.map { "\($0.term) ×\($0.falseAlarms)" }.joined(separator: ", ")
                }
            }
            let failed = system.utterances.filter { $0.failure != nil }
            decoding.append(
                JUnitDocument.TestCase(
                    name: "decode \(system.key)", classname: "gambit.\(suite).decoding",
                    time: system.timing.decodeWallSeconds,
                    outcome: failed.isEmpty
                        ? .passed
                        : .error(
                            message: "\(failed.count) of \(system.utterances.count) utterances failed to decode",
                            detail: failed.map { "\($0.id): \($0.labelledFailure ?? "")" }.joined(separator: "\n")),
                    systemOut: summary))
        }
        var properties: [(name: String, value: String)] = [
            ("gambit.version", results.run.gambitVersion), ("suite.contentHash", results.run.suite.contentHash),
            ("engine", "\(results.run.engine.name) \(results.run.engine.version)"),
            ("acousticModel.fingerprint", results.run.engine.acousticModelFingerprint),
            ("networkDenial", "\(results.networkDenial.method); verified: \(results.networkDenial.verified)"),
        ]
        if let partial = results.run.partial {
            // A skipped case, not a failure: the missing shards' utterances were not tested, which is what
            // skipped means, and the merge was asked for. CI viewers show skipped cases; the gate refuses
            // partial results, so a partial merge cannot pass a gate either.
            properties.append(("partial", partial.detail))
            checks.insert(
                JUnitDocument.TestCase(
                    name: "every shard merged", classname: "gambit.\(suite).completeness",
                    outcome: .skipped(message: partial.summary), systemOut: partial.summary),
                at: 0)
        }
        return JUnitDocument(
            name: "gambit \(suite)",
            suites: [
                JUnitDocument.TestSuite(
                    name: "gambit.\(suite).checks", timestamp: results.run.createdAt, properties: properties,
                    cases: checks),
                JUnitDocument.TestSuite(
                    name: "gambit.\(suite).decoding", timestamp: results.run.createdAt, cases: decoding),
            ])
    }

    /// The report as XML.
    public func render() -> String { document.xml }
}
