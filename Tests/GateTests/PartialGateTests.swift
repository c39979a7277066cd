import Foundation
import Gate
import Results
import ResultsFixtures
import Testing

@Suite("The gate on partial results")
struct PartialGateTests {
    static let partial = PartialRun(shardCount: 4, present: [0, 2], missing: [1, 3])

    @Test("Partial current results are refused as bad input (exit 2), naming the missing shards")
    func partialCurrentRefused() {
        var current = Fixture.results()
        current.run.partial = Self.partial
        // Identical numbers would pass: the refusal must not depend on them.
        let outcome = Gate.evaluate(current: current, baseline: Fixture.results())
        #expect(outcome.status == .badInput && outcome.exitCode == 2)
        #expect(outcome.summary.contains("this run has partial results"), "\(outcome.summary)")
        #expect(outcome.summary.contains("missing 1/4, 3/4"), "\(outcome.summary)")
    }

    @Test("A partial baseline is refused too")
    func partialBaselineRefused() {
        var baseline = Fixture.results()
        baseline.run.partial = Self.partial
        let outcome = Gate.evaluate(current: Fixture.results(), baseline: baseline)
        #expect(outcome.exitCode == 2)
        #expect(outcome.summary.contains("the baseline has partial results"), "\(outcome.summary)")
    }

    @Test("Complete results still pass")
    func completePasses() {
        #expect(Gate.evaluate(current: Fixture.results(), baseline: Fixture.results()).status == .pass)
    }
}
