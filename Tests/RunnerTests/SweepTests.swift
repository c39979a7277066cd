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
            weights: [0.3, 0.7], phraseScales: [0.1, 1], templateScales: [0.01, 1], budgets: [nil, 500], confirm: 2)
        let sweep = Sweep(
            suite: try Suite.load(suite.suiteFile), options: options,
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache")))
        let (results, cost, recommended) = try sweep.run()
        #expect(results.split == "dev")
        #expect(results.points.count == 17, "2 × 2 × 2 × 2 grid plus the shipped setting (weight 0.5, unscaled)")
        // A budget cuts every count in proportion (each stays at least 1, so it may pass by a few).
        let capped = results.points.filter { $0.parameters.budget == 500 }
        #expect(capped.count == 8 && capped.allSatisfy { $0.samplesUsed <= 504 })
        #expect(capped.contains { $0.samplesUsed >= 450 }, "\(capped.map(\.samplesUsed))")
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
        #expect(cost.decodePassSeconds > 0 && cost.points == 17)
    }

    @Test("The scaling curve adds distractor terms nobody says and decodes the dev split at each size")
    func scaling() throws {
        let suite = try MiniSuite()
        let options = SweepOptions(
            weights: [0.5], phraseScales: [1], templateScales: [1], confirm: 0,
            scaling: ScalingCurve(termCounts: [0, 300]))
        let sweep = Sweep(
            suite: try Suite.load(suite.suiteFile), options: options,
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache")))
        let (results, _, _) = try sweep.run()
        let points = try #require(results.scaling)
        #expect(points.map(\.distractors) == [0, 300])
        #expect(points[1].boostedTerms == points[0].boostedTerms + 300)
        #expect(points[1].samplesUsed > points[0].samplesUsed)
        // With no distractors the curve starts where the shipped setting is (decoded, not rescored).
        #expect(points[0].boostedWordErrorRate < 0.5)
        #expect(points.allSatisfy { $0.antiContextWordErrorRate != nil && $0.decodeSeconds > 0 })
        // Distractors are real rare words, never one the suite's references use.
        let references = Set(MiniSuite.chessTexts.joined(separator: " ").split(separator: " ").map(String.init))
        let compiler = Toolchain(cacheFolder: suite.folder).compiler
        let distractors = try ScalingCurve.distractors(count: 300, excluding: references, compiler: compiler)
        #expect(Set(distractors).count == 300 && Set(distractors).isDisjoint(with: references))
        #expect(
            try ScalingCurve.distractors(count: 10, excluding: references, compiler: compiler)
                == Array(distractors.prefix(10)))
    }
}
