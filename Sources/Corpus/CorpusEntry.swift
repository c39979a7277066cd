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

    public init(
        id: String, audio: URL, text: String, speaker: String? = nil, split: String? = nil,
        condition: String? = nil, duration: Double? = nil
    ) {
        self.id = id
        self.audio = audio
        self.text = text
        self.speaker = speaker
        self.split = split
        self.condition = condition
        self.duration = duration
    }
}
