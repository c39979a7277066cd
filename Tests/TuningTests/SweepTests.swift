import Foundation
import GambitTestSupport
import LanguageModel
import Results
import Runner
import RunnerTestSupport
import Testing

@testable import Tuning

@Suite("Tuning against the budget", .serialized)
struct SweepTests {
    /// A sweep of `suite` with `options`, its models in the suite's own cache; with `workerProcesses`, decoded by two
    /// worker processes, as `gambit sweep` does.
    static func sweep(_ suite: MiniSuite, _ options: SweepOptions, workerProcesses: Bool = false) throws -> Sweep {
        var options = options
        if workerProcesses {
            options.workerExecutable = MiniSuite.executable
            options.workers = 2
        }
        return Sweep(
            suite: try Suite.load(suite.suiteFile), options: options,
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache")))
    }

    @Test("A sweep rescores every grid point on dev, confirms some by decoding, and judges its pick on test")
    func sweep() throws {
        let suite = try MiniSuite()
        let options = SweepOptions(
            weights: [0.3, 0.7], phraseScales: [0.1, 1], templateScales: [0.01, 1], budgets: [nil, 500], confirm: 2)
        let sweep = try Self.sweep(suite, options)
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
        #expect(results.decoderArguments == ["-remove_silence", "no"])
        // The default mix is the weighted merge: its points are scored with its set twin, and the pick is judged
        // on test with the merge itself, built for the picked weight.
        #expect(results.mix == "merged" && results.pointModel == "set")
        #expect(
            recommendation.testModel?.hasPrefix(
                String(format: "the weighted merge at weight %.2f", recommendation.parameters.weight)) == true,
            "\(recommendation.testModel ?? "none")")
        #expect(cost.rebuildSeconds > 0)
        let merged = suite.folder.appendingPathComponent("cache/sweep").path
        let built = try FileManager.default.contentsOfDirectory(atPath: merged).filter { $0.contains("-w") }
        #expect(built.count == 1, "\(built)")
    }

    @Test(
        "A history-merged variant's sweep decodes each λ up to 0.99 in full; at the top, B-WER is no higher and anti-context WER no lower"
    )
    func mergedSweep() throws {
        let suite = try MiniSuite(mix: "merged", interpolation: "history")
        let options = SweepOptions(phraseScales: [1], templateScales: [1], confirm: 1)
        let sweep = try Self.sweep(suite, options, workerProcesses: true)
        let (results, _, _) = try sweep.run()
        #expect(results.mix == "merged")
        // Each λ is decoded in full (rescoring a lattice made at one λ misjudges another).
        #expect(results.pointScoring == "decode")
        #expect(results.points.allSatisfy { $0.decodedWER == $0.wordErrorRate && $0.rescoredWER == nil })
        let curve = results.curve
        #expect(
            curve.map(\.parameters.weight)
                == SweepOptions.defaultWeights(for: PrepareOptions(mix: .merged, interpolation: .historyDependent)))
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

    @Test("Scaling counts near 2⁶³ saturates instead of trapping; a small count scaled down stays at 1")
    func scalingSaturates() {
        #expect(Sweep.scaled(Int.max - 5, by: 1.5) == .max)
        #expect(Sweep.scaled(Int.max, by: 1) == .max)
        #expect(Sweep.scaled(3, by: 0.1) == 1)
        #expect(Sweep.scaled(10, by: 1.5) == 15)
    }

