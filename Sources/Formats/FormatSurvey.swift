/// A set of transcript formats.
package struct FormatSet: OptionSet, Sendable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package init(_ format: TranscriptFormat) {
        rawValue = 1 << UInt8(Self.cases.firstIndex(of: format)!)
    }

    /// Every format, in declaration order.
    package static let cases = TranscriptFormat.allCases
    package static let all = FormatSet(rawValue: (1 << UInt8(cases.count)) - 1)

    /// The formats in the set, in declaration order.
    package var formats: [TranscriptFormat] { Self.cases.filter { contains(FormatSet($0)) } }
}

/// Which formats a file's lines read as: how ``TranscriptIO`` guesses the format of a file whose extension does
/// not name one.
///
/// A line reads as JSON lines when it is `{…}`, as `trn` when it ends in `(id)`, as a biasing list when it is a
/// tab-separated row whose third (or fourth) column starts a JSON list, as `ctm` when its third and fourth fields
/// are a start and a duration (and a sixth, if any, a confidence), and as `stm` when its fourth and fifth are a
/// begin and an end. It reads as Kaldi text unless it is one of the first three, which Kaldi words do not look
/// like, or its first field (the id) is an earlier line's. Kaldi words may be numbers, so `utt1 4 2 0 7 1` reads
/// as `ctm`, `stm` and Kaldi text alike. Blank lines and `;;` comments read as nothing.
///
/// The file is in the one format every line reads as. When that is several formats, or none, it is not guessed:
/// the format must be named.
package struct FormatSurvey {
    /// The first line that does not read as a format.
    struct Miss {
        var line: Int
        /// What the line reads as.
        var formats: FormatSet
        /// The line would be Kaldi text but for its id, which an earlier line has.
        var repeatsAnID: Bool
    }

    /// Lines read, blank lines and comments aside.
    package private(set) var lines = 0
    /// The formats every line read so far reads as.
    package private(set) var common = FormatSet.all
    /// Per format, in declaration order: how many lines read as it, and the first line that does not.
    private var counts = [Int](repeating: 0, count: FormatSet.cases.count)
    private var misses = [Miss?](repeating: nil, count: FormatSet.cases.count)
    /// The first fields of the lines that read as Kaldi text.
    private let ids = TokenTable(expectedCount: 1 << 8)

    /// Reads every line of a file.
    package mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) {
        RecordScanner.forEachContentLine(bytes) { first, end, line in
            let text = UnsafeBufferPointer(rebasing: bytes[first..<end])
            if text.starts(with: ";;".utf8) { return }
            var formats = Self.formats(of: text)
            var repeatsAnID = false
            if formats.contains(FormatSet(.kaldi)) {
                let known = ids.count
                _ = ids.intern(text.baseAddress!, text.firstIndex(where: RecordScanner.isSpace) ?? text.count)
                repeatsAnID = ids.count == known
                if repeatsAnID { formats.remove(FormatSet(.kaldi)) }
            }
            lines += 1
            common.formIntersection(formats)
            for (index, format) in FormatSet.cases.enumerated() {
                if formats.contains(FormatSet(format)) {
                    counts[index] += 1
                } else if misses[index] == nil {
                    misses[index] = Miss(line: line, formats: formats, repeatsAnID: repeatsAnID && format == .kaldi)
                }
            }
        }
    }

    /// The one format every line read as.
    /// - Parameter path: The file, as errors name it.
    /// - Throws: ``ScoringError/emptyFile(path:blank:)`` when no line was read (the file holds only blank lines
    ///   and `;;` comments),
    ///   ``ScoringError/ambiguousFormat(path:formats:)`` when every line reads as several formats, and
    ///   ``ScoringError/mixedFormats(path:line:format:count:lines:lineFormats:)`` when no format reads every line,
    ///   naming the first line that is not in the format most lines are in.
    package func format(path: String) throws -> TranscriptFormat {
        guard lines > 0 else { throw ScoringError.emptyFile(path: path, blank: true) }
        let agreed = common.formats
        if agreed.count == 1 { return agreed[0] }
        if agreed.count > 1 { throw ScoringError.ambiguousFormat(path: path, formats: agreed) }
        // On a tie, a format other than Kaldi text: a malformed line of any format reads as Kaldi text.
        let index = { (format: TranscriptFormat) in FormatSet.cases.firstIndex(of: format)! }
        var most = TranscriptFormat.trn
        for format in FormatSet.cases.filter({ $0 != .kaldi }) + [.kaldi]
        where counts[index(format)] > counts[index(most)] {
            most = format
        }
        let miss = misses[index(most)]!
        // Kaldi text but for an id that an earlier line has: its reader names both lines.
        if most == .kaldi && miss.repeatsAnID { return .kaldi }
        throw ScoringError.mixedFormats(
            path: path, line: miss.line, format: most, count: counts[index(most)], lines: lines,
            lineFormats: miss.formats.formats)
    }

    /// The formats one line (not blank, trailing whitespace trimmed) reads as, Kaldi text included unless the line
    /// is JSON, `trn` or a biasing row.
    package static func formats(of line: UnsafeBufferPointer<UInt8>) -> FormatSet {
        var formats: FormatSet = []
        if line.first == UInt8(ascii: "{") && line.last == UInt8(ascii: "}") { formats.insert(FormatSet(.jsonl)) }
        if line.last == UInt8(ascii: ")") && line.contains(UInt8(ascii: "(")) { formats.insert(FormatSet(.trn)) }
        if isBiasingRow(line) { formats.insert(FormatSet(.biasingTSV)) }
        if formats.isEmpty { formats.insert(FormatSet(.kaldi)) }
        let numbers = leadingNumbers(line)
        guard numbers.count >= 5 else { return formats }
        // As the ctm and stm readers take them.
        if let start = numbers[2], let duration = numbers[3], start >= 0, duration >= 0,
            numbers.count < 6 || numbers[5].map({ (0...1).contains($0) }) == true
        {
            formats.insert(FormatSet(.ctm))
        }
        if let begin = numbers[3], let end = numbers[4], 0 <= begin, begin <= end { formats.insert(FormatSet(.stm)) }
        return formats
    }

    /// A tab-separated row whose third column, or fourth, starts a JSON list.
    private static func isBiasingRow(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var tabs = 0
        for index in line.indices where line[index] == 0x09 {
            tabs += 1
            guard tabs >= 2 else { continue }
            var first = index + 1
            while first < line.count && RecordScanner.isSpace(line[first]) { first += 1 }
            if first < line.count && line[first] == UInt8(ascii: "[") { return true }
            if tabs == 3 { break }
        }
        return false
    }

    /// The first six whitespace-separated fields of a line, the third to sixth as numbers when they are finite
    /// ones (the first two are never read as numbers); fewer than five fields are not read at all.
    private static func leadingNumbers(_ line: UnsafeBufferPointer<UInt8>) -> [Double?] {
        var fields: [Range<Int>] = []
        var index = 0
        while index < line.count && fields.count < 6 {
            while index < line.count && RecordScanner.isSpace(line[index]) { index += 1 }
            let start = index
            while index < line.count && !RecordScanner.isSpace(line[index]) { index += 1 }
            if index > start { fields.append(start..<index) }
        }
        guard fields.count >= 5 else { return [] }
        return fields.enumerated().map { position, field in
            // Most words start with a letter: no string is made for them.
            guard position >= 2, "0123456789+-.".utf8.contains(line[field.lowerBound]) else { return nil }
            let number = Double(String(decoding: UnsafeBufferPointer(rebasing: line[field]), as: UTF8.self))
            return number.flatMap { $0.isFinite ? $0 : nil }
        }
    }
}
