import Foundation

/// A transcript file format.
public enum TranscriptFormat: String, Sendable, Codable, Hashable, CaseIterable {
    /// sclite `trn`: the words, then the utterance id in parentheses: `the cat sat (spk1_utt1)`.
    case trn
    /// sclite `ctm`: one word per line: `file channel start duration word [confidence]`. Words are grouped into one
    /// utterance per file (id = file name) in start-time order.
    case ctm
    /// sclite `stm`: `file channel speaker begin end [<labels>] text`. Segments are grouped into one utterance per
    /// file (id = file name) in begin-time order.
    case stm
    /// JSON lines: `{"id": "...", "text": "...", "speaker": "..."}`, `speaker` optional. A line may carry its
    /// utterance's biasing list as a Gambit manifest does, `"boosted": ["albin", "winawer"]` (then every line
    /// must): B-WER and U-WER are then scored per utterance, its biased words being the list's words its
    /// reference holds.
    case jsonl
    /// Kaldi `text`: the utterance id, then the words, separated by a space or a tab; a line with an id and
    /// nothing else is an empty transcript.
    case kaldi
    /// Per-utterance biasing lists, as the contextual-biasing literature publishes its test sets: tab-separated
    /// `id`, `reference text`, a JSON list of the reference's biased words, and a JSON list of the whole biasing
    /// list given to the recognizer (those words plus distractors). A reference; B-WER and U-WER are then
    /// scored with each utterance's own biased words.
    case biasingTSV = "biasing-tsv"

    /// The format as a message names it: `Kaldi text`, `JSON lines`, `a biasing list`, or the sclite name.
    public var name: String {
        switch self {
        case .trn, .ctm, .stm: rawValue
        case .jsonl: "JSON lines"
        case .kaldi: "Kaldi text"
        case .biasingTSV: "a biasing list"
        }
    }

    /// The format implied by a file name's extension (`.json` counts as JSON lines), or `nil` when the
    /// extension does not say (`.txt` and `.tsv` are read by content).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "trn": self = .trn
        case "ctm": self = .ctm
        case "stm": self = .stm
        case "jsonl", "json", "ndjson": self = .jsonl
        default: return nil
        }
    }
}

/// One utterance of a transcript.
public struct Utterance: Sendable, Codable, Hashable {
    /// The utterance id, unique within a file.
    public var id: String
    /// The words as written (before normalization).
    public var text: String
    /// The speaker, if the format carries one. For `trn`, the part of the id before the first `_`.
    public var speaker: String?

    public init(id: String, text: String, speaker: String? = nil) {
        self.id = id
        self.text = text
        self.speaker = speaker
    }
}

/// A word with times, as in a `ctm` file.
public struct TimedWord: Sendable, Codable, Hashable {
    public var file: String
    public var channel: String
    /// Start time in seconds.
    public var start: Double
    /// Duration in seconds.
    public var duration: Double
    public var word: String
    /// Confidence in 0…1, if known.
    public var confidence: Double?

    public init(
        file: String, channel: String = "1", start: Double, duration: Double, word: String,
        confidence: Double? = nil
    ) {
        self.file = file
        self.channel = channel
        self.start = start
        self.duration = duration
        self.word = word
        self.confidence = confidence
    }
}

/// A reference segment, as in an `stm` file.
public struct Segment: Sendable, Codable, Hashable {
    public var file: String
    public var channel: String
    public var speaker: String
    /// Begin time in seconds.
    public var begin: Double
    /// End time in seconds.
    public var end: Double
    public var text: String

    public init(file: String, channel: String = "1", speaker: String, begin: Double, end: Double, text: String) {
        self.file = file
        self.channel = channel
        self.speaker = speaker
        self.begin = begin
        self.end = end
        self.text = text
    }
}

