public import Reporting

/// The gate's findings as JUnit XML: one test case per metric and system, failing ones with the numbers.
public struct GateJUnitReport: Sendable {
    public var outcome: GateOutcome
    /// Shown as the suite name, e.g. the suite file's name.
    public var name: String

    public init(_ outcome: GateOutcome, name: String) {
        self.outcome = outcome
        self.name = name
    }

    /// The JUnit document.
    public var document: JUnitDocument {
        var cases = outcome.findings.map { finding in
            JUnitDocument.TestCase(
                name: "\(finding.system) \(finding.metric.title)", classname: "gambit.gate.\(finding.corpus)",
                outcome: finding.failed
                    ? .failure(message: finding.message, detail: finding.message) : .passed,
                systemOut: finding.failed ? nil : finding.message)
        }
        if outcome.status == .badInput {
            cases.append(
                JUnitDocument.TestCase(
                    name: "gate input", classname: "gambit.gate",
                    outcome: .error(
                        message: "the runs cannot be compared", detail: outcome.notes.joined(separator: "\n"))))
        }
        return JUnitDocument(
            name: "gambit gate \(name)", suites: [JUnitDocument.TestSuite(name: "gambit.gate.\(name)", cases: cases)])
    }

    /// The report as XML.
    public func render() -> String { document.xml }
}
