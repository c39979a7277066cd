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
        // Every point is judged on each anti-context corpus as the run judges it, and the pick is the
        // lowest B-WER among the points that pass.
        #expect(results.points.allSatisfy { $0.antiContextChecks?.map(\.corpus) == ["general"] })
        #expect(chosen.passesAntiContextChecks)
        #expect(
            !results.points.contains {
                $0.passesAntiContextChecks && $0.boostedWordErrorRate < chosen.boostedWordErrorRate
            })
        #expect(shipped.passesAntiContextChecks ? chosen.boostedWordErrorRate <= shipped.boostedWordErrorRate : true)
        #expect(recommendation.testSplit == "test")
        #expect(recommendation.test.wordErrorRate < recommendation.testBaseline.wordErrorRate)
        #expect(recommended.totalSamples == chosen.samplesUsed)
        #expect(cost.decodePassSeconds > 0 && cost.points == 17)
        #expect(results.pointScoring == "rescore")
    }

    @Test(
        "A merged variant's sweep decodes each λ up to 0.99 in full; at the top, B-WER is no higher and anti-context WER no lower"
    )
    func mergedSweep() throws {
        let suite = try MiniSuite(mix: "merged")
        let sweep = Sweep(
            suite: try Suite.load(suite.suiteFile),
            options: SweepOptions(phraseScales: [1], templateScales: [1], confirm: 1),
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache")))
        let (results, _, _) = try sweep.run()
        #expect(results.mix == "merged")
        // Each λ is decoded in full (rescoring a lattice made at one λ misjudges another).
        #expect(results.pointScoring == "decode")
        #expect(results.points.allSatisfy { $0.decodedWER == $0.wordErrorRate && $0.rescoredWER == nil })
        let curve = results.curve
        #expect(curve.map(\.parameters.weight) == SweepOptions.defaultWeights(for: .merged))
        #expect(curve.last!.parameters.weight >= 0.95)
        // Each λ is its own merged model: more of the custom model recognises at least as many of its
        // words and pulls other speech toward them at least as hard.
        let low = curve.first!
        let high = curve.last!
        #expect(high.boostedWordErrorRate <= low.boostedWordErrorRate, "\(curve.map(\.boostedWordErrorRate))")
        #expect(
            high.antiContextWordErrorRate! >= low.antiContextWordErrorRate!,
            "\(curve.map(\.antiContextWordErrorRate))")
        #expect(curve.allSatisfy { $0.antiContextChecks?.count == 1 })
    }

    @Test("The recommendation is the lowest B-WER that passes every anti-context check, not the lowest overall")
    func recommendation() {
        func point(_ weight: Double, bwer: Double, samples: Int = 100, anti: [(Double, Bool)]) -> SweepPoint {
            SweepPoint(
                parameters: SweepParameters(weight: weight), samplesUsed: samples, wordErrorRate: 0.3,
                boostedWordErrorRate: bwer, unboostedWordErrorRate: 0.3,
                antiContextChecks: anti.enumerated().map { index, check in
                    let (delta, significant) = check
                    let outcome = Checks.antiContextOutcome(deltaPoints: delta * 100, significant: significant)
                    return SweepAntiContextCheck(
                        corpus: "anti-\(index)", baselineWordErrorRate: 0.2, wordErrorRate: 0.2 + delta,
                        deltaLower: delta - 0.01, deltaUpper: delta + 0.01, pValue: significant ? 0.01 : 0.4,
                        significant: significant, passed: outcome.passed, warning: outcome.warning)
                })
        }
        let points = [
            point(0.5, bwer: 0.40, anti: [(0.0, false), (0.0, false)]),
            // A large rise that is not significant passes (with a warning) …
            point(0.7, bwer: 0.30, anti: [(0.0, false), (0.05, false)]),
            // … a significant one above the tolerance rules the point out, however good its B-WER.
            point(0.9, bwer: 0.20, anti: [(0.03, true), (0.0, false)]),
            // A significant rise within the tolerance passes; ties in B-WER go to fewer samples.
            point(0.8, bwer: 0.30, samples: 50, anti: [(0.008, true), (0.0, false)]),
        ]
        #expect(points.map(\.passesAntiContextChecks) == [true, true, false, true])
        #expect(points[1].antiContextChecks![1].warning)
        #expect(Sweep.recommend(points).parameters.weight == 0.8)
        // When nothing passes, the least harmful point.
        let failing = [
            point(0.7, bwer: 0.1, anti: [(0.05, true)]), point(0.9, bwer: 0.05, anti: [(0.02, true)]),
        ]
        #expect(Sweep.recommend(failing).parameters.weight == 0.9)
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
