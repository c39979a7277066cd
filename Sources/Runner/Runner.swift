import Corpus
import Crypto
import Foundation
import Glibc
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
    /// Called with (done, total) as utterances finish.
    public var progress: (@Sendable (Int, Int) -> Void)?
    /// Test hook: utterance ids whose first decoding attempt crashes the worker.
    public var crashOnceForTesting: Set<String>
    /// Test hook: the journal append after this many lines writes half its line and then fails as a
    /// full disk would (ENOSPC).
    public var failJournalAfterLinesForTesting: Int?

    public init(
        output: URL, workers: Int = ProcessInfo.processInfo.activeProcessorCount, shard: Shard? = nil,
        workerExecutable: URL, fresh: Bool = false, denyNetwork: Bool = true,
        progress: (@Sendable (Int, Int) -> Void)? = nil, crashOnceForTesting: Set<String> = []
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

    /// Where a run's unredacted results are written under an output folder.
    public static func resultsFile(in output: URL) -> URL {
        output.appendingPathComponent(dataFolder).appendingPathComponent(resultsName)
    }

    let suite: Suite
    let options: RunOptions
    let toolchain: Toolchain
    let settings: RunSettings

    public init(suite: Suite, options: RunOptions, toolchain: Toolchain = Toolchain()) {
        self.suite = suite
        self.options = options
        self.toolchain = toolchain
        self.settings = RunSettings(
            workers: options.workers, normalizer: .standard, alignmentMode: .sclite,
            bootstrap: BootstrapOptions(), minimumGoodWords: 2)
    }

    /// One system to decode a corpus with.
    struct System {
        var corpus: Suite.Corpus
        var mode: SystemMode
        var variant: Suite.Variant?
        var configuration: LanguageModelConfiguration?
        var fingerprint: String
        var terms: [String]
        var external: ExternalRecognizer?
    }

    /// Runs the suite and writes `results.json` under the output folder.
    public func run() throws -> RunResults {
        let dataFolder = options.output.appendingPathComponent(Self.dataFolder)
        try OutputFolder.checkSeparate(options.output, from: suite)
        do {
            // A suite built in code skips the file's checks; settings out of range would crash the engine.
            try suite.decoder.validate()
        } catch {
            throw RunnerError.invalidSuite(path: suite.file.path, line: nil, message: error.message)
        }
        // Gambit's own files go through the check the reports go through: a `.gambit` that is a link out of
        // the output folder is refused, not written through.
        for name in [Self.journalName, Self.resultsName, OutputFolder.lockName] {
            try OutputPath.check(dataFolder.appendingPathComponent(name), isInside: options.output)
        }
        try OutputFolder.prepare(options.output)
        try OutputFolder.prepare(dataFolder)
        // One run per output folder: two would interleave their journals and overwrite each other's
        // reports.
        let lock = try OutputFolder.Lock(
            file: dataFolder.appendingPathComponent(OutputFolder.lockName), folder: options.output)
        defer { lock.release() }
        var corpusEntries: [String: [CorpusEntry]] = [:]
        for corpus in suite.corpora { corpusEntries[corpus.name] = try entries(of: corpus) }

        var variantInfos: [VariantInfo] = []
        var artifacts: [String: PreparedArtifact] = [:]
        var pronunciations: [CustomPronunciation] = []
        var anyPrivate = false
        for variant in suite.variants {
            let data = try Toolchain.loadTrainingData(variant.training)
            pronunciations += data.pronunciations
            anyPrivate = anyPrivate || data.isPrivate
            let (artifact, _) = try toolchain.prepare(variant.training, options: variant.prepareOptions)
            artifacts[variant.name] = artifact
            let manifest = artifact.manifest
            let t = manifest.timings
            variantInfos.append(
                VariantInfo(
                    name: variant.name, trainingDataFile: relative(variant.training), weight: variant.weight,
                    isPrivate: manifest.isPrivate, samplesUsed: manifest.samples, sampleBudget: manifest.sampleBudget,
                    artifactFingerprint: manifest.fingerprint,
                    prepareSeconds: PrepareTimings(
                        expand: t.validate + t.count, estimate: t.estimate, write: t.writeARPA + t.vocabulary,
                        compileBinary: t.compileBinary),
                    boostedWords: manifest.boostedWords, multiWordTerms: manifest.boostedTerms,
                    templates: manifest.templates.isEmpty
                        ? nil
                        : SlotTemplates(
                            templates: manifest.templates.map(\.tokens),
                            classes: manifest.templates.reduce(into: [:]) { $0.merge($1.classes) { a, _ in a } })))
        }

        var systems: [System] = []
        for corpus in suite.corpora {
            let variants = suite.variants(for: corpus)
            let allTerms = Array(Set(variants.flatMap { artifacts[$0.name]!.manifest.boostedTerms })).sorted()
            if suite.modes.contains(.baseline) {
                systems.append(
                    System(
                        corpus: corpus, mode: .baseline, variant: nil, configuration: nil, fingerprint: "baseline",
                        terms: allTerms))
            }
            if suite.modes.contains(.customized) {
                for variant in variants {
                    let artifact = artifacts[variant.name]!
                    systems.append(
                        System(
                            corpus: corpus, mode: .customized, variant: variant,
                            configuration: Toolchain.configuration(artifact, weight: variant.weight),
                            fingerprint: "\(artifact.manifest.fingerprint)@\(variant.weight)",
                            terms: artifact.manifest.boostedTerms))
                }
            }
            // The oracle measures how much of the possible gain a variant captures; anti-context
            // speech has no gain to capture, so it is not decoded against its own grammar.
            if suite.modes.contains(.oracle), corpus.role == .domain, let entries = corpusEntries[corpus.name],
                !entries.isEmpty
            {
                let configuration = try oracle(
                    corpus, entries: entries, pronunciations: pronunciations, isPrivate: anyPrivate)
                systems.append(
                    System(
                        corpus: corpus, mode: .oracle, variant: nil, configuration: configuration,
                        fingerprint: "oracle:\(configuration.fingerprint ?? "")", terms: allTerms))
            }
        }

        // External recognizers: uncustomized, beside PocketSphinx's baseline.
        for corpus in suite.corpora {
            for recognizer in suite.recognizers where recognizer.corpora?.contains(corpus.name) ?? true {
                systems.append(
                    System(
                        corpus: corpus, mode: .baseline, variant: nil, configuration: nil,
                        fingerprint: "external:\(recognizer.name):\(recognizer.onDevice):"
                            + recognizer.command.joined(separator: "\u{1F}"),
                        terms: [], external: recognizer))
            }
        }

        // Work items, content-keyed, in a fixed order; a shard keeps its slice of utterances.
        let transcriber = try Transcriber(
            settings: suite.decoder, model: toolchain.model,
            mode: .workers(executable: options.workerExecutable, count: options.workers))
        var audioHashes: [String: String] = [:]
        var items: [(system: Int, index: Int, entry: CorpusEntry, request: WorkRequest)] = []
        for (s, system) in systems.enumerated() {
            for (index, entry) in (corpusEntries[system.corpus.name] ?? []).enumerated() {
                if let shard = options.shard, Self.shardIndex(entry.id, count: shard.count) != shard.index { continue }
                let audioHash = audioHashes[entry.audio.path] ?? WorkRequest.hashFile(entry.audio)
                audioHashes[entry.audio.path] = audioHash
                let streamed =
                    system.mode != .oracle && system.external == nil && index < suite.streaming.utterances
                    ? suite.streaming.chunkMilliseconds : nil
                var request = transcriber.request(
                    audio: entry.audio, audioHash: audioHash, configuration: system.configuration,
                    systemFingerprint: system.fingerprint, streamingChunkMilliseconds: streamed, terms: system.terms)
                if let external = system.external {
                    // An external recognizer is not PocketSphinx: the engine's settings do not change its output,
                    // so changing them does not run its (perhaps slow, perhaps off-device) command again.
                    request.key = WorkRequest.key(
                        audioHash: audioHash, systemFingerprint: system.fingerprint,
                        modelFingerprint: transcriber.modelFingerprint, decoder: .standard,
                        streamedChunkMilliseconds: nil)
                    request.external = external
                }
                if options.crashOnceForTesting.contains(entry.id) { request.crashForTesting = true }
                items.append((s, index, entry, request))
            }
        }

        if items.isEmpty {
            // Results over no utterance would read as a perfect run.
            throw RunnerError.shard(
                options.shard.map { shard in
                    "shard \(shard.index)/\(shard.count) holds no utterance of this suite's "
                        + "\(corpusEntries.values.map(\.count).reduce(0, +)); run with fewer shards"
                } ?? "the suite has nothing to decode: no system applies to any corpus")
        }

        // Resume: what the journal already has is not decoded again.
        transcriber.denyNetwork = options.denyNetwork
        transcriber.progress = options.progress
        transcriber.failJournalAfterLinesForTesting = options.failJournalAfterLinesForTesting
        transcriber.stopAfterJournalLinesForTesting = ProcessInfo.processInfo.environment[
            Self.stopAfterJournalLinesVariable
        ].flatMap { Int($0) }
        let done = try transcriber.transcribe(
            items.map(\.request), journal: dataFolder.appendingPathComponent(Self.journalName), fresh: options.fresh)

        // Results: per-utterance records, then every aggregate through Scoring.
        var systemResults: [SystemResults] = []
        for (s, system) in systems.enumerated() {
            var records: [UtteranceRecord] = []
            var load = 0.0
            var peak = 0.0
            for item in items where item.system == s {
                guard let response = done[item.request.key] else { continue }
                var record = Aggregation.record(
                    id: item.entry.id, index: item.index, audioPath: suite.reportedPath(item.entry.audio),
                    speaker: item.entry.speaker, condition: item.entry.condition, reference: item.entry.text,
                    hypothesis: response.hypothesis, biasingList: item.entry.boosted,
                    settings: settings)
                record.decodeSeconds = response.decodeSeconds
                record.audioSeconds = response.audioSeconds
                record.latency = response.latency
                record.words = response.words
                record.customization = response.customization
                record.failure = response.reportedFailure(relativeTo: suite.folder)
                record.retries = response.retries
                record.crashed = response.crashed
                records.append(record)
                load = max(load, response.modelLoadSeconds)
                peak = max(peak, response.peakResidentMegabytes)
            }
            systemResults.append(
                SystemResults(
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
                    failures: FailureCounts(records)))
        }
        let corpora = suite.corpora.map { corpus in
            let entries = corpusEntries[corpus.name] ?? []
            let baseline = systemResults.first { $0.corpus == corpus.name }
            return CorpusInfo(
                name: corpus.name, role: corpus.role, split: corpus.split ?? "all",
                utteranceCount: baseline?.utterances.count ?? entries.count,
                audioSeconds: baseline?.utterances.reduce(0) { $0 + $1.audioSeconds } ?? 0)
        }
        let info = RunInfo(
            gambitVersion: Self.version, createdAt: ISO8601DateFormatter().string(from: Date()),
            suite: SuiteInfo(name: suite.name, path: relative(suite.file), contentHash: suite.contentHash),
            shard: options.shard, settings: settings,
            engine: EngineInfo(
                name: "PocketSphinx", version: "5prealpha (Debian 0.8+5prealpha+1)",
                acousticModelPath: toolchain.model.hmm.standardizedFileURL.lastPathComponent,
                acousticModelFingerprint: transcriber.modelFingerprint,
                decoderArguments: suite.decoder.commandLine),
            externalRecognizers: suite.recognizers.isEmpty
                ? nil
                : suite.recognizers.map { recognizer in
                    let responses = items.filter { $0.request.external == recognizer }.compactMap {
                        done[$0.request.key]
                    }
                    return ExternalRecognizerInfo(
                        name: recognizer.name,
                        // Absolute paths (the adapter, a model it loads) are shown relative to the suite.
                        command: recognizer.command.map { word in
                            word.hasPrefix("/") ? suite.reportedPath(URL(fileURLWithPath: word)) : word
                        }, onDevice: recognizer.onDevice,
                        decodings: responses.count, networkDenied: responses.filter { $0.networkDenied == true }.count)
                })
        var results = RunResults(
            run: info,
            networkDenial: Self.networkEvidence(
                items.filter { $0.request.external?.onDevice ?? true }.compactMap { done[$0.request.key] }),
            variants: variantInfos, corpora: corpora,
            systems: systemResults
        ).recomputingAggregates()
        results.checks = Checks.evaluate(results, artifacts: artifacts, responses: done, items: items.map(\.request))
        try results.write(to: Self.resultsFile(in: options.output))
        return results
    }

    /// Whether every decoded utterance came from a worker that proved it had no network, wherever
    /// (this invocation or an earlier one, through the journal) it was decoded.
    static func networkEvidence(_ responses: [WorkResponse]) -> NetworkDenialEvidence {
        guard !responses.isEmpty else { return .none }
        let denied = responses.filter { $0.networkDenied == true }.count
        let methods = Set(responses.map { $0.networkIsolation ?? "unknown (decoded by an older Gambit)" }).sorted()
        return NetworkDenialEvidence(
            method: methods.joined(separator: "; "), verified: denied == responses.count,
            detail: "\(denied) of \(responses.count) utterance decodings ran in a worker whose connect(127.0.0.1:9) "
                + "failed with ENETUNREACH")
    }

    /// Loads a corpus's entries, synthesising its audio first when the suite gives texts and the
    /// manifest or audio is missing.
    func entries(of corpus: Suite.Corpus) throws -> [CorpusEntry] {
        if let texts = corpus.texts {
            let folder = corpus.manifest.deletingLastPathComponent()
            _ = try Synthesizer().build(texts: texts, output: folder)
        }
        return try suite.scoredEntries(of: corpus, allowOutsidePaths: options.allowOutsidePaths)
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
        for sentence in sentences { data.insert(phrase: sentence, count: 1) }
        var seen = Set<String>()
        for pronunciation in pronunciations where seen.insert(pronunciation.grapheme.lowercased()).inserted {
            data.insert(term: pronunciation)
        }
        let folder = toolchain.cacheFolder.appendingPathComponent("oracle")
            .appendingPathComponent(Self.sha256(corpus.manifest.path).prefix(12).description)
        let artifact = try toolchain.compiler.prepare(data, output: folder).artifact
        ModelCache.recordSources([corpus.manifest] + suite.variants.map(\.training), in: folder)
        let grammar =
            "#JSGF V1.0;\ngrammar oracle;\npublic <sentence> = "
            + sentences.map { "( \($0) )" }.joined(separator: "\n    | ") + " ;\n"
        var configuration = Toolchain.configuration(artifact, weight: 1)
        configuration.grammar = grammar
        configuration.fingerprint = Self.sha256(grammar + artifact.manifest.fingerprint)
        return configuration
    }

    /// A path relative to the working directory (with `..` steps when it is elsewhere), never absolute.
    func relative(_ url: URL) -> String {
        RunResults.relativePath(from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), to: url)
    }

    static func shardIndex(_ id: String, count: Int) -> Int {
        let digest = SHA256.hash(data: Data(id.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count))
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
