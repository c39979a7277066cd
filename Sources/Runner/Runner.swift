import Corpus
import Formats
import Foundation
import Glibc
import Hashing
import LanguageModel
import Recognition
import Results
import Scoring
import TrainingData

/// How to run a suite.
public struct RunOptions: Sendable {
    /// Where results, the journal and reports go.
    public var output: URL
    /// Decoder worker processes; output is the same whatever the number.
    public var workers: Int
    /// Run only slice `index` of `count` (utterances are assigned by a hash of their id).
    public var shard: Shard?
    /// The `gambit` executable the workers run.
    public var workerExecutable: URL
    /// Forget the journal and decode everything again.
    public var fresh: Bool
    /// Start workers in a network namespace when possible.
    public var denyNetwork: Bool
    /// Read audio wherever manifests point, not only inside the suite's folder and the folders each corpus
    /// allows (`--allow-outside-paths`).
    public var allowOutsidePaths = false
    /// Called with (stage, done, total) as the items of a long stage finish: the utterances synthesised for a
    /// corpus (`synthesis: NAME`), the models prepared (`prepare`), the utterances decoded (`decoding`).
    public var progress: (@Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void)?
    /// Called every ``heartbeatSeconds`` while a decode has run that long (an hour of silence decodes for minutes
    /// with nothing to show): the utterance's id, its audio's length when known, and how long it has been decoding.
    public var longDecode: (@Sendable (_ utterance: String, _ audioSeconds: Double?, _ seconds: Double) -> Void)?
    /// How often ``longDecode`` is called, and how long a decode runs before it is.
    public var heartbeatSeconds = 30.0
    /// Keep the word lattices of customized decodes that `gambit diagnose` will examine (those with boosted-word
    /// errors, and every anti-context one), so that it reads them rather than decoding again (`--no-keep-lattices`
    /// to keep none).
    public var keepLattices = true
    /// A folder of PocketSphinx answers kept across runs (``DecodeCache``): the run takes from it what its own
    /// journal lacks and adds what it decodes; nil (the default) to decode everything the journal lacks.
    /// `--fresh` neither reads nor skips it: every utterance is decoded and the cache is updated.
    public var decodeCache: URL?
    /// Test hook: utterance ids whose first decoding attempt crashes the worker.
    public var crashOnceForTesting: Set<String>
    /// Test hook: the journal append after this many lines writes half its line and then fails as a
    /// full disk would (ENOSPC).
    public var failJournalAfterLinesForTesting: Int?

    public init(
        output: URL, workers: Int = ProcessInfo.processInfo.activeProcessorCount, shard: Shard? = nil,
        workerExecutable: URL, fresh: Bool = false, denyNetwork: Bool = true,
        progress: (@Sendable (String, Int, Int) -> Void)? = nil, crashOnceForTesting: Set<String> = []
    ) {
        self.output = output
        self.workers = workers
        self.shard = shard
        self.workerExecutable = workerExecutable
        self.fresh = fresh
        self.denyNetwork = denyNetwork
        self.progress = progress
        self.crashOnceForTesting = crashOnceForTesting
    }
}

/// The main job: pairs corpora with training-data variants, prepares each custom model, decodes with
/// and without customization (and against the oracle grammar), and measures.
public final class Runner {
    public static let version = "0.1.0"
    /// The run's raw data (unredacted results and the journal) lives in this hidden folder of the
    /// output: it holds private training data in clear and is never published. Reports beside it
    /// are redacted.
    public static let dataFolder = ".gambit"
    public static let resultsName = "results.json"
    public static let journalName = "journal.jsonl"
    /// Where a suite with `cache: output` keeps its models, inside the output's data folder.
    public static func outputCacheFolder(in output: URL) -> URL {
        output.appendingPathComponent(dataFolder).appendingPathComponent("cache")
    }
    /// Environment variable that makes a run stop itself after this many journal lines (testing only).
    public static let stopAfterJournalLinesVariable = "GAMBIT_TEST_STOP_AFTER_JOURNAL_LINES"

    /// Where a run keeps the lattices of its customized decodes for `gambit diagnose`, one file per work key
    /// (``WorkRequest/latticeFile(key:in:)``).
    public static func latticeFolder(in output: URL) -> URL {
        output.appendingPathComponent(dataFolder).appendingPathComponent("lattices")
    }

