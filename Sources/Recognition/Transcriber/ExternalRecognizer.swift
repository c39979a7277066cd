import Formats
import Foundation

/// A recognizer other than PocketSphinx, evaluated beside it through a command.
///
/// The command gets one audio path (the `{audio}` argument) and prints one JSON object on standard
/// output: `{"transcript": "…", "words": [{"word": "…", "start": 0.31, "end": 0.62, "confidence": 0.9}]}`
/// (`text` is accepted for `transcript`, `duration` for `end`; `words` and `confidence` are optional).
/// A non-zero exit, a timeout or unreadable output is a failure of that utterance only.
///
/// Its baseline ``command`` gets the audio path and nothing else. With a ``customization`` it is also decoded once
/// per variant assigned to it: the customization's prepare command turns the variant's training data into an
/// artifact once (``ExternalCustomization``), and its decode command gets that artifact beside the audio. An
/// on-device recognizer runs inside the workers' network namespace, and its prepare command in one of its own,
/// so a claim of running on the device is checked, not trusted; an off-device one runs with the network.
public struct ExternalRecognizer: Sendable, Hashable, Codable {
    public var name: String
    /// Program and arguments of the baseline (uncustomized) decode; the argument `{audio}` is replaced by the
    /// audio path.
    public var command: [String]
    public var onDevice: Bool
    public var timeoutSeconds: Double
    /// Corpora to evaluate it on; nil for all.
    public var corpora: [String]?
    /// The recognizer's version as the suite declares it: part of every cache key of its decodes and prepared
    /// artifacts, so that a new release decodes again.
    public var version: String?
    /// How the recognizer is customized; nil when it is evaluated uncustomized only.
    public var customization: ExternalCustomization?
    /// Transcripts it made elsewhere (Apple's recognizer on a Mac), imported instead of running a command; nil
    /// when Gambit runs it.
    public var transcripts: ImportedTranscripts?
    /// The long-lived form of ``command``: started once per worker, it reads one JSON request per line and answers
    /// each with one line in ``command``'s output shape (``ServedDecoding``); nil when every decode starts
    /// ``command``.
    public var serve: [String]?
    /// How the recognizer is given a phrase list Gambit derives (its second lever); nil when it takes none.
    public var phraseLists: PhraseListLever?

    public init(
        name: String, command: [String], onDevice: Bool, timeoutSeconds: Double = 120, corpora: [String]? = nil,
        version: String? = nil, customization: ExternalCustomization? = nil
    ) {
        self.name = name
        self.command = command
        self.onDevice = onDevice
        self.timeoutSeconds = timeoutSeconds
        self.corpora = corpora
        self.version = version
        self.customization = customization
    }

    /// Why the recognizer cannot be used, or nil: each command must name a program, a decode command must pass
    /// `{audio}` as an argument of its own, and every placeholder must be one its command may use
    /// (``CommandPlaceholder``; the baseline command gets the audio path only).
    public var problem: String? {
        if transcripts != nil {
            return command.isEmpty && customization == nil && phraseLists == nil
                ? nil
                : "a recognizer gives either 'transcripts' (made elsewhere) or 'command' (run here, with its "
                    + "'customization' and 'phraseLists'), not both"
        }
        if let problem = CommandPlaceholder.problem(of: command, as: .baseline) { return problem }
        if let serve, let problem = Self.serveProblem(serve, as: .baseline) { return problem }
        if let customization, let serve = customization.serve,
            let problem = Self.serveProblem(serve, as: .decode(withPrepare: customization.prepare != nil))
        {
            return problem
        }
        if let problem = customization?.problem { return problem }
        return phraseLists?.problem
    }

    /// The decode command for `inputs`: the baseline's without them, the list command's for a list system's, else
    /// the customization's.
    public func decodeCommand(_ inputs: ExternalCustomization.Inputs?) -> [String] {
        guard let inputs else { return command }
        if inputs.list != nil, let phraseLists { return phraseLists.decode }
        return customization?.decode ?? command
    }

    /// What the command printed for one utterance.
    public struct Output: Sendable, Equatable {
        public var transcript: String
        public var words: [DecodedWord]
        public var seconds: Double
        /// What the recognizer said of the customization it was given (`"customization": "applied"` or
        /// `"ignored"`); nil when it said nothing.
        public var customization: CustomizationUse? = nil
        /// Why it ignored the customization, when it said (`"reason"`).
        public var reason: String? = nil
    }

