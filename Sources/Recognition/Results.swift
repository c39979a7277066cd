/// One recognised word with its place in the audio, as Apple's `SFTranscriptionSegment`.
public struct TranscriptionSegment: Sendable, Hashable, Codable {
    /// The word as the recognizer spells it (alternate-pronunciation markers removed).
    public var substring: String
    /// Seconds from the start of the audio.
    public var timestamp: Double
    /// Seconds the word lasts.
    public var duration: Double
    /// Posterior probability of the word in the lattice, 0…1.
    public var confidence: Double

    public init(substring: String, timestamp: Double, duration: Double, confidence: Double) {
        self.substring = substring
        self.timestamp = timestamp
        self.duration = duration
        self.confidence = confidence
    }
}

/// One transcription hypothesis, as Apple's `SFTranscription`.
public struct Transcription: Sendable, Hashable, Codable {
    /// The words joined by spaces.
    public var formattedString: String
    /// Per-word timing and confidence; empty for alternatives that come from the n-best list.
    public var segments: [TranscriptionSegment]
    /// The engine's path score (log domain, higher is better); nil when unknown.
    public var score: Int?

    public init(formattedString: String, segments: [TranscriptionSegment] = [], score: Int? = nil) {
        self.formattedString = formattedString
        self.segments = segments
        self.score = score
    }
}

/// Whether a request's customized language model was used, and the evidence.
public enum CustomizationStatus: Sendable, Hashable, Codable {
    /// The request carried no customization.
    case none
    /// The customized model was interpolated into the search; the fingerprint is the artifact's.
    case applied(fingerprint: String)
    /// The request carried a customized model but it was not used, and why.
    case ignored(reason: String)
}

/// The answer to a request, as Apple's `SFSpeechRecognitionResult`.
public struct RecognitionResult: Sendable, Hashable, Codable {
    /// The most likely transcription.
    public var bestTranscription: Transcription
    /// The best transcription followed by distinct alternatives, best first.
    public var transcriptions: [Transcription]
    /// False for a partial result while audio is still arriving.
    public var isFinal: Bool
    /// What became of the request's customized language model.
    public var customization: CustomizationStatus
    /// Seconds of audio recognised so far.
    public var audioDuration: Double
    /// The engine's utterance log posterior, when it could compute one.
    public var logPosterior: Int?

    public init(
        bestTranscription: Transcription, transcriptions: [Transcription], isFinal: Bool,
        customization: CustomizationStatus, audioDuration: Double, logPosterior: Int? = nil
    ) {
        self.bestTranscription = bestTranscription
        self.transcriptions = transcriptions
        self.isFinal = isFinal
        self.customization = customization
        self.audioDuration = audioDuration
        self.logPosterior = logPosterior
    }
}
