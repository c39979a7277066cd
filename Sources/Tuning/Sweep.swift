import Audio
import Corpus
import Foundation
import LanguageModel
import Recognition
import Results
import Runner
import Scoring
import TrainingData

/// What a sweep explores.
public struct SweepOptions: Sendable {
    /// Read audio wherever manifests point (`--allow-outside-paths`; see ``RunOptions/allowOutsidePaths``).
    public var allowOutsidePaths = false
    /// The variant to tune; nil for the suite's first.
    public var variant: String?
    /// Interpolation weights; empty for the default grid of the variant's mix (``defaultWeights(for:)``).
    public var weights: [Double]
    /// Count scaling of the phrase group.
    public var phraseScales: [Double]
    /// Count scaling of the templates.
    public var templateScales: [Double]
    /// Total sample budgets: after scaling, counts are cut in proportion to fit (nil: no cap).
    public var budgets: [Int?]
    /// Points to confirm by full decoding (the recommendation and the shipped setting first).
    public var confirm: Int
    /// Anti-context tolerance in WER points: a point whose anti-context WER rises by more, significantly,
    /// fails that check (the run's rule) and cannot be recommended.
    public var tolerance: Double
    /// The scaling curve to measure with the shipped setting; nil for none.
    public var scaling: ScalingCurve?
    /// How each point's hypotheses are made; nil for the variant's mix's default
    /// (``PointScoring/default(for:)``).
    public var pointScoring: PointScoring?
    /// The `gambit` executable whose `worker` processes decode, one per core; nil decodes in this process.
    public var workerExecutable: URL?
    /// Worker processes (with ``workerExecutable``).
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Where every full decode is journaled as it finishes, so that a sweep stopped half-way (a crash, `kill -9`)
    /// resumes without decoding it again; nil for none.
    public var journal: URL?
    /// Forget the journal and decode everything again.
    public var fresh = false

    /// How a sweep turns a point's model into hypotheses.
    public enum PointScoring: String, Sendable, Codable, CaseIterable {
        /// Rescore word lattices from one decoding pass: a point costs a rescoring, not a decode.
        case rescore
        /// Decode the dev audio in full with every point's model: exact, and what a merged model is
        /// cheap enough for.
        case decode

        /// Rescoring for the set mix, whose points all share the lattice's vocabulary and base model, and for
        /// the weighted merge, whose points are scored with its set twin (the same custom model interpolated at
        /// decode time, which the merge reproduces). Full decodes for the other merges: rescoring a λ = 0.9
        /// lattice was 8.1 points of WER away from a full decode at λ = 0.3 on chess dev (the pass had pruned
        /// what a weaker λ would have kept), and its baseline inherits the same bias, which made anti-context
        /// rises look significant.
        public static func `default`(for options: PrepareOptions) -> PointScoring {
            options.hasSetTwin || options.mix == .set ? .rescore : .decode
        }
    }

    public init(
        variant: String? = nil, weights: [Double] = [],
        phraseScales: [Double] = [0.1, 0.3, 1], templateScales: [Double] = [0.01, 0.1, 1], budgets: [Int?] = [nil],
        confirm: Int = 3, tolerance: Double = Checks.antiContextTolerance, scaling: ScalingCurve? = nil,
        pointScoring: PointScoring? = nil
    ) {
        self.pointScoring = pointScoring
        self.budgets = budgets.isEmpty ? [nil] : budgets
        self.scaling = scaling
        self.variant = variant
        self.weights = weights
        self.phraseScales = phraseScales
        self.templateScales = templateScales
        self.confirm = confirm
        self.tolerance = tolerance
    }

    /// The weights swept when none are given. The set's weight (and the weighted merge's, the same weight)
    /// multiplies probabilities after the decoder's language weight, so its useful range ends near 0.9; the
    /// other merges' λ acts on probabilities before it, and boosts as much as the set's 0.5 only near λ = 0.9,
    /// so their grid is dense at the high end.
    public static func defaultWeights(for options: PrepareOptions) -> [Double] {
        options.mix == .set || options.hasSetTwin
            ? [0.2, 0.35, 0.5, 0.7, 0.9] : [0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99]
    }

