import Foundation
import Results
import Scoring

/// sclite input files written from the results, so a run can be re-scored with NIST tools.
public enum TranscriptReport {
    /// The references of a system as `trn` lines (`words (id)`), in corpus order.
    public static func referenceTRN(_ system: SystemResults) -> String {
        TranscriptIO.trn(system.utterances.map { Utterance(id: $0.id, text: $0.reference, speaker: $0.speaker) })
    }

    /// The hypotheses of a system as `trn` lines; failed utterances are empty lines with their id.
    public static func hypothesisTRN(_ system: SystemResults) -> String {
        TranscriptIO.trn(system.utterances.map { Utterance(id: $0.id, text: $0.hypothesis, speaker: $0.speaker) })
    }

    /// The hypotheses of a system as `ctm` lines (`file channel start duration word [confidence]`), the file being
    /// the utterance id. Utterances without word times get their words spread evenly over the audio, after a
    /// `;;` comment that says so.
    public static func hypothesisCTM(_ system: SystemResults) -> String {
        var out = ""
        for record in system.utterances {
            if let words = record.words {
                out += TranscriptIO.ctm(
                    words.map {
                        TimedWord(
                            file: record.id, start: $0.start, duration: $0.duration, word: $0.word,
                            confidence: $0.confidence)
                    })
            } else {
                let words = record.hypothesis.split(separator: " ").map(String.init)
                guard !words.isEmpty else { continue }
                out += ";; \(record.id): no word times; words spread evenly over the audio\n"
                let step = record.audioSeconds > 0 ? record.audioSeconds / Double(words.count) : 0
                out += TranscriptIO.ctm(
                    words.enumerated().map { index, word in
                        TimedWord(file: record.id, start: Double(index) * step, duration: step, word: word)
                    })
            }
        }
        return out
    }

    /// The file name of a system, without extension: `corpus.mode[.variant][.recognizer]`, each name made safe
    /// by ``PathComponent`` (a dot inside a name is `%2E`, so the parts stay apart).
    static func baseName(_ system: SystemResults) -> PathComponent {
        PathComponent(
            joining: [system.corpus, system.mode.rawValue, system.variant, system.recognizer].compactMap { $0 })
    }

    /// The file name of a corpus's references, without extension: `corpus.ref` (no mode is called `ref`).
    static func referenceName(_ corpus: String) -> PathComponent {
        PathComponent(joining: [corpus, "ref"])
    }
}
