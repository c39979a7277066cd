import Formats
import Foundation
import Testing

@testable import Scoring

@Suite("Agreement with NIST sclite and sc_stats")
struct ScliteAgreementTests {
    static let corpus = SyntheticCorpus(utterances: 3000, seed: 42)

    @Test(.enabled(if: SCTK.available, "sclite/sc_stats not installed at /usr/lib/sctk/bin (Debian package sctk)"))
    func everyUtteranceMatchesSclite() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (reference, hypothesis) = try Self.corpus.write(to: directory)
        let sclite = try SCTK.align(reference: reference, hypothesis: hypothesis, name: "sys", in: directory)
        try #require(sclite.count == Self.corpus.ids.count, "sclite returned \(sclite.count) utterances")

        let report = try Scorer.score(reference: reference, hypothesis: hypothesis, mode: .sclite)
        try #require(report.utterances.count == Self.corpus.ids.count)
        var mismatches: [String] = []
        for utterance in report.utterances {
            let expected = try #require(sclite[utterance.id])
            if expected.counts != utterance.counts {
                mismatches.append("\(utterance.id): sclite \(expected.counts) ours \(utterance.counts)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, e.g. \(mismatches.prefix(3))")

        // The order of operations too, not only the counts (sc_stats's segmentation depends on it).
        var orderMismatches = 0
        for (index, id) in Self.corpus.ids.enumerated() {
            let alignment = Aligner.align(
                reference: Self.corpus.references[index], hypothesis: Self.corpus.hypotheses[index], mode: .sclite)
            let letters = alignment.pairs.map { pair -> String in
                switch pair.operation {
                case .correct: "C"
                case .substitution: "S"
                case .deletion: "D"
                case .insertion: "I"
                }
            }.joined()
            if letters != sclite[id]?.evaluation { orderMismatches += 1 }
        }
        #expect(orderMismatches == 0)
    }

    @Test func minimalModeIsTheLevenshteinDistance() throws {
        let report = try Scorer.score(
            reference: Self.corpus.referenceUtterances, hypothesis: Self.corpus.hypothesisUtterances,
            options: ScoringOptions(mode: .minimal))
        var sclitePenalty = 0
        let scliteReport = try Scorer.score(
            reference: Self.corpus.referenceUtterances, hypothesis: Self.corpus.hypothesisUtterances,
            options: ScoringOptions(mode: .sclite))
        for (index, utterance) in report.utterances.enumerated() {
            let expected = referenceLevenshtein(Self.corpus.references[index], Self.corpus.hypotheses[index])
            #expect(utterance.counts.errors == expected, "\(utterance.id)")
            #expect(utterance.counts.referenceWords == Self.corpus.references[index].count)
            sclitePenalty += scliteReport.utterances[index].counts.errors - expected
        }
        // sclite's weights never beat the true minimum.
        #expect(sclitePenalty >= 0)
    }

    @Test(.enabled(if: SCTK.available, "sclite/sc_stats not installed at /usr/lib/sctk/bin (Debian package sctk)"))
    func significanceMatchesScStats() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Keep the number of utterances small enough that sc_stats's factorial-based binomial does not overflow.
        let base = SyntheticCorpus(utterances: 300, seed: 7, errorRate: 0.03, longEvery: 100_000)
        let other = base.variant(seed: 99, errorRate: 0.05)
        let reference = directory.appendingPathComponent("ref.trn")
        let a = directory.appendingPathComponent("a.trn")
        let b = directory.appendingPathComponent("b.trn")
        try TranscriptIO.trn(base.referenceUtterances).write(to: reference, atomically: true, encoding: .utf8)
        try TranscriptIO.trn(base.hypothesisUtterances).write(to: a, atomically: true, encoding: .utf8)
        try TranscriptIO.trn(other.hypothesisUtterances).write(to: b, atomically: true, encoding: .utf8)
        _ = try SCTK.align(reference: reference, hypothesis: a, name: "a", in: directory)
        _ = try SCTK.align(reference: reference, hypothesis: b, name: "b", in: directory)
        let combined = directory.appendingPathComponent("both.sgml")
        let sgml =
            try String(contentsOf: directory.appendingPathComponent("a.sgml"), encoding: .utf8)
            + String(contentsOf: directory.appendingPathComponent("b.sgml"), encoding: .utf8)
        try sgml.write(to: combined, atomically: true, encoding: .utf8)
        try run(SCTK.scStats, ["-p", "-t", "mapsswe", "mcn", "-v", "-n", "out"], stdin: combined, in: directory)
        let mapsswe = try String(contentsOf: directory.appendingPathComponent("out.stats.mapsswe"), encoding: .utf8)
        let mcn = try String(contentsOf: directory.appendingPathComponent("out.stats.mcn"), encoding: .utf8)

        let comparison = try Scorer.compare(
            reference: base.referenceUtterances, systemA: base.hypothesisUtterances,
            systemB: other.hypothesisUtterances, options: ScoringOptions(mode: .sclite),
            bootstrap: BootstrapOptions(resamples: 200))

        // MTCH_PR_RESULTS (systems: a.trn b.trn) (# segs: 4) ... (mean: 1.500) (std dev: 0.577) (Z Stat: 5.196)
        let resultLine = try #require(
            mapsswe.split(separator: "\n").first { $0.contains("MTCH_PR_RESULTS") }, "sc_stats output: \(mapsswe)")
        func field(_ name: String) throws -> Double {
            let range = try #require(resultLine.range(of: "(\(name): "))
            let rest = resultLine[range.upperBound...]
            return try #require(Double(rest.prefix { $0 != ")" }.trimmingCharacters(in: .whitespaces)))
        }
        let mp = comparison.matchedPairs
        #expect(try field("# segs") == Double(mp.segments))
        #expect(abs(try field("mean") - mp.meanDifference) < 0.0005)
        #expect(abs(try field("std dev") - mp.standardDeviation) < 0.0005)
        #expect(abs(try field("Z Stat") - mp.z) < 0.0005)
        #expect(resultLine.contains("(Stat Diff: \(mp.significant ? "Yes" : "No"))"))

        // McNemar table: rows are system a (corr, incorr), columns system b.
        let numbers = mcn.split(separator: "\n").filter { $0.contains("corr") }
        let cells = numbers.flatMap { line in line.split(separator: " ").compactMap { Int($0) } }
        let mc = comparison.mcNemar
        #expect(cells.suffix(4) == [mc.bothCorrect, mc.onlyACorrect, mc.onlyBCorrect, mc.bothWrong])
        if let range = mcn.range(of: "it occurring is ") {
            let value = try #require(Double(mcn[range.upperBound...].prefix(5)))
            #expect(abs(value - mc.pValue) < 0.0006)
            #expect((value < 0.05) == mc.significant)
        } else {
            #expect(mc.onlyACorrect == mc.onlyBCorrect)
        }
    }
}