    /// Where a run's unredacted results are written under an output folder.
    public static func resultsFile(in output: URL) -> URL {
        output.appendingPathComponent(dataFolder).appendingPathComponent(resultsName)
    }

    /// The output folder a results file was read from: `OUTPUT` for `OUTPUT/.gambit/results.json`; for
    /// `OUTPUT/report.json`, or any other file, the folder it is in.
    public static func outputFolder(ofResults file: URL) -> URL {
        let folder = file.deletingLastPathComponent()
        return folder.lastPathComponent == dataFolder ? folder.deletingLastPathComponent() : folder
    }

    /// What ``SuiteInfo/pathFromOutput`` records of results written into `output` from the suite file `suite`:
    /// the suite's path from the output folder, both with their links resolved.
    public static func pathFromOutput(_ output: URL, to suite: URL) -> String {
        func real(_ url: URL) -> URL { OutputPath.realPath(url).map { URL(fileURLWithPath: $0) } ?? url }
        return RelativePath.from(real(output), to: real(suite))
    }

    /// The suite file `results` came from, found from where they were read (`file`, as the command line named
    /// it) and never from this command's working directory, which need not be the run's: through
    /// ``SuiteInfo/pathFromOutput`` from the file's output folder. Results written before that was recorded
    /// name the suite only by ``SuiteInfo/path``, from the run's working directory; it is looked for from this one.
    /// - Returns: The suite file, or nil when it is not there (the results or the suite were moved).
    public static func suiteFile(of results: RunResults, readFrom file: URL) -> URL? {
        guard let relative = results.run.suite.pathFromOutput else {
            let suite = URL(fileURLWithPath: results.run.suite.path)
            return FileManager.default.fileExists(atPath: suite.path) ? suite : nil
        }
        // From the folder as named first, so that reports name the suite's folder from there as before; from its
        // real path when a link on the way leads elsewhere (the path was recorded between real paths).
        let folder = outputFolder(ofResults: file).standardizedFileURL
        let real = OutputPath.realPath(folder).map { URL(fileURLWithPath: $0) } ?? folder
        return [folder, real].lazy.map { $0.appendingPathComponent(relative).standardizedFileURL }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The private words of `suite`'s training data, masked as the results of running it will mask them: the
    /// words ``info(_:_:)`` records of each private variant's model, worked out from its data without preparing
    /// it, so that what a command prints before anything is prepared (`gambit run`'s first line, the corpora it
    /// synthesises, its plan) is masked as its reports are.
    /// - Throws: When a training file cannot be read, or the base model's word list cannot be.
    public static func privateTermMasker(of suite: Suite, toolchain: Toolchain) throws -> PrivateTermMasker {
        var variants: [VariantInfo] = []
        for variant in suite.variants {
            let data = try Toolchain.loadTrainingData(variant.training)
            guard data.isPrivate else { continue }
            variants.append(try scoringScope(of: variant, data: data, toolchain: toolchain))
        }
        // Masked as the run scores them (see `settings`).
        return PrivateTermMasker(variants: variants, normalizer: suite.normalizer)
    }

    /// What a run scores `variant`'s customized systems on: its boosted words, terms and templates, as ``info(_:_:)``
    /// records them of its model, worked out from its training data without preparing it (`gambit score --variant`).
    /// - Throws: When the training file cannot be read, or the base model's word list cannot be.
    public static func scoringScope(
        of variant: Suite.Variant, data: CustomLanguageModelData? = nil, toolchain: Toolchain
    ) throws
        -> VariantInfo
    {
        let data = try data ?? Toolchain.loadTrainingData(variant.training)
        let boosted = try toolchain.compiler.boosted(data, options: variant.prepareOptions)
        return VariantInfo(
            name: variant.name, trainingDataFile: variant.training.lastPathComponent, isPrivate: data.isPrivate,
            boostedWords: boosted.words, multiWordTerms: boosted.terms,
            templates: slotTemplates(LanguageModelCompiler.templateSlots(of: data)))
    }

    let suite: Suite
    let options: RunOptions
    /// Set while ``plan()`` works: an external recognizer's prepare command is not run for a plan (it may create
    /// something in a cloud service); a variant not prepared yet is planned as such.
    var planning = false
    let toolchain: Toolchain
    let settings: RunSettings

    public init(suite: Suite, options: RunOptions, toolchain: Toolchain = Toolchain()) {
        self.suite = suite
        self.options = options
        self.toolchain = toolchain
        self.settings = RunSettings(
            workers: options.workers, normalizer: suite.normalizer, alignmentMode: .sclite,
            bootstrap: BootstrapOptions(), minimumGoodWords: 2)
    }

    /// What a run makes before it can plan: the corpora's entries, every variant's model, the oracles and the
    /// audio's hashes.
    struct Prepared {
        var entries: [String: [CorpusEntry]] = [:]
        var artifacts: [String: PreparedArtifact] = [:]
        var variants: [VariantInfo] = []
        var oracles: [String: LanguageModelConfiguration] = [:]
        var audioHashes: [String: String] = [:]
        /// Each variant prepared for each customized external recognizer, by ``RunPlan/externalKey(recognizer:variant:)``.
        var externals: [String: RunPlan.PreparedExternal] = [:]
        /// What the results say of those, by recognizer.
        var externalCustomizations: [String: [ExternalCustomizationInfo]] = [:]
        /// Each variant's terms and distractors for each recognizer that takes phrase lists, by
        /// ``RunPlan/externalKey(recognizer:variant:)``.
        var lists: [String: RunPlan.PreparedList] = [:]
    }

    /// Runs the suite: prepare, plan, execute (journaled under the output folder), assemble. The results are
    /// returned, not written: a run folder's results and reports are written by one type, `RunFolder` (Publishing).
    public func run() throws -> RunResults {
        let dataFolder = try openOutput()
        // One run per output folder: two would interleave their journals and overwrite each other's reports.
        let lock = try OutputFolder.lock(options.output)
        defer { lock.release() }
        var timer = StageTimer()
        let prepared = try prepare(timer: &timer)
        let transcriber = try Transcriber(
            settings: suite.decoder, model: toolchain.model,
            mode: .workers(executable: options.workerExecutable, count: options.workers))
        // The plan's time is mostly the acoustic model's fingerprint (a SHA-256 over its files).
        let plan = try timer.measure("plan") {
            try self.plan(prepared, modelFingerprint: transcriber.modelFingerprint)
        }
        let done = try timer.measure("decoding") {
            try execute(plan, with: transcriber, journal: dataFolder.appendingPathComponent(Self.journalName))
        }
        var results = timer.measure("scoring") {
            var results = assemble(
                plan, prepared: prepared, answers: done, modelFingerprint: transcriber.modelFingerprint)
            results.checks = Checks.evaluate(
                results, artifacts: prepared.artifacts, responses: done, items: plan.items.map(\.request))
            return results
        }
        results.timings = RunTimings(
            stages: timer.stages, workers: RunTimings.workerTimes(transcriber.lastDecoded, plan: plan),
            workerCount: options.workers, decoded: Set(transcriber.lastDecoded.map(\.key)).count,
            journaled: Set(plan.items.filter { plan.systems[$0.system].isDecoded }.map(\.request.key))
                .subtracting(transcriber.lastAttempted).count)
        if options.keepLattices {
            pruneLattices(results)
        } else {
            // None kept: an earlier run's would be read as this one's.
            try? FileManager.default.removeItem(at: Self.latticeFolder(in: options.output))
        }
        return results
    }

    /// Deletes the kept lattices the diagnosis will not read: those of customized decodes with no boosted-word
    /// error on a domain corpus, and any a worker left half-written.
    func pruneLattices(_ results: RunResults) {
        let folder = Self.latticeFolder(in: options.output)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        var needed = Set<String>()
        for system in results.systems where system.mode == .customized && system.recognizer == nil {
            let antiContext = results.corpus(named: system.corpus)?.role == .antiContext
            let global = Set(Aggregation.boostedWords(for: system, in: results))
            for record in system.utterances where record.failure == nil {
                guard let key = record.key,
                    let boosted = record.scoredBoostedWords(global: global, normalizer: settings.normalizer)
                else { continue }
                if antiContext || !BoostedWordError.errors(in: record.alignment, boosted: boosted).isEmpty {
                    needed.insert(key)
                }
            }
        }
        for file in files where !needed.contains(String(file.dropLast(4))) || !file.hasSuffix(".lat") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(file))
        }
    }

    /// What ``run()`` would decode, and the keys its journal already holds, without decoding: `gambit run
    /// --plan`. It prepares what is not in the model cache (which `gambit run --plan` keeps out of the output
    /// folder) and writes nothing else. It runs no external recognizer's prepare command: their variants not in
    /// the cache are planned as still to prepare, every decode of them still to do.
    public func plan() throws -> (plan: RunPlan, journaled: Set<String>) {
        try OutputFolder.checkSeparate(options.output, from: suite)
        try validateDecoder()
        var timer = StageTimer()
        planning = true
        defer { planning = false }
        let prepared = try prepare(timer: &timer)
        let plan = try self.plan(prepared, modelFingerprint: toolchain.model.fingerprintForKeys)
        let journal = options.output.appendingPathComponent(Self.dataFolder).appendingPathComponent(Self.journalName)
        let journaled = options.fresh ? [] : Transcriber.answeredKeys(in: journal)
        return (plan, journaled)
    }

    /// What `gambit run --plan` prints: ``plan()``'s listing, with the private words of the suite's data masked as
    /// the reports mask them (see ``privateTermMasker(of:toolchain:)``).
    public func listing() throws -> RunPlan.Listing {
        let (plan, journaled) = try self.plan()
        return plan.listing(suite: suite, shard: options.shard, journaled: journaled)
            .redacting(try Self.privateTermMasker(of: suite, toolchain: toolchain))
    }

    /// What ``prepareOnly()`` made: the variants and oracles now in the cache.
    public struct PreparedSummary: Sendable, Equatable {
        public var variants: [String]
        public var oracles: [String]
        /// Each external recognizer's prepare that failed, with why.
        public var externalFailures: [String] = []
    }

    /// Synthesises the corpora that need it and prepares every variant and oracle into the model cache, and
    /// nothing else: no output folder, no decoding (`gambit run --prepare-only`). A cluster runs it once
    /// before its shards, so that no shard prepares, and none writes a synthesised corpus, at the same time
    /// as another.
    public func prepareOnly() throws -> PreparedSummary {
        try validateDecoder()
        var prepared = Prepared()
        prepared.entries = try scoredEntries()
        try prepareModels(&prepared)
        return PreparedSummary(
            variants: prepared.variants.map(\.name), oracles: prepared.oracles.keys.sorted(),
            externalFailures: prepared.externalCustomizations.values.joined().compactMap(\.failure))
    }

    /// Checks the output folder and creates it and its data folder; returns the data folder.
    func openOutput() throws -> URL {
        let dataFolder = options.output.appendingPathComponent(Self.dataFolder)
        try OutputFolder.checkSeparate(options.output, from: suite)
        try validateDecoder()
        // Gambit's own files go through the check the reports go through: a `.gambit` that is a link out of
        // the output folder is refused, not written through.
        for name in [Self.journalName, Self.resultsName, OutputFolder.lockName] {
            try OutputPath.check(dataFolder.appendingPathComponent(name), isInside: options.output)
        }
        try OutputFolder.prepare(options.output)
        try OutputFolder.prepare(dataFolder)
        return dataFolder
    }

    /// A suite built in code skips the file's checks; settings out of range would crash the engine. And a
    /// recognizer program that will not be found stops the run here, before anything is prepared or decoded.
    func validateDecoder() throws {
        do {
            try suite.decoder.validate()
        } catch {
            throw RunnerError.invalidSuite(path: suite.file.path, line: nil, message: error.message)
        }
        try suite.checkPrograms()
    }

    /// Loads (or synthesises) every corpus, prepares every variant and oracle, and hashes the audio this run's
    /// shard decodes, timing each as a stage.
    func prepare(timer: inout StageTimer) throws -> Prepared {
        var prepared = Prepared()
        try timer.measure("synthesis") {
            prepared.entries = try scoredEntries()
        }
        try timer.measure("prepare") { try prepareModels(&prepared) }
        timer.measure("audio hashes") {
            for entry in prepared.entries.values.joined() where prepared.audioHashes[entry.audio.path] == nil {
                if let shard = options.shard, RunPlan.shardIndex(entry.id, count: shard.count) != shard.index {
                    continue
                }
                prepared.audioHashes[entry.audio.path] = WorkRequest.hashFile(entry.audio)
            }
        }
        return prepared
    }

    /// Every variant's model (from the cache when it is there), each domain corpus's oracle, and each variant
    /// prepared for each customized external recognizer. Private data bound for a recognizer off the device is
    /// refused before anything is prepared.
    func prepareModels(_ prepared: inout Prepared) throws {
        var data: [String: CustomLanguageModelData] = [:]
        for variant in suite.variants { data[variant.name] = try Toolchain.loadTrainingData(variant.training) }
        try checkExternalPrivacy(data)
        let oracles = suite.modes.contains(.oracle) ? suite.corpora.filter { $0.role == .domain }.count : 0
        let externals = suite.recognizers.map { Self.customizedVariants(of: $0, in: suite).count }.reduce(0, +)
        let total = suite.variants.count + oracles + externals
        var done = 0
        options.progress?("prepare", 0, total)
        func finished(_ count: Int = 1) {
            done += count
            options.progress?("prepare", done, total)
        }
        for variant in suite.variants {
            let (artifact, _) = try toolchain.prepare(
                variant.training, data: data[variant.name], options: variant.prepareOptions)
            prepared.artifacts[variant.name] = artifact
            prepared.variants.append(info(variant, artifact.manifest))
            finished()
        }
        try prepareExternal(&prepared, data: data)
        try preparePhraseLists(&prepared, data: data)
        finished(externals)
        guard suite.modes.contains(.oracle) else { return }
        let pronunciations = suite.variants.flatMap { data[$0.name]?.pronunciations ?? [] }
        let anyPrivate = data.values.contains { $0.isPrivate }
        for corpus in suite.corpora where corpus.role == .domain {
            guard let entries = prepared.entries[corpus.name], !entries.isEmpty else { continue }
            prepared.oracles[corpus.name] = try oracle(
                corpus, entries: entries, pronunciations: pronunciations, isPrivate: anyPrivate)
            finished()
        }
    }

    /// What the results say of a prepared variant.
    func info(_ variant: Suite.Variant, _ manifest: PreparedModel) -> VariantInfo {
        let t = manifest.timings
        return VariantInfo(
            name: variant.name, trainingDataFile: relative(variant.training), weight: variant.weight,
            isPrivate: manifest.isPrivate, samplesUsed: manifest.samples, sampleBudget: manifest.sampleBudget,
            artifactFingerprint: manifest.fingerprint,
            prepareSeconds: PrepareTimings(
                expand: t.validate + t.count, estimate: t.estimate, write: t.writeARPA + t.vocabulary,
                compileBinary: t.compileBinary),
            boostedWords: manifest.boostedWords, multiWordTerms: manifest.boostedTerms,
            templates: Self.slotTemplates(manifest.templates))
    }

    /// Templates as the results hold them: each one's tokens, and the values of every class (the first
    /// template's, where two name a class alike); nil without templates.
    static func slotTemplates(_ templates: [TemplateSlots]) -> SlotTemplates? {
        guard !templates.isEmpty else { return nil }
        return SlotTemplates(
            templates: templates.map(\.tokens),
            classes: templates.reduce(into: [:]) { $0.merge($1.classes) { a, _ in a } })
    }

    func plan(_ prepared: Prepared, modelFingerprint: String) throws -> RunPlan {
        let variants = suite.variants.reduce(into: [String: RunPlan.PreparedVariant]()) { variants, variant in
            variants[variant.name] = prepared.artifacts[variant.name].map {
                RunPlan.PreparedVariant($0, weight: variant.weight)
            }
        }
        return try RunPlan.make(
            suite: suite, entries: prepared.entries, variants: variants, oracles: prepared.oracles,
            audioHashes: prepared.audioHashes, modelFingerprint: modelFingerprint, externals: prepared.externals,
            lists: prepared.lists, shard: options.shard,
            crashOnceForTesting: options.crashOnceForTesting)
    }

    /// Decodes what the journal does not hold yet, through the workers; every answer by key.
    func execute(_ plan: RunPlan, with transcriber: Transcriber, journal: URL) throws -> [String: WorkResponse] {
        transcriber.denyNetwork = options.denyNetwork
        if let progress = options.progress {
            transcriber.progress = { done, total in progress("decoding", done, total) }
        }
        if let longDecode = options.longDecode {
            var utterances: [String: CorpusEntry] = [:]
            for item in plan.items where utterances[item.request.key] == nil {
                utterances[item.request.key] = item.entry
            }
            transcriber.heartbeat = DecodeHeartbeat(interval: options.heartbeatSeconds) { [utterances] decode in
                let entry = utterances[decode.request.key]
                longDecode(entry?.id ?? decode.request.audio, decode.audioSeconds ?? entry?.duration, decode.seconds)
            }
        }
        transcriber.failJournalAfterLinesForTesting = options.failJournalAfterLinesForTesting
        transcriber.stopAfterJournalLinesForTesting = ProcessInfo.processInfo.environment[
            Self.stopAfterJournalLinesVariable
        ].flatMap { Int($0) }
        let lattices = options.keepLattices ? Self.latticeFolder(in: options.output).path : nil
        let undecoded = Self.preparationFailures(plan).merging(try importedAnswers(plan)) { a, _ in a }
        let requests = plan.items.filter { plan.systems[$0.system].isDecoded }.map { item in
            var request = item.request
            if request.configuration.map({ $0.grammar == nil }) ?? false, request.external == nil {
                request.latticeFolder = lattices
            }
            return request
        }
        let cache = options.decodeCache.map(DecodeCache.init)
        var fromCache: Set<String> = []
        if let cache, !options.fresh { fromCache = try cache.seed(journal, for: requests) }
        let answers = try transcriber.transcribe(requests, journal: journal, fresh: options.fresh)
        if let cache { cache.keep(answers, of: requests, except: fromCache) }
        return answers.merging(undecoded) { decoded, _ in decoded }
    }

    /// The results: per-utterance records, then every aggregate through Scoring. Checks are added by the caller.
    func assemble(
        _ plan: RunPlan, prepared: Prepared, answers done: [String: WorkResponse], modelFingerprint: String
    ) -> RunResults {
        let systemResults = plan.systems.indices.map { s in
            results(of: plan.systems[s], items: plan.items.filter { $0.system == s }, answers: done)
        }
        let corpora = suite.corpora.map { corpus in
            let entries = prepared.entries[corpus.name] ?? []
            let baseline = systemResults.first { $0.corpus == corpus.name }
            return CorpusInfo(
                name: corpus.name, role: corpus.role, split: corpus.split ?? "all",
                utteranceCount: baseline?.utterances.count ?? entries.count,
                audioSeconds: baseline?.utterances.reduce(0) { $0 + $1.audioSeconds } ?? 0)
        }
        let info = RunInfo(
            gambitVersion: Self.version, createdAt: ISO8601DateFormatter().string(from: Date()),
            suite: SuiteInfo(
                name: suite.name, path: relative(suite.file), contentHash: suite.contentHash,
                pathFromOutput: Self.pathFromOutput(options.output, to: suite.file)),
            shard: options.shard, settings: settings,
            engine: EngineInfo(
                name: "PocketSphinx", version: "5prealpha (Debian 0.8+5prealpha+1)",
                acousticModelPath: toolchain.model.hmm.standardizedFileURL.lastPathComponent,
                acousticModelFingerprint: modelFingerprint, decoderArguments: suite.decoder.commandLine),
            externalRecognizers: suite.recognizers.isEmpty
                ? nil
                : suite.recognizers.map {
                    externalInfo(
                        $0, plan: plan, answers: done, customizations: prepared.externalCustomizations[$0.name])
                })
        // What no worker decoded (a variant whose prepare failed, imported transcripts) proves nothing of the
        // workers' network.
        let decoded = plan.items.filter { plan.systems[$0.system].isDecoded }
        return RunResults(
            run: info,
            networkDenial: Self.networkEvidence(
                decoded.filter { $0.request.external?.onDevice ?? true }.compactMap { done[$0.request.key] }),
            variants: prepared.variants, corpora: corpora, systems: systemResults
        ).recomputingAggregates()
    }

    /// One system's records and timing (its aggregates are computed with the run's).
    func results(of system: RunPlan.System, items: [RunPlan.Item], answers: [String: WorkResponse])
        -> SystemResults
    {
        var records: [UtteranceRecord] = []
        var load = 0.0
        var peak = 0.0
        for item in items {
            guard let response = answers[item.request.key] else { continue }
            var record = Aggregation.record(
                id: item.entry.id, index: item.index, audioPath: suite.reportedPath(item.entry.audio),
                speaker: item.entry.speaker, condition: item.entry.condition, reference: item.entry.text,
                hypothesis: response.hypothesis, biasingList: item.entry.boosted, settings: settings)
            record.decodeSeconds = response.decodeSeconds
            record.audioSeconds = response.audioSeconds
            record.latency = response.latency.map { latency in
                var recorded = StreamingLatency(latency)
                recorded.failure = latency.failure.map { WorkResponse.relativePaths(in: $0, to: suite.folder) }
                return recorded
            }
            // A served program's answer, its model already loaded, is the wait over a whole utterance; the first
            // request of a program also waited for its start, which is not recognition.
            if response.served == true, response.loadedModel != true, response.failure == nil {
                record.latency = StreamingLatency(wholeUtteranceSeconds: response.decodeSeconds)
            }
            record.words = response.words.map(WordTiming.init)
            record.customization = Results.CustomizationStatus(response.customization)
            record.customizationNote = response.customizationNote
            record.failure = response.reportedFailure(relativeTo: suite.folder)
            record.failureKind = response.failure == nil ? nil : response.failureKind.map(FailureKind.init)
            record.retries = response.retries
            record.crashed = response.crashed
            record.key = item.request.key
            records.append(record)
            load = max(load, response.modelLoadSeconds)
            peak = max(peak, response.peakResidentMegabytes)
        }
        var results = SystemResults(
            corpus: system.corpus.name, mode: system.mode, variant: system.variant?.name,
            recognizer: system.external?.name,
            metrics: SystemMetrics(
                rates: Rates(
                    counts: ErrorCounts(), utterances: 0, utterancesWithErrors: 0, referenceCharacters: 0,
                    characterErrors: 0)),
            utterances: records,
            timing: SystemTiming(
                modelLoadSeconds: load, decodeWallSeconds: records.reduce(0) { $0 + $1.decodeSeconds },
                peakResidentMegabytes: peak),
            failures: FailureCounts(records))
        results.list = system.list
        return results
    }

    /// What the results say of an external recognizer: its command (absolute paths, such as the adapter or a
    /// model it loads, shown relative to the suite) and how many of its transcriptions ran with the network denied.
    func externalInfo(
        _ recognizer: ExternalRecognizer, plan: RunPlan, answers: [String: WorkResponse],
        customizations: [ExternalCustomizationInfo]?
    ) -> ExternalRecognizerInfo {
        let responses = plan.items.filter {
            $0.request.external == recognizer && plan.systems[$0.system].isDecoded
        }.compactMap { answers[$0.request.key] }
        let imported = plan.systems.filter { $0.external == recognizer }.compactMap(\.importedFile)
        return ExternalRecognizerInfo(
            name: recognizer.name,
            command: recognizer.command.map { word in
                word.hasPrefix("/") ? suite.reportedPath(URL(fileURLWithPath: word)) : word
            }, onDevice: recognizer.onDevice,
            decodings: responses.count, networkDenied: responses.filter { $0.networkDenied == true }.count,
            version: recognizer.version, customizations: customizations,
            importedFiles: imported.isEmpty ? nil : imported.map(suite.reportedPath),
            modelLoads: (recognizer.serve == nil && recognizer.customization?.serve == nil
                && recognizer.phraseLists?.serve == nil) || responses.isEmpty
                ? nil : responses.filter { $0.loadedModel == true }.count)
    }

    /// Whether every decoded utterance came from a worker that proved it had no network, wherever
    /// (this invocation or an earlier one, through the journal) it was decoded.
    static func networkEvidence(_ responses: [WorkResponse]) -> NetworkDenialEvidence {
        guard !responses.isEmpty else { return .none }
        let denied = responses.filter { $0.networkDenied == true }.count
        let methods = Set(responses.map { $0.networkIsolation ?? "unknown (decoded by an older Gambit)" }).sorted()
        return .workers(denied: denied, of: responses.count, methods: methods)
    }

    /// Every corpus's scored entries, by name: all of them are loaded (``entries(of:)``) before any is chosen by its
    /// split, so that a split `--split` put in place is checked against every corpus first
    /// (``Suite/checkReplacedSplit(_:)``).
    func scoredEntries() throws -> [String: [CorpusEntry]] {
        var all: [String: [CorpusEntry]] = [:]
        for corpus in suite.corpora { all[corpus.name] = try entries(of: corpus) }
        try suite.checkReplacedSplit(all)
        var scored: [String: [CorpusEntry]] = [:]
        for corpus in suite.corpora { scored[corpus.name] = try suite.scored(all[corpus.name] ?? [], of: corpus) }
        return scored
    }

    /// Loads all of a corpus's entries, synthesising its audio first when the suite gives texts and the
    /// manifest or audio is missing.
    func entries(of corpus: Suite.Corpus) throws -> [CorpusEntry] {
        if let texts = corpus.texts {
            let folder = corpus.manifest.deletingLastPathComponent()
            var synthesizer = Synthesizer()
            if let progress = options.progress {
                let stage = "synthesis: \(corpus.name)"
                synthesizer.progress = { done, total in progress(stage, done, total) }
            }
            _ = try synthesizer.build(texts: texts, output: folder)
        }
        return try suite.entries(of: corpus, allowOutsidePaths: options.allowOutsidePaths)
    }

    /// The oracle: a closed grammar of the corpus's own reference sentences, with a vocabulary that
    /// covers their words (pronunciations from every variant, spelling for the rest).
    /// It is marked private when any variant's data is: it holds their pronunciations, and the corpus's texts
    /// say their terms.
    func oracle(
        _ corpus: Suite.Corpus, entries: [CorpusEntry], pronunciations: [CustomPronunciation], isPrivate: Bool
    ) throws
        -> LanguageModelConfiguration
    {
        let sentences = Array(
            Set(entries.map { WordTokenizer.tokenize($0.text).joined(separator: " ") }.filter { !$0.isEmpty })
        ).sorted()
        var data = CustomLanguageModelData(
            locale: Locale(identifier: "en_US"), identifier: "gambit.oracle.\(corpus.name)", version: "1",
            isPrivate: isPrivate)
        // Each sentence is located at the manifest line that first says it, so that a word it cannot pronounce is
        // reported there, not at this file.
        var lineOfSentence: [String: Int] = [:]
        let numbered = (try? CorpusManifest.numberedEntries(corpus.manifest, audioFolder: corpus.audioFolder)) ?? []
        for (line, entry) in numbered {
            let sentence = WordTokenizer.tokenize(entry.text).joined(separator: " ")
            if lineOfSentence[sentence] == nil { lineOfSentence[sentence] = line }
        }
        for sentence in sentences {
            let location = SourceLocation(file: corpus.manifest.path, line: lineOfSentence[sentence])
            data.insert(phraseCount: PhraseCount(phrase: sentence, count: 1, location: location))
        }
        var seen = Set<String>()
        for pronunciation in pronunciations where seen.insert(pronunciation.grapheme.lowercased()).inserted {
            data.insert(term: pronunciation)
        }
        let folder = toolchain.cacheFolder.appendingPathComponent("oracle")
            .appendingPathComponent(Self.sha256(corpus.manifest.path).prefix(12).description)
        let artifact = try prepareOracle(data, of: corpus, in: folder)
        ModelCache.recordSources([corpus.manifest] + suite.variants.map(\.training), in: folder)
        let grammar =
            "#JSGF V1.0;\ngrammar oracle;\npublic <sentence> = "
            + sentences.map { "( \($0) )" }.joined(separator: "\n    | ") + " ;\n"
        var configuration = Toolchain.configuration(artifact, weight: 1)
        configuration.grammar = grammar
        configuration.fingerprint = Self.sha256(grammar + artifact.manifest.fingerprint)
        return configuration
    }

    /// The oracle's data prepared into `folder`. Invalid data (a reference word nothing pronounces) is said to be
    /// the oracle's, with where its pronunciations come from.
    func prepareOracle(_ data: CustomLanguageModelData, of corpus: Suite.Corpus, in folder: URL) throws
        -> PreparedArtifact
    {
        do {
            return try toolchain.compiler.prepare(data, output: folder).artifact
        } catch LanguageModelError.invalidTrainingData(let problem, _) {
            throw LanguageModelError.invalidTrainingData(
                problem,
                context: "The oracle of corpus \(corpus.name) is a grammar of its references and takes its "
                    + "pronunciations from every variant's training data: add the entry to a variant's, or correct "
                    + "the reference.")
        }
    }

    /// A path relative to the working directory (with `..` steps when it is elsewhere), never absolute.
    func relative(_ url: URL) -> String {
        RelativePath.from(URL(fileURLWithPath: FileManager.default.currentDirectoryPath), to: url)
    }

    static func sha256(_ text: String) -> String {
        ContentHash.sha256Hex(Data(text.utf8))
    }
}