    /// Every point of the grid.
    func grid(weights: [Double]) -> [SweepParameters] {
        weights.flatMap { weight in
            phraseScales.flatMap { phrases in
                templateScales.flatMap { templates in
                    budgets.map { budget in
                        SweepParameters(
                            weight: weight, budget: budget, countScaling: ["phrases": phrases, "templates": templates])
                    }
                }
            }
        }
    }
}

/// What a sweep cost, to compare with one decoding pass.
///
/// Rescoring, preparing and the lattice pass run in this process and are timed by the clock; full decodes run
/// in the workers and count the engine's decode time summed over utterances, so a resumed sweep counts the
/// answers its journal kept at what they cost when they were decoded.
public struct SweepCost: Sendable, Codable {
    /// The lattice pass (rescore mode), or the base model's full decode of the dev split (decode mode).
    public var decodePassSeconds: Double
    public var prepareSeconds: Double
    /// Every point rescored, or decoded in full.
    public var rescoreSeconds: Double
    /// The confirming full decodes.
    public var confirmSeconds: Double
    public var points: Int
    /// Building the recommendation's own model when the points were scored with a set twin (by the clock;
    /// near 0 when the sweep's cache had it).
    public var rebuildSeconds = 0.0
    /// (prepare + rescore) / one decoding pass: the cost of exploring the grid.
    public var multipleOfDecodePass: Double { (prepareSeconds + rescoreSeconds) / max(decodePassSeconds, 1e-9) }
}

/// Tunes a variant's counts and weight against the training-data budget on the dev split, then
/// judges the recommendation once on the test split.
///
/// The dev audio is decoded once into lattices with the variant's full model; every point is only
/// rescored (see `LatticeRescorer`), and a few are confirmed by full decoding, so the report can say
/// how far rescoring is from the truth.
public final class Sweep {
    /// The journal's name in an output's data folder (`gambit sweep` keeps it there).
    public static let journalName = "sweep-journal.jsonl"
    let suite: Suite
    let options: SweepOptions
    let toolchain: Toolchain
    /// Scored as a run of the suite is scored (its term forms included).
    let settings: RunSettings
    /// Progress lines for a terminal.
    public var log: (String) -> Void = { _ in }
    /// Called with (stage, done, total) as the items of a long stage finish: the lattice pass's utterances
    /// (`lattice pass`), full decodes (`decoding`), the grid's points (`points`), the scaling curve's points
    /// (`scaling curve`).
    public var progress: (@Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void)?
    /// Called every 30 s while a decode has run that long: the audio file's name, its length when known, and how
    /// long it has been decoding (see ``DecodeHeartbeat``).
    public var longDecode: (@Sendable (_ audio: String, _ audioSeconds: Double?, _ seconds: Double) -> Void)?
    /// Decodes for ``run()``, built there from the suite's decoder settings.
    var transcriber: Transcriber?
    /// SHA-256 of each audio file, part of its work keys; computed once per file.
    var audioHashes: [URL: String] = [:]
    /// Each utterance's audio length, for false alarms per hour.
    var audioLengths = AudioLengths()
    /// The engine's decode time of every answer ``decode(_:_:)`` has returned, summed over utterances. An
    /// answer read back from the journal counts the time it took when it was decoded, so a resumed sweep
    /// reports what its decodes cost, not the moments it spent reading them back.
    var decodedSeconds = 0.0

    public init(suite: Suite, options: SweepOptions, toolchain: Toolchain = Toolchain()) {
        self.suite = suite
        settings = RunSettings(
            workers: 1, normalizer: suite.normalizer, alignmentMode: .sclite, bootstrap: BootstrapOptions(),
            minimumGoodWords: 2)
        self.options = options
        self.toolchain = toolchain
    }

    struct Split {
        var domain: [CorpusEntry]
        /// The anti-context corpora's entries, one corpus after another (see ``antiCorpora``).
        var anti: [CorpusEntry]
        /// Name and entry count of each anti-context corpus, in the order of ``anti``.
        var antiCorpora: [(name: String, count: Int)]
    }

    /// What a sweep tunes, worked out once: the variant, its corpora, its data, its full model at the first
    /// pass's weight, and how points are scored.
    struct Target {
        var variant: Suite.Variant
        var domain: Suite.Corpus
        var anti: [Suite.Corpus]
        var data: CustomLanguageModelData
        var weights: [Double]
        var firstPassWeight: Double
        var full: PreparedArtifact
        var boosted: [String]
        var pointScoring: SweepOptions.PointScoring
        var dev: Split