/// The utterances read from one file, with anything that was skipped.
public struct TranscriptFile: Sendable, Codable, Hashable {
    public var path: String
    public var format: TranscriptFormat
    public var utterances: [Utterance]
    public var warnings: [ScoringWarning]
    /// The utterances whose line is not UTF-8, when the reader was asked to keep them
    /// (``TranscriptIO/read(_:format:keepingInvalidUTF8:)``); each is in ``utterances`` too, its text with
    /// replacement characters, and must not be scored.
    public var invalidUTF8: [InvalidUTF8Utterance] = []
}

/// An utterance whose line of a transcript file is not UTF-8.
public struct InvalidUTF8Utterance: Sendable, Codable, Hashable {
    public var id: String
    public var line: Int
    /// The 0-based offset in the file of the line's first byte that is not UTF-8.
    public var offset: Int
    public var byte: UInt8

    public init(id: String, line: Int, offset: Int, byte: UInt8) {
        self.id = id
        self.line = line
        self.offset = offset
        self.byte = byte
    }
}

/// Reading and writing sclite `trn`, `ctm`, `stm` and JSON-lines transcripts.
public enum TranscriptIO {
    /// Reads a transcript file.
    /// - Parameters:
    ///   - url: The file.
    ///   - format: The format; when `nil`, the one the extension names, else the one every line reads as
    ///     (see ``format(of:)``).
    ///   - keepingInvalidUTF8: Keep a `trn`, Kaldi text or JSON line that is not UTF-8 but whose id is, listing
    ///     it in ``TranscriptFile/invalidUTF8`` (so that a recognizer's one bad line fails its utterance alone)
    ///     rather than refuse the file.
    /// - Returns: The utterances in file order.
    /// - Throws: ``ScoringError`` naming the file, line and id of the first problem.
    public static func read(_ url: URL, format: TranscriptFormat? = nil, keepingInvalidUTF8: Bool = false) throws
        -> TranscriptFile
    {
        let data = try load(url)
        return try decode(
            data, path: url.path, format: format ?? inferFormat(url: url, data: data),
            keepingInvalidUTF8: keepingInvalidUTF8)
    }

    /// Parses transcript text held in memory (same rules as ``read(_:format:)``).
    /// - Parameters:
    ///   - text: The file contents.
    ///   - format: The format.
    ///   - path: The name used in errors and warnings.
    public static func parse(_ text: String, format: TranscriptFormat, path: String = "<memory>") throws
        -> TranscriptFile
    {
        try decode(Data(text.utf8), path: path, format: format)
    }

