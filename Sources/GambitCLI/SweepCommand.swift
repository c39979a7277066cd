import ArgumentParser
import Foundation
import LanguageModel
import Publishing
import Reporting
import Results
import Runner
import Tuning

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract:
            "Tune a variant's phrase/template counts and weight, or with --lists a recognizer's phrase-list length, "
            + "on the dev split; judge the choice on test.",
        discussion: """
            Recommends the point with the lowest dev B-WER among those whose every anti-context check \
            passes (a rise above the tolerance fails when it is significant, as in `gambit run`). With \
            --lists: the shortest list without distractors within 0.005 of the best dev keyword F1 whose \
            anti-context checks pass.

            """ + ExitStatus.doneOrRefused
    )

    @Argument(help: "Suite file.")
    var suite: String = "Corpora/suite.yaml"

    @Option(help: "Variant to tune (default: the suite's first).")
    var variant: String?

    @Option(
        help: ArgumentHelp(
            "Interpolation weights, comma separated (default: 0.2…0.9 for the set mix, 0.3…0.99 for merged).",
            valueName: "weights"))
    var weights: String?

    @Option(help: "Phrase count scalings, comma separated.")
    var phraseScales = "0.1,0.3,1"

    @Option(help: "Template count scalings, comma separated.")
    var templateScales = "0.01,0.1,1"

    @Option(
        help: ArgumentHelp(
            "Total sample budgets, comma separated; 'none' is no cap (counts are cut in proportion to fit).",
            valueName: "budgets"))
    var budgets = "none"

    @Option(
        help: ArgumentHelp(
            "Distractor term counts for the scaling curve, comma separated, or 'none'.", valueName: "counts|none"))
    var scaling = "0,10,100,1000,3000"

    @Option(help: "Points to confirm by full decoding.")
    var confirm = 3

    @Option(
        help: ArgumentHelp(
            "How each point is scored: rescore lattices from one decoding pass, or decode in full "
                + "(default: rescore for the set mix, decode for merged).", valueName: "rescore|decode"))
    var points: SweepOptions.PointScoring?

    @Option(help: "Anti-context tolerance in WER points (a significant rise above it rules a point out).")
    var tolerance = Checks.antiContextTolerance

    @Option(help: "Output folder: the sweep is added to its results and reports (when a run is there).")
    var output = "Reports"

    @Option(help: "Write the recommended training data here (Gambit's export format; prepare reads it).")
    var writeRecommended: String?

    @Flag(help: "Read audio wherever manifests point, not only inside the suite's folder (see gambit run).")
    var allowOutsidePaths = false

    @Option(help: "Keep the models of every point in this folder (default as for gambit run; see gambit cache).")
    var cacheDir: String?

    @Option(help: "Decoder worker processes.")
    var workers = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Ignore the sweep's journal and decode everything again (by default a stopped sweep resumes).")
    var fresh = false

    @Option(
        help: ArgumentHelp(
            "Sweep this recognizer's phrase list instead (one with phraseLists:): its length and distractors, on "
                + "the dev split of --variant's domain corpus; the custom-model options above do not apply.",
            valueName: "recognizer"))
    var lists: String?

    @Option(help: ArgumentHelp("With --lists: list lengths, comma separated.", valueName: "lengths"))
    var lengths = "10,25,50,100"

    @Option(
        help: ArgumentHelp(
            "With --lists: distractors drawn into each list, comma separated (rare dictionary words nobody says).",
            valueName: "counts"))
    var listDistractors = "0,100,500"

    static func budgetList(_ text: String) throws -> [Int?] {
        try text.split(separator: ",").map { item in
            let value = item.trimmingCharacters(in: .whitespaces)
            if value == "none" { return nil }
            guard let budget = Int(value), budget > 0 else {
                throw ValidationError("--budgets takes positive whole numbers or 'none', separated by commas")
            }
            return budget
        }
    }

    func run() throws {
        if let lists { return try runListSweep(lists) }
        func list(_ text: String, _ name: String) throws -> [Double] {
            let values = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.allSatisfy({ $0 > 0 }) else {
                throw ValidationError("--\(name) takes positive numbers separated by commas")
            }
            return values
        }
        var options = SweepOptions(
            variant: variant, weights: try weights.map { try list($0, "weights") } ?? [],
            phraseScales: try list(phraseScales, "phrase-scales"),
            templateScales: try list(templateScales, "template-scales"), budgets: try Self.budgetList(budgets),
            confirm: confirm, tolerance: tolerance, scaling: try Sweep.curve(scaling), pointScoring: points)
        options.allowOutsidePaths = allowOutsidePaths
        guard workers >= 1 else { throw ValidationError("--workers is \(workers); it must be at least 1") }
        options.workers = workers
        options.workerExecutable = Run.executable()
        options.fresh = fresh
        // Each weight in the range of a variant's (the prepare options' table).
        guard options.weights.allSatisfy({ (try? PrepareOptions(weight: $0).validate()) != nil }) else {
            throw ValidationError("--weights must be within \(PrepareOptions.setting("weight").allowed ?? "")")
        }
        let suiteFile = try Suite.load(URL(fileURLWithPath: suite))
        // Refused before the sweep's long work, not after it.
        try OutputFolder.checkSeparate(URL(fileURLWithPath: output), from: suiteFile)
        let cacheFolder =
            cacheDir.map { URL(fileURLWithPath: $0) }
            ?? (suiteFile.cacheInOutput ? Runner.outputCacheFolder(in: URL(fileURLWithPath: output)) : nil)
        // Every full decode is journaled in the output's data folder: a sweep stopped half-way resumes there.
        let data = URL(fileURLWithPath: output).appendingPathComponent(Runner.dataFolder)
        options.journal = data.appendingPathComponent(Sweep.journalName)
        try OutputPath.check(options.journal!, isInside: URL(fileURLWithPath: output))
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        // One writer per output folder: a run or another sweep there would interleave with this journal.
        let lock = try OutputFolder.lock(URL(fileURLWithPath: output))
        defer { lock.release() }
        let toolchain = Toolchain(cacheFolder: cacheFolder)
        let sweep = Sweep(suite: suiteFile, options: options, toolchain: toolchain)
        // The terminal ends up in CI logs: private words of the data are masked there as the reports mask them.
        let masker = try Runner.privateTermMasker(of: suiteFile, toolchain: toolchain)
        let progress = ProgressLine.standardError()
        sweep.log = { progress.log(masker.fragment($0)) }
        sweep.progress = { stage, done, total in progress.update(masker.fragment(stage), done, total) }
        sweep.longDecode = { audio, audioSeconds, seconds in
            progress.stillRunning(
                "decoding", item: masker.fragment(audio), audioSeconds: audioSeconds, seconds: seconds)
        }
        let (results, cost, recommended) = try sweep.run()
        progress.finish()
        print(masker.fragment(SweepSummary.text(results, cost: cost)))

        let folder = RunFolder(URL(fileURLWithPath: output))
        if try folder.record(sweep: results) {
            print("added the sweep to \(folder.resultsFile.path) and re-rendered the reports in \(output)")
        }
        if let writeRecommended {
            try recommended.export(to: URL(fileURLWithPath: writeRecommended))
            print("recommended training data written to \(writeRecommended)")
        }
    }
}

