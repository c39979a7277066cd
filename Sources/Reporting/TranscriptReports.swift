import Formats
import Foundation
import Results
import Scoring

/// sclite input files written from the results, so a run can be re-scored with NIST tools.
public enum TranscriptReport {
    /// The references of a system as `trn` lines (`words (id)`), in corpus order.
    public static func referenceTRN(_ system: SystemResults) -> String {
        TranscriptIO.trn(system.utterances.map { Utterance(id: $0.id, text: $0.reference, speaker: $0.speaker) })
    }

    /// The references of a system with their utterances' biasing lists, in the biasing-list format
    /// `gambit score` reads (`id`, text, a JSON list of the reference's biased words, a JSON list of the whole
    /// list), so that scoring it against the system's `trn` reproduces the run's B-WER, U-WER and list summary.
    /// Lists are written as the run scores them, normalized words (``Scoring/BiasingList/words(of:normalizer:)``);
    /// `nil` when the records carry no lists.
    public static func referenceBiasingTSV(_ system: SystemResults, normalizer: Normalizer) -> String? {
        guard system.utterances.contains(where: { $0.biasingList != nil }) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func json(_ words: [String]) -> String {
            // Encoding an array of strings cannot fail.
            String(decoding: (try? encoder.encode(words)) ?? Data("[]".utf8), as: UTF8.self)
        }
        var out = ""
        for record in system.utterances {
            let list = BiasingList.words(of: record.biasingList ?? [], normalizer: normalizer)
            let biased = record.biasedWords(normalizer: normalizer) ?? []
            // A tab or line break inside the text would split the row.
            let text = record.reference.split(whereSeparator: { $0 == "\t" || $0.isNewline }).joined(separator: " ")
            out += "\(record.id)\t\(text)\t\(json(biased))\t\(json(list))\n"
        }
        return out
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

    /// The file name of a system, without extension: `corpus.mode[.variant][.list][.recognizer]` (`.list` the
    /// phrase list's name, `global`, `local+100`, for a list system), each name made safe by ``PathComponent`` (a
    /// dot inside a name is `%2E`, so the parts stay apart).
    static func baseName(_ system: SystemResults) -> PathComponent {
        PathComponent(
            joining: [system.corpus, system.mode.rawValue, system.variant, system.list?.name, system.recognizer]
                .compactMap { $0 })
    }

    /// The file name of a corpus's references, without extension: `corpus.ref` (no mode is called `ref`).
    static func referenceName(_ corpus: String) -> PathComponent {
        PathComponent(joining: [corpus, "ref"])
    }
}
