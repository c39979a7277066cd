import Audio
import Corpus
import Formats
import Foundation
import Recognition
import Results
import Scoring

extension Runner {
    /// The answers of the items whose transcripts were made outside the run: each utterance's line of its
    /// system's file, found by the utterance's id, or a failure of that utterance naming the file when the file has
    /// none, or when its line is not a transcript Gambit takes (``RecognizerOutput``: not UTF-8, or more words than
    /// its audio can hold).
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
            let transcripts = try importedFile(file, of: system, recognizer: recognizer)
            // Every utterance of the manifest, whatever the split: a file made for the whole corpus is fine.
            if checked.insert(file.path).inserted {
                try checkIDs(of: transcripts, file: file, corpus: system.corpus, recognizer: recognizer)
            }
            let texts = Dictionary(transcripts.utterances.map { ($0.id, $0.text) }, uniquingKeysWith: { a, _ in a })
            let notUTF8 = Dictionary(
                transcripts.invalidUTF8.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let customization: CustomizationUse = system.mode == .customized ? .applied : .notRequested
            for item in plan.items where item.system == s {
                let key = item.request.key
                let id = item.entry.id
                guard let text = texts[id] else {
                    answers[key] = .undecoded(
                        key: key, failure: "\(shown) has no transcript of utterance \(id)",
                        kind: .missingTranscript, customization: system.mode == .customized ? .ignored : .notRequested)
                    continue
                }
                // Not timed, but as long as its audio: what false alarms per hour are over.
                let seconds = lengths.seconds(item.entry.audio)
                let problem =
                    notUTF8[id].map { "\(shown):\($0.line): \(RecognizerOutput.notUTF8($0, utterance: id))" }
                    // A length of 0 is audio that cannot be read: nothing to hold the words to.
                    ?? (seconds > 0 ? RecognizerOutput.tooManyWords(in: text, audioSeconds: seconds) : nil).map {
                        "\(shown): the transcript of utterance \(id) \($0)"
                    }
                if let problem {
                    answers[key] = .undecoded(
                        key: key, failure: problem, kind: .recognizerOutput,
                        customization: system.mode == .customized ? .ignored : .notRequested)
                    continue
                }
                var answer = WorkResponse.imported(key: key, hypothesis: text, customization: customization)
                answer.audioSeconds = seconds
                answers[key] = answer
            }
        }
        return answers
    }

    /// The transcripts of one imported file, read in the format the recognizer's `format:` names or else the one
    /// its extension or lines do; an utterance whose line is not UTF-8 is kept aside (``TranscriptFile/invalidUTF8``)
    /// to fail alone.
    ///
    /// - Throws: ``RunnerError/importedTranscripts(recognizer:file:message:)`` when the file is missing, unreadable,
    ///   empty or misread; when the format came from `format:`, the message says so, with the suite's line, and
    ///   what the file's lines read as instead.
    func importedFile(_ file: URL, of system: RunPlan.System, recognizer: ExternalRecognizer) throws
        -> TranscriptFile
    {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw importFailure(
                recognizer, file,
                "no such file: the transcripts of \(system.variant.map { "variant \($0.name)" } ?? "its baseline") "
                    + "on corpus \(system.corpus.name) are expected there")
        }
        do {
            return try TranscriptIO.read(
                file, format: recognizer.transcripts?.format.flatMap(TranscriptFormat.init(rawValue:)),
                keepingInvalidUTF8: true)
        } catch let error as ScoringError where Self.isAboutContent(error) {
            throw importFailure(
                recognizer, file,
                WorkResponse.relativePaths(in: "\(error)", to: suite.folder) + formatNote(recognizer, file))
        } catch {
            throw importFailure(recognizer, file, WorkResponse.relativePaths(in: "\(error)", to: suite.folder))
        }
    }

    /// Refuses a file that holds an utterance its corpus lacks. Transcripts are matched by utterance id, never by
    /// audio (two utterances may share a recording): an id that is the name of an utterance's audio file (as a
    /// `ctm` names its lines) is refused with the utterances that audio is of, so the file can be written by id.
    func checkIDs(
        of transcripts: TranscriptFile, file: URL, corpus: Suite.Corpus, recognizer: ExternalRecognizer
    ) throws {
        let entries = try suite.entries(of: corpus, allowOutsidePaths: options.allowOutsidePaths)
        let known = Set(entries.map(\.id))
        guard let stray = transcripts.utterances.first(where: { !known.contains($0.id) }) else { return }
        let manifest = suite.reportedPath(corpus.manifest)
        let names = { (entry: CorpusEntry) -> Set<String> in
            let audio = entry.audio.standardizedFileURL
            return [
                audio.path, self.suite.reportedPath(audio), audio.lastPathComponent,
                audio.deletingPathExtension().lastPathComponent,
            ]
        }
        let sharing = entries.filter { names($0).contains(stray.id) }.map(\.id)
        guard sharing.isEmpty else {
            throw importFailure(
                recognizer, file,
                "'\(stray.id)' is not an utterance of corpus \(corpus.name) (\(manifest)) but the audio of "
                    + (sharing.count == 1 ? "utterance \(sharing[0])" : "utterances \(sharing.joined(separator: ", "))")
                    + ". Imported transcripts are matched by utterance id, not by audio file (utterances may share "
                    + "a recording): name each line by its utterance's id (in ctm or stm, the first field)")
        }
        throw importFailure(
            recognizer, file,
            "utterance '\(stray.id)' is not in corpus \(corpus.name) (\(manifest)); "
                + "a transcript must be of an utterance the corpus has." + formatNote(recognizer, file))
    }

    /// What to tell of a misread file whose format the recognizer's `format:` named: that the key sets it for every
    /// file of the recognizer (with its line), and what this file's own lines read as; empty when the format was the
    /// file's own, or when its lines read as that format too (the file, not the key, is then wrong).
    func formatNote(_ recognizer: ExternalRecognizer, _ file: URL) -> String {
        guard let transcripts = recognizer.transcripts, let format = transcripts.format else { return "" }
        let looks: String
        switch TranscriptIO.surveyedFormat(of: file) {
        case .success(let surveyed) where surveyed.rawValue == format: return ""
        case .success(let surveyed): looks = "its lines read as \(surveyed.name) instead"
        case .failure(let survey): looks = "by its lines alone, \(Self.withoutPath(survey, file))"
        }
        let key = suite.reportedPath(suite.file) + (transcripts.formatLine.map { ":\($0)" } ?? "")
        return " It was read as \(format) because recognizer \(recognizer.name)'s 'format: \(format)' (\(key)) names "
            + "the format of all its files; \(looks). Correct the file, or remove 'format:' so that each file's "
            + "format is told from its extension or its lines."
    }

    /// A survey's message without the file's path in front (the message names the file already).
    private static func withoutPath(_ error: ScoringError, _ file: URL) -> String {
        let text = "\(error)"
        return text.hasPrefix(file.path + ": ") ? String(text.dropFirst(file.path.count + 2)) : text
    }

    /// Whether a reader's error is about what the file holds (its lines, its format), not about reaching it.
    private static func isAboutContent(_ error: ScoringError) -> Bool {
        switch error {
        case .unreadableFile, .emptyFile: false
        default: true
        }
    }

    private func importFailure(_ recognizer: ExternalRecognizer, _ file: URL, _ message: String) -> RunnerError {
        .importedTranscripts(recognizer: recognizer.name, file: suite.reportedPath(file), message: message)
    }
}