        /// The options of a point's model: the set twin's for a weighted merge.
        func compilerOptions(weight: Double) -> PrepareOptions { Sweep.pointOptions(variant, weight: weight) }
    }

    /// The variant's compiler options at `weight`: a merged model has its weight built in, so each weight is
    /// its own artifact.
    static func compilerOptions(_ variant: Suite.Variant, weight: Double) -> PrepareOptions {
        var options = variant.prepareOptions
        options.weight = weight
        return options.normalized
    }

    /// The options of the model a point is scored with: the variant's own, or, for a weighted merge, its set twin's,
    /// whose weight changes on a lattice without preparing or decoding again. Only the recommendation is built as a
    /// merge, once, to be judged on test.
    static func pointOptions(_ variant: Suite.Variant, weight: Double) -> PrepareOptions {
        var options = compilerOptions(variant, weight: weight)
        if options.hasSetTwin { options.mix = .set }
        return options.normalized
    }

    /// The points explored, the model prepared for each, and what preparing and scoring them cost.
    struct Exploration {
        var points: [SweepPoint] = []
        var artifacts: [SweepParameters: PreparedArtifact] = [:]
        var prepareSeconds = 0.0
        var rescoreSeconds = 0.0
    }

    /// Tunes the variant on the dev split, confirms a few points by full decoding, judges the recommendation
    /// once on test and draws the scaling curve; returns the results, their cost and the recommended data.
    public func run() throws -> (SweepResults, SweepCost, CustomLanguageModelData) {
        let transcriber = try Transcriber(
            settings: suite.decoder, model: toolchain.model,
            mode: options.workerExecutable.map { .workers(executable: $0, count: options.workers) } ?? .inProcess)
        if options.fresh, let journal = options.journal { try? FileManager.default.removeItem(at: journal) }
        transcriber.stopAfterJournalLinesForTesting = ProcessInfo.processInfo.environment[
            Runner.stopAfterJournalLinesVariable
        ].flatMap { Int($0) }
        if let progress { transcriber.progress = { done, total in progress("decoding", done, total) } }
        if let longDecode {
            transcriber.heartbeat = DecodeHeartbeat { decode in
                longDecode(
                    URL(fileURLWithPath: decode.request.audio).lastPathComponent, decode.audioSeconds, decode.seconds)
            }
        }
        self.transcriber = transcriber
        let target = try self.target()
        let dev = target.dev
        log(
            "tuning \(target.variant.name) on \(target.domain.name) dev (\(dev.domain.count) utterances) and "
                + "anti-context dev (\(dev.anti.count))")
        let (baselineHypotheses, rescorer, decodePass) = try firstPass(target)
        // The shipped setting is always a point, so the recommendation can be compared with it.
        var grid = options.grid(weights: target.weights)
        let shipped = SweepParameters(weight: target.variant.weight, countScaling: ["phrases": 1, "templates": 1])
        if !grid.contains(shipped) { grid.append(shipped) }
        let baselineDomain = score(
            dev.domain, Array(baselineHypotheses.prefix(dev.domain.count)), boosted: target.boosted)
        let baselineAnti = antiContextRecords(dev, Array(baselineHypotheses.dropFirst(dev.domain.count)))
        var explored = try explore(grid, target, rescorer: rescorer, baselineAnti: baselineAnti)
        let (chosen, reason) = recommend(
            explored.points, shipped: shipped, baseline: baselineDomain.boosted?.boostedWordErrorRate)
        let confirmSeconds =
            rescorer == nil ? 0 : try confirm(&explored, first: [chosen.parameters, shipped], target)
        log("evaluating the recommendation once on the test split")
        let test = try split("test", domain: target.domain, anti: target.anti)
        let (recommendation, rebuildSeconds) = try judge(
            chosen.parameters, reason: reason, target, test, explored.artifacts)
        var scaling: [ScalingPoint]?
        if let curve = options.scaling {
            log("scaling curve: \(curve.termCounts.map(String.init).joined(separator: ", ")) distractor terms")
            let references = (dev.domain + dev.anti + test.domain + test.anti).map(\.text)
            scaling = try self.scaling(
                curve, variant: target.variant, data: target.data, dev: dev, references: references,
                boosted: target.boosted)
        }
        var results = SweepResults(
            variant: target.variant.name, corpus: target.domain.name, antiContextCorpus: target.anti.first?.name,
            split: "dev", mix: target.variant.prepareOptions.mix.rawValue, pointScoring: target.pointScoring.rawValue,
            decoderArguments: transcriber.settings.commandLine, points: explored.points,
            recommendation: recommendation, scaling: scaling)
        results.pointModel =
            target.variant.prepareOptions.hasSetTwin ? target.full.manifest.mix.rawValue : nil
        let cost = SweepCost(
            decodePassSeconds: decodePass, prepareSeconds: explored.prepareSeconds,
            rescoreSeconds: explored.rescoreSeconds, confirmSeconds: confirmSeconds, points: explored.points.count,
            rebuildSeconds: rebuildSeconds)
        return (results, cost, Self.scale(target.data, chosen.parameters))
    }

