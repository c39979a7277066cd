/// What a decode answers, in Recognition's own words: a worker's reply and an external recognizer's output carry
/// these, and the runner turns them into the results' records (`UtteranceRecord` in Results), so the stage that
/// decodes does not depend on the one that records. Each has the JSON shape of its record, and a journal written
/// before they existed reads as it did (`Tests/RunnerTests/AnswerRecordTests`).

/// One recognized word and where it lies in the audio.
public struct DecodedWord: Codable, Sendable, Equatable {
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

/// Whether a decode used the customization it was given.
public enum CustomizationUse: String, Codable, Sendable, Equatable, CaseIterable {
    /// The customization was loaded and used.
    case applied
    /// A customization was given but not used (the engine refused it, or the recognizer said it ignored it).
    case ignored
    /// None was given (a baseline decode).
    case notRequested
}

/// Why a decode produced no transcript.
public enum DecodeFailureKind: String, Codable, Sendable, CaseIterable {
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
}

/// How quickly a streamed decode answered, on the clock of the audio as if it were being spoken (``StreamTimer``).
public struct DecodeLatency: Codable, Sendable, Equatable {
    /// From the start of audio to the first partial hypothesis, seconds.
    public var firstPartialSeconds: Double?
    /// From the end of audio to the final hypothesis, seconds; nil when the stream gave no final (``failure``).
    public var finalLatencySeconds: Double?
    /// Boosted term → seconds from the start of audio until the term first appeared correctly in a partial.
    public var firstCorrectEmission: [String: Double]
    /// How the audio was handed over; nil in answers of a Gambit that only simulated.
    public var pacing: StreamPacing?
    /// Where speech lies in the audio, the latencies from speech onset and end are measured from; nil when none
    /// was found.
    public var speech: SpeechSpan?
    /// From the speech onset to the first partial hypothesis, seconds (negative: a word heard before speech).
    public var firstPartialAfterOnsetSeconds: Double?
    /// When, from the start of audio, the recognizer's own detector first said speech had ended; nil when it did not
    /// before the audio ended, or has no detector.
    public var endpointSeconds: Double?
    /// From the end of speech to that detection, seconds (negative: it cut the speaker off in a pause).
    public var endpointLatencySeconds: Double?
    /// Why streaming failed when the batch decode did not: the utterance has no final (a missing final, counted).
    public var failure: String?

    public init(
        firstPartialSeconds: Double? = nil, finalLatencySeconds: Double? = nil,
        firstCorrectEmission: [String: Double] = [:], pacing: StreamPacing? = nil, speech: SpeechSpan? = nil,
        firstPartialAfterOnsetSeconds: Double? = nil, endpointSeconds: Double? = nil,
        endpointLatencySeconds: Double? = nil, failure: String? = nil
    ) {
        self.firstPartialSeconds = firstPartialSeconds
        self.finalLatencySeconds = finalLatencySeconds
        self.firstCorrectEmission = firstCorrectEmission
        self.pacing = pacing
        self.speech = speech
        self.firstPartialAfterOnsetSeconds = firstPartialAfterOnsetSeconds
        self.endpointSeconds = endpointSeconds
        self.endpointLatencySeconds = endpointLatencySeconds
        self.failure = failure
    }
}
