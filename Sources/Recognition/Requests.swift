import Audio
import Foundation

/// A customized language model to bias recognition with, as Apple's
/// `SFSpeechLanguageModel.Configuration(languageModel:vocabulary:weight:)` names it.
///
/// `prepare` writes both files. The recognizer interpolates the language model with its base model:
/// P(w | h) = (1 − weight) · P_base(w | h) + weight · P_custom(w | h), and adds the vocabulary's
/// pronunciations to its dictionary.
public struct LanguageModelConfiguration: Sendable, Hashable, Codable {
    /// The custom n-gram model (ARPA text or Sphinx binary).
    public var languageModel: URL
    /// Dictionary entries for the words the custom model adds (CMU format, one pronunciation a line).
    public var vocabulary: URL
    /// The custom model's interpolation weight, in [0, 1] (for a merged model, the weight it was built with). At 0
    /// the recognizer decodes with the base model alone (its vocabulary's words are then out of reach).
    public var weight: Double
    /// The locale the model was prepared for; checked against the recognizer's.
    public var locale: String?
    /// The acoustic model fingerprint the artifact was prepared against; checked at load when set.
    public var acousticModelFingerprint: String?
    /// The prepared artifact's own fingerprint, echoed into results as evidence it was applied.
    public var fingerprint: String?
    /// A closed JSGF grammar to search instead of the interpolated n-gram model (the runner's oracle:
    /// only the corpus's own sentences can be recognised). The vocabulary is still added.
    public var grammar: String?
    /// Whether `languageModel` already contains the base model (a merged model, whose weight was
    /// applied when it was built): the decoder then loads it alone instead of interpolating.
    public var containsBaseModel: Bool

    public init(
        languageModel: URL, vocabulary: URL, weight: Double = 0.5, locale: String? = nil,
        acousticModelFingerprint: String? = nil, fingerprint: String? = nil, grammar: String? = nil,
        containsBaseModel: Bool = false
    ) {
        self.containsBaseModel = containsBaseModel
        self.languageModel = languageModel
        self.vocabulary = vocabulary
        self.weight = weight
        self.locale = locale
        self.acousticModelFingerprint = acousticModelFingerprint
        self.fingerprint = fingerprint
        self.grammar = grammar
    }
}

/// What every recognition request carries, as on Apple's `SFSpeechRecognitionRequest`.
public struct RecognitionOptions: Sendable, Hashable, Codable {
    /// Deliver partial (non-final) results while audio is still arriving.
    public var shouldReportPartialResults: Bool
    /// Keep the audio on the device. A customized language model is only honoured when this is set,
    /// as on Apple's platforms.
    public var requiresOnDeviceRecognition: Bool
    /// The customized language model, if any.
    public var customizedLanguageModel: LanguageModelConfiguration?
    /// How many alternative transcriptions to return beside the best one.
    public var maximumAlternatives: Int
    /// How many alternatives a request may ask for: none to 50 (the n-best search grows with it).
    public static let alternativesRange = 0...50

    public init(
        shouldReportPartialResults: Bool = true, requiresOnDeviceRecognition: Bool = false,
        customizedLanguageModel: LanguageModelConfiguration? = nil, maximumAlternatives: Int = 5
    ) {
        self.shouldReportPartialResults = shouldReportPartialResults
        self.requiresOnDeviceRecognition = requiresOnDeviceRecognition
        self.customizedLanguageModel = customizedLanguageModel
        self.maximumAlternatives = maximumAlternatives
    }
}

/// Recognise a recorded audio file (Apple's `SFSpeechURLRecognitionRequest`).
public struct URLRecognitionRequest: Sendable {
    public var url: URL
    /// The layout of a headerless file; nil to read the file's header.
    public var rawFormat: RawAudioFormat?
    public var options: RecognitionOptions

    public init(url: URL, rawFormat: RawAudioFormat? = nil, options: RecognitionOptions = RecognitionOptions()) {
        self.url = url
        self.rawFormat = rawFormat
        self.options = options
    }
}

/// Recognise audio handed over in buffers as it arrives (Apple's `SFSpeechAudioBufferRecognitionRequest`).
///
/// Append 16 kHz mono buffers with ``append(_:)`` and finish with ``endAudio()``; a recognizer
/// consumes them in order and reports partial results when asked to.
public struct AudioBufferRecognitionRequest: Sendable {
    public var options: RecognitionOptions
    public private(set) var buffers: [[Int16]] = []
    public private(set) var isEnded = false

    public init(options: RecognitionOptions = RecognitionOptions()) {
        self.options = options
    }

    /// Adds a buffer of 16 kHz mono samples.
    public mutating func append(_ samples: [Int16]) {
        precondition(!isEnded, "append after endAudio()")
        buffers.append(samples)
    }

    /// Marks the end of the audio.
    public mutating func endAudio() { isEnded = true }

    /// Splits a clip into fixed-length chunks, as a microphone would deliver it.
    public static func chunks(of clip: AudioClip, milliseconds: Int = 100) -> [[Int16]] {
        // A suite's chunk is bounded where it is read (``DurationSetting/chunkMilliseconds``); one given in code is
        // kept from overflowing here: a chunk longer than the clip is the clip.
        let (product, overflow) = clip.sampleRate.multipliedReportingOverflow(by: max(0, milliseconds))
        let size = overflow ? max(1, clip.samples.count) : max(1, product / 1000)
        return stride(from: 0, to: clip.samples.count, by: size).map {
            Array(clip.samples[$0..<min($0 + size, clip.samples.count)])
        }
    }
}
