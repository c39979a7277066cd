import Audio
import Foundation
import PocketSphinx

/// A speech recognizer bound to one locale, shaped like Apple's `SFSpeechRecognizer`, running
/// PocketSphinx on this machine.
///
/// Each recognizer owns its decoders (one for the base model, one per customized model it has
/// seen, created on first use), so it belongs to one task at a time: create one per worker.
/// Everything it returns is a plain value.
public final class SpeechRecognizer {
    /// The locale this recognizer was created for (`en-US`).
    public let locale: String
    /// The model it decodes with.
    public let model: AcousticModel
    /// Engine settings shared by all its decoders.
    public let settings: DecoderSettings
    /// PocketSphinx runs in this process: every request is served on the device.
    public let supportsOnDeviceRecognition = true

    private let loader = AudioLoader()
    private var batchDecoders: [LanguageModelConfiguration?: Decoder] = [:]
    private var streamDecoders: [LanguageModelConfiguration?: Decoder] = [:]

    /// Creates a recognizer for a locale.
    ///
    /// - Parameters:
    ///   - locale: A BCP-47 identifier such as `en-US` (also `en_US`).
    ///   - model: The model files; by default the installed model for the locale.
    ///   - settings: Engine settings.
    /// - Throws: ``RecognitionError/unsupportedLocale(_:supported:)`` when no model is installed for
    ///   the locale, ``RecognitionError/modelMissing(path:hint:)`` when its files are not there.
    public init(
        locale: String, model: AcousticModel? = nil, settings: DecoderSettings = .standard
    ) throws(RecognitionError) {
        let canonical = AcousticModel.canonicalLocale(locale)
        let installed = AcousticModel.installed
        guard let chosen = model ?? installed[canonical] else {
            throw .unsupportedLocale(locale, supported: installed.keys.sorted())
        }
        guard chosen.locale == canonical else {
            throw .unsupportedLocale(locale, supported: [chosen.locale])
        }
        try chosen.validate()
        self.locale = canonical
        self.model = chosen
        self.settings = settings
    }

    /// Makes this process return a language model's memory to the system when the model is freed.
    ///
    /// A process that decodes with one model after another (a worker moving through variants) calls
    /// this once at start: otherwise glibc's growing mmap threshold puts each new model on the heap,
    /// where its memory stays after it is freed.
    public static func returnFreedModelMemory() {
        Engine.returnFreedModelMemory()
    }

    /// The locales this machine has models for.
    public static var supportedLocales: [String] { AcousticModel.installed.keys.sorted() }

    /// Loads the base (and, when given, the customized) decoder now rather than on the first request,
    /// so that model load time can be measured apart from decoding.
    public func preload(_ custom: LanguageModelConfiguration? = nil) throws(RecognitionError) {
        _ = try decoder(for: custom, streaming: false)
    }

    /// Frees the decoders of every configuration but `keep` (and the base model's unless
    /// `includingBase`), so that a long-lived worker moving from one customized model to the next
    /// does not hold them all. A worker whose work arrives grouped by system frees the base model's
    /// decoder too: a merged model already contains the base model, so keeping both would hold it twice.
    public func releaseDecoders(except keep: LanguageModelConfiguration?, includingBase: Bool = false) {
        batchDecoders = batchDecoders.filter { $0.key == keep || (!includingBase && $0.key == nil) }
        streamDecoders = streamDecoders.filter { $0.key == keep || (!includingBase && $0.key == nil) }
    }

    /// Recognises a recorded file.
    ///
    /// - Throws: ``RecognitionError`` for engine failures; `AudioError` (wrapped in
    ///   ``RecognitionFailure``) when the file cannot be read.
    public func recognize(_ request: URLRecognitionRequest) throws(RecognitionFailure) -> RecognitionResult {
        let clip: AudioClip
        do {
            clip = try loader.load(request.url, raw: request.rawFormat)
        } catch {
            throw .audio(error)
        }
        do {
            return try recognize(clip, options: request.options)
        } catch {
            throw .engine(error)
        }
    }

    /// Recognises samples already in memory as one utterance.
    public func recognize(_ clip: AudioClip, options: RecognitionOptions) throws(RecognitionError)
        -> RecognitionResult
    {
        let (custom, status) = resolveCustomization(options)
        let decoder = try decoder(for: custom, streaming: false)
        let decoded = try decoder.decode(clip.samples, alternatives: options.maximumAlternatives)
        return result(decoded, isFinal: true, customization: status, duration: clip.duration)
    }

    /// Writes the word lattice of the last recording recognised with `custom` (``recognize(_:options:)``) in
    /// PocketSphinx's format, for ``DiagnosticEngine`` to read back.
    func writeLattice(of custom: LanguageModelConfiguration?, to file: URL) throws(RecognitionError) {
        guard let lattice = batchDecoders[custom]?.lattice() else {
            throw .decodeFailed(EngineError(call: "ps_get_lattice", message: "the last decode made no lattice"))
        }
        do {
            try lattice.write(to: file.path)
        } catch {
            throw .decodeFailed(error)
        }
    }

