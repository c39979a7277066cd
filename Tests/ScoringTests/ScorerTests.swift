import Formats
import Foundation
import Testing

@testable import Scoring

@Suite("Scorer and report")
struct ScorerTests {
    static let reference = [
        Utterance(id: "spk1_u1", text: "the cat sat on the mat", speaker: "spk1"),
        Utterance(id: "spk1_u2", text: "a b", speaker: "spk1"),
        Utterance(id: "spk2_u3", text: "", speaker: "spk2"),
        Utterance(id: "spk2_u4", text: "x y z", speaker: "spk2"),
    ]
    static let hypothesis = [
        Utterance(id: "spk1_u1", text: "<s> The cat sat on a mat </s>"),
        Utterance(id: "spk1_u2", text: "b c"),
        Utterance(id: "spk2_u3", text: "foo"),
        Utterance(id: "spk2_u4", text: "x y z"),
    ]

    @Test func totalsAndRates() throws {
        let report = try Scorer.score(reference: Self.reference, hypothesis: Self.hypothesis)
        let counts = report.totals.counts
        // u1: 1 sub; u2: D C I; u3: I; u4: correct.
        #expect(counts == ErrorCounts(referenceWords: 11, correct: 9, substitutions: 1, deletions: 1, insertions: 2))
        #expect(abs(report.totals.wordErrorRate - 4.0 / 11.0) < 1e-12)
        #expect(report.totals.sentenceErrorRate == 0.75)
        #expect(abs(report.totals.matchErrorRate - 4.0 / 13.0) < 1e-12)
        let h = 12.0
        #expect(abs(report.totals.wordInformationLost - (1 - (9.0 / 11.0) * (9.0 / h))) < 1e-12)
        #expect(report.confusions == [ConfusionPair(reference: "the", hypothesis: "a", count: 1)])
        #expect(report.speakers.map(\.speaker) == ["spk1", "spk2"])
        #expect(report.speakers[1].rates.counts.insertions == 1)
        #expect(report.worstUtterances.first?.id == "spk1_u2")
        #expect(report.normalization.hasPrefix("lowercase"))
    }

    @Test func characterErrorRate() throws {
        let report = try Scorer.score(
            reference: [Utterance(id: "1", text: "kitten sat")], hypothesis: [Utterance(id: "1", text: "sitting sat")])
        #expect(report.totals.referenceCharacters == 10)
        #expect(report.totals.characterErrors == 3)
    }

    @Test func textRendering() throws {
        var options = ScoringOptions()
        options.includeAlignedText = true
        let report = try Scorer.score(reference: Self.reference, hypothesis: Self.hypothesis, options: options)
        let text = report.text
        #expect(text.contains("| Utts   | Words   |"))
        #expect(text.contains("REF:  A b *"))
        #expect(text.contains("HYP:  * b C"))
        #expect(text.contains("Top confusions"))
        #expect(report.utterances[1].aligned?.evaluation == "D   I")
    }

    @Test func jsonRoundTrip() throws {
        let report = try Scorer.score(
            reference: Self.reference, hypothesis: Self.hypothesis,
            options: ScoringOptions(boostedWords: ["cat"], terms: ["cat sat"]))
        let decoded = try JSONDecoder().decode(ScoreReport.self, from: try report.jsonData())
        #expect(decoded == report)
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(json.contains("\"wordErrorRate\""))
        #expect(json.contains("\"f1\""))
    }

    @Test func scoresFilesWithBothModes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (ref, hyp) = try SyntheticCorpus(utterances: 50, seed: 5).write(to: directory)
        let sclite = try Scorer.score(reference: ref, hypothesis: hyp, mode: .sclite)
        let minimal = try Scorer.score(reference: ref, hypothesis: hyp, mode: .minimal)
        #expect(sclite.totals.counts.referenceWords == minimal.totals.counts.referenceWords)
        #expect(sclite.totals.counts.errors >= minimal.totals.counts.errors)
    }

    @Test func comparisonIsDeterministic() throws {
        let base = SyntheticCorpus(utterances: 300, seed: 1, errorRate: 0.1, longEvery: 100_000)
        let other = base.variant(seed: 2, errorRate: 0.2)
        let options = ScoringOptions(boostedWords: ["queen", "king"])
        let bootstrap = BootstrapOptions(resamples: 300, seed: 9)
        let first = try Scorer.compare(
            reference: base.referenceUtterances, systemA: base.hypothesisUtterances,
            systemB: other.hypothesisUtterances, options: options, bootstrap: bootstrap)
        let second = try Scorer.compare(
            reference: base.referenceUtterances, systemA: base.hypothesisUtterances,
            systemB: other.hypothesisUtterances, options: options, bootstrap: bootstrap)
        #expect(first == second)
        #expect(first.commonUtterances == 300)
        #expect(first.deltaWER.observedDelta > 0)
        #expect(first.deltaWER.lower <= first.deltaWER.observedDelta)
        #expect(first.deltaWER.upper >= first.deltaWER.observedDelta)
        #expect(first.deltaWER.significant)
        #expect(first.matchedPairs.significant)
        #expect(first.deltaBoostedWER != nil)
        #expect(first.text.contains("MAPSSWE"))
    }
}

