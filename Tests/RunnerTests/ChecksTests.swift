import Foundation
import Results
import ResultsFixtures
import Testing

@testable import Runner

@Suite("The run's checks")
struct ChecksTests {
    /// On a small anti-context corpus one word is more than the tolerance: the message counts the words.
    /// The fixture's general corpus, counted by hand: 24 reference words; the baseline makes 1 error
    /// ("lights" → "light"); chess-full (worse) adds "gambit" to each of the 4 sentences and "two" →
    /// "to", 6 errors; contacts turns "the" into "siobhan" once, 2 errors.
    @Test func antiContextMessageCountsWords() throws {
        let results = Fixture.results(worse: true)
        let checks = Checks.evaluate(results, artifacts: [:], responses: [:], items: [])
        let anti = try #require(checks.first { $0.name == "anti-context WER: general / chess-full" })
        #expect(!anti.passed)
        #expect(abs((anti.measured ?? 0) - 500.0 / 24) < 1e-9)
        #expect(anti.message.contains(", 5 more word errors of 24 reference words"), "\(anti.message)")
        #expect(anti.message.hasSuffix("; at most +1.0 allowed)"))

        let one = try #require(checks.first { $0.name == "anti-context WER: general / contacts" })
        #expect(!one.passed)
        #expect(one.message.contains(", 1 more word error of 24 reference words"), "\(one.message)")
    }

}