extension SweepCommand {
    static func wholeNumbers(_ text: String, _ option: String, least: Int) throws -> [Int] {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? Int.min) >= least }) else {
            throw ValidationError("--\(option) takes whole numbers of at least \(least), separated by commas")
        }
        return values.map { $0! }
    }

    /// `--lists`: the phrase-list sweep, recorded into the output folder beside a run's results.
    func runListSweep(_ recognizer: String) throws {
        guard workers >= 1 else { throw ValidationError("--workers is \(workers); it must be at least 1") }
        var options = ListSweepOptions(
            recognizer: recognizer, variant: variant, lengths: try Self.wholeNumbers(lengths, "lengths", least: 1),
            distractors: try Self.wholeNumbers(listDistractors, "list-distractors", least: 0), workers: workers,
            workerExecutable: Run.executable())
        options.allowOutsidePaths = allowOutsidePaths
        options.fresh = fresh
        let suiteFile = try Suite.load(URL(fileURLWithPath: suite))
        let out = URL(fileURLWithPath: output)
        try OutputFolder.checkSeparate(out, from: suiteFile)
        let data = out.appendingPathComponent(Runner.dataFolder)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let lock = try OutputFolder.lock(out)
        defer { lock.release() }
        let cacheFolder =
            cacheDir.map { URL(fileURLWithPath: $0) }
            ?? (suiteFile.cacheInOutput ? Runner.outputCacheFolder(in: out) : nil)
        let sweep = ListSweep(
            suite: suiteFile, options: options, toolchain: Toolchain(cacheFolder: cacheFolder),
            folder: data.appendingPathComponent("list-sweep"))
        let progress = ProgressLine.standardError()
        sweep.log = { progress.log($0) }
        sweep.progress = { stage, done, total in progress.update(stage, done, total) }
        let results = try sweep.run()
        progress.finish()
        print(ListSweepSummary.text(results))
        if try RunFolder(out).record(listSweep: results) {
            print("added the list sweep to \(RunFolder(out).resultsFile.path) and re-rendered the reports in \(output)")
        } else {
            print("list sweep written to \(RunFolder(out).listSweepFile.path)")
        }
    }
}