    /// Runs the recognizer on one audio file: its baseline command, or its customization's decode command with
    /// `inputs` in place of their placeholders.
    ///
    /// What it prints must be a transcript (``RecognizerOutput``): UTF-8, and no more words than `audioSeconds`
    /// of audio can hold. Its standard output is read up to ``RecognizerOutput/maximumBytes(audioSeconds:)``
    /// only, so a runaway recognizer costs the utterance, not the worker's memory.
    ///
    /// - Parameter audioSeconds: The audio's length.
    /// - Throws: ``ExternalRecognizerError`` naming the recognizer and the file.
    public func transcribe(_ audio: URL, audioSeconds: Double, inputs: ExternalCustomization.Inputs? = nil) throws
        -> Output
    {
        let template = decodeCommand(inputs)
        let values = CommandPlaceholder.values(inputs, audio: audio.path)
        var arguments = template.map { CommandPlaceholder.substitute($0, values) }
        if !arguments[0].contains("/") { arguments.insert("/usr/bin/env", at: 0) }
        let start = DispatchTime.now().uptimeNanoseconds
        let run: ChildProcess.Outcome
        let limit = RecognizerOutput.maximumBytes(audioSeconds: audioSeconds)
        do {
            run = try ChildProcess.run(arguments, timeoutSeconds: timeoutSeconds, outputLimit: limit)
        } catch {
            throw ExternalRecognizerError(recognizer: name, audio: audio.path, reason: error.message)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if run.standardOutputCut {
            throw ExternalRecognizerError(
                recognizer: name, audio: audio.path,
                reason:
                    "printed more than \(limit) bytes on standard output for \(String(format: "%.1f", audioSeconds)) s "
                    + "of audio, the most Gambit reads (\(RecognizerOutput.bytesPerWord) bytes for each of the "
                    + "\(RecognizerOutput.maximumWords(audioSeconds: audioSeconds)) words it may hold, plus "
                    + "\(RecognizerOutput.extraBytes) bytes); no transcript is that long, so the rest was not read")
        }
        if let (reason, timedOut) = run.failure(program: template[0], timeoutSeconds: timeoutSeconds) {
            // The limit is per utterance, so the audio's length says whether it was the recognizer or the audio.
            let said =
                timedOut
                ? reason
                    + String(
                        format: ", on %.1f s of audio; raise the recognizer's timeout in the suite if it needs longer",
                        audioSeconds)
                : reason
            throw ExternalRecognizerError(recognizer: name, audio: audio.path, reason: said, timedOut: timedOut)
        }
        switch Self.parse(run.standardOutput, audioSeconds: audioSeconds) {
        case .success(var parsed):
            parsed.seconds = seconds
            return parsed
        case .failure(let problem):
            throw ExternalRecognizerError(recognizer: name, audio: audio.path, reason: problem.message)
        }
    }

    struct ParseProblem: Error {
        var message: String
    }

    /// Reads the command's JSON answer for `audioSeconds` of audio. (A `Result`: catching the typed error inside
    /// `transcribe` crashed the Swift 6.3 compiler's ownership verifier.)
    static func parse(_ data: Data, audioSeconds: Double) -> Result<Output, ParseProblem> {
        do throws(ParseProblem) {
            let output = try parseOrThrow(data)
            let words = max(RecognizerOutput.wordCount(output.transcript), output.words.count)
            if let problem = RecognizerOutput.tooManyWords(words, audioSeconds: audioSeconds) {
                throw ParseProblem(message: "the answer \(problem)")
            }
            return .success(output)
        } catch {
            return .failure(error)
        }
    }

    private static func parseOrThrow(_ data: Data) throws(ParseProblem) -> Output {
        // Bytes that are not UTF-8 would become replacement characters, scored as words.
        if let invalid = RecognizerOutput.firstInvalidUTF8(data) {
            throw ParseProblem(
                message: "its standard output is not UTF-8: \(invalid.place); a recognizer must print its JSON "
                    + "answer in UTF-8")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ParseProblem(message: "expected one JSON object on standard output, got: \(text.prefix(200))")
        }
        if let error = object["error"] as? String, object["transcript"] == nil, object["text"] == nil {
            // A served program that cannot decode this file says so and stays loaded for the next.
            throw ParseProblem(message: "it could not decode the file: \(error.prefix(500))")
        }
        guard let transcript = (object["transcript"] ?? object["text"]) as? String else {
            throw ParseProblem(message: "the JSON answer has no string \"transcript\" (or \"text\")")
        }
        var words: [DecodedWord] = []
        if let list = object["words"] {
            guard let items = list as? [[String: Any]] else {
                throw ParseProblem(message: "\"words\" must be a list of objects")
            }
            for (index, item) in items.enumerated() {
                guard let word = item["word"] as? String, let start = (item["start"] as? NSNumber)?.doubleValue else {
                    throw ParseProblem(message: "words[\(index)] needs a string \"word\" and a number \"start\"")
                }
                let duration =
                    (item["duration"] as? NSNumber)?.doubleValue
                    ?? (item["end"] as? NSNumber).map { $0.doubleValue - start } ?? 0
                guard duration >= 0 else { throw ParseProblem(message: "words[\(index)] ends before it starts") }
                let confidence = (item["confidence"] as? NSNumber)?.doubleValue ?? 1
                words.append(DecodedWord(word: word, start: start, duration: duration, confidence: confidence))
            }
        }
        var status: CustomizationUse?
        switch object["customization"] {
        case nil, is NSNull: status = nil
        case let text as String where text == "applied": status = .applied
        case let text as String where text == "ignored": status = .ignored
        default: throw ParseProblem(message: "\"customization\" must be \"applied\" or \"ignored\"")
        }
        return Output(
            transcript: transcript, words: words, seconds: 0, customization: status,
            reason: object["reason"] as? String)
    }
}

/// Where a recognizer's transcripts made outside the run are: a file for its baseline and one for each variant,
/// per corpus, named by path templates relative to the suite's folder in which `{corpus}` and `{variant}` are
/// replaced (`apple/{corpus}.{variant}.jsonl`). Any format `gambit score` reads (JSON lines, trn, ctm, Kaldi
/// text), by extension or content unless ``format`` names it.
public struct ImportedTranscripts: Sendable, Hashable, Codable {
    /// The baseline's (uncustomized) transcripts, a path template with `{corpus}`.
    public var baseline: String
    /// Each variant's, a path template with `{corpus}` and `{variant}`; nil when only the baseline is imported.
    public var customized: String?
    /// The variants imported (of those evaluated on each corpus); nil for all of them.
    public var variants: [String]?
    /// The files' format (`jsonl`, `trn`, `ctm`, `kaldi`); nil to tell it from each file.
    public var format: String?
    /// The suite file's line of ``format``, for the message that refuses a file misread in it.
    public var formatLine: Int?