    /// The variant to tune (the named one, or the suite's first), its domain corpus and data, and its full model
    /// at the grid's median weight.
    func target() throws -> Target {
        guard
            let variant = options.variant.map({ name in suite.variants.first { $0.name == name } })
                ?? suite.variants.first
        else {
            throw RunnerError.invalidSuite(
                path: suite.file.path, line: nil, message: "no variant named \(options.variant ?? "") to sweep")
        }
        guard
            let domain = suite.corpora.first(where: { $0.role == .domain && suite.variants(for: $0).contains(variant) })
        else {
            throw RunnerError.nothingToTune(variant: variant.name)
        }
        let anti = suite.corpora.filter { $0.role == .antiContext }
        let weights =
            options.weights.isEmpty ? SweepOptions.defaultWeights(for: variant.prepareOptions) : options.weights
        let sortedWeights = weights.sorted()
        let firstPassWeight = sortedWeights.isEmpty ? variant.weight : sortedWeights[sortedWeights.count / 2]
        let data = try Toolchain.loadTrainingData(variant.training)
        let full = try toolchain.prepare(
            variant.training, data: data, options: Self.pointOptions(variant, weight: firstPassWeight)
        ).artifact
        let dev = try split("dev", domain: domain, anti: anti)
        let target = Target(
            variant: variant, domain: domain, anti: anti, data: data, weights: weights,
            firstPassWeight: firstPassWeight,
            full: full, boosted: full.manifest.boostedWords,
            pointScoring: options.pointScoring ?? .default(for: variant.prepareOptions),
            dev: dev)
        // B-WER is what the sweep tunes: over no boosted reference word it is no data, and every point
        // would tie at a made-up 0%.
        guard score(dev.domain, dev.domain.map(\.text), boosted: target.boosted).boosted?.boostedWordErrorRate != nil
        else {
            throw RunnerError.noBoostedReference(corpus: domain.name, variant: variant.name)
        }
        return target
    }
    /// One decoding pass into lattices, with the variant's full vocabulary at the grid's median weight (a strongly
    /// biased pass prunes the unbiased alternatives out of the lattice, an unbiased one the custom words); with
    /// full decodes, the pass is the baseline's decode. Returns the baseline's hypotheses, the lattices (when
    /// points are rescored) and the pass's cost: by the clock for the lattice pass (always redone, in this
    /// process), in engine time for full decodes (see ``decodedSeconds``).
    func firstPass(_ target: Target) throws -> (hypotheses: [String], rescorer: LatticeRescorer?, seconds: Double) {
        guard let transcriber else { preconditionFailure("firstPass runs inside run()") }
        let allAudio = (target.dev.domain + target.dev.anti).map(\.audio)
        let result: (hypotheses: [String], rescorer: LatticeRescorer?, seconds: Double)
        switch target.pointScoring {
        case .rescore:
            var clock = Stopwatch()
            var passProgress: (@Sendable (Int, Int) -> Void)?
            if let progress { passProgress = { done, total in progress("lattice pass", done, total) } }
            let lattices = try transcriber.latticePass(
                allAudio, configuration: Toolchain.configuration(target.full, weight: target.firstPassWeight),
                progress: passProgress)
            result = (try lattices.rescore(customModel: nil, weight: 0), lattices, clock.lap())
        case .decode:
            let before = decodedSeconds
            let hypotheses = try decode(allAudio, nil)
            result = (hypotheses, nil, decodedSeconds - before)
        }
        log(
            String(
                format: target.pointScoring == .rescore
                    ? "decoded the dev split once into lattices in %.1f s"
                    : "decoded the dev split without customization in %.1f s; every point is decoded in full",
                result.seconds))
        return result
    }

