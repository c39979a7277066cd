import Audio
import Foundation
import Synchronization

/// The one way Gambit turns audio into hypotheses: built from the engine settings and the acoustic model, it
/// decodes ``WorkRequest``s, one per utterance and system, and answers each with a ``WorkResponse``.
///
/// It runs in one of two ways, with the same code decoding each request (and so the same hypotheses):
/// - **in worker processes** (``Mode/workers(executable:count:)``), one per core: crash-isolated (a crash costs
///   the utterance, which is retried once on a new worker), cut off from the network where the machine allows
///   it. This is how `gambit run`, `gambit sweep` and the benchmarks decode.
/// - **in this process** (``Mode/inProcess``): for one file at a time (`gambit decode`) and for tests.
///
/// With a journal, every answer is appended to it as it arrives (one JSON line, flushed), and a request whose
/// key is already there is not decoded again: a run or a sweep killed half-way resumes where it stopped.
public final class Transcriber {
    public enum Mode: Sendable, Equatable {
        /// Decode in this process, one request after another.
        case inProcess
        /// Decode in `count` processes running `executable worker`.
        case workers(executable: URL, count: Int)
    }

    public let settings: DecoderSettings
    public let model: AcousticModel
    public let mode: Mode
    /// The acoustic model's fingerprint, part of every key: a SHA-256 over its files, computed once and only when
    /// a key is made (`gambit decode` makes none, and pays nothing for it).
    public private(set) lazy var modelFingerprint = model.fingerprintForKeys
    /// Start on-device work in a network namespace when the machine allows it (worker mode).
    public var denyNetwork = true
    /// Called with (done, total) as requests finish, serialised.
    public var progress: (@Sendable (Int, Int) -> Void)?
    /// Tells of a decode that runs long, while it runs (worker mode).
    public var heartbeat: DecodeHeartbeat?
    /// Test hook: the journal append after this many lines writes half its line and then fails as a full disk
    /// would (ENOSPC).
    public var failJournalAfterLinesForTesting: Int?
    /// Test hook: stop this process (SIGSTOP) once the N-th answer this transcriber journaled is on disk, so
    /// that a test can kill it at a known point whatever the machine's speed.
    public var stopAfterJournalLinesForTesting: Int?
    /// The answers the last ``transcribe(_:journal:fresh:retryFailures:)`` decoded (not those its journal held):
    /// what that call cost.
    public private(set) var lastDecoded: [WorkResponse] = []
    /// The keys the last ``transcribe(_:journal:fresh:retryFailures:)`` tried to decode, answered or not (one that
    /// crashed its worker twice has no final answer, but it was not read from the journal either).
    public private(set) var lastAttempted: Set<String> = []
    /// Answers journaled over this transcriber's life.
    private var journaledLines = 0

    private var local: RequestDecoder?
    private var journaled: [URL: [String: WorkResponse]] = [:]

    /// - Throws: ``DecoderSettings/Problem`` for a setting out of range (it would crash the engine, or reach the
    ///   workers as the defaults under another key); ``RecognitionError`` when the model is not there.
    public init(settings: DecoderSettings = .standard, model: AcousticModel = .englishUS, mode: Mode) throws {
        try settings.validate()
        try model.validate()
        self.settings = settings
        self.model = model
        self.mode = mode
    }

    /// The work request for one audio file under one system, keyed by everything that can change its answer.
    ///
    /// - Parameters:
    ///   - audioHash: ``WorkRequest/hashFile(_:)`` of the audio, when the caller has it already.
    ///   - systemFingerprint: Defaults to the configuration's (``systemFingerprint(of:)``).
    public func request(
        audio: URL, audioHash: String? = nil, configuration: LanguageModelConfiguration?,
        systemFingerprint: String? = nil, streaming: StreamingSetup? = nil, terms: [String] = []
    ) -> WorkRequest {
        Self.request(
            audio: audio, audioHash: audioHash ?? WorkRequest.hashFile(audio), configuration: configuration,
            systemFingerprint: systemFingerprint, streaming: streaming, terms: terms,
            settings: settings, modelFingerprint: modelFingerprint)
    }

