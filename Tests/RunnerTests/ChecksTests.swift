import Foundation
import Results
import ResultsFixtures
import Testing

@testable import Runner

@Suite("The run's checks")
struct ChecksTests {
    /// On a small anti-context corpus one word is more than the tolerance: the message counts the words.
    @Test func antiContextMessageCountsWords() throws {
        let results = Fixture.results(worse: true)
        let checks = Checks.evaluate(results, artifacts: [:], responses: [:], items: [])
        let anti = try #require(checks.first { $0.name == "anti-context WER: general / chess-full" })
        let before = try #require(results.system(corpus: "general", mode: .baseline)).metrics.rates.counts
        let after = try #require(results.system(corpus: "general", mode: .customized, variant: "chess-full"))
            .metrics.rates.counts
        let change = after.errors - before.errors
        #expect(change > 1)
        #expect(!anti.passed)
        #expect(anti.message.contains("\(change) more word errors of \(after.referenceWords) reference words"))
        #expect(anti.message.hasSuffix("; at most +1.0 allowed)"))

        let same = try #require(checks.first { $0.name == "anti-context WER: general / contacts" })
        let contacts = try #require(results.system(corpus: "general", mode: .customized, variant: "contacts"))
            .metrics.rates.counts
        let moved = contacts.errors - before.errors
        #expect(same.message.contains(moved == 0 ? "the same number of word errors" : "word error"))
    }
}