    /// Prepares every point of the grid and scores it on the dev split: rescored from the lattices, or decoded in
    /// full when there are none.
    func explore(
        _ grid: [SweepParameters], _ target: Target, rescorer: LatticeRescorer?, baselineAnti: [[UtteranceRecord]]
    ) throws -> Exploration {
        let dev = target.dev
        let allAudio = (dev.domain + dev.anti).map(\.audio)
        var explored = Exploration()
        progress?("points", 0, grid.count)
        for (index, parameters) in grid.enumerated() {
            defer { progress?("points", index + 1, grid.count) }
            var step = Stopwatch()
            let artifact = try preparePoint(parameters, target).artifact
            explored.artifacts[parameters] = artifact
            explored.prepareSeconds += step.lap()
            let hypotheses: [String]
            if let rescorer {
                hypotheses = try rescorer.rescore(
                    customModel: artifact.languageModel, weight: parameters.weight,
                    containsBaseModel: artifact.manifest.containsBaseModel)
                explored.rescoreSeconds += step.lap()
            } else {
                let before = decodedSeconds
                hypotheses = try decode(allAudio, Toolchain.configuration(artifact, weight: parameters.weight))
                explored.rescoreSeconds += decodedSeconds - before
            }
            let onDomain = score(dev.domain, Array(hypotheses.prefix(dev.domain.count)), boosted: target.boosted)
            // Each anti-context utterance is aligned once: the checks read the corpora apart, the
            // point's anti-context WER all of them together.
            let antiRecords = antiContextRecords(dev, Array(hypotheses.dropFirst(dev.domain.count)))
            let onAnti = Aggregation.metrics(
                of: antiRecords.flatMap { $0 }, boostedWords: target.boosted, normalizer: settings.normalizer)
            explored.points.append(
                SweepPoint(
                    parameters: parameters, samplesUsed: artifact.manifest.samples, metrics: MetricSummary(onDomain),
                    antiContext: dev.anti.isEmpty ? nil : MetricSummary(onAnti),
                    prepareSeconds: artifact.manifest.timings.total,
                    rescoredWER: rescorer == nil ? nil : onDomain.rates.wordErrorRate,
                    decodedWER: rescorer == nil ? onDomain.rates.wordErrorRate : nil,
                    antiContextChecks: antiContextChecks(dev, baseline: baselineAnti, customized: antiRecords)))
        }
        Self.markPareto(&explored.points)
        log(
            String(
                format: "%@ %ld points in %.1f s (+ %.1f s preparing)",
                rescorer != nil ? "rescored" : "decoded", explored.points.count, explored.rescoreSeconds,
                explored.prepareSeconds))
        return explored
    }

    /// The point's scaled data, prepared in the sweep's own cache folder: with the point's options, or with
    /// `options` (the variant's own mix, to judge a point scored with the set twin).
    func preparePoint(
        _ parameters: SweepParameters, _ target: Target, options: PrepareOptions? = nil
    ) throws -> (artifact: PreparedArtifact, cached: Bool) {
        let options = options ?? target.compilerOptions(weight: parameters.weight)
        let scaled = Self.scale(target.data, parameters)
        // The variant's name goes through PathComponent: a name with `/` or `..` stays one folder of the cache.
        let folder = toolchain.cacheFolder.appendingPathComponent("sweep").appendingPathComponent(
            "\(PathComponent(target.variant.name))-p\(parameters.countScaling["phrases"]!)"
                + "-t\(parameters.countScaling["templates"]!)" + (parameters.budget.map { "-b\($0)" } ?? "")
                + (options.mix == .merged ? "-w\(parameters.weight)" : ""))
        let prepared = try toolchain.compiler.prepare(scaled, output: folder, options: options)
        ModelCache.recordSources([target.variant.training], in: folder)
        return prepared
    }