    /// The work request a transcriber with `settings` and an acoustic model of `modelFingerprint` makes (see the
    /// instance method): for planning work without starting anything.
    public static func request(
        audio: URL, audioHash: String, configuration: LanguageModelConfiguration?, systemFingerprint: String?,
        streaming: StreamingSetup?, terms: [String], settings: DecoderSettings, modelFingerprint: String
    ) -> WorkRequest {
        let key = WorkRequest.key(
            audioHash: audioHash, systemFingerprint: systemFingerprint ?? Self.systemFingerprint(of: configuration),
            modelFingerprint: modelFingerprint, decoder: settings, streamed: streaming)
        return WorkRequest(
            key: key, audio: audio.path, configuration: configuration,
            streaming: streaming, terms: terms)
    }

    /// The keys a journal holds final answers for: what ``transcribe(_:journal:fresh:retryFailures:)`` would not
    /// decode again (a crashed attempt is retried, so it is not among them).
    public static func answeredKeys(in journal: URL) -> Set<String> {
        Set(Journal.read(journal).filter { Journal.isFinal($0.value) }.keys)
    }

    /// `baseline`, or the customized model's fingerprint at its weight (`sha256:…@0.5`): what a key names.
    public static func systemFingerprint(of configuration: LanguageModelConfiguration?) -> String {
        guard let configuration else { return "baseline" }
        let model = configuration.fingerprint ?? configuration.languageModel.path
        return configuration.grammar == nil ? "\(model)@\(configuration.weight)" : "grammar:\(model)"
    }

    /// Decodes every request whose key the journal does not hold yet and returns the answer to each, by key.
    ///
    /// - Parameters:
    ///   - journal: Where answers are kept as they arrive; nil for none.
    ///   - fresh: Forget what the journal holds and decode everything again.
    ///   - retryFailures: Decode again what the journal holds as failed (a run keeps a failure as its answer; a
    ///     sweep, which stops at one, retries it rather than fail again at once).
    /// - Throws: ``JournalError`` when an answer cannot be kept (the transcription stops; what was journaled
    ///   stays), ``TranscriberError`` when no worker starts.
    public func transcribe(
        _ requests: [WorkRequest], journal: URL? = nil, fresh: Bool = false, retryFailures: Bool = false
    ) throws -> [String: WorkResponse] {
        var done: [String: WorkResponse] = [:]
        if let journal {
            if fresh {
                try? FileManager.default.removeItem(at: journal)
                journaled[journal] = nil
            }
            done = journaled[journal] ?? Journal.read(journal)
            if retryFailures { done = done.filter { $0.value.failure == nil } }
        }
        var pending: [WorkRequest] = []
        var queued = Set<String>()
        for request in requests where done[request.key] == nil && queued.insert(request.key).inserted {
            pending.append(request)
        }
        pending = Self.groupedByModel(pending)
        let writer = try journal.map {
            try Journal(appendingTo: $0, failAfterLinesForTesting: failJournalAfterLinesForTesting)
        }
        defer { writer?.close() }
        let collected = Mutex<[WorkResponse]>([])
        let total = pending.count
        if total > 0 { progress?(0, total) }
        let stopAfter = stopAfterJournalLinesForTesting.map { $0 - journaledLines }
        let progress = progress
        let keep: @Sendable (WorkResponse) throws -> Void = { response in
            try writer?.append(response)
            let count = collected.withLock {
                $0.append(response)
                return $0.count
            }
            if count == stopAfter { raise(SIGSTOP) }
            progress?(count, total)
        }
        defer {
            // As the journal is read back: a crashed attempt is retried, a normal answer is final.
            let responses = collected.withLock { $0 }
            lastDecoded = responses.filter(Journal.isFinal)
            lastAttempted = Set(responses.map(\.key))
            for response in lastDecoded { done[response.key] = response }
            if let journal {
                journaled[journal] = done
                journaledLines += responses.count
            }
        }
        switch mode {
        case .inProcess:
            if local == nil { local = try RequestDecoder(model: model, settings: settings) }
            for var request in pending {
                // A crash here would take the caller with it: only workers can crash and come back.
                request.crashForTesting = nil
                try keep(local!.respond(to: request))
            }
        case .workers(let executable, let count):
            // Off-device recognizers need the network; everything else decodes with it denied.
            let offDevice = pending.filter { $0.external.map { !$0.onDevice } ?? false }
            let onDevice = pending.filter { $0.external.map(\.onDevice) ?? true }
            for (part, deny) in [(onDevice, denyNetwork), (offDevice, false)] where !part.isEmpty {
                let pool = WorkerPool(
                    executable: executable, count: count, denyNetwork: deny, decoder: settings, heartbeat: heartbeat)
                try pool.run(part, completed: keep)
            }
        }
        var answers: [String: WorkResponse] = [:]
        for request in requests { answers[request.key] = done[request.key] }
        for response in collected.withLock({ $0 }) { answers[response.key] = response }
        return answers
    }

