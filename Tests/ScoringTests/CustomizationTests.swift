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

    @Test func termRecallPrecisionF1() throws {
        let references = [
            ["the", "albin", "counter", "gambit", "and", "the", "albin", "counter", "gambit"],
            ["queen", "takes", "rook"],
            ["nothing"],
        ]
        let hypotheses = [
            ["the", "albin", "counter", "gambit", "and", "the", "alvin", "counter", "gambit"],
            ["queen", "takes", "rook", "rook"],
            ["albin", "counter", "gambit"],
        ]
        let report = CustomizationMetrics.termAccuracy(
            references: references, hypotheses: hypotheses, terms: [["albin", "counter", "gambit"], ["rook"]])
        let albin = report.terms[0]
        // utt1: ref 2, hyp 1 → TP 1, FN 1; utt3: ref 0, hyp 1 → FP 1.
        #expect(albin.term == "albin counter gambit")
        #expect(albin.truePositives == 1 && albin.falseNegatives == 1 && albin.falsePositives == 1)
        #expect(albin.recall == 0.5)
        #expect(albin.precision == 0.5)
        #expect(albin.f1 == 0.5)
        let rook = report.terms[1]
        #expect(rook.truePositives == 1 && rook.falseNegatives == 0 && rook.falsePositives == 1)
        #expect(report.overall.truePositives == 2)
        #expect(report.overall.falsePositives == 2)
        #expect(report.overall.falseNegatives == 1)
    }

    @Test func termCountsDoNotOverlap() {
        let counter = TermCounter(terms: [["a", "a"]])
        var counts = [0]
        counter.count(["a", "a", "a"][...], into: &counts)
        #expect(counts == [1])
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
        #expect(report.terms?.terms.first?.falseNegatives == 1)
        #expect(report.slots?.classes.first { $0.className == "piece" }?.errors == 1)
    }
}