    /// Recognises audio delivered in buffers, reporting partial results as they change.
    ///
    /// - Parameters:
    ///   - request: The buffers, in order; the request should be ended.
    ///   - partial: Called after each buffer with the partial result, when the request asks for them.
    /// - Returns: The final result.
    public func recognize(
        _ request: AudioBufferRecognitionRequest, partial: (Int, RecognitionResult) -> Void = { _, _ in }
    ) throws(RecognitionError) -> RecognitionResult {
        let stream = try stream(request.options)
        var samples = 0
        for (index, buffer) in request.buffers.enumerated() {
            let step = try stream.feed(buffer)
            samples += buffer.count
            if request.options.shouldReportPartialResults {
                let transcription = Transcription(formattedString: step.text)
                partial(
                    index,
                    RecognitionResult(
                        bestTranscription: transcription, transcriptions: [transcription], isFinal: false,
                        customization: stream.customization, audioDuration: Double(samples) / 16_000))
            }
        }
        let decoded = try stream.end(alternatives: request.options.maximumAlternatives)
        return result(decoded, isFinal: true, customization: stream.customization, duration: Double(samples) / 16_000)
    }

    /// Starts a streamed utterance, to be fed one buffer at a time as the audio arrives (what
    /// ``recognize(_:partial:)`` does with buffers it already has, and what a paced stream needs).
    ///
    /// A stream listens as a live PocketSphinx does, with its voice-activity detector on (``DecoderSettings/detectsSpeech``):
    /// it skips silence and says when speech has ended (``StreamStep/inSpeech``). Its word times are therefore not
    /// audio time; a stream is for latency, and batch decodes give the words.
    public func stream(_ options: RecognitionOptions) throws(RecognitionError) -> RecognitionStream {
        let (custom, status) = resolveCustomization(options)
        let decoder = try decoder(for: custom, streaming: true)
        try decoder.beginStream()
        return RecognitionStream(decoder: decoder, customization: status)
    }

    /// Apple serves a request that carries a customized model but is not forced on-device without the
    /// customization. Gambit does the same, and says so in the result instead of hiding it.
    private func resolveCustomization(_ options: RecognitionOptions) -> (
        LanguageModelConfiguration?, CustomizationStatus
    ) {
        guard let custom = options.customizedLanguageModel else { return (nil, .none) }
        guard options.requiresOnDeviceRecognition else {
            return (nil, .ignored(reason: "request not forced on-device (requiresOnDeviceRecognition is false)"))
        }
        return (custom, .applied(fingerprint: custom.fingerprint ?? custom.languageModel.lastPathComponent))
    }

    private func decoder(for custom: LanguageModelConfiguration?, streaming: Bool) throws(RecognitionError)
        -> Decoder
    {
        if let existing = streaming ? streamDecoders[custom] : batchDecoders[custom] { return existing }
        if let custom {
            if let locale = custom.locale, AcousticModel.canonicalLocale(locale) != self.locale {
                throw .customModelInvalid(
                    path: custom.languageModel.path,
                    reason: "prepared for locale \(locale), but this recognizer is \(self.locale)")
            }
            if let expected = custom.acousticModelFingerprint {
                let actual = try model.fingerprint
                guard expected == actual else {
                    throw .customModelInvalid(
                        path: custom.languageModel.path,
                        reason: "prepared against a different acoustic model (fingerprint \(expected.prefix(12))…, "
                            + "this model is \(actual.prefix(12))…); prepare it again")
                }
            }
        }
        var settings = settings
        settings.detectsSpeech = streaming ? true : nil
        let decoder = try Decoder(model: model, settings: settings, custom: custom)
        if streaming { streamDecoders[custom] = decoder } else { batchDecoders[custom] = decoder }
        return decoder
    }

    private func result(
        _ decoded: DecodedUtterance, isFinal: Bool, customization: CustomizationStatus, duration: Double
    ) -> RecognitionResult {
        let best = Transcription(
            formattedString: decoded.hypothesis, segments: decoded.segments, score: decoded.score)
        let alternatives = decoded.alternatives.filter { $0.formattedString != best.formattedString }
        return RecognitionResult(
            bestTranscription: best, transcriptions: [best] + alternatives, isFinal: isFinal,
            customization: customization, audioDuration: duration, logPosterior: decoded.logPosterior)
    }
}

/// One streamed utterance under way (``SpeechRecognizer/stream(_:)``): feed it buffers in order, then end it once.
/// It borrows its recognizer's decoder, so the recognizer starts no other utterance until this one has ended.
public final class RecognitionStream {
    private let decoder: Decoder
    /// Whether the customization asked for is used, as every result of the stream says.
    public let customization: CustomizationStatus

    init(decoder: Decoder, customization: CustomizationStatus) {
        self.decoder = decoder
        self.customization = customization
    }

    /// Feeds one buffer of 16 kHz samples; returns the partial hypothesis and whether speech is heard now.
    public func feed(_ samples: [Int16]) throws(RecognitionError) -> StreamStep {
        let (text, inSpeech) = try decoder.feed(samples)
        return StreamStep(text: text, inSpeech: inSpeech)
    }

    /// Ends the audio and returns the final hypothesis's text: what an app waits for, and no more (no posteriors,
    /// no alternatives, no word times).
    public func finish() throws(RecognitionError) -> String {
        try decoder.endStreamHypothesis()
    }

    /// Ends the utterance after a failure, whatever state it is in, so that the decoder can start the next one.
    public func cancel() {
        _ = try? decoder.endStreamHypothesis()
    }

    func end(alternatives: Int) throws(RecognitionError) -> DecodedUtterance {
        try decoder.endStream(alternatives: alternatives)
    }
}

/// A request failed either because its audio could not be read or because the engine failed.
public enum RecognitionFailure: Error, Sendable, CustomStringConvertible {
    case audio(AudioError)
    case engine(RecognitionError)

    public var description: String {
        switch self {
        case .audio(let error): error.description
        case .engine(let error): error.description
        }
    }
}
