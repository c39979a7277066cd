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
        var audioHashes: [String: String] = [:]
        var items: [(system: Int, index: Int, entry: CorpusEntry, request: WorkRequest)] = []
        let model = toolchain.model
        let decoderSettings = suite.decoder
        // A SHA-256 over the base model files: compute it once, not once per work item.
        let modelFingerprint = model.fingerprint
        for (s, system) in systems.enumerated() {
            for (index, entry) in (corpusEntries[system.corpus.name] ?? []).enumerated() {
                if let shard = options.shard, Self.shardIndex(entry.id, count: shard.count) != shard.index { continue }
                let audioHash = audioHashes[entry.audio.path] ?? Self.hashFile(entry.audio)
                audioHashes[entry.audio.path] = audioHash
                let streamed =
                    system.mode != .oracle && system.external == nil && index < suite.streaming.utterances
                    ? suite.streaming.chunkMilliseconds : nil
                // An external recognizer is not PocketSphinx: the engine's settings do not change its output,
                // so changing them does not run its (perhaps slow, perhaps off-device) command again.
                let key = Self.workKey(
                    audioHash: audioHash, systemFingerprint: system.fingerprint, modelFingerprint: modelFingerprint,
                    decoder: system.external == nil ? decoderSettings : .standard, streamedChunkMilliseconds: streamed)
                let request = WorkRequest(
                    key: key, audio: entry.audio.path, configuration: system.configuration,
                    streamingChunkMilliseconds: streamed, terms: system.terms, crashForTesting: nil,
                    external: system.external)
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
        let journalURL = dataFolder.appendingPathComponent(Self.journalName)
        if options.fresh { try? FileManager.default.removeItem(at: journalURL) }
        var done = Journal.read(journalURL)
        let journal = try Journal(appendingTo: journalURL)
        journal.failAfterLinesForTesting = options.failJournalAfterLinesForTesting
        var pending: [WorkRequest] = []
        var queued = Set<String>()
        for item in items where done[item.request.key] == nil && queued.insert(item.request.key).inserted {
            var request = item.request
            if options.crashOnceForTesting.contains(item.entry.id) { request.crashForTesting = true }
            pending.append(request)
        }
        let total = pending.count
        let collected = Collector()
        // Fault injection for the resume test: stop this process (SIGSTOP) once its N-th journal line
        // is on disk, so that a test can kill it at a known point whatever the machine's speed.
        let stopAfterJournalLines = ProcessInfo.processInfo.environment[Self.stopAfterJournalLinesVariable]
            .flatMap { Int($0) }
        // Off-device recognizers need the network; everything else decodes with it denied.
        let offDevice = pending.filter { $0.external.map { !$0.onDevice } ?? false }
        let onDevice = pending.filter { $0.external.map(\.onDevice) ?? true }
        for (requests, denyNetwork) in [(onDevice, options.denyNetwork), (offDevice, false)] where !requests.isEmpty {
            let pool = WorkerPool(
                executable: options.workerExecutable, count: options.workers, denyNetwork: denyNetwork,
                decoder: suite.decoder)
            try pool.run(requests) { [progress = options.progress] response in
                try journal.append(response)
                let count = collected.add(response)
                if count == stopAfterJournalLines { raise(SIGSTOP) }
                progress?(count, total)
            }
        }
        for response in collected.responses { done[response.key] = response }
        journal.close()

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
                acousticModelPath: model.hmm.standardizedFileURL.lastPathComponent,
                acousticModelFingerprint: modelFingerprint,
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

    /// The key a decoded utterance is journaled and resumed under: everything that can change its hypothesis
    /// (the audio's bytes, the system's model, the acoustic model, the engine settings and the streaming chunk).
    /// The engine's default settings give the key they gave before settings could be changed.
    public static func workKey(
        audioHash: String, systemFingerprint: String, modelFingerprint: String, decoder: DecoderSettings,
        streamedChunkMilliseconds: Int?
    ) -> String {
        sha256(
            [
                audioHash, systemFingerprint, modelFingerprint, decoder.commandLine.joined(separator: " "),
                "\(streamedChunkMilliseconds ?? 0)",
            ].joined(separator: "|"))
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func hashFile(_ url: URL) -> String {
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return "missing:\(url.path)" }
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}

/// Collects responses from worker threads.
final class Collector: @unchecked Sendable {
    // @unchecked: only mutated inside WorkerPool's completion callback, which the pool serialises.
    private(set) var responses: [WorkResponse] = []

    func add(_ response: WorkResponse) -> Int {
        responses.append(response)
        return responses.count
    }
}

/// Append-only record of finished utterances: one JSON line each, flushed as it is written, so a
/// crash or `kill -9` loses at most the line being written (which is then ignored).
///
/// A line is written whole or not at all: when an append fails (a full disk), the bytes it managed
/// to write are cut off again and the run stops with ``JournalError``, so that the next run, with
/// space freed, resumes from whole lines.
final class Journal: @unchecked Sendable {
    // @unchecked: append is only called from WorkerPool's serialised completion callback.
    private let handle: FileHandle
    private let path: String
    private var lines = 0
    /// Test hook: the append after this many lines fails half-way with ENOSPC.
    var failAfterLinesForTesting: Int?

    init(appendingTo url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        path = url.path
        handle = try FileHandle(forWritingTo: url)
        let end = try handle.seekToEnd()
        // A run killed mid-write leaves a torn last line: end it so the next line starts clean.
        if end > 0, let reader = try? FileHandle(forReadingFrom: url) {
            try reader.seek(toOffset: end - 1)
            if reader.readData(ofLength: 1) != Data("\n".utf8) { try handle.write(contentsOf: Data("\n".utf8)) }
            try? reader.close()
        }
    }

    func append(_ response: WorkResponse) throws(JournalError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data: Data
        do {
            data = try encoder.encode(response)
        } catch {
            throw JournalError(path: path, reason: "cannot encode a result: \(error)", kept: lines)
        }
        data.append(UInt8(ascii: "\n"))
        let fd = handle.fileDescriptor
        let start = lseek(fd, 0, SEEK_END)
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            let injected = failAfterLinesForTesting == lines
            let limit = injected ? raw.count / 2 : raw.count
            while offset < limit {
                let written = Glibc.write(fd, raw.baseAddress! + offset, limit - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
            if injected { failure = ENOSPC }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        guard failure != 0 else {
            lines += 1
            return
        }
        // Cut the partial line off, so that the journal holds whole lines only.
        if start >= 0 {
            _ = ftruncate(fd, start)
            _ = lseek(fd, start, SEEK_SET)
        }
        throw JournalError(path: path, reason: String(cString: strerror(failure)), kept: lines)
    }

    func close() { try? handle.close() }

    /// Finished work by key; a torn last line is skipped.
    static func read(_ url: URL) -> [String: WorkResponse] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        var done: [String: WorkResponse] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let response = try? JSONDecoder().decode(WorkResponse.self, from: Data(line)) else { continue }
            // A crashed attempt is retried on resume; a normal answer is final.
            if response.failure == nil || !response.crashed { done[response.key] = response }
        }
        return done
    }
}

/// A result could not be written to the run's journal, so the run stopped rather than lose it.
public struct JournalError: Error, CustomStringConvertible, Equatable {
    /// The journal file.
    public var path: String
    /// Why the write failed, e.g. "No space left on device".
    public var reason: String
    /// Results this run appended before the failure; they are kept, whole.
    public var kept: Int

    public var description: String {
        "\(path): cannot append to the run's journal (\(reason)); the run stopped. The \(kept) result(s) it "
            + "journaled are kept; free space and run the same command again to resume where it stopped."
    }
}
