import Foundation
import Gate
import Results
import ResultsFixtures
import Testing

/// `gambit baseline update` masks private terms, names included; the gate must still match a raw run
/// with it.
@Suite("The gate against a masked baseline")
struct MaskedBaselineTests {
    @Test("A run whose suite name holds a private term passes against its own masked baseline")
    func privateNames() throws {
        var results = Fixture.results()
        results.run.suite.name = "siobhan-demo"
        let baseline = results.redactingPrivateTerms()
        #expect(baseline.run.suite.name != results.run.suite.name)
        let outcome = Gate.evaluate(current: results, baseline: baseline)
        #expect(outcome.status == .pass, "\(outcome.summary) \(outcome.notes)")
        #expect(!outcome.findings.isEmpty)
        // A worse run is still a regression, not bad input.
        var worse = Fixture.results(worse: true)
        worse.run.suite.name = "siobhan-demo"
        #expect(Gate.evaluate(current: worse, baseline: baseline).status == .regression)
    }
}
