import Foundation
import Speech

/// Apple's recognizer, on the device only, one recording at a time.
struct AppleTranscriber {
    let recognizer: SFSpeechRecognizer

    init(locale: Locale) async throws {
        let status = await withCheckedContinuation { continuation in
            SFSpeechRecognizer.requestAuthorization { continuation.resume(returning: $0) }
        }
        guard status == .authorized else {
            throw ToolError("speech recognition is not allowed: see System Settings › Privacy & Security")
        }
        guard let recognizer = SFSpeechRecognizer(locale: locale) else {
            throw ToolError("Apple's recognizer does not support \(locale.identifier)")
        }
        // The transcripts are declared on-device: a recognizer that would need the network is refused, not used.
        guard recognizer.supportsOnDeviceRecognition else {
            throw ToolError("no on-device recognition for \(locale.identifier) here: turn on Dictation for it first")
        }
        self.recognizer = recognizer
    }

    /// The best transcription of `audio`, with the custom language model `model` when given.
    func transcribe(_ audio: URL, model: SFSpeechLanguageModel.Configuration?) async throws -> String {
        let request = SFSpeechURLRecognitionRequest(url: audio)
        request.requiresOnDeviceRecognition = true
        request.shouldReportPartialResults = false
        request.customizedLanguageModel = model
        return try await withCheckedThrowingContinuation { continuation in
            // The handler may be called more than once (a final result, then an error); a continuation resumes once.
            var resumed = false
            _ = recognizer.recognitionTask(with: request) { result, error in
                guard !resumed else { return }
                if let error {
                    resumed = true
                    continuation.resume(throwing: error)
                } else if let result, result.isFinal {
                    resumed = true
                    continuation.resume(returning: result.bestTranscription.formattedString)
                }
            }
        }
    }

    /// Writes a JSON line `{"id", "text"}` per utterance into `file`. An utterance that fails is left out, which
    /// Gambit reports as a missing transcript of it, and its error printed.
    func transcribe(_ utterances: [Utterance], model: SFSpeechLanguageModel.Configuration?, into file: URL)
        async throws
    {
        try await writeTranscripts(of: utterances, into: file) { try await transcribe($0, model: model) }
    }
}

/// Transcribes each utterance with `transcribe` and writes a JSON line `{"id", "text"}` per utterance into `file`.
/// An utterance that fails is left out, which Gambit reports as a missing transcript of it, and its error printed.
func writeTranscripts(of utterances: [Utterance], into file: URL, _ transcribe: (URL) async throws -> String)
    async throws
{
    var lines: [String] = []
    for utterance in utterances {
        do {
            let text = try await transcribe(utterance.audio)
            let line = try JSONSerialization.data(
                withJSONObject: ["id": utterance.id, "text": text], options: [.sortedKeys, .withoutEscapingSlashes])
            lines.append(String(decoding: line, as: UTF8.self) + "\n")
        } catch {
            report("\(file.lastPathComponent): \(utterance.id): \(error.localizedDescription)")
        }
    }
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try lines.joined().write(to: file, atomically: true, encoding: .utf8)
    report("\(file.lastPathComponent): \(lines.count) of \(utterances.count) utterances transcribed")
}
