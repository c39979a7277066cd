import Formats
import Foundation

/// An external recognizer's long-lived form (a recognizer's `serve:`, its customization's `serve:`): the program is
/// started once per worker (and per prepared artifact), not once per utterance, so a model that takes seconds to
/// load is loaded once.
///
/// Each request is one JSON line on its standard input:
/// `{"key": "…", "audio": "/path/a.wav", "placeholders": {"{audio}": "/path/a.wav", "{artifact}": "…", …}}` (`key`
/// names the decode, `placeholders` holds the value of every placeholder the decode command could use, the
/// utterance's `{boosted}` list included). It answers with one line in the shape a decode command prints
/// (``ExternalRecognizer``). Gambit times each request; a program that dies while answering is started again and
/// the request sent once more (counted as a retry); one that does not answer within the recognizer's timeout is
/// stopped and the utterance fails; each start is a model load in the results.
enum ServedDecoding {
    /// Why a serve command cannot be used as `command`'s long-lived form, or nil: it names a program and uses only
    /// placeholders `command` may use, but not the audio or the lists, which change with every request.
    static func problem(of arguments: [String], as command: CommandPlaceholder.Command) -> String? {
        let what =
            command == .baseline
            ? "the serve command" : command == .list ? "the phrase-list serve command" : "the customized serve command"
        guard let program = arguments.first, !program.isEmpty else { return "\(what) is empty" }
        let perRequest = [CommandPlaceholder.audio.name, CommandPlaceholder.boosted.name, CommandPlaceholder.list.name]
        let allowed = CommandPlaceholder.allowed(in: command).map(\.name).filter { !perRequest.contains($0) }
        for argument in arguments {
            for name in CommandPlaceholder.names(in: argument) where !allowed.contains(name) {
                return perRequest.contains(name)
                    ? "\(what) cannot use the placeholder \(name): it comes with each request"
                    : "\(what) cannot use the placeholder \(name)"
                        + (allowed.isEmpty
                            ? " (it may use none)" : " (it may use \(allowed.sorted().joined(separator: ", ")))")
            }
        }
        return nil
    }
}

extension ExternalRecognizer {
    static func serveProblem(_ arguments: [String], as command: CommandPlaceholder.Command) -> String? {
        ServedDecoding.problem(of: arguments, as: command)
    }

    /// The served program for a decode given `inputs` (nil for the baseline), its placeholders filled in; nil when
    /// that decode has no long-lived form. Requests with the same command go to the same process.
    public func servedCommand(inputs: ExternalCustomization.Inputs?) -> [String]? {
        let template =
            inputs == nil ? serve : inputs?.list != nil ? phraseLists.flatMap { $0.serve } : customization?.serve
        guard let template else { return nil }
        let values = CommandPlaceholder.values(inputs, audio: nil)
        var arguments = template.map { CommandPlaceholder.substitute($0, values) }
        if !arguments[0].contains("/") { arguments.insert("/usr/bin/env", at: 0) }
        return arguments
    }

    /// Decodes one audio file through the served program `process`, sending the request again once if the program
    /// dies while answering it.
    /// - Returns: The output, and whether the request was sent twice.
    /// - Throws: ``ExternalRecognizerError`` naming the recognizer and the file.
    func transcribe(
        _ audio: URL, key: String, audioSeconds: Double, inputs: ExternalCustomization.Inputs?,
        process: ServedProcess
    ) throws -> (output: Output, retried: Bool) {
        var placeholders = CommandPlaceholder.values(inputs, audio: audio.path)
        placeholders = placeholders.filter { !$0.value.isEmpty || $0.key == CommandPlaceholder.audio.name }
        let request: [String: Any] = ["key": key, "audio": audio.path, "placeholders": placeholders]
        let line = try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys, .withoutEscapingSlashes])
        let limit = RecognizerOutput.maximumBytes(audioSeconds: audioSeconds)
        var retried = false
        while true {
            let start = DispatchTime.now().uptimeNanoseconds
            let answer: Data
            do throws(ServedProcess.Failure) {
                answer = try process.request(line, timeoutSeconds: timeoutSeconds, outputLimit: limit)
            } catch .died where !retried {
                // The next request starts it again: the utterance is sent once more.
                retried = true
                continue
            } catch {
                let timedOut = error == .timedOut
                let context =
                    timedOut
                    ? String(
                        format: ", on %.1f s of audio; raise the recognizer's timeout in the suite if it needs longer",
                        audioSeconds) : ""
                throw ExternalRecognizerError(
                    recognizer: name, audio: audio.path,
                    reason: "its serve process (\(process.arguments.last ?? "")): \(error)\(context)",
                    timedOut: timedOut)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            switch Self.parse(answer, audioSeconds: audioSeconds) {
            case .success(var parsed):
                parsed.seconds = seconds
                return (parsed, retried)
            case .failure(let problem):
                throw ExternalRecognizerError(recognizer: name, audio: audio.path, reason: problem.message)
            }
        }
    }
}
