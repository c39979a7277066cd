import Foundation
import GambitTestSupport
import Results
import Runner
import Testing
import Tuning

@Suite("Tuning against the budget", .serialized)
struct SweepTests {
    @Test("A sweep rescores every grid point on dev, confirms some by decoding, and judges its pick on test")
    func sweep() throws {
        let suite = try MiniSuite()
        let options = SweepOptions(
            weights: [0.3, 0.7], phraseScales: [0.1, 1], templateScales: [0.01, 1], confirm: 2)
        let sweep = Sweep(
            suite: try Suite.load(suite.suiteFile), options: options,
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache")))
        let (results, cost, recommended) = try sweep.run()
        #expect(results.split == "dev")
        #expect(results.points.count == 9, "2 × 2 × 2 grid plus the shipped setting (weight 0.5, unscaled)")
        #expect(results.points.filter { $0.decodedWER != nil }.count == 2)
        #expect(results.points.contains { $0.paretoOptimal })
        let shipped = try #require(
            results.points.first {
                $0.parameters == SweepParameters(weight: 0.5, countScaling: ["phrases": 1, "templates": 1])
            })
        let recommendation = try #require(results.recommendation)
        let chosen = try #require(results.points.first { $0.parameters == recommendation.parameters })
        #expect(chosen.samplesUsed <= shipped.samplesUsed)
        #expect(chosen.boostedWordErrorRate <= shipped.boostedWordErrorRate + 0.01)
        #expect(recommendation.testSplit == "test")
        #expect(recommendation.test.wordErrorRate < recommendation.testBaseline.wordErrorRate)
        #expect(recommended.totalSamples == chosen.samplesUsed)
        #expect(cost.decodePassSeconds > 0 && cost.points == 9)
    }
}
