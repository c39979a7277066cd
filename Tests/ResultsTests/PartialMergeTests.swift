import Foundation
import Results
import ResultsFixtures
import Testing

@Suite("Merging some of a run's shards")
struct PartialMergeTests {
    let full = Fixture.results()

    func shards(_ indices: [Int], of count: Int) -> [RunResults] {
        indices.map { RunResultsTests().shard(full, index: $0, count: count) }
    }

    @Test("2 of 4 shards are refused, naming the missing 1/4 and 3/4 and the run")
    func refusesMissingShards() throws {
        let error = #expect(throws: MissingShardsError.self) { try RunResults.merge(shards([2, 0], of: 4)) }
        #expect(error?.missing == [1, 3] && error?.present == [0, 2])
        let message = error?.description ?? ""
        #expect(message.contains("missing shards 1/4, 3/4"), "\(message)")
        #expect(message.contains(full.run.suite.name) && message.contains("--partial"), "\(message)")
    }

    @Test("One shard alone is refused too", arguments: [(0, 2), (1, 2), (3, 4)])
    func refusesOneShard(index: Int, count: Int) throws {
        let error = #expect(throws: MissingShardsError.self) { try RunResults.merge(shards([index], of: count)) }
        #expect(error?.missing == (0..<count).filter { $0 != index })
    }

    @Test("allowPartial merges and records the shards present and missing")
    func partialIsRecorded() throws {
        let parts = shards([0, 2], of: 4)
        let merged = try RunResults.merge(parts, allowPartial: true)
        #expect(merged.run.partial == PartialRun(shardCount: 4, present: [0, 2], missing: [1, 3]))
        #expect(merged.run.shard == nil)
        let chess = try #require(merged.system(corpus: "chess", mode: .baseline))
        #expect(
            chess.utterances.count
                == parts.reduce(0) { $0 + ($1.system(corpus: "chess", mode: .baseline)?.utterances.count ?? 0) })
        #expect(chess.utterances.count < full.system(corpus: "chess", mode: .baseline)?.utterances.count ?? 0)
        #expect(merged.run.partial?.summary.contains("missing 1/4, 3/4") == true)
        let json = String(decoding: try merged.jsonData(), as: UTF8.self)
        #expect(json.contains("\"partial\""))
        #expect(try RunResults.decode(merged.jsonData()) == merged)
    }

    @Test("A partial merge merged with its missing shards is the complete run")
    func partialThenRest() throws {
        let partial = try RunResults.merge(shards([0, 2], of: 4), allowPartial: true)
        let complete = try RunResults.merge([partial] + shards([3, 1], of: 4))
        #expect(complete.run.partial == nil)
        #expect(complete == full)
        // Still missing one: refused, naming only it.
        let error = #expect(throws: MissingShardsError.self) { try RunResults.merge([partial] + shards([1], of: 4)) }
        #expect(error?.missing == [3])
        // A shard given twice, once inside the partial merge, is refused as before.
        #expect(throws: ResultsError.self) { try RunResults.merge([partial] + shards([0, 1, 3], of: 4)) }
    }

    @Test("Complete results carry no partial field, and files without it read as complete")
    func oldFilesReadAsComplete() throws {
        let merged = try RunResults.merge(shards([0, 1], of: 2))
        #expect(merged.run.partial == nil)
        let json = String(decoding: try merged.jsonData(), as: UTF8.self)
        #expect(!json.contains("\"partial\""))
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ReportingTests/Golden/report.json")
        let old = try RunResults.load(from: golden)
        #expect(old.run.partial == nil)
    }
}