    private static func decode(
        _ data: Data, path: String, format: TranscriptFormat, keepingInvalidUTF8: Bool = false
    ) throws -> TranscriptFile {
        var utterances: [Utterance] = []
        var warnings: [ScoringWarning] = []
        var firstLine: [String: Int] = [:]
        var invalid: [InvalidUTF8Utterance] = []
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            try RecordScanner.scan(
                bytes, format: format, path: path, warnings: &warnings, keepingInvalidUTF8: keepingInvalidUTF8
            ) { record in
                let id = String(decoding: record.id, as: UTF8.self)
                if let first = firstLine[id] {
                    throw ScoringError.duplicateUtteranceID(path: path, id: id, firstLine: first, line: record.line)
                }
                firstLine[id] = record.line
                if let offset = record.invalidByte {
                    invalid.append(InvalidUTF8Utterance(id: id, line: record.line, offset: offset, byte: bytes[offset]))
                }
                utterances.append(
                    Utterance(
                        id: id, text: String(decoding: record.text, as: UTF8.self),
                        speaker: record.speaker.map { String(decoding: $0, as: UTF8.self) }))
            }
        }
        return TranscriptFile(
            path: path, format: format, utterances: utterances, warnings: warnings, invalidUTF8: invalid)
    }

    /// Renders utterances as sclite `trn` lines: `words (id)`.
    public static func trn(_ utterances: [Utterance]) -> String {
        var out = ""
        for utterance in utterances {
            out += utterance.text.isEmpty ? "(\(utterance.id))\n" : "\(utterance.text) (\(utterance.id))\n"
        }
        return out
    }

    /// Renders timed words as sclite `ctm` lines.
    public static func ctm(_ words: [TimedWord]) -> String {
        var out = ""
        for word in words {
            out += "\(word.file) \(word.channel) \(format(word.start)) \(format(word.duration)) \(word.word)"
            if let confidence = word.confidence { out += " \(format(confidence))" }
            out += "\n"
        }
        return out
    }

    /// Renders reference segments as sclite `stm` lines.
    public static func stm(_ segments: [Segment]) -> String {
        var out = ""
        for segment in segments {
            out +=
                "\(segment.file) \(segment.channel) \(segment.speaker) \(format(segment.begin)) "
                + "\(format(segment.end)) \(segment.text)\n"
        }
        return out
    }

    /// Reads every word of a `ctm` file.
    public static func readCTMWords(_ url: URL) throws -> [TimedWord] {
        let data = try load(url)
        var warnings: [ScoringWarning] = []
        return try data.withUnsafeBytes { raw in
            try RecordScanner.ctmWords(raw.bindMemory(to: UInt8.self), path: url.path, warnings: &warnings)
        }
    }

    /// Reads every segment of an `stm` file.
    public static func readSTMSegments(_ url: URL) throws -> [Segment] {
        let data = try load(url)
        var warnings: [ScoringWarning] = []
        return try data.withUnsafeBytes { raw in
            try RecordScanner.stmSegments(raw.bindMemory(to: UInt8.self), path: url.path, warnings: &warnings)
        }
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    /// The bytes of a transcript file: the one way every reader of one gets them.
    /// - Throws: ``ScoringError/notAFile(path:kind:)`` for a device, pipe or socket (`/dev/null`), which is not
    ///   read at all (a pipe would wait for a writer); ``ScoringError/emptyFile(path:blank:)`` when it holds
    ///   nothing but white space; ``ScoringError/unreadableFile(path:reason:)`` when it cannot be read.
    package static func load(_ url: URL) throws -> Data {
        if let kind = FileSystemReason.specialKind(of: url) {
            throw ScoringError.notAFile(path: url.path, kind: kind)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ScoringError.unreadableFile(path: url.path, reason: FileSystemReason.reading(url, error))
        }
        if !data.contains(where: { !(RecordScanner.isSpace($0) || $0 == 0x0A) }) {
            throw ScoringError.emptyFile(path: url.path, blank: !data.isEmpty)
        }
        return data
    }

    /// The format ``read(_:format:)`` and ``Scorer`` take for a file when none is named: the one its extension
    /// names, else the one every line of it reads as (see ``FormatSurvey``).
    /// - Returns: The format, and whether it was guessed from the file's lines rather than its extension: a guess
    ///   worth telling the user.
    /// - Throws: ``ScoringError`` when the file cannot be read, holds no line, or its lines read as no one format
    ///   (naming the first line that differs) or as several.
    public static func format(of url: URL) throws -> (format: TranscriptFormat, fromContent: Bool) {
        if let format = TranscriptFormat(fileExtension: url.pathExtension) { return (format, false) }
        return (try inferFormat(url: url, data: load(url)), true)
    }

    /// The one format every line of a file reads as, whatever its extension says: what a file looks like when it
    /// was read in a format named for it and misread.
    public static func surveyedFormat(of url: URL) -> Result<TranscriptFormat, ScoringError> {
        Result {
            let data = try load(url)
            var survey = FormatSurvey()
            data.withUnsafeBytes { raw in survey.read(raw.bindMemory(to: UInt8.self)) }
            return try survey.format(path: url.path)
        }.mapError { $0 as? ScoringError ?? .unreadableFile(path: url.path, reason: "\($0)") }
    }

    /// The format a file's extension names, else the one format every line of it reads as.
    package static func inferFormat(url: URL, data: Data) throws -> TranscriptFormat {
        if let format = TranscriptFormat(fileExtension: url.pathExtension) { return format }
        var survey = FormatSurvey()
        data.withUnsafeBytes { raw in survey.read(raw.bindMemory(to: UInt8.self)) }
        return try survey.format(path: url.path)
    }
}
