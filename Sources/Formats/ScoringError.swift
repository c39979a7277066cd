/// A problem with scoring input that stops scoring; the message says what, where and what to do.
///
/// It lives with the formats because most of its cases are a transcript file that cannot be read; the scorer
/// throws the rest (no common utterances, mismatched systems), and both are what `gambit score` reports.
public enum ScoringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read.
    case unreadableFile(path: String, reason: String)
    /// The path names a device, a pipe or a socket (`/dev/null`), not a file: `kind` says which.
    case notAFile(path: String, kind: String)
    /// The file is empty; `blank` when it holds white space (or, in a file of unknown format, `;;` comments) and
    /// nothing else.
    case emptyFile(path: String, blank: Bool)
    /// The file's format could not be told from its extension or contents.
    case unknownFormat(path: String)
    /// Every line of the file reads as each of `formats` (Kaldi text whose words are numbers reads as `ctm` or
    /// `stm` too), so its format is not guessed.
    case ambiguousFormat(path: String, formats: [TranscriptFormat])
    /// The file's lines are not in one format: `line` is the first that is not in `format`, which `count` of its
    /// `lines` lines are in, and reads as `lineFormats` (none: as no format).
    case mixedFormats(
        path: String, line: Int, format: TranscriptFormat, count: Int, lines: Int, lineFormats: [TranscriptFormat])
    /// A transcript line has no `(id)` at its end.
    case missingUtteranceID(path: String, line: Int, text: String)
    /// Two lines carry the same utterance id.
    case duplicateUtteranceID(path: String, id: String, firstLine: Int, line: Int)
    /// A line is not valid UTF-8.
    case invalidUTF8(path: String, line: Int, id: String?)
    /// A line does not follow its format.
    case malformedLine(path: String, line: Int, reason: String)
    /// The file holds no utterances.
    case noUtterances(path: String)
    /// Reference and hypothesis share no utterance id.
    case noCommonUtterances(
        reference: String, hypothesis: String, referenceSample: [String], hypothesisSample: [String])
    /// Two systems compared for significance must be scored on the same utterances.
    case mismatchedSystems(reason: String)
    /// Boosted words were given for the whole file and the reference carries its own list per utterance.
    case conflictingBiasingLists(reference: String)
    /// The label a breakdown was asked for cannot be read from the reference.
    case unusableBreakdownField(path: String, field: String, reason: String)
    /// Reference utterances have no hypothesis and the policy is ``MissingHypothesisPolicy/error``.
    case missingHypotheses(hypothesis: String, missing: Int, references: Int, sample: [String])

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "\(path): cannot read the file (\(reason)). Check the path and its permissions."
        case .notAFile(let path, let kind):
            return "\(path): this is \(kind), not a file, so there are no transcripts to read from it. "
                + "Give the path of a transcript file."
        case .emptyFile(let path, let blank):
            return "\(path): the file " + (blank ? "holds only blank lines and comments" : "is empty")
                + ", so it has no utterances. Check that this is the right file, and that whatever wrote it had "
                + "finished writing it."
        case .unknownFormat(let path):
            return "\(path): unknown transcript format. Use a trn, ctm, stm, JSON-lines, Kaldi text or "
                + "biasing-list file, or name the format with --ref-format or --hyp-format."
        case .ambiguousFormat(let path, let formats):
            return "\(path): every line reads as \(Self.names(formats, "and")) alike, so the format is not guessed. "
                + "Name it with --ref-format or --hyp-format (\(formats.map(\.rawValue).joined(separator: ", ")))."
        case .mixedFormats(let path, let line, let format, let count, let lines, let lineFormats):
            return "\(path):\(line): this line is not \(format.name), as \(count) of the file's \(lines) lines "
                + (count == 1 ? "is" : "are") + "; it reads as "
                + (lineFormats.isEmpty ? "no format" : Self.names(lineFormats, "or")) + ". A file holds one format: "
                + "correct the line, or name the format with --ref-format or --hyp-format."
        case .missingUtteranceID(let path, let line, let text):
            return
                "\(path):\(line): missing utterance id: a trn line must end with '(id)', got \"\(text.prefix(60))\". "
                + "Add the id in parentheses at the end of the line."
        case .duplicateUtteranceID(let path, let id, let firstLine, let line):
            return "\(path):\(line): duplicate utterance id '\(PrintedName.alone(id))' (first on line \(firstLine)). "
                + "Each utterance must appear once; remove or rename one of them."
        case .invalidUTF8(let path, let line, let id):
            let which = id.map { " (utterance '\(PrintedName.alone($0))')" } ?? ""
            return
                "\(path):\(line): invalid UTF-8\(which). Re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)."
        case .malformedLine(let path, let line, let reason):
            return "\(path):\(line): \(reason)"
        case .noUtterances(let path):
            return "\(path): no utterances found. Check that this is the right file and format."
        case .missingHypotheses(let hypothesis, let missing, let references, let sample):
            return "\(hypothesis): \(missing) of \(references) reference utterances have no hypothesis ("
                + PrintedName.distinguished(sample).joined(separator: ", ") + (missing > sample.count ? ", …" : "")
                + "). Decode them again, or score without --strict to count them as all deletions."
        case .noCommonUtterances(let reference, let hypothesis, let referenceSample, let hypothesisSample):
            // Ids that print alike but differ (a trailing NUL, another Unicode normal form) get their code points.
            let references = PrintedName.distinguished(referenceSample, from: hypothesisSample)
            let hypotheses = PrintedName.distinguished(hypothesisSample, from: referenceSample)
            return "\(reference) and \(hypothesis) share no utterance ids (reference has e.g. "
                + "\(references.joined(separator: ", ")); hypothesis has e.g. "
                + "\(hypotheses.joined(separator: ", "))). Check that both files come from the same test set "
                + "and use the same id convention."
        case .conflictingBiasingLists(let reference):
            return "\(reference): the reference gives each utterance its own biasing list, so boosted words for "
                + "the whole file cannot also apply. Leave out the boosted words (--boosted) to score with each "
                + "utterance's list, or score a reference without lists."
        case .mismatchedSystems(let reason):
            return "cannot compare the systems: \(reason)"
        case .unusableBreakdownField(let path, let field, let reason):
            return "\(path): cannot break the scores down by \"\(field)\": \(reason)"
        }
    }

    /// Format names for a sentence: `ctm, stm or Kaldi text`.
    private static func names(_ formats: [TranscriptFormat], _ conjunction: String) -> String {
        let names = formats.map(\.name)
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}

/// A problem that does not stop scoring but changes what was scored.
public struct ScoringWarning: Sendable, Codable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Codable, Hashable {
        /// Utterances with a reference but no hypothesis.
        case onlyInReference
        /// Utterances with a hypothesis but no reference.
        case onlyInHypothesis
        /// A line that was skipped.
        case skippedLine
    }

    public var kind: Kind
    /// The file the warning is about.
    public var file: String
    /// The line, when the warning is about one line.
    public var line: Int?
    /// The utterance ids concerned (at most ``sampleLimit``; ``count`` has the total).
    public var ids: [String]
    /// How many utterances or lines are concerned.
    public var count: Int
    /// A readable explanation with what to do.
    public var message: String

    /// The most ids a warning lists.
    public static let sampleLimit = 20

    package init(kind: Kind, file: String, line: Int?, ids: [String], count: Int, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.ids = ids
        self.count = count
        self.message = message
    }

    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        return "warning: \(location): \(message)"
    }
}