    /// The requests with each model's side by side, models in the order they first appear and each model's
    /// requests in their own order. A worker keeps one model loaded and loads the next when a request needs
    /// another, so requests that go corpus by corpus (baseline, then each variant, for every corpus) would load
    /// the base model again for every corpus.
    static func groupedByModel(_ requests: [WorkRequest]) -> [WorkRequest] {
        struct Model: Hashable {
            var configuration: LanguageModelConfiguration?
            var external: ExternalRecognizer?
        }
        var order: [Model] = []
        var groups: [Model: [WorkRequest]] = [:]
        for request in requests {
            let model = Model(configuration: request.configuration, external: request.external)
            if groups[model] == nil { order.append(model) }
            groups[model, default: []].append(request)
        }
        return order.flatMap { groups[$0]! }
    }

    /// The answer to each request, in order; a failed request throws its failure (the sweep's and the scaling
    /// curve's figures are over every utterance, so one missing would change them silently). An answer read
    /// from the journal keeps the decode time it was measured with.
    public func answers(_ requests: [WorkRequest], journal: URL? = nil) throws -> [WorkResponse] {
        let answers = try transcribe(requests, journal: journal, retryFailures: true)
        return try requests.map { request in
            guard let answer = answers[request.key] else {
                throw TranscriberError.unanswered(audio: request.audio)
            }
            if let failure = answer.failure { throw TranscriberError.failed(audio: request.audio, reason: failure) }
            return answer
        }
    }

    /// The best hypothesis of each request, in order, as ``answers(_:journal:)`` gives them.
    public func hypotheses(_ requests: [WorkRequest], journal: URL? = nil) throws -> [String] {
        try answers(requests, journal: journal).map(\.hypothesis)
    }

    /// Recognises one file in this process with everything the recognizer returns (alternatives, word
    /// confidences): what `gambit decode` prints.
    public func recognize(_ request: URLRecognitionRequest) throws(RecognitionFailure) -> RecognitionResult {
        do {
            if local == nil { local = try RequestDecoder(model: model, settings: settings) }
        } catch {
            throw .engine(error)
        }
        return try local!.recognizer.recognize(request)
    }

    /// Decodes the files once in this process with `configuration`, keeping their word lattices, for rescoring
    /// under other models (a sweep's points).
    ///
    /// In this process, not the workers: the lattices stay in the decoder that made them. (A lattice can cross
    /// processes: `gambit run` keeps lattices for `gambit diagnose`, read back through
    /// ``PocketSphinx/SphinxDecoder/readLattice(from:)``, which corrects two bugs of the engine's reader; the
    /// sweep has not needed it.)
    public func latticePass(
        _ audio: [URL], configuration: LanguageModelConfiguration,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> LatticeRescorer {
        let rescorer = try LatticeRescorer(model: model, settings: settings, configuration: configuration)
        let loader = AudioLoader()
        progress?(0, audio.count)
        for (index, url) in audio.enumerated() {
            try rescorer.add(try loader.load(url))
            progress?(index + 1, audio.count)
        }
        return rescorer
    }
}

/// Why a transcription could not finish.
public enum TranscriberError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No worker process could be started with this command.
    case workerDidNotStart(command: String)
    /// An utterance whose hypothesis was needed failed to decode.
    case failed(audio: String, reason: String)
    /// An utterance got no answer (the transcription stopped before it).
    case unanswered(audio: String)

    public var description: String {
        switch self {
        case .workerDidNotStart(let command): "decoder worker: the worker process did not start (\(command))"
        case .failed(let audio, let reason): "\(audio): \(reason)"
        case .unanswered(let audio): "\(audio): no answer from the decoder"
        }
    }
}
