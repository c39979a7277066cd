public import Scoring

/// How a system decoded.
public enum SystemMode: String, Codable, Sendable, Equatable, CaseIterable {
    /// The general language model alone.
    case baseline
    /// The general model with a custom variant.
    case customized
    /// A model that knows the test references: an upper bound on what customization could achieve.
    case oracle
}

/// The phrase list a list system decoded with (an external recognizer's second lever): how Gambit derived it from
/// the variant's terms ranked by their counts in its training data.
public struct PhraseListUse: Codable, Sendable, Equatable, Hashable {
    /// `global` (the variant's list, the same for every utterance) or `local` (each utterance's own: the variant's
    /// terms its reference says, or its manifest's biasing list).
    public var mode: String
    /// Distractors asked for in each list (terms of other variants, or of a file).
    public var distractors: Int
    /// The recognizer's limit, in ``unit``.
    public var limit: Int
    /// `phrases` or `words`.
    public var unit: String
    /// Where distractors came from: `other variants' terms` or the file's path.
    public var distractorSource: String
    /// The variant's terms in the global list, after the cut; nil for a local list.
    public var terms: Int?
    /// Terms the variant boosts, before the cut.
    public var termsBeforeCut: Int
    /// The mean length of the lists given, distractors included (one list for a global system).
    public var meanLength: Double

    public init(
        mode: String, distractors: Int, limit: Int, unit: String, distractorSource: String, terms: Int?,
        termsBeforeCut: Int, meanLength: Double
    ) {
        self.mode = mode
        self.distractors = distractors
        self.limit = limit
        self.unit = unit
        self.distractorSource = distractorSource
        self.terms = terms
        self.termsBeforeCut = termsBeforeCut
        self.meanLength = meanLength
    }

    /// `global`, `local+100`: what the suite wrote and keys and reports name.
    public var name: String { mode + (distractors > 0 ? "+\(distractors)" : "") }
}

/// One corpus decoded in one mode (with one variant when customized): aggregates, every utterance, timing.
public struct SystemResults: Codable, Sendable, Equatable {
    public var corpus: String
    public var mode: SystemMode
    /// The variant name for ``SystemMode/customized``; `nil` for baseline and oracle.
    public var variant: String?
    /// The external recognizer that decoded this system (its baseline, or customized with ``variant``); `nil` for
    /// PocketSphinx.
    public var recognizer: String?
    /// Aggregates over ``utterances``; ``Aggregation/metrics(of:boostedWords:terms:templates:normalizer:bootstrap:)``.
    public var metrics: SystemMetrics
    /// Every utterance, failed ones included, in corpus order (ascending ``UtteranceRecord/index``).
    public var utterances: [UtteranceRecord]
    public var timing: SystemTiming
    /// Derived from ``utterances``.
    public var failures: FailureCounts
    /// WER and B-WER per speaker, voice and condition, with bootstrap intervals
    /// (``Aggregation/breakdowns(of:bootstrap:)``); only labels some utterance has. `nil` in results written
    /// before breakdowns existed, until their aggregates are recomputed.
    public var breakdowns: [Breakdown]?
    /// What the utterances' own biasing lists held (sizes, biased words, distractors), when the corpus gives
    /// lists (``UtteranceRecord/biasingList``); the same figures `gambit score` reports for the run's exported
    /// `trn/<corpus>.ref.tsv`.
    public var biasingLists: BiasingListSummary?
    /// The phrase list a list system was given; nil for every other system.
    public var list: PhraseListUse?

    public init(
        corpus: String, mode: SystemMode, variant: String? = nil, recognizer: String? = nil, metrics: SystemMetrics,
        utterances: [UtteranceRecord], timing: SystemTiming, failures: FailureCounts, breakdowns: [Breakdown]? = nil,
        biasingLists: BiasingListSummary? = nil
    ) {
        self.corpus = corpus
        self.mode = mode
        self.variant = variant
        self.recognizer = recognizer
        self.metrics = metrics
        self.utterances = utterances
        self.timing = timing
        self.failures = failures
        self.breakdowns = breakdowns
        self.biasingLists = biasingLists
    }

    /// `corpus/mode`, `corpus/customized/variant`, `corpus/baseline@recognizer`,
    /// `corpus/customized/variant@recognizer` or, for a list system, `corpus/customized/variant/global@recognizer`:
    /// a unique, readable name.
    public var key: String {
        [corpus, mode.rawValue, variant, list?.name].compactMap { $0 }.joined(separator: "/")
            + (recognizer.map { "@\($0)" } ?? "")
    }
}

/// Whether the recognizer used the custom model for an utterance.
public enum CustomizationStatus: String, Codable, Sendable, Equatable, CaseIterable {
    /// The custom model was loaded and used.
    case applied
    /// The custom model was requested but the engine did not use it (e.g. it failed to load).
    case ignored
    /// No customization was requested (baseline).
    case notRequested
}