    @Test("The recommendation is the lowest B-WER that passes every anti-context check, not the lowest overall")
    func recommendation() {
        func point(_ weight: Double, bwer: Double, samples: Int = 100, anti: [(Double, Bool)]) -> SweepPoint {
            SweepPoint(
                parameters: SweepParameters(weight: weight), samplesUsed: samples,
                metrics: MetricSummary(
                    wordErrorRate: 0.3, sentenceErrorRate: 0.5, boostedWordErrorRate: bwer, unboostedWordErrorRate: 0.3),
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
        let sweep = try Self.sweep(suite, options, workerProcesses: true)
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

    @Test("A sweep killed with SIGKILL half-way resumes from its journal: nothing decoded twice, the same pick")
    func resumeAfterKill() throws {
        let suite = try MiniSuite(mix: "merged", interpolation: "history")
        let arguments = ["--weights", "0.5,0.9", "--phrase-scales", "1", "--template-scales", "1", "--scaling", "none"]
        let reference = try sweep(suite, output: "reference", arguments)
        let referenceLines = try journalLines(suite, "reference")
        // The first attempt stops itself once its 7th answer is journaled, and is killed there.
        let process = try startSweep(suite, output: "killed", arguments, stopAfterJournalLines: 7)
        let stopped = waitUntilStopped(process)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try #require(stopped, "the sweep ended before its journal had 7 lines")
        #expect(try journalLines(suite, "killed").count == 7)
        #expect(referenceLines.count > 14, "the kill should land part way: \(referenceLines.count) decodes")
        let (resumed, printed) = try sweepPrinting(suite, output: "killed", arguments)
        // Every decode is journaled once: the resumed sweep decoded only what the killed one had not.
        let lines = try journalLines(suite, "killed")
        #expect(lines.count == referenceLines.count)
        #expect(Set(lines) == Set(referenceLines))
        #expect(resumed.recommendation?.parameters == reference.recommendation?.parameters)
        #expect(resumed.points.map(\.boostedWordErrorRate) == reference.points.map(\.boostedWordErrorRate))
        #expect(resumed.recommendation?.test.wordErrorRate == reference.recommendation?.test.wordErrorRate)
        // The base decode was journaled before the kill: its cost is what it took then, not the moment spent
        // reading it back.
        let pass = try #require(decodePassSeconds(printed), "\(printed)")
        #expect(pass > 0.5, "\(printed)")
    }

    /// The keys of a sweep's journal, one per line.
    private func journalLines(_ suite: MiniSuite, _ output: String) throws -> [String] {
        let journal = suite.folder.appendingPathComponent("\(output)/.gambit/\(Sweep.journalName)")
        return try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return try #require(object?["key"] as? String)
        }
    }

    /// Runs `gambit sweep` to the end and reads its results.
    private func sweep(_ suite: MiniSuite, output: String, _ arguments: [String]) throws -> SweepResults {
        try sweepPrinting(suite, output: output, arguments).results
    }

    /// Runs `gambit sweep` to the end and reads its results and what it printed.
    private func sweepPrinting(_ suite: MiniSuite, output: String, _ arguments: [String]) throws -> (
        results: SweepResults, printed: String
    ) {
        let pipe = Pipe()
        let process = try startSweep(suite, output: output, arguments, stopAfterJournalLines: nil, standardOutput: pipe)
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let file = suite.folder.appendingPathComponent("\(output)/.gambit/sweep.json")
        return (try JSONDecoder().decode(SweepResults.self, from: Data(contentsOf: file)), printed)
    }

    /// The seconds of "one decoding pass" in a sweep's cost line.
    private func decodePassSeconds(_ printed: String) -> Double? {
        guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("cost: one decoding pass ") })
        else { return nil }
        return Double(line.dropFirst("cost: one decoding pass ".count).prefix { $0 != " " })
    }

    private func startSweep(
        _ suite: MiniSuite, output: String, _ arguments: [String], stopAfterJournalLines: Int?,
        standardOutput: Pipe? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = MiniSuite.executable
        process.arguments =
            ["sweep", suite.suiteFile.path, "--output", suite.folder.appendingPathComponent(output).path]
            + ["--workers", "2"] + arguments
        process.standardOutput = standardOutput ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["GAMBIT_CACHE"] = suite.folder.appendingPathComponent("cache").path
        environment[Runner.stopAfterJournalLinesVariable] = stopAfterJournalLines.map(String.init)
        process.environment = environment
        try process.run()
        return process
    }

    /// Waits until the process is stopped by a signal (state "T" in `/proc/PID/stat`); false if it exits.
    private func waitUntilStopped(_ process: Process) -> Bool {
        while process.isRunning {
            let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
            if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "T" { return true }
            usleep(10_000)
        }
        return false
    }
}
