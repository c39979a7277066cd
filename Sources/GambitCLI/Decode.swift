import ArgumentParser
import Audio
import Foundation
import LanguageModel
import NGram
import Recognition
import Runner

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Transcribe audio files and print each transcript with word timings and confidences.",
        discussion: ExitStatus.help([
            .success: "every file transcribed",
            .refused: "refused input or usage (an option, training data), or an error that stopped it",
            .utterancesFailed: "some files failed to decode (each named on standard error); the others were printed",
        ])
    )

    @Argument(help: "Audio files (WAV, FLAC, OGG, or headerless with --raw).")
    var audio: [String]

    @Option(help: "Locale of the recognizer.")
    var locale = "en-US"

    @Option(help: "Format of headerless audio: ENCODING:RATE:CHANNELS, e.g. s16le:16000:1.")
    var raw: String?

    @Option(parsing: .unconditional, help: "Alternatives to list beside the best transcription.")
    var alternatives = 3

    @Option(help: "Training data to customize recognition with (prepared and cached on first use).")
    var training: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("weight").help))
    var weight = PrepareOptions.defaults.weight

    @Option(help: ArgumentHelp(PrepareOptions.setting("mix").help))
    var mix = PrepareOptions.defaults.mix

    @Option(help: ArgumentHelp(PrepareOptions.setting("interpolation").help))
    var interpolation = PrepareOptions.defaults.interpolation

    @Flag(help: "Do not force on-device recognition (a customized model is then ignored, as on Apple's platforms).")
    var allowServer = false

    @Flag(help: "Print JSON (one object per file) instead of text.")
    var json = false

    @OptionGroup(title: "Engine settings (a suite's decoder: block; the engine's defaults when left out)")
    var engine: EngineOptions

    func run() throws {
        var rawFormat: RawAudioFormat?
        if let raw {
            guard let parsed = RawAudioFormat(raw) else {
                throw ValidationError("--raw \(raw): expected ENCODING:RATE:CHANNELS, e.g. s16le:16000:1")
            }
            rawFormat = parsed
        }
        // A merged model has the weight built in, so it is prepared for this weight.
        var prepareOptions = PrepareOptions(mix: mix)
        prepareOptions.weight = weight
        prepareOptions.interpolation = interpolation
        let settings = try engine.settings()
        // A weighted merge is built for the language weight it will be decoded with.
        if let languageWeight = settings.languageWeight { prepareOptions.languageWeight = languageWeight }
        try prepareOptions.validateAsOptions()
        guard RecognitionOptions.alternativesRange.contains(alternatives) else {
            throw ValidationError(
                "--alternatives is \(alternatives); it must be within \(RecognitionOptions.alternativesRange.lowerBound)…"
                    + "\(RecognitionOptions.alternativesRange.upperBound)")
        }
        let transcriber = try Transcriber(
            settings: settings, model: try AcousticModel.installed(for: locale), mode: .inProcess)
        var options = RecognitionOptions(requiresOnDeviceRecognition: !allowServer, maximumAlternatives: alternatives)
        if let training {
            let (artifact, _) = try Toolchain(model: transcriber.model).prepare(
                URL(fileURLWithPath: training), options: prepareOptions)
            options.customizedLanguageModel = Toolchain.configuration(artifact, weight: weight)
        }
        var failures = 0
        for path in audio {
            let request = URLRecognitionRequest(url: URL(fileURLWithPath: path), rawFormat: rawFormat, options: options)
            do {
                let result = try transcriber.recognize(request)
                print(
                    json ? DecodeOutput.json(path: path, result: result) : DecodeOutput.text(path: path, result: result)
                )
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            }
        }
        if failures > 0 {
            FileHandle.standardError.write(Data("\(failures) of \(audio.count) files failed\n".utf8))
            throw ExitCode(ExitStatus.utterancesFailed.rawValue)
        }
    }
}

enum DecodeOutput {
    static func text(path: String, result: RecognitionResult) -> String {
        var lines = ["\(path): \(result.bestTranscription.formattedString)"]
        for segment in result.bestTranscription.segments {
            lines.append(
                String(
                    format: "  %7.2f %6.2f  %.3f  %@", segment.timestamp, segment.duration, segment.confidence,
                    segment.substring))
        }
        for alternative in result.transcriptions.dropFirst() {
            lines.append("  alt: \(alternative.formattedString)")
        }
        // What the JSON's `customization` says; --allow-server is how a request of `gambit decode` leaves it unused.
        if case .ignored(let reason) = result.customization {
            lines.append("  customization ignored: \(reason); leave out --allow-server to decode with --training")
        }
        return lines.joined(separator: "\n")
    }

    static func json(path: String, result: RecognitionResult) -> String {
        struct Line: Encodable {
            let audio: String
            let result: RecognitionResult
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Line(audio: path, result: result))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// The engine settings of a suite's `decoder:` block as options: `--beam 1e-60 --language-weight 8 --no-second-pass`.
struct EngineOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Named settings the options below are set over: "
                + DecoderSettings.profiles.map(\.name).joined(separator: " or ") + ".",
            discussion: DecoderSettings.profiles.map { "\($0.name): \($0.summary)." }.joined(separator: "\n")))
    var profile: String?

    @Option(help: "Beam of the first pass, (0, 1e-15] (engine default 1e-48); smaller prunes less.")
    var beam: String?

    @Option(help: "Beam for word exits, (0, 1] (engine default 7e-29).")
    var wordBeam: String?

    @Option(help: "Language weight of the first pass, (0, 100] (engine default 6.5).")
    var languageWeight: String?

    @Option(help: "Language weight of the second pass, (0, 100] (engine default 8.5).")
    var secondPassLanguageWeight: String?

    @Option(help: "Language weight of the best path, which picks the final hypothesis, (0, 100] (engine default 9.5).")
    var bestPathLanguageWeight: String?

    @Option(help: "Word insertion penalty, (0, 100] (engine default 0.65).")
    var wordInsertionPenalty: String?

    @Flag(inversion: .prefixedNo, help: "The second (flat-lexicon) pass (engine default on).")
    var secondPass: Bool?

    @Flag(inversion: .prefixedNo, help: "The best path through the word lattice (engine default on).")
    var bestPath: Bool?

    /// The settings given, each checked as a suite's would be.
    func settings() throws -> DecoderSettings {
        var settings = DecoderSettings.standard
        if let profile {
            do {
                settings = try settings.applying(profile: profile)
            } catch {
                throw ValidationError("--profile: \(error.message)")
            }
        }
        let given: [(String, String?, String)] = [
            ("beam", beam, "--beam"), ("wordBeam", wordBeam, "--word-beam"),
            ("languageWeight", languageWeight, "--language-weight"),
            ("secondPassLanguageWeight", secondPassLanguageWeight, "--second-pass-language-weight"),
            ("bestPathLanguageWeight", bestPathLanguageWeight, "--best-path-language-weight"),
            ("wordInsertionPenalty", wordInsertionPenalty, "--word-insertion-penalty"),
            ("secondPass", secondPass.map { "\($0)" }, "--[no-]second-pass"),
            ("bestPath", bestPath.map { "\($0)" }, "--[no-]best-path"),
        ]
        for (name, text, option) in given {
            guard let text else { continue }
            do {
                try settings.set(name, to: text)
            } catch {
                throw ValidationError("\(option): \(error.message)")
            }
        }
        return settings
    }
}