    public init(baseline: String, customized: String? = nil, variants: [String]? = nil, format: String? = nil) {
        self.baseline = baseline
        self.customized = customized
        self.variants = variants
        self.format = format
    }

    /// A placeholder of the path templates, the one place each is spelled: the suite reader checks that a template
    /// names the ones it must, and ``file(corpus:variant:in:)`` replaces them.
    public enum Placeholder: String, CaseIterable, Sendable {
        /// The corpus's name: both templates must name it.
        case corpus = "{corpus}"
        /// The variant's name: the customized template must name it.
        case variant = "{variant}"

        /// The placeholders the baseline's template (`customized` false) or the variants' must name.
        public static func required(customized: Bool) -> [Placeholder] {
            customized ? [.corpus, .variant] : [.corpus]
        }
    }

    /// The file of one corpus (and variant), under `folder`.
    public func file(corpus: String, variant: String?, in folder: URL) -> URL? {
        guard let template = variant == nil ? baseline : customized else { return nil }
        var path = template
        for placeholder in Placeholder.allCases {
            let value =
                switch placeholder {
                case .corpus: corpus
                case .variant: variant ?? ""
                }
            path = path.replacingOccurrences(of: placeholder.rawValue, with: value)
        }
        return path.hasPrefix("/")
            ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path).standardizedFileURL
    }
}

/// One utterance an external recognizer could not transcribe.
public struct ExternalRecognizerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var recognizer: String
    public var audio: String
    public var reason: String
    /// The recognizer gave no answer within its timeout and was killed.
    public var timedOut = false

    public var description: String { "external recognizer \(recognizer) on \(audio): \(reason)" }
}