    /// The largest B-WER gain among the points that pass every anti-context check (the run's rule: a rise above
    /// the tolerance fails only when significant), and why.
    func recommend(_ points: [SweepPoint], shipped: SweepParameters, baseline: Double?) -> (SweepPoint, String) {
        let reference = points.first { $0.parameters == shipped }!
        let passing = points.filter(\.passesAntiContextChecks)
        let chosen = Self.recommend(points)
        let reason =
            chosen.passesAntiContextChecks
            ? String(
                format: "lowest dev B-WER (%.2f%%, baseline %.2f%%, shipped setting %.2f%%) of the %ld of %ld points "
                    + "whose every anti-context check passes (%@)",
                chosen.boostedWordErrorRate * 100, (baseline ?? 0) * 100,
                reference.boostedWordErrorRate * 100, passing.count, points.count,
                Self.describe(chosen.antiContextChecks ?? []))
            : String(
                format: "no point passes every anti-context check; this one raises anti-context WER least (%@)",
                Self.describe(chosen.antiContextChecks ?? []))
        return (chosen, reason)
    }

    /// Decodes in full the first points (the recommendation, the shipped setting), then the cheapest, up to
    /// ``SweepOptions/confirm`` points, recording their decoded WER; returns what that cost in engine time.
    func confirm(_ explored: inout Exploration, first: [SweepParameters], _ target: Target) throws -> Double {
        var order = first
        order += explored.points.sorted {
            ($0.samplesUsed, $0.parameters.weight) < ($1.samplesUsed, $1.parameters.weight)
        }
        .map(\.parameters)
        var confirmed = Set<SweepParameters>()
        let before = decodedSeconds
        for parameters in order where confirmed.count < options.confirm && !confirmed.contains(parameters) {
            confirmed.insert(parameters)
            let configuration = Toolchain.configuration(explored.artifacts[parameters]!, weight: parameters.weight)
            let hypotheses = try decode(target.dev.domain.map(\.audio), configuration)
            let decoded = score(target.dev.domain, hypotheses, boosted: target.boosted)
            if let index = explored.points.firstIndex(where: { $0.parameters == parameters }) {
                explored.points[index].decodedWER = decoded.rates.wordErrorRate
            }
        }
        return decodedSeconds - before
    }

    /// Judges the recommended point once on the test split, against the baseline, on domain and anti-context
    /// speech.
    func judge(
        _ parameters: SweepParameters, reason: String, _ target: Target, _ test: Split,
        _ artifacts: [SweepParameters: PreparedArtifact]
    ) throws -> (SweepRecommendation, rebuildSeconds: Double) {
        var artifact = artifacts[parameters]!
        var testModel: String?
        var clock = Stopwatch()
        if target.variant.prepareOptions.hasSetTwin {
            // The points were scored with the set twin; the test split is decoded with the merge itself, built
            // for the recommended weight (cached with the sweep's models).
            let options = Self.compilerOptions(target.variant, weight: parameters.weight)
            let prepared = try preparePoint(parameters, target, options: options)
            artifact = prepared.artifact
            testModel = String(
                format: "the weighted merge at weight %.2f, %@ (%.1f s to build)", parameters.weight,
                prepared.cached ? "from the cache" : "built for it", prepared.artifact.manifest.timings.total)
        }
        let rebuildSeconds = clock.lap()
        let configuration = Toolchain.configuration(artifact, weight: parameters.weight)
        let boosted = target.boosted
        let custom = score(test.domain, try decode(test.domain.map(\.audio), configuration), boosted: boosted)
        let base = score(test.domain, try decode(test.domain.map(\.audio), nil), boosted: boosted)
        func antiWER(_ configuration: LanguageModelConfiguration?) throws -> Double? {
            test.anti.isEmpty
                ? nil
                : score(test.anti, try decode(test.anti.map(\.audio), configuration), boosted: []).rates.wordErrorRate
        }
        let summary = MetricSummary.init(_:)
        var recommendation = SweepRecommendation(
            parameters: parameters, reason: reason, testSplit: "test", test: summary(custom),
            testBaseline: summary(base), testAntiContextWER: try antiWER(configuration),
            testAntiContextBaselineWER: try antiWER(nil))
        recommendation.testModel = testModel
        return (recommendation, rebuildSeconds)
    }

