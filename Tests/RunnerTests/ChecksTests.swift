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
        let results = Fixture.results(worse: true, generalRepeats: 3)
        let checks = Checks.evaluate(results, artifacts: [:], responses: [:], items: [])
        let anti = try #require(checks.first { $0.name == "anti-context WER: general / chess-full" })
        #expect(!anti.passed)
        #expect(abs((anti.measured ?? 0) - 500.0 / 24) < 1e-9)
        #expect(anti.message.contains(", 15 more word errors of 72 reference words"), "\(anti.message)")
        #expect(anti.message.contains("; at most +1.0 allowed; significant: 95% interval ["), "\(anti.message)")
        #expect(!anti.isWarning)

        let one = try #require(checks.first { $0.name == "anti-context WER: general / contacts" })
        #expect(one.message.contains(", 1 more word error of 72 reference words"), "\(one.message)")
    }

    /// An increase above the tolerance fails only when it is significant by the gate's rule; one that
    /// is not passes with a warning, and either way the message names the words that changed.
    @Test func antiContextNeedsSignificance() throws {
        let results = Fixture.results(worse: true, generalRepeats: 3)
        let checks = Checks.evaluate(results, artifacts: [:], responses: [:], items: [])
        // chess-full inserts "gambit" into all 12 sentences: every resample is worse.
        let chess = try #require(checks.first { $0.name == "anti-context WER: general / chess-full" })
        let chessComparison = try #require(results.comparison(corpus: "general", variant: "chess-full"))
        #expect(chessComparison.significant && !chess.passed && !chess.isWarning)
        #expect(chess.message.contains("changed: "), "\(chess.message)")
        #expect(chess.message.contains("∅ → gambit") && chess.message.contains("two → to"), "\(chess.message)")
        // contacts changes one word in one of 12 sentences: 1.4 points above the baseline, not significant.
        let contacts = try #require(checks.first { $0.name == "anti-context WER: general / contacts" })
        let contactsComparison = try #require(results.comparison(corpus: "general", variant: "contacts"))
        #expect(!contactsComparison.significant)
        #expect((contacts.measured ?? 0) > Checks.antiContextTolerance)
        #expect(contacts.passed && contacts.isWarning)
        #expect(contacts.message.hasPrefix("above the tolerance but not significant"), "\(contacts.message)")
        #expect(contacts.message.contains("changed: the → siobhan"), "\(contacts.message)")
        #expect(contacts.message.contains("not significant: 95% interval ["), "\(contacts.message)")
    }

    /// The same rise over the fixture's 4 general sentences: every one worse, yet an exact sign test over 4 has
    /// p = 0.125, and the bootstrap's interval over 4 utterances is no test. Too few to judge: a warning that
    /// says so, never a failure called significant.
    @Test func antiContextOverTooFewUtterancesWarns() throws {
        let results = Fixture.results(worse: true)
        let checks = Checks.evaluate(results, artifacts: [:], responses: [:], items: [])
        let chess = try #require(checks.first { $0.name == "anti-context WER: general / chess-full" })
        let comparison = try #require(results.comparison(corpus: "general", variant: "chess-full"))
        #expect(!comparison.significant && comparison.tooFewUtterances == 4)
        #expect(chess.passed && chess.isWarning)
        #expect(
            chess.message.hasPrefix("above the tolerance, but too few utterances to judge, so a warning: "),
            "\(chess.message)")
        #expect(chess.message.contains("too few utterances to judge (4 compared; at least 10 needed): 95% interval"))
    }

}
