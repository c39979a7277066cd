import Formats
import Foundation

/// One utterance of a test corpus: an audio file and what was said in it.
///
/// This is what every manifest format is read into (``CorpusManifest/load(_:format:audioFolder:)``) and what
/// ``Synthesizer`` writes. The audio file need not exist when the entry is made: the runner reports a missing
/// file for that utterance and goes on with the rest.
public struct CorpusEntry: Codable, Sendable, Hashable {
    /// A unique name for the utterance within its corpus, e.g. `chess-007-slt-noise15`.
    public var id: String
    /// The audio file, as an absolute file URL.
    public var audio: URL
    /// The reference transcription; may be empty when the manifest says so explicitly.
    public var text: String
    /// Who (or which synthetic voice) spoke, when known.
    public var speaker: String?
    /// The corpus split the utterance belongs to (`dev`, `test`, …), when known.
    public var split: String?
    /// The recording condition (`clean`, `noise:15`, `telephone`, …), when known.
    public var condition: String?
    /// Length of the audio in seconds, when the manifest states it.
    public var duration: Double?
    /// The utterance's own biasing list, as the contextual-biasing literature publishes its test sets (Le et al.,
    /// Interspeech 2021): the words of its reference that are biased plus distractors. When a corpus's entries
    /// carry lists, B-WER and U-WER are scored per utterance: a word is biased when it is on the utterance's list
    /// and in its reference. `nil` when the manifest gives none (the variant's boosted words are scored instead).
    public var boosted: [String]?

    public init(
        id: String, audio: URL, text: String, speaker: String? = nil, split: String? = nil,
        condition: String? = nil, duration: Double? = nil, boosted: [String]? = nil
    ) {
        self.id = id
        self.audio = audio
        self.text = text
        self.speaker = speaker
        self.split = split
        self.condition = condition
        self.duration = duration
        self.boosted = boosted
    }
}

extension CorpusEntry {
    /// Why `id` cannot be an utterance id, or nil when it can.
    ///
    /// Ids are written into sclite files that separate fields by whitespace and mark the id with parentheses:
    /// `trn` lines are `text (id)` and `ctm` lines `id channel start duration word`. An id holding whitespace, a
    /// parenthesis or a control character, or one that starts with `;;` (a `ctm` comment), would read back as a
    /// different id or not at all, so it is refused where it enters. The scorer's own readers refuse the same
    /// characters where they would misread them (`RecordScanner` in the Scoring module).
    ///
    /// - Parameter id: The id as the manifest gives it.
    /// - Returns: The problem, e.g. `holds a space (U+0020) at character 4`; nil for an id every format holds.
    public static func idProblem(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        if id.hasPrefix(";;") { return "starts with \";;\", which sclite reads as a comment" }
        for (offset, scalar) in id.unicodeScalars.enumerated() {
            let name: String
            switch scalar {
            case " ": name = "a space"
            case "\t": name = "a tab"
            case "(", ")": name = "a parenthesis \"\(scalar)\""
            case _ where scalar.properties.generalCategory == .control: name = "a control character"
            case _ where scalar.properties.isWhitespace: name = "a whitespace character"
            default: continue
            }
            let code = String(scalar.value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            return "holds \(name) (U+\(padded)) at character \(offset + 1)"
        }
        return nil
    }
}

extension CorpusEntry {
    /// The entry with its reference text in Unicode Normalization Form C.
    ///
    /// The same word can be written with a precomposed letter (`é`, U+00E9) or a letter and a combining mark
    /// (`e` U+0065 + U+0301); manifests are read into NFC so that every stage after them (reports, the oracle's
    /// training text) sees one spelling, composed by ``NormalForm/composed(_:)``, as the scorer composes every word.
    func composed() -> CorpusEntry {
        var entry = self
        entry.text = NormalForm.composed(text)
        entry.boosted = boosted?.map(NormalForm.composed)
        return entry
    }
}