    /// The entries and audio of one split; anti-context corpora without that split contribute all entries.
    func split(_ name: String, domain: Suite.Corpus, anti: [Suite.Corpus]) throws -> Split {
        func entries(_ corpus: Suite.Corpus, strict: Bool) throws -> [CorpusEntry] {
            if let texts = corpus.texts {
                _ = try Synthesizer().build(texts: texts, output: corpus.manifest.deletingLastPathComponent())
            }
            let all = try suite.entries(of: corpus, allowOutsidePaths: options.allowOutsidePaths)
            let chosen = all.filter { $0.split == name }
            if chosen.isEmpty && strict {
                throw RunnerError.missingSplit(corpus: corpus.name, split: name)
            }
            return chosen.isEmpty ? all : chosen
        }
        let domainEntries = try entries(domain, strict: true)
        let antiParts = try anti.map { ($0.name, try entries($0, strict: false)) }
        let antiEntries = antiParts.flatMap(\.1)
        return Split(domain: domainEntries, anti: antiEntries, antiCorpora: antiParts.map { ($0.0, $0.1.count) })
    }

    /// The hypothesis of each file under `configuration` (the base model alone when nil), in order, through the
    /// transcriber: in every worker, journaled, and read back from the journal when a sweep resumes.
    func decode(_ audio: [URL], _ configuration: LanguageModelConfiguration?) throws -> [String] {
        guard let transcriber else { preconditionFailure("decode runs inside run()") }
        let requests = audio.map { url in
            let hash = audioHashes[url] ?? WorkRequest.hashFile(url)
            audioHashes[url] = hash
            return transcriber.request(audio: url, audioHash: hash, configuration: configuration)
        }
        // The sweep's figures are over every utterance: one that fails stops it, by name.
        let answers = try transcriber.answers(requests, journal: options.journal)
        decodedSeconds += answers.reduce(0) { $0 + $1.decodeSeconds }
        return answers.map(\.hypothesis)
    }

    func records(_ entries: [CorpusEntry], _ hypotheses: [String]) -> [UtteranceRecord] {
        zip(entries, hypotheses).enumerated().map { index, pair in
            var record = Aggregation.record(
                id: pair.0.id, index: index, audioPath: suite.reportedPath(pair.0.audio), reference: pair.0.text,
                hypothesis: pair.1, biasingList: pair.0.boosted, settings: settings)
            record.audioSeconds = audioLengths.seconds(pair.0.audio)
            return record
        }
    }

    func score(_ entries: [CorpusEntry], _ hypotheses: [String], boosted: [String]) -> SystemMetrics {
        Aggregation.metrics(of: records(entries, hypotheses), boostedWords: boosted, normalizer: settings.normalizer)
    }

    /// The records of each anti-context corpus, from the hypotheses of all of them in the split's order.
    func antiContextRecords(_ split: Split, _ hypotheses: [String]) -> [[UtteranceRecord]] {
        var start = 0
        return split.antiCorpora.map { corpus in
            defer { start += corpus.count }
            let range = start..<(start + corpus.count)
            return records(Array(split.anti[range]), Array(hypotheses[range]))
        }
    }

    /// Each anti-context corpus's check at one point, by the run's rule (``Checks/antiContextOutcome``)
    /// and the gate's significance tests, against the baseline made the same way (rescored from the
    /// same lattices, or decoded in full).
    func antiContextChecks(
        _ split: Split, baseline: [[UtteranceRecord]], customized: [[UtteranceRecord]]
    ) -> [SweepAntiContextCheck] {
        zip(split.antiCorpora, zip(baseline, customized)).map { corpus, pair in
            let (before, after) = pair
            let paired = Aggregation.pairedErrors(baseline: before, customized: after)
            let interval = paired.deltaWER(settings.bootstrap)
            let matchedPairs = paired.matchedPairs(minimumGoodWords: settings.minimumGoodWords)
            let significant = interval.significant || matchedPairs.significant
            let baseWER = Aggregation.metrics(of: before, normalizer: settings.normalizer).rates.wordErrorRate
            let wer = Aggregation.metrics(of: after, normalizer: settings.normalizer).rates.wordErrorRate
            let outcome = Checks.antiContextOutcome(
                deltaPoints: (wer - baseWER) * 100, significant: significant, tolerance: options.tolerance)
            return SweepAntiContextCheck(
                corpus: corpus.name, baselineWordErrorRate: baseWER, wordErrorRate: wer, deltaLower: interval.lower,
                deltaUpper: interval.upper, pValue: matchedPairs.pValue, significant: significant,
                passed: outcome.passed, warning: outcome.warning, tooFewUtterances: interval.tooFewUtterances)
        }
    }