/// One utterance as decoded by one system.
public struct UtteranceRecord: Codable, Sendable, Equatable {
    public var id: String
    /// Position in the corpus manifest; orders utterances across shards.
    public var index: Int
    /// The audio file, relative to the suite's folder (`..` steps for a folder a corpus allows outside it).
    public var audioPath: String
    public var speaker: String?
    /// The recording condition from the manifest (`clean`, `noise:15`, `telephone`…), when known.
    public var condition: String?
    /// The reference transcript as written in the corpus.
    public var reference: String
    /// The recognizer's final transcript; empty when the utterance failed.
    public var hypothesis: String
    /// The alignment of the normalized words (a failed utterance is aligned against an empty hypothesis).
    public var alignment: [AlignedPair]
    public var counts: ErrorCounts
    public var referenceCharacters: Int
    public var characterErrors: Int
    /// Errors on boosted words (B-WER numerator), when the system has boosted words.
    public var boostedErrors: Int?
    /// Reference words in the boosted set (B-WER denominator), when the system has boosted words.
    public var boostedReferenceWords: Int?
    /// The utterance's own biasing list from the corpus manifest (``Scoring/BiasingList/words(of:normalizer:)``
    /// gives its words); when present, B-WER and U-WER are counted per utterance over the list's words that
    /// are in the reference, not over the variant's boosted words. `nil` when the manifest gives no lists.
    public var biasingList: [String]?
    /// Decoder time for this utterance, seconds.
    public var decodeSeconds: Double
    public var audioSeconds: Double
    /// Streaming timing, when the utterance was decoded in streaming mode.
    public var latency: StreamingLatency?
    /// Times of the final hypothesis words, when the engine gave them (used for `ctm` output).
    public var words: [WordTiming]?
    public var customization: CustomizationStatus
    /// Why an external recognizer said it ignored its customization, when it said so.
    public var customizationNote: String? = nil
    /// Why decoding failed; `nil` on success. Failed utterances stay in the results and count as all deletions.
    public var failure: String?
    /// What kind of failure ``failure`` is; nil on success, and in results of a Gambit that did not record it.
    public var failureKind: FailureKind?
    /// Attempts beyond the first.
    public var retries: Int
    /// A decoder process crashed on this utterance (it may have succeeded on retry).
    public var crashed: Bool
    /// The work key its decode was journaled under, which also names the lattice the run kept of it
    /// (`.gambit/lattices/KEY.lat`); nil in results of a Gambit that did not record it.
    public var key: String?

    public init(
        id: String, index: Int, audioPath: String, speaker: String? = nil, condition: String? = nil,
        reference: String, hypothesis: String, alignment: [AlignedPair], counts: ErrorCounts,
        referenceCharacters: Int = 0, characterErrors: Int = 0,
        boostedErrors: Int? = nil, boostedReferenceWords: Int? = nil, biasingList: [String]? = nil,
        decodeSeconds: Double = 0,
        audioSeconds: Double = 0, latency: StreamingLatency? = nil, words: [WordTiming]? = nil,
        customization: CustomizationStatus = .notRequested,
        failure: String? = nil, retries: Int = 0, crashed: Bool = false
    ) {
        self.id = id
        self.index = index
        self.audioPath = audioPath
        self.speaker = speaker
        self.condition = condition
        self.reference = reference
        self.hypothesis = hypothesis
        self.alignment = alignment
        self.counts = counts
        self.referenceCharacters = referenceCharacters
        self.characterErrors = characterErrors
        self.boostedErrors = boostedErrors
        self.boostedReferenceWords = boostedReferenceWords
        self.biasingList = biasingList
        self.decodeSeconds = decodeSeconds
        self.audioSeconds = audioSeconds
        self.latency = latency
        self.words = words
        self.customization = customization
        self.failure = failure
        self.retries = retries
        self.crashed = crashed
    }

    /// This utterance's WER.
    public var wordErrorRate: Double {
        counts.referenceWords == 0
            ? (counts.errors == 0 ? 0 : 1) : Double(counts.errors) / Double(counts.referenceWords)
    }
}

/// One word of a final hypothesis with its time in the audio.
public struct WordTiming: Codable, Sendable, Equatable {
    public var word: String
    /// Seconds from the start of the audio.
    public var start: Double
    public var duration: Double
    /// Posterior probability in 0...1, when the engine gave one.
    public var confidence: Double?

    public init(word: String, start: Double, duration: Double, confidence: Double? = nil) {
        self.word = word
        self.start = start
        self.duration = duration
        self.confidence = confidence
    }
}

/// What kept an utterance from a hypothesis.
public enum FailureKind: String, Codable, Sendable, CaseIterable {
    /// The audio file could not be read, or is not audio the recognizer takes.
    case audio
    /// PocketSphinx refused the model or failed while decoding.
    case engine
    /// An external recognizer gave no answer in time.
    case timeout
    /// The decoder process crashed, twice.
    case crash
    /// An external recognizer could not be started, failed, or answered with something that is not a transcript.
    case recognizerOutput
    /// An external recognizer's prepare command failed for this utterance's variant, so nothing was decoded.
    case preparation
    /// An imported transcript file has no line for this utterance.
    case missingTranscript

    /// How reports name it.
    public var label: String {
        switch self {
        case .audio: "audio"
        case .engine: "engine"
        case .timeout: "timeout"
        case .crash: "crash"
        case .recognizerOutput: "recognizer output"
        case .preparation: "preparation"
        case .missingTranscript: "missing transcript"
        }
    }
}

extension UtteranceRecord {
    /// "audio: cards/001.wav: not a WAV file", or the message alone when its kind was not recorded.
    public var labelledFailure: String? {
        failure.map { message in failureKind.map { "\($0.label): \(message)" } ?? message }
    }
}

/// Utterances that did not decode cleanly. Failed utterances are kept and scored, never dropped.
public struct FailureCounts: Codable, Sendable, Equatable {
    /// Utterances with a ``UtteranceRecord/failure``.
    public var failed: Int
    /// Utterances retried at least once.
    public var retried: Int
    /// Utterances on which a decoder crashed.
    public var crashed: Int

    public init(failed: Int = 0, retried: Int = 0, crashed: Int = 0) {
        self.failed = failed
        self.retried = retried
        self.crashed = crashed
    }

    /// The counts of a set of records.
    public init(_ records: [UtteranceRecord]) {
        self.init(
            failed: records.filter { $0.failure != nil }.count, retried: records.filter { $0.retries > 0 }.count,
            crashed: records.filter(\.crashed).count)
    }
}
