import Audio
import Foundation
import Recognition
import Results
import Scoring

extension Runner {
    /// The answers of the items whose transcripts were made outside the run: each utterance's line of its
    /// system's file, or a failure of that utterance naming the file when the file has none.
    ///
    /// - Throws: ``RunnerError/importedTranscripts(recognizer:file:message:)`` when a file cannot be read or
    ///   parsed (a wrong format, a duplicate id: ``ScoringError`` names the line), or holds an utterance its corpus
    ///   lacks.
    func importedAnswers(_ plan: RunPlan) throws -> [String: WorkResponse] {
        var answers: [String: WorkResponse] = [:]
        var checked = Set<String>()
        var lengths = AudioLengths()
        for (s, system) in plan.systems.enumerated() {
            guard let file = system.importedFile, let recognizer = system.external else { continue }
            let shown = suite.reportedPath(file)
            func failure(_ message: String) -> RunnerError {
                .importedTranscripts(recognizer: recognizer.name, file: shown, message: message)
            }
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw failure(
                    "no such file: the transcripts of \(system.variant.map { "variant \($0.name)" } ?? "its baseline") "
                        + "on corpus \(system.corpus.name) are expected there")
            }
            let transcripts: TranscriptFile
            do {
                transcripts = try TranscriptIO.read(
                    file, format: recognizer.transcripts?.format.flatMap(TranscriptFormat.init(rawValue:)))
            } catch {
                throw failure(WorkResponse.relativePaths(in: "\(error)", to: suite.folder))
            }
            // Every utterance of the manifest, whatever the split: a file made for the whole corpus is fine.
            if checked.insert(file.path).inserted {
                let known = Set(
                    try suite.entries(of: system.corpus, allowOutsidePaths: options.allowOutsidePaths).map(\.id))
                if let stray = transcripts.utterances.first(where: { !known.contains($0.id) }) {
                    throw failure(
                        "utterance '\(stray.id)' is not in corpus \(system.corpus.name) (\(suite.reportedPath(system.corpus.manifest))); "
                            + "a transcript must be of an utterance the corpus has")
                }
            }
            let texts = Dictionary(transcripts.utterances.map { ($0.id, $0.text) }, uniquingKeysWith: { a, _ in a })
            for item in plan.items where item.system == s {
                let key = item.request.key
                guard let text = texts[item.entry.id] else {
                    answers[key] = .undecoded(
                        key: key, failure: "\(shown) has no transcript of utterance \(item.entry.id)",
                        kind: .missingTranscript, customization: system.mode == .customized ? .ignored : .notRequested)
                    continue
                }
                var answer = WorkResponse.imported(
                    key: key, hypothesis: text, customization: system.mode == .customized ? .applied : .notRequested)
                // Not timed, but as long as its audio: what false alarms per hour are over.
                answer.audioSeconds = lengths.seconds(item.entry.audio)
                answers[key] = answer
            }
        }
        return answers
    }
}