/// The list sweep as a table on the terminal.
enum ListSweepSummary {
    static func percent(_ value: Double?) -> String { value.map { String(format: "%.2f%%", $0 * 100) } ?? "—" }
    static func decimal(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "—" }

    static func text(_ sweep: ListSweepResults) -> String {
        var lines = [
            "list sweep of \(sweep.recognizer) with \(sweep.variant)'s terms (\(sweep.termsAvailable) in all) on "
                + "\(sweep.corpus) (\(sweep.split) split); distractors: \(sweep.distractorSource)",
            "length  terms  distractors    B-WER  ΔB-WER [95% CI]          recall  precision     F1  "
                + "false alarms/h (domain / anti)  anti-context",
        ]
        for point in sweep.points {
            let d = point.domain.deltaBoostedWER
            lines.append(
                String(
                    format: "%6ld  %5ld  %11ld  %7@  %-25@  %6@  %9@  %5@  %30@  %@", point.length, point.terms,
                    point.distractors, percent(point.domain.customized.boostedWordErrorRate),
                    d.map {
                        String(format: "%+.2f [%+.1f, %+.1f]", $0.observedDelta * 100, $0.lower * 100, $0.upper * 100)
                    }
                        ?? "—", decimal(point.recall), decimal(point.precision), decimal(point.f1),
                    [point.domain.customized.falseAlarmsPerHour, point.antiContextFalseAlarmsPerHour].map {
                        $0.map { String(format: "%.1f", $0) } ?? "—"
                    }.joined(separator: " / "),
                    point.antiContext.isEmpty
                        ? "—"
                        : (point.passesAntiContext ? "pass" : "FAIL")
                            + point.antiContext.map {
                                String(format: "  %@ %+.2f", $0.corpus, $0.deltaWER.observedDelta * 100)
                            }.joined()))
        }
        if let r = sweep.recommendation {
            lines.append("recommended: \(r.length) \(sweep.unit) — \(r.reason)")
            let t = r.test
            lines.append(
                "on the \(r.testSplit) split: B-WER \(percent(t.baseline.boostedWordErrorRate)) → "
                    + "\(percent(t.customized.boostedWordErrorRate)), keyword F1 \(decimal(t.baseline.keywordF1)) → "
                    + "\(decimal(t.customized.keywordF1)), WER \(percent(t.baseline.wordErrorRate)) → "
                    + "\(percent(t.customized.wordErrorRate)) (\(t.verdict))"
                    + r.testAntiContext.map {
                        String(
                            format: "; %@ WER %@ → %@ (%+.2f)", $0.corpus, percent($0.baselineWordErrorRate),
                            percent($0.wordErrorRate), $0.deltaWER.observedDelta * 100)
                    }.joined())
        }
        return lines.joined(separator: "\n")
    }
}

extension Sweep {
    static func curve(_ option: String) throws -> ScalingCurve? {
        if option == "none" { return nil }
        let counts = option.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            throw ValidationError("--scaling takes whole numbers separated by commas (e.g. 0,10,100), or none")
        }
        return ScalingCurve(termCounts: counts.map { $0! })
    }
}

enum SweepSummary {
    /// "pass  everyday +0.34 [-0.5, +1.2], general +4.35 [-2.2, +10.9]".
    static func antiContext(_ point: SweepPoint) -> String {
        guard let checks = point.antiContextChecks, !checks.isEmpty else { return "" }
        let verdict = !point.passesAntiContextChecks ? "FAIL" : checks.contains(where: \.warning) ? "warn" : "pass"
        return verdict + "  "
            + checks.map {
                String(
                    format: "%@ %+.2f [%+.1f, %+.1f]", $0.corpus, $0.delta * 100, $0.deltaLower * 100,
                    $0.deltaUpper * 100)
            }.joined(separator: ", ")
    }