@Suite("Significance")
struct SignificanceTests {
    @Test func mcNemarHandCases() {
        // 10 utterances only A gets right, 2 only B: p = 2 · P(X ≤ 2 | n = 12) = 2 · 79/4096.
        let a = [Bool](repeating: false, count: 10) + [true, true] + [false, true]
        let b = [Bool](repeating: true, count: 10) + [false, false] + [false, true]
        let result = Significance.mcNemar(errorsA: a, errorsB: b)
        #expect(result.onlyACorrect == 10)
        #expect(result.onlyBCorrect == 2)
        #expect(result.bothCorrect == 1)
        #expect(result.bothWrong == 1)
        #expect(abs(result.pValue - 2 * 79.0 / 4096.0) < 1e-12)
        #expect(result.significant)
        let tie = Significance.mcNemar(errorsA: [true, false], errorsB: [false, true])
        #expect(tie.pValue == 1)
        #expect(!tie.significant)
    }

    @Test func binomialDoesNotOverflow() {
        #expect(abs(Significance.binomialCumulative(500, 1000) - 0.5126) < 0.001)
    }

    @Test func matchedPairsSegmentation() {
        // Mirrors /tmp example verified against sc_stats: 4 segments, mean 1.5, sd 0.577, Z 5.196.
        let a: [[EditOperation]] = [
            [.deletion, .correct, .insertion], [.correct, .correct, .correct, .deletion, .correct, .insertion],
            [.insertion], [.deletion, .deletion, .deletion],
        ]
        let b: [[EditOperation]] = [
            [.correct, .correct], [.correct, .correct, .correct, .correct, .insertion, .correct], [],
            [.correct, .substitution, .correct],
        ]
        let result = Significance.matchedPairs(a, b)
        #expect(result.segments == 4)
        #expect(result.meanDifference == 1.5)
        #expect(abs(result.standardDeviation - 0.577) < 0.001)
        #expect(abs(result.z - 5.196) < 0.001)
        // sc_stats calls Z 5.2 significant; over 4 utterances Gambit does not judge.
        #expect(!result.significant)
        #expect(result.tooFewUtterances == 4)
        // The same utterances three times over are 12: enough, and significant.
        let twelve = Significance.matchedPairs(a + a + a, b + b + b)
        #expect(twelve.significant)
        #expect(twelve.tooFewUtterances == nil)
    }

    /// Below ``Significance/minimumUtterances`` no test calls a change significant, whatever its statistic: over
    /// one utterance the bootstrap's every resample is that utterance, so its interval is one point that
    /// "excludes 0" for any change at all.
    @Test("a change over too few utterances is never significant, and says so")
    func tooFewUtterancesToJudge() {
        let one = Significance.pairedBootstrap(metric: "WER", errorsA: [0], errorsB: [3], referenceWords: [5])
        #expect(one.lower == one.upper)
        #expect(one.lower > 0)
        #expect(!one.significant)
        #expect(one.tooFewUtterances == 1)
        #expect(one.verdict == "too few utterances to judge (1 compared; at least 10 needed)")
        // Every utterance worse, at the minimum: judged, and significant.
        let n = Significance.minimumUtterances
        let enough = Significance.pairedBootstrap(
            metric: "WER", errorsA: Array(repeating: 0, count: n), errorsB: Array(repeating: 2, count: n),
            referenceWords: Array(repeating: 5, count: n))
        #expect(enough.significant)
        #expect(enough.tooFewUtterances == nil)
        #expect(enough.verdict == "significant")
        // One fewer: the same change, not judged.
        let fewer = Significance.pairedBootstrap(
            metric: "WER", errorsA: Array(repeating: 0, count: n - 1), errorsB: Array(repeating: 2, count: n - 1),
            referenceWords: Array(repeating: 5, count: n - 1))
        #expect(!fewer.significant)
        #expect(fewer.tooFewUtterances == n - 1)
        // McNemar too: 9 utterances only A got right would be p = 0.004 by the exact test.
        let mcNemar = Significance.mcNemar(
            errorsA: Array(repeating: false, count: n - 1), errorsB: Array(repeating: true, count: n - 1))
        #expect(mcNemar.pValue < 0.01)
        #expect(!mcNemar.significant)
        #expect(mcNemar.verdict.hasPrefix("too few utterances to judge"))
        // A comparison over the scored files carries the same verdict.
        let text = Significance.verdict(significant: false, tooFewUtterances: nil)
        #expect(text == "not significant")
    }

    @Test("gambit score's text says a one-utterance change is too few to judge, not significant")
    func scoreTextOnOneUtterance() throws {
        let reference = [Utterance(id: "u1", text: "play the albin counter gambit")]
        let a = [Utterance(id: "u1", text: "play the album counter gambit")]
        let b = [Utterance(id: "u1", text: "play the albin counter gambit")]
        let comparison = try Scorer.compare(reference: reference, systemA: a, systemB: b)
        #expect(!comparison.deltaWER.significant)
        #expect(!comparison.matchedPairs.significant)
        #expect(comparison.text.contains("too few utterances to judge (1 compared; at least 10 needed)"))
        #expect(!comparison.text.contains("significant at 0.05"))
    }

    @Test func bootstrapIsSeeded() {
        let errorsA = (0..<200).map { $0 % 3 }
        let errorsB = (0..<200).map { $0 % 4 }
        let words = [Int](repeating: 10, count: 200)
        let one = Significance.pairedBootstrap(metric: "WER", errorsA: errorsA, errorsB: errorsB, referenceWords: words)
        let two = Significance.pairedBootstrap(metric: "WER", errorsA: errorsA, errorsB: errorsB, referenceWords: words)
        #expect(one == two)
        #expect(one.resamples == 1000)
        let other = Significance.pairedBootstrap(
            metric: "WER", errorsA: errorsA, errorsB: errorsB, referenceWords: words,
            options: BootstrapOptions(seed: 1))
        #expect(other.lower != one.lower || other.upper != one.upper)
    }
}
