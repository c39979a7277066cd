import Foundation
import Results

/// A recognizer other than PocketSphinx, evaluated beside it through a command.
///
/// The command gets one audio path (the `{audio}` argument) and prints one JSON object on standard
/// output: `{"transcript": "…", "words": [{"word": "…", "start": 0.31, "end": 0.62, "confidence": 0.9}]}`
/// (`text` is accepted for `transcript`, `duration` for `end`; `words` and `confidence` are optional).
/// A non-zero exit, a timeout or unreadable output is a failure of that utterance only.
///
/// Gambit never hands an external recognizer customization data: the command gets the audio path and
/// nothing else. An on-device recognizer runs inside the workers' network namespace, so a claim of
/// running on the device is checked, not trusted; an off-device one runs with the network.
public struct ExternalRecognizer: Sendable, Hashable, Codable {
    public var name: String
    /// Program and arguments; the argument `{audio}` is replaced by the audio path.
    public var command: [String]
    public var onDevice: Bool
    public var timeoutSeconds: Double
    /// Corpora to evaluate it on; nil for all.
    public var corpora: [String]?

    public init(
        name: String, command: [String], onDevice: Bool, timeoutSeconds: Double = 120, corpora: [String]? = nil
    ) {
        self.name = name
        self.command = command
        self.onDevice = onDevice
        self.timeoutSeconds = timeoutSeconds
        self.corpora = corpora
    }

    /// The one placeholder a command may use.
    public static let audioPlaceholder = "{audio}"

    /// Why the command cannot be used, or nil: it must name a program and pass `{audio}`, and may not
    /// ask for anything else (customization data above all).
    public var problem: String? {
        guard let program = command.first, !program.isEmpty else { return "the command is empty" }
        if !command.contains(Self.audioPlaceholder) {
            return "the command must pass the audio path as the argument \(Self.audioPlaceholder)"
        }
        for argument in command {
            guard let open = argument.range(of: "{"),
                let close = argument.range(of: "}", range: open.upperBound..<argument.endIndex)
            else { continue }
            let placeholder = String(argument[open.lowerBound..<close.upperBound])
            if placeholder != Self.audioPlaceholder {
                return "unknown placeholder \(placeholder): an external recognizer gets the audio path only "
                    + "(Gambit never hands customization data to another recognizer)"
            }
        }
        return nil
    }

    /// What the command printed for one utterance.
    public struct Output: Sendable, Equatable {
        public var transcript: String
        public var words: [WordTiming]
        public var seconds: Double
    }

    /// Runs the command on one audio file.
    ///
    /// - Throws: ``ExternalRecognizerError`` naming the recognizer and the file.
    public func transcribe(_ audio: URL) throws -> Output {
        var arguments = command.map { $0 == Self.audioPlaceholder ? audio.path : $0 }
        if !arguments[0].contains("/") { arguments.insert("/usr/bin/env", at: 0) }
        let start = DispatchTime.now().uptimeNanoseconds
        let run: ChildProcess.Outcome
        do {
            run = try ChildProcess.run(arguments, timeoutSeconds: timeoutSeconds)
        } catch {
            throw ExternalRecognizerError(recognizer: name, audio: audio.path, reason: error.message)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let program = command[0]
        let how: String
        switch run.termination {
        case .timedOut:
            throw ExternalRecognizerError(
                recognizer: name, audio: audio.path,
                reason: String(format: "no answer within %.0f s (killed)", timeoutSeconds), timedOut: true)
        case .exited(0): how = ""
        case .exited(let status): how = "exited with status \(status)"
        case .signalled(let signal): how = "was killed by signal \(signal)"
        }
        if !how.isEmpty {
            let message = String(decoding: run.standardError, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw ExternalRecognizerError(
                recognizer: name, audio: audio.path,
                reason: "\(program) \(how)" + (message.isEmpty ? "" : ": \(message.suffix(300))"))
        }
        switch Self.parse(run.standardOutput) {
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

    /// Reads the command's JSON answer. (A `Result`: catching the typed error inside `transcribe` crashed
    /// the Swift 6.3 compiler's ownership verifier.)
    static func parse(_ data: Data) -> Result<Output, ParseProblem> {
        do throws(ParseProblem) {
            return .success(try parseOrThrow(data))
        } catch {
            return .failure(error)
        }
    }

    private static func parseOrThrow(_ data: Data) throws(ParseProblem) -> Output {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ParseProblem(message: "expected one JSON object on standard output, got: \(text.prefix(200))")
        }
        guard let transcript = (object["transcript"] ?? object["text"]) as? String else {
            throw ParseProblem(message: "the JSON answer has no string \"transcript\" (or \"text\")")
        }
        var words: [WordTiming] = []
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
                words.append(WordTiming(word: word, start: start, duration: duration, confidence: confidence))
            }
        }
        return Output(transcript: transcript, words: words, seconds: 0)
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