    /// The point with the lowest B-WER among those whose every anti-context check passes; ties go to
    /// fewer samples, then the smaller anti-context rise, then lower WER. When none passes, the one
    /// that raises anti-context WER least.
    public static func recommend(_ points: [SweepPoint]) -> SweepPoint {
        precondition(!points.isEmpty, "a sweep has at least the shipped setting")
        let passing = points.filter(\.passesAntiContextChecks)
        if let best = passing.min(by: {
            ($0.boostedWordErrorRate, $0.samplesUsed, $0.worstAntiContextDelta, $0.wordErrorRate)
                < ($1.boostedWordErrorRate, $1.samplesUsed, $1.worstAntiContextDelta, $1.wordErrorRate)
        }) {
            return best
        }
        return points.min {
            ($0.worstAntiContextDelta, $0.boostedWordErrorRate) < ($1.worstAntiContextDelta, $1.boostedWordErrorRate)
        }!
    }

    /// "everyday +0.34 n.s., general +4.35 significant, fails, tiny +8.00 too few to judge".
    static func describe(_ checks: [SweepAntiContextCheck]) -> String {
        checks.isEmpty
            ? "no anti-context corpus"
            : checks.map {
                String(format: "%@ %+.2f", $0.corpus, $0.delta * 100)
                    + ($0.significant
                        ? (!$0.passed ? " significant, fails" : " significant")
                        : $0.tooFewUtterances != nil ? " too few to judge" : " n.s.")
            }.joined(separator: ", ")
    }

    /// The training data with its phrase and template counts scaled (each at least 1), then, when the
    /// point has a budget the scaled data exceeds, every count cut by the same factor to fit it.
    static func scale(_ data: CustomLanguageModelData, _ parameters: SweepParameters) -> CustomLanguageModelData {
        var phrases = parameters.countScaling["phrases"] ?? 1
        var templates = parameters.countScaling["templates"] ?? 1
        if let budget = parameters.budget {
            // In floating point: counts near 2⁶³ are valid, and their sum would overflow.
            let phraseTotal = data.phraseCounts.reduce(0.0) { $0 + Double($1.count) }
            let templateTotal = Double(data.totalSamples) - phraseTotal
            let scaledTotal = phraseTotal * phrases + templateTotal * templates
            if scaledTotal > Double(budget) {
                let cut = Double(budget) / scaledTotal
                phrases *= cut
                templates *= cut
            }
        }
        var scaled = CustomLanguageModelData(
            locale: data.locale, identifier: data.identifier, version: data.version, isPrivate: data.isPrivate)
        for phrase in data.phraseCounts {
            scaled.insert(phrase: phrase.phrase, count: Self.scaled(phrase.count, by: phrases))
        }
        for group in data.templateGroups {
            scaled.insert(
                templates: PhraseCountsFromTemplates(
                    classes: group.classes,
                    templates: group.templates.map {
                        TemplatePhraseCountGenerator.Template(
                            $0.body, count: Self.scaled($0.count, by: templates))
                    }))
        }
        for pronunciation in data.pronunciations { scaled.insert(term: pronunciation) }
        return scaled
    }

    /// `count` times `factor`, rounded, at least 1 and at most `Int.max` (a count near 2⁶³ scaled up saturates, as
    /// the training data's totals do, instead of trapping).
    static func scaled(_ count: Int, by factor: Double) -> Int {
        let value = (Double(count) * factor).rounded()
        guard value.isFinite, value < Double(Int.max) else { return .max }
        return max(1, Int(value))
    }

    /// Marks the points no other point beats on samples, anti-context WER and B-WER at once.
    static func markPareto(_ points: inout [SweepPoint]) {
        func key(_ p: SweepPoint) -> [Double] {
            [Double(p.samplesUsed), p.antiContextWordErrorRate ?? 0, p.boostedWordErrorRate]
        }
        for i in points.indices {
            let a = key(points[i])
            points[i].paretoOptimal = !points.indices.contains { j in
                let b = key(points[j])
                return j != i && zip(b, a).allSatisfy { $0 <= $1 } && zip(b, a).contains { $0 < $1 }
            }
        }
    }
}
