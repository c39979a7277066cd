import Formats
import Foundation
import Testing

@testable import Scoring

@Suite("Customization metrics")
struct CustomizationTests {
    @Test func boostedAndUnboostedWER() throws {
        // REF: play albin counter gambit now   HYP: play alvin counter gambit gambit
        // sclite alignment: C S C C S  (albin→alvin boosted sub; now→gambit unboosted sub)
        let alignment = Aligner.align(
            reference: ["play", "albin", "counter", "gambit", "now"],
            hypothesis: ["play", "alvin", "counter", "gambit", "gambit"], mode: .sclite)
        let rates = CustomizationMetrics.boostedWordErrorRates(
            alignments: [alignment], boostedWords: ["albin", "counter", "gambit"])
        #expect(rates.boostedReferenceWords == 3)
        #expect(rates.boostedErrors == 1)
        #expect(rates.unboostedReferenceWords == 2)
        #expect(rates.unboostedErrors == 1)
        let boosted = try #require(rates.boostedWordErrorRate)
        #expect(abs(boosted - 1.0 / 3.0) < 1e-12)
        #expect(rates.unboostedWordErrorRate == 0.5)
    }

    @Test func insertionsCountByTheInsertedWord() {
        let alignment = Aligner.align(reference: ["a"], hypothesis: ["gambit", "a", "b"], mode: .sclite)
        let rates = CustomizationMetrics.boostedWordErrorRates(alignments: [alignment], boostedWords: ["gambit"])
        #expect(rates.boostedErrors == 1)
        #expect(rates.boostedReferenceWords == 0)
        // A boosted word inserted where no reference word is boosted is an error, but a rate over no
        // boosted reference word is "no data", neither 0% nor 100%.
        #expect(rates.boostedWordErrorRate == nil)
        #expect(rates.unboostedErrors == 1)
        #expect(rates.unboostedReferenceWords == 1)
    }

    @Test func scorerComputesBoostedRatesPerUtterance() throws {
        let report = try Scorer.score(
            reference: [Utterance(id: "u1", text: "Play the Albin Counter-Gambit")],
            hypothesis: [Utterance(id: "u1", text: "play the alvin counter gambit")],
            options: ScoringOptions(boostedWords: ["Albin Counter-Gambit"]))
        let boosted = try #require(report.boosted)
        #expect(boosted.boostedReferenceWords == 3)
        #expect(boosted.boostedErrors == 1)
        #expect(boosted.unboostedErrors == 0)
        #expect(report.utterances[0].boostedErrors == 1)
    }

    @Test("Terms given to the scorer are scored by position, each on its own row")
    func termsByPosition() throws {
        let report = try Scorer.score(
            reference: [
                Utterance(id: "u1", text: "the albin counter gambit and the albin counter gambit"),
                Utterance(id: "u2", text: "queen takes rook"),
                Utterance(id: "u3", text: "nothing"),
            ],
            hypothesis: [
                Utterance(id: "u1", text: "the albin counter gambit and the alvin counter gambit"),
                Utterance(id: "u2", text: "queen takes rook rook"),
                Utterance(id: "u3", text: "albin counter gambit"),
            ],
            options: ScoringOptions(terms: ["Albin Counter-Gambit", "rook"]))
        let terms = try #require(report.keywords).terms
        // u1: said twice, heard once in place; u3: heard where "nothing" was said.
        #expect(terms[0].term == "albin counter gambit")
        #expect((terms[0].said, terms[0].heard, terms[0].hits, terms[0].falseAlarms) == (2, 2, 1, 1))
        #expect(terms[1].term == "rook")
        #expect((terms[1].said, terms[1].heard, terms[1].hits, terms[1].falseAlarms) == (1, 2, 1, 1))
        #expect(try #require(report.keywords).falseAlarmUtterances == ["albin counter gambit": ["u3"], "rook": ["u2"]])
    }

    static let templates = SlotTemplates(
        templates: [["<piece>", "to", "<royal>", "<piece>", "<rank>"], ["castle", "<side>"]],
        classes: [
            "piece": ["pawn", "knight", "bishop", "rook", "queen", "king"],
            "royal": ["queen", "king"],
            "rank": ["one", "two", "three", "four"],
            "side": ["king side", "queen side"],
        ])

    @Test func slotErrorsByClass() {
        let pairs: [([String], [String])] = [
            // piece sub (knight→night), royal correct, piece correct, rank correct
            (["knight", "to", "king", "bishop", "three"], ["night", "to", "king", "bishop", "three"]),
            // rank deleted
            (["pawn", "to", "queen", "rook", "four"], ["pawn", "to", "queen", "rook"]),
            // multi-word slot with an insertion inside it
            (["castle", "king", "side"], ["castle", "king", "uh", "side"]),
            // no template matches
            (["resign"], ["resign"]),
        ]
        let alignments = pairs.map { Aligner.align(reference: $0.0, hypothesis: $0.1, mode: .sclite) }
        let report = CustomizationMetrics.slotErrors(
            alignments: alignments, templates: Self.templates, normalizer: .standard)
        let byClass = Dictionary(uniqueKeysWithValues: report.classes.map { ($0.className, $0) })
        #expect(byClass["piece"]?.occurrences == 4)
        #expect(byClass["piece"]?.errors == 1)
        #expect(byClass["royal"]?.occurrences == 2)
        #expect(byClass["royal"]?.errors == 0)
        #expect(byClass["rank"]?.occurrences == 2)
        #expect(byClass["rank"]?.errors == 1)
        #expect(byClass["side"]?.occurrences == 1)
        #expect(byClass["side"]?.errors == 1)
        #expect(report.matchedUtterances == 3)
        #expect(report.unmatchedUtterances == 1)
    }

    @Test func scorerReportsTermsAndSlots() throws {
        let options = ScoringOptions(terms: ["Knight"], templates: Self.templates)
        let report = try Scorer.score(
            reference: [Utterance(id: "1", text: "Knight to king bishop three")],
            hypothesis: [Utterance(id: "1", text: "night to king bishop three")], options: options)
        #expect(report.keywords?.terms.first?.misses == 1)
        #expect(report.slots?.classes.first { $0.className == "piece" }?.errors == 1)
    }
}