    static func text(_ results: SweepResults, cost: SweepCost) -> String {
        var lines = [
            "sweep of \(results.variant)\(results.mix.map { " (\($0) mix)" } ?? "") on \(results.corpus) "
                + "(\(results.split) split), \(results.points.count) points"
                + (results.pointModel.map {
                    ", scored with the \($0) twin: the same custom model interpolated at decode time"
                } ?? ""),
            "weight  phrases  templates   budget  samples    B-WER    U-WER   anti-WER   WER (rescored / decoded)  pareto"
                + "  false alarms/h (domain / anti)  anti-context checks",
        ]
        for point in results.points.sorted(by: {
            ($0.samplesUsed, $0.parameters.weight) < ($1.samplesUsed, $1.parameters.weight)
        }) {
            let p = point.parameters
            lines.append(
                String(
                    format: "%5.2f  %7.2f  %9.2f  %7@  %7ld  %6.2f%%  %6.2f%%  %8@  %7.2f%% / %@  %6@  %30@  %@",
                    p.weight,
                    p.countScaling["phrases"] ?? 1, p.countScaling["templates"] ?? 1,
                    p.budget.map(String.init) ?? "—", point.samplesUsed,
                    point.boostedWordErrorRate * 100, point.unboostedWordErrorRate * 100,
                    point.antiContextWordErrorRate.map { String(format: "%.2f%%", $0 * 100) } ?? "—",
                    (point.rescoredWER ?? point.wordErrorRate) * 100,
                    point.decodedWER.map { String(format: "%.2f%%", $0 * 100) } ?? "  —   ",
                    point.paretoOptimal ? "★" : "",
                    [point.falseAlarmsPerHour, point.antiContextFalseAlarmsPerHour].map {
                        $0.map { String(format: "%.1f", $0) } ?? "—"
                    }.joined(separator: " / "), antiContext(point)))
        }
        if let scaling = results.scaling, !scaling.isEmpty {
            lines.append("scaling curve (shipped setting, full decodes of the \(results.split) split):")
            lines.append("distractors  terms  samples    B-WER    U-WER      WER   anti-WER")
            for point in scaling {
                lines.append(
                    String(
                        format: "%11ld  %5ld  %7ld  %6.2f%%  %6.2f%%  %6.2f%%  %8@", point.distractors,
                        point.boostedTerms,
                        point.samplesUsed, point.boostedWordErrorRate * 100, point.unboostedWordErrorRate * 100,
                        point.wordErrorRate * 100,
                        point.antiContextWordErrorRate.map { String(format: "%.2f%%", $0 * 100) } ?? "—"))
            }
        }
        let confirmed = results.points.filter { $0.decodedWER != nil && $0.rescoredWER != nil }
        if !confirmed.isEmpty {
            let gaps = confirmed.map { abs($0.decodedWER! - $0.rescoredWER!) * 100 }
            lines.append(
                String(
                    format: "rescored vs fully decoded WER on %ld confirmed points: mean gap %.2f, max %.2f points",
                    confirmed.count, gaps.reduce(0, +) / Double(gaps.count), gaps.max() ?? 0))
        }
        lines.append(
            String(
                format:
                    "cost: one decoding pass %.1f s; %ld points prepared in %.1f s and %@ in %.1f s = %.2f× one pass "
                    + "(confirmations %.1f s%@)", cost.decodePassSeconds, cost.points, cost.prepareSeconds,
                results.pointScoring == "decode" ? "decoded" : "rescored",
                cost.rescoreSeconds, cost.multipleOfDecodePass, cost.confirmSeconds,
                results.recommendation?.testModel == nil
                    ? "" : String(format: "; the recommendation's own model %.1f s", cost.rebuildSeconds)))
        if let r = results.recommendation {
            let p = r.parameters
            lines.append(
                String(
                    format: "recommended: weight %.2f, phrases ×%.2f, templates ×%.2f — %@", p.weight,
                    p.countScaling["phrases"] ?? 1, p.countScaling["templates"] ?? 1, r.reason))
            lines.append(
                String(
                    format: "on the test split: WER %.2f%% → %.2f%%, B-WER %.2f%% → %.2f%%%@",
                    r.testBaseline.wordErrorRate * 100, r.test.wordErrorRate * 100,
                    (r.testBaseline.boostedWordErrorRate ?? 0) * 100, (r.test.boostedWordErrorRate ?? 0) * 100,
                    r.testAntiContextWER.map {
                        String(
                            format: ", anti-context WER %.2f%% → %.2f%%", (r.testAntiContextBaselineWER ?? .nan) * 100,
                            $0 * 100)
                    } ?? ""))
            if let model = r.testModel { lines.append("  decoded with \(model)") }
        }
        return lines.joined(separator: "\n")
    }
}
extension SweepOptions.PointScoring: ExpressibleByArgument {}
