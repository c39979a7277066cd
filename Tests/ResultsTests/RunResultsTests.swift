import Formats
import Foundation
import Results
import ResultsFixtures
import Scoring
import Testing

@Suite("RunResults")
struct RunResultsTests {
    @Test("writes stable bytes and reads back the same value")
    func roundTrip() throws {
        let results = Fixture.results()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-results-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.json")
        try results.write(to: url)
        let loaded = try RunResults.load(from: url)
        #expect(loaded == results)
        try loaded.write(to: url)
        #expect(try Data(contentsOf: url) == results.jsonData())
    }

    @Test("rejects another schema version with a message naming both versions")
    func wrongVersion() throws {
        var json = String(decoding: try Fixture.results().jsonData(), as: UTF8.self)
        json = json.replacingOccurrences(of: "\"schemaVersion\" : 1", with: "\"schemaVersion\" : 2")
        let error = #expect(throws: ResultsError.self) { try RunResults.decode(Data(json.utf8), path: "r.json") }
        #expect(error == .unsupportedVersion(path: "r.json", found: 2, supported: 1))
        #expect(error?.description.contains("newer gambit") == true)
    }

    @Test("rejects malformed input with the path of the bad field")
    func malformed() throws {
        let error = #expect(throws: ResultsError.self) {
            try RunResults.decode(Data(#"{"schemaVersion": 1, "run": {}}"#.utf8), path: "r.json")
        }
        #expect(error?.description.contains("missing field") == true)
        let notResults = #expect(throws: ResultsError.self) { try RunResults.decode(Data("[1]".utf8)) }
        #expect(notResults?.description.contains("not") == true)
        let noVersion = #expect(throws: ResultsError.self) { try RunResults.decode(Data("{}".utf8)) }
        #expect(noVersion?.description.contains("schemaVersion") == true)
    }

    @Test("aggregates agree with Scoring on the same utterances")
    func aggregatesMatchScorer() throws {
        let results = Fixture.results()
        let system = try #require(results.system(corpus: "chess", mode: .baseline))
        let report = try Scorer.score(
            reference: system.utterances.map { Utterance(id: $0.id, text: $0.reference) },
            hypothesis: system.utterances.map { Utterance(id: $0.id, text: $0.hypothesis) },
            options: ScoringOptions(boostedWords: Aggregation.boostedWords(for: system, in: results)))
        #expect(report.totals == system.metrics.rates)
        #expect(report.boosted == system.metrics.boosted)
    }

    @Test("comparisons hold deltas, intervals and the share of the oracle gain")
    func comparisons() throws {
        let results = Fixture.results()
        #expect(results.comparisons.count == 4)
        let chess = try #require(results.comparison(corpus: "chess", variant: "chess-full"))
        #expect(chess.customized.wordErrorRate < chess.baseline.wordErrorRate)
        #expect(chess.deltaWER.observedDelta < 0)
        #expect(chess.deltaBoostedWER != nil)
        #expect(chess.oracle?.wordErrorRate == 0)
        let captured = try #require(chess.oracleGainCaptured)
        #expect(
            abs(
                captured - (chess.baseline.wordErrorRate - chess.customized.wordErrorRate)
                    / chess.baseline.wordErrorRate) < 1e-12)
        let failed = try #require(results.system(corpus: "chess", mode: .customized, variant: "chess-full"))
        #expect(failed.failures == FailureCounts(failed: 1, retried: 1, crashed: 1))
        #expect(failed.utterances.count == Fixture.chessLines.count)
    }

    @Test("merging shards gives exactly the unsharded run")
    func mergeIsExact() throws {
        let full = Fixture.results()
        let shards = (0..<2).map { shard(full, index: $0, count: 2) }
        #expect(shards[0] != full)
        let merged = try RunResults.merge(shards.reversed())
        #expect(merged.systems == full.systems)
        #expect(merged.comparisons == full.comparisons)
        #expect(merged == full)
    }

    @Test("merging refuses other suites, repeated shards and overlapping utterances")
    func mergeErrors() throws {
        let full = Fixture.results()
        var other = shard(full, index: 1, count: 2)
        other.run.suite.contentHash = "sha256:other"
        #expect(throws: ResultsError.self) { try RunResults.merge([shard(full, index: 0, count: 2), other]) }
        #expect(throws: ResultsError.self) {
            try RunResults.merge([shard(full, index: 0, count: 2), shard(full, index: 0, count: 2)])
        }
        var overlapping = full
        overlapping.run.shard = Shard(index: 1, count: 2)
        let error = #expect(throws: ResultsError.self) {
            try RunResults.merge([shard(full, index: 0, count: 2), overlapping])
        }
        #expect(error?.description.contains("chess-001") == true || error?.description.contains("-00") == true)
        #expect(throws: ResultsError.nothingToMerge) { try RunResults.merge([]) }
    }

    /// Every `count`-th utterance from `index`, with the per-shard values a runner would write.
    func shard(_ full: RunResults, index: Int, count: Int) -> RunResults {
        var part = full
        part.run.shard = Shard(index: index, count: count)
        for s in part.systems.indices {
            part.systems[s].utterances = part.systems[s].utterances.filter { $0.index % count == index }
            part.systems[s].timing.modelLoadSeconds /= Double(count)
            part.systems[s].timing.decodeWallSeconds /= Double(count)
        }
        for c in part.corpora.indices {
            let records = part.system(corpus: part.corpora[c].name, mode: .baseline)?.utterances ?? []
            part.corpora[c].utteranceCount = records.count
            part.corpora[c].audioSeconds = full.corpora[c].audioSeconds / Double(count)
        }
        let checks = part.checks
        part = part.recomputingAggregates()
        part.checks = checks
        return part
    }
}
