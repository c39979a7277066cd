/// One line of an sclite `trn` file, `text (id)`: the one reading of the format, shared by transcripts
/// (``TranscriptIO``, byte by byte) and corpus manifests (the Corpus module, line by line).
///
/// The id runs from the line's last `(` to its final `)`, trimmed of spaces, as sclite reads it; the text is what
/// comes before, trailing spaces dropped. An id that this reading would get wrong is refused rather than guessed:
/// one that held a parenthesis comes out shorter (`text (utt(1))` reads as `1)`, leaving an open `(` in the text),
/// and a control character cannot be written back. A line that starts with `;;` is a comment.
public enum TRNLine {
    /// Why a line is not `text (id)`.
    public enum Problem: Error, Equatable, Sendable {
        /// No `(id)` at the end, or an empty one.
        case noID
        /// An `(` in the text is never closed: the id probably held it. `id` is what follows that `(`.
        case unclosedParenthesis(id: String)
        /// The id holds `)` or a control character (`what` names it).
        case unwritableID(id: String, what: String)

        /// What the id holds that a trn line cannot, as a message's ending ("a parenthesis '('").
        public var holds: String? {
            switch self {
            case .noID: nil
            case .unclosedParenthesis: "a parenthesis '('"
            case .unwritableID(_, let what): what
            }
        }
    }

    /// Whether the line (without its line end) is a `;;` comment.
    package static func isComment(_ bytes: UnsafeBufferPointer<UInt8>, first: Int, end: Int) -> Bool {
        end - first >= 2 && bytes[first] == UInt8(ascii: ";") && bytes[first + 1] == UInt8(ascii: ";")
    }

    /// The text's and the id's byte ranges in `bytes[first..<end]`, a line without its line end or edge spaces.
    package static func split(_ bytes: UnsafeBufferPointer<UInt8>, first: Int, end: Int) throws(Problem) -> (
        text: Range<Int>, id: Range<Int>
    ) {
        var open = end - 1
        if end > first, bytes[end - 1] == UInt8(ascii: ")") {
            while open >= first && bytes[open] != UInt8(ascii: "(") { open -= 1 }
        } else {
            open = first - 1
        }
        var idStart = open + 1
        var idEnd = end - 1
        while idStart < idEnd && RecordScanner.isSpace(bytes[idStart]) { idStart += 1 }
        while idEnd > idStart && RecordScanner.isSpace(bytes[idEnd - 1]) { idEnd -= 1 }
        guard open >= first, idEnd > idStart else { throw .noID }
        try checkID(bytes, first: first, open: open, id: idStart..<idEnd)
        var textEnd = open
        while textEnd > first && RecordScanner.isSpace(bytes[textEnd - 1]) { textEnd -= 1 }
        return (first..<textEnd, idStart..<idEnd)
    }

    /// Refuses an id this reading would misread (see ``TRNLine``).
    private static func checkID(
        _ bytes: UnsafeBufferPointer<UInt8>, first: Int, open: Int, id: Range<Int>
    ) throws(Problem) {
        var depth = 0
        var unclosed = -1
        for index in first..<open {
            if bytes[index] == UInt8(ascii: "(") {
                if depth == 0 { unclosed = index }
                depth += 1
            } else if bytes[index] == UInt8(ascii: ")") && depth > 0 {
                depth -= 1
            }
        }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        if depth > 0 { throw .unclosedParenthesis(id: text((unclosed + 1)..<id.upperBound)) }
        if id.contains(where: { bytes[$0] == UInt8(ascii: ")") }) {
            throw .unwritableID(id: text(id), what: "a parenthesis ')'")
        }
        if id.contains(where: { bytes[$0] < 0x20 || bytes[$0] == 0x7F }) {
            throw .unwritableID(id: text(id), what: "a control character")
        }
    }

    /// Reads one line (without its line end): its text, as written, and its id.
    /// - Throws: ``Problem`` when the line is not `text (id)` or its id would be misread.
    public static func read(_ line: String) throws(Problem) -> (text: String, id: String) {
        var bytes = Array(line.utf8)
        var first = 0
        while first < bytes.count && RecordScanner.isSpace(bytes[first]) { first += 1 }
        while bytes.count > first, RecordScanner.isSpace(bytes[bytes.count - 1]) { bytes.removeLast() }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(Problem) -> (text: String, id: String) in
            let (text, id) = try split(buffer, first: first, end: buffer.count)
            return (
                String(decoding: UnsafeBufferPointer(rebasing: buffer[text]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: buffer[id]), as: UTF8.self)
            )
        }
    }
}
