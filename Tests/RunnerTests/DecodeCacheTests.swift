import Foundation
import GambitTestSupport
import Recognition
import Results
import RunnerTestSupport
import Testing

@testable import Runner

/// A decode cache keeps PocketSphinx's answers across runs and output folders: a second run of the same suite
/// decodes nothing and gives the same hypotheses, a failed decode is never kept, and `--fresh` decodes again.
@Suite("The decode cache")
struct DecodeCacheTests {
    static func run(_ suite: MiniSuite, output: String, cache: URL, fresh: Bool = false) throws -> RunResults {
        var options = RunOptions(
            output: suite.folder.appendingPathComponent(output), workers: 2, workerExecutable: MiniSuite.executable,
            fresh: fresh)
        options.decodeCache = cache
        return try Runner(
            suite: try Suite.load(suite.suiteFile), options: options,
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache"))
        ).run()
    }

    static func hypotheses(_ results: RunResults) -> [String: String] {
        var hypotheses: [String: String] = [:]
        for system in results.systems {
            let name = "\(system.corpus)/\(system.mode)/\(system.variant ?? "")"
            for record in system.utterances { hypotheses["\(name)/\(record.id)"] = record.hypothesis }
        }
        return hypotheses
    }

    @Test("A second run into another folder takes every answer from the cache, and a failure is never kept")
    func secondRunDecodesNothing() throws {
        let suite = try MiniSuite(badAudio: true)
        let cache = try TestSupport.temporaryDirectory("decode-cache")
        let first = try Self.run(suite, output: "first", cache: cache)
        let decoded = try #require(first.timings?.decoded)
        #expect(decoded > 0)
        // Every answer but the broken file's (which fails under each system) is kept, one file per key.
        let kept = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".json") }
        let failedKeys = Set(first.systems.flatMap(\.utterances).filter { $0.failure != nil }.compactMap(\.key))
        #expect(!failedKeys.isEmpty, "the broken audio fails")
        #expect(kept.count == decoded - failedKeys.count, "\(kept.count) kept of \(decoded) decoded")
        #expect(Set(kept.map { String($0.dropLast(5)) }).isDisjoint(with: failedKeys))

        let second = try Self.run(suite, output: "second", cache: cache)
        #expect(second.timings?.decoded == failedKeys.count, "only the failures are decoded again")
        #expect(Self.hypotheses(second) == Self.hypotheses(first))

        let fresh = try Self.run(suite, output: "second", cache: cache, fresh: true)
        #expect(fresh.timings?.decoded == decoded, "--fresh decodes everything")
        #expect(Self.hypotheses(fresh) == Self.hypotheses(first))
    }

    /// A streamed answer also says when each term was first heard, which the key does not name: a request with
    /// other terms (another suite's baseline) is not answered with it; the same terms are.
    @Test("A streamed answer is reused only for the same terms")
    func streamedAnswerKeepsItsTerms() throws {
        let folder = try TestSupport.temporaryDirectory("decode-cache-terms")
        let cache = DecodeCache(folder: folder.appendingPathComponent("cache"))
        func request(_ terms: [String]) -> WorkRequest {
            WorkRequest(
                key: "k1", audio: "a.wav", configuration: nil, streaming: StreamingSetup(chunkMilliseconds: 100),
                terms: terms)
        }
        let answer = WorkResponse.imported(key: "k1", hypothesis: "play the albin", customization: .notRequested)
        cache.keep(["k1": answer], of: [request(["albin"])], except: [])

        let other = folder.appendingPathComponent("other.journal")
        #expect(try cache.seed(other, for: [request(["winawer"])]).isEmpty)
        let same = folder.appendingPathComponent("same.journal")
        #expect(try cache.seed(same, for: [request(["albin"])]) == ["k1"])
        #expect(Journal.entries(same, as: WorkResponse.self).map(\.hypothesis) == ["play the albin"])
    }
}
