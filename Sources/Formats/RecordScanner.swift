import Foundation

/// One utterance as found in a file; the buffers are valid only during the callback that receives it.
package struct RawRecord {
    package var id: UnsafeBufferPointer<UInt8>
    package var text: UnsafeBufferPointer<UInt8>
    package var speaker: UnsafeBufferPointer<UInt8>?
    package var line: Int
    /// A biasing list's third column: the words of this utterance's reference that are biased. `nil` with a
    /// `biasingList` (a JSON line's `boosted`): the list's words that the reference holds.
    package var biased: [String]? = nil
    /// A biasing list's fourth column, or a JSON line's `boosted`: the whole list the recognizer was given for
    /// this utterance.
    package var biasingList: [String]? = nil
    /// The offset in the file of the line's first byte that is not UTF-8, for a line kept although it is not (see
    /// ``TranscriptIO/read(_:format:keepingInvalidUTF8:)``); nil for a line that is UTF-8.
    package var invalidByte: Int? = nil
    /// The utterance's length in seconds, where the file gives it: a JSON line's `duration`, an stm file's
    /// segments (each end less its begin, summed).
    package var seconds: Double? = nil
    /// A JSON line's `audio`: the utterance's audio file, as written (a Gambit manifest's, relative to its folder).
    package var audio: String? = nil
}

/// Byte-level scanning of transcript files: no `String` is made for a `trn` line unless it needs validating.
package enum RecordScanner {
    package static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>,
        format: TranscriptFormat,
        path: String,
        warnings: inout [ScoringWarning],
        keepingInvalidUTF8 keep: Bool = false,
        emit: (RawRecord) throws -> Void
    ) throws {
        switch format {
        case .trn: try scanTRN(bytes, path: path, keep: keep, emit: emit)
        case .jsonl: try scanJSONL(bytes, path: path, keep: keep, emit: emit)
        case .kaldi: try scanKaldi(bytes, path: path, keep: keep, emit: emit)
        case .biasingTSV: try scanBiasingLists(bytes, path: path, emit: emit)
        case .ctm:
            let words = try ctmWords(bytes, path: path, warnings: &warnings)
            try emitGrouped(
                words.map { ($0.file, $0.start, $0.word, nil as String?, $0.start + $0.duration) }, length: .span,
                path: path, emit: emit)
        case .stm:
            let segments = try stmSegments(bytes, path: path, warnings: &warnings)
            try emitGrouped(
                segments.map { ($0.file, $0.begin, $0.text, $0.speaker, $0.end) }, length: .segments, path: path,
                emit: emit)
        }
    }

    @inline(__always)
    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    /// Calls `body` for each line with its 1-based number, trailing whitespace trimmed.
    package static func forEachLine(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (_ start: Int, _ end: Int, _ line: Int) throws -> Void
    ) rethrows {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return }
        var start = 0
        var line = 1
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { start = 3 }  // UTF-8 BOM
        while start < count {
            var end = start
            if let found = memchr(base + start, 0x0A, count - start) {
                end = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            } else {
                end = count
            }
            var trimmed = end
            while trimmed > start && isSpace(base[trimmed - 1]) { trimmed -= 1 }
            try body(start, trimmed, line)
            start = end + 1
            line += 1
        }
    }

    /// Calls `body` for each line that holds more than whitespace, with the line's first non-blank byte, its end
    /// (trailing whitespace trimmed) and its 1-based number.
    package static func forEachContentLine(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (_ first: Int, _ end: Int, _ line: Int) throws -> Void
    ) rethrows {
        try forEachLine(bytes) { start, end, line in
            var first = start
            while first < end && isSpace(bytes[first]) { first += 1 }
            if first < end { try body(first, end, line) }
        }
    }

    /// Throws if `bytes[start..<end]` holds a non-ASCII byte and is not valid UTF-8.
    @inline(__always)
    package static func validateUTF8(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, path: String, line: Int,
        id: () -> String?
    ) throws {
        if firstInvalidByte(bytes, start, end) != nil {
            throw ScoringError.invalidUTF8(path: path, line: line, id: id())
        }
    }

    /// The offset of the first byte of `bytes[start..<end]` that is not part of valid UTF-8; nil when there is none.
    @inline(__always)
    package static func firstInvalidByte(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end {
            // Every byte before is ASCII, so a sequence starts here.
            if bytes[index] >= 0x80 {
                return RecognizerOutput.firstInvalidUTF8(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                    .map { index + $0.offset }
            }
            index += 1
        }
        return nil
    }

    /// The first byte of a line that is not UTF-8, when the line is kept all the same (`keep`, and its utterance's
    /// id is UTF-8, so that the utterance can fail by name).
    /// - Throws: ``ScoringError/invalidUTF8(path:line:id:)`` when the line is not UTF-8 and is not kept.
    package static func keptInvalidByte(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, path: String, line: Int, keep: Bool,
        id: () -> String?
    ) throws -> Int? {
        guard let invalid = firstInvalidByte(bytes, start, end) else { return nil }
        let readable = id()
        guard keep, readable != nil else { throw ScoringError.invalidUTF8(path: path, line: line, id: readable) }
        return invalid
    }

    private static func scanTRN(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, keep: Bool, emit: (RawRecord) throws -> Void
    ) throws {
        try forEachContentLine(bytes) { first, end, line in
            if TRNLine.isComment(bytes, first: first, end: end) { return }
            let text: Range<Int>
            let idRange: Range<Int>
            do throws(TRNLine.Problem) {
                (text, idRange) = try TRNLine.split(bytes, first: first, end: end)
            } catch .noID {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<end]), as: UTF8.self)
                throw ScoringError.missingUtteranceID(path: path, line: line, text: text)
            } catch {
                let id: String
                switch error {
                case .unclosedParenthesis(let unclosed): id = unclosed
                case .unwritableID(let unwritable, _): id = unwritable
                case .noID: id = ""
                }
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "the utterance id '\(id)' holds \(error.holds ?? "?"), which a trn line \"text (id)\" "
                        + "cannot hold: it would be read as a different id. Rename the utterance with letters, "
                        + "digits, '-', '_' or '.'.")
            }
            let id = UnsafeBufferPointer(rebasing: bytes[idRange])
            let invalid = try keptInvalidByte(bytes, first, end, path: path, line: line, keep: keep) {
                String(validating: id, as: UTF8.self)
            }
            var speaker: UnsafeBufferPointer<UInt8>? = nil
            if let underscore = id.firstIndex(of: UInt8(ascii: "_")), underscore > 0 {
                speaker = UnsafeBufferPointer(rebasing: id[0..<underscore])
            }
            try emit(
                RawRecord(
                    id: id, text: UnsafeBufferPointer(rebasing: bytes[text]), speaker: speaker, line: line,
                    invalidByte: invalid))
        }
    }

    /// Kaldi `text`: the id up to the first space or tab, then the words; an id alone is an empty transcript.
    private static func scanKaldi(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, keep: Bool, emit: (RawRecord) throws -> Void
    ) throws {
        try forEachContentLine(bytes) { first, end, line in
            var idEnd = first
            while idEnd < end && !isSpace(bytes[idEnd]) { idEnd += 1 }
            var textStart = idEnd
            while textStart < end && isSpace(bytes[textStart]) { textStart += 1 }
            let id = UnsafeBufferPointer(rebasing: bytes[first..<idEnd])
            let invalid = try keptInvalidByte(bytes, first, end, path: path, line: line, keep: keep) {
                String(validating: id, as: UTF8.self)
            }
            try emit(
                RawRecord(
                    id: id, text: UnsafeBufferPointer(rebasing: bytes[textStart..<end]), speaker: nil, line: line,
                    invalidByte: invalid))
        }
    }

    /// Per-utterance biasing lists: `id`, `text`, a JSON list of the reference's biased words and a JSON list
    /// of the whole biasing list, separated by tabs. Every biased word must be in the whole list.
    ///
    /// Columns are counted on the line as written: a tab that opens the line (an empty id) or closes it (an empty
    /// last column) separates a column like any other, so the count is the one the user sees.
    private static func scanBiasingLists(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, emit: (RawRecord) throws -> Void
    ) throws {
        try forEachLine(bytes) { first, trimmedEnd, line in
            guard trimmedEnd > first else { return }
            // The trailing whitespace `forEachLine` trimmed, tabs included, up to the line break.
            var end = trimmedEnd
            while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
            try validateUTF8(bytes, first, end, path: path, line: line) { nil }
            var columns: [Range<Int>] = []
            var columnStart = first
            for index in first..<end where bytes[index] == 0x09 {
                columns.append(columnStart..<index)
                columnStart = index + 1
            }
            columns.append(columnStart..<end)
            guard columns.count == 4 else {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "expected 4 tab-separated columns (id, reference text, JSON list of the reference's "
                        + "biased words, JSON list of the whole biasing list), found \(columns.count)")
            }
            func trimmed(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
                var lower = range.lowerBound
                var upper = range.upperBound
                while lower < upper && isSpace(bytes[lower]) { lower += 1 }
                while upper > lower && isSpace(bytes[upper - 1]) { upper -= 1 }
                return UnsafeBufferPointer(rebasing: bytes[lower..<upper])
            }
            let id = trimmed(columns[0])
            let idText = String(decoding: id, as: UTF8.self)
            guard !id.isEmpty else {
                let text = String(decoding: trimmed(columns[1]), as: UTF8.self)
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "column 1 (the utterance id) is empty, before the reference text \"\(text.prefix(60))\"; "
                        + "every row starts with its utterance's id")
            }
            func list(_ column: Int, _ name: String) throws -> [String] {
                var parser = FlatJSONParser(bytes: trimmed(columns[column]))
                do {
                    return try parser.parseStringArray()
                } catch let error as FlatJSONParser.Failure {
                    throw ScoringError.malformedLine(
                        path: path, line: line,
                        reason: "utterance '\(idText)': column \(column + 1) (\(name)) is not a JSON list of strings "
                            + "(\(error.reason)); write [] for none")
                }
            }
            let biased = try list(2, "the reference's biased words")
            let whole = try list(3, "the whole biasing list")
            // Lists are short: a scan per biased word costs less than hashing the whole list.
            if let missing = biased.first(where: { !whole.contains($0) }) {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "utterance '\(idText)': biased word \"\(missing)\" of column 3 is not in the biasing list "
                        + "of column 4, which holds every word the recognizer was given")
            }
            try emit(
                RawRecord(
                    id: id, text: trimmed(columns[1]), speaker: nil, line: line, biased: biased, biasingList: whole))
        }
    }

    /// Each utterance's value of the string field `field` in a JSON-lines file, by utterance id.
    ///
    /// Lines without the field (or with `null`) give no value. The lines were already read as a reference, so only
    /// the field is checked here.
    /// - Throws: ``ScoringError/unusableBreakdownField(path:field:reason:)`` when a line holds the field as a
    ///   number, a boolean or a nested value (naming the line), or when no line has it (naming the fields that
    ///   are there).
    package static func labels(
        _ bytes: UnsafeBufferPointer<UInt8>, field: String, path: String
    ) throws -> [String: String] {
        var labels: [String: String] = [:]
        var stringFields: Set<String> = []
        try forEachContentLine(bytes) { first, end, line in
            var parser = FlatJSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[first..<end]))
            // Ids as the reference reader takes them: a string, or a number as written.
            guard let fields = try? parser.parseObject(), let id = fields["id"]?.text else { return }
            for (key, value) in fields { if case .string = value { stringFields.insert(key) } }
            switch fields[field] {
            case .string(let value)?: labels[id] = value
            case nil, .null?: break
            case .number(let number)?:
                throw ScoringError.unusableBreakdownField(
                    path: path, field: field,
                    reason: "line \(line) (utterance '\(id)') holds it as the number \(number); a breakdown groups "
                        + "by a string field such as speaker or condition")
            case .bool?, .nested?, .strings?, .mixedList?:
                throw ScoringError.unusableBreakdownField(
                    path: path, field: field,
                    reason: "line \(line) (utterance '\(id)') holds it as a boolean or nested value; a breakdown "
                        + "groups by a string field such as speaker or condition")
            }
        }
        if labels.isEmpty {
            throw ScoringError.unusableBreakdownField(
                path: path, field: field,
                reason: "no line has it as a string; the string fields are "
                    + stringFields.sorted().map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return labels
    }

    /// JSON lines: `id`, `text`, optional `speaker` and `boosted` (the utterance's biasing list, as in a Gambit
    /// manifest; on every line or on none, so that the file is scored by one rule).
    private static func scanJSONL(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, keep: Bool, emit: (RawRecord) throws -> Void
    ) throws {
        var firstLine: (number: Int, hasList: Bool)? = nil
        try forEachContentLine(bytes) { first, end, line in
            // The id is known once the line is parsed: a line kept is checked again then.
            let invalid = firstInvalidByte(bytes, first, end)
            if invalid != nil && !keep { throw ScoringError.invalidUTF8(path: path, line: line, id: nil) }
            var parser = FlatJSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[first..<end]))
            let fields: [String: FlatJSONParser.Value]
            do {
                fields = try parser.parseObject()
            } catch let error as FlatJSONParser.Failure {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "not a JSON object (\(error.reason)). Each line must be "
                        + "one object such as {\"id\": \"utt1\", \"text\": \"the words\"}.")
            }
            guard let idValue = fields["id"], let id = idValue.text, !id.isEmpty else {
                if invalid != nil { throw ScoringError.invalidUTF8(path: path, line: line, id: nil) }
                throw ScoringError.missingUtteranceID(
                    path: path, line: line,
                    text: String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<end]), as: UTF8.self))
            }
            // The id itself is not UTF-8: its bytes were replaced, so no utterance can be named.
            if invalid != nil && id.unicodeScalars.contains("\u{FFFD}") {
                throw ScoringError.invalidUTF8(path: path, line: line, id: nil)
            }
            guard let textValue = fields["text"] else {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "utterance '\(id)' has no \"text\" field. Add \"text\": \"...\" "
                        + "(an empty string for silence).")
            }
            let list = try biasingList(fields["boosted"], id: id, path: path, line: line)
            if let (number, hasList) = firstLine, hasList != (list != nil) {
                let (with, without) = list == nil ? (number, line) : (line, number)
                throw ScoringError.malformedLine(
                    path: path, line: without,
                    reason: "no \"boosted\" list, while line \(with) has one; when a reference carries per-utterance "
                        + "biasing lists every line needs one (write [] for an utterance with none)")
            }
            if firstLine == nil { firstLine = (line, list != nil) }
            let seconds = try duration(fields["duration"], id: id, path: path, line: line)
            let audio = fields["audio"]?.text
            var idCopy = id
            var text = textValue.text ?? ""
            var speaker = fields["speaker"]?.text
            try idCopy.withUTF8 { idBuffer in
                try text.withUTF8 { textBuffer in
                    if speaker != nil {
                        try speaker!.withUTF8 { speakerBuffer in
                            try emit(
                                RawRecord(
                                    id: idBuffer, text: textBuffer, speaker: speakerBuffer, line: line,
                                    biasingList: list, invalidByte: invalid, seconds: seconds, audio: audio))
                        }
                    } else {
                        try emit(
                            RawRecord(
                                id: idBuffer, text: textBuffer, speaker: nil, line: line, biasingList: list,
                                invalidByte: invalid, seconds: seconds, audio: audio))
                    }
                }
            }
        }
    }

    /// A JSON line's `duration`: seconds, a finite number ≥ 0, or `nil` when absent or `null`.
    private static func duration(_ value: FlatJSONParser.Value?, id: String, path: String, line: Int) throws
        -> Double?
    {
        switch value {
        case nil, .null?: return nil
        case .number(let written)?:
            if let seconds = Double(written), seconds.isFinite, seconds >= 0 { return seconds }
            fallthrough
        default:
            throw ScoringError.malformedLine(
                path: path, line: line,
                reason: "utterance '\(id)': \"duration\" must be the audio's length in seconds, a number ≥ 0")
        }
    }

    /// A JSON line's `boosted` value: a list of strings, or `nil` when absent or `null`.
    private static func biasingList(_ value: FlatJSONParser.Value?, id: String, path: String, line: Int) throws
        -> [String]?
    {
        switch value {
        case nil, .null?: return nil
        case .strings(let list)?: return list
        default:
            throw ScoringError.malformedLine(
                path: path, line: line,
                reason: "utterance '\(id)': \"boosted\" is not a JSON list of strings; it is the utterance's biasing "
                    + "list, as in a Gambit manifest (write [] for none)")
        }
    }

    /// Splits a line into whitespace-separated fields.
    private static func fields(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [String] {
        var result: [String] = []
        var index = start
        while index < end {
            while index < end && isSpace(bytes[index]) { index += 1 }
            let fieldStart = index
            while index < end && !isSpace(bytes[index]) { index += 1 }
            if index > fieldStart {
                result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<index]), as: UTF8.self))
            }
        }
        return result
    }

    /// What a misplaced `ctm` field most often means: an id with a space shifts every field after it.
    private static let ctmIDHint =
        " Fields are separated by whitespace, so the first field (the utterance id) cannot hold a space."

    package static func ctmWords(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, warnings: inout [ScoringWarning]
    ) throws -> [TimedWord] {
        var words: [TimedWord] = []
        try forEachLine(bytes) { start, end, line in
            try validateUTF8(bytes, start, end, path: path, line: line) { nil }
            let parts = fields(bytes, start, end)
            if parts.isEmpty || parts[0].hasPrefix(";;") { return }
            guard parts.count >= 5, let begin = Double(parts[2]), let duration = Double(parts[3]) else {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "a ctm line needs 'file channel start duration word "
                        + "[confidence]' with numeric start and duration." + ctmIDHint)
            }
            guard begin.isFinite, begin >= 0 else {
                throw ScoringError.malformedLine(
                    path: path, line: line, reason: "start time '\(parts[2])' must be a finite number of seconds ≥ 0.")
            }
            guard duration.isFinite, duration >= 0 else {
                throw ScoringError.malformedLine(
                    path: path, line: line, reason: "duration '\(parts[3])' must be a finite number of seconds ≥ 0.")
            }
            var confidence: Double?
            if parts.count >= 6 {
                guard let value = Double(parts[5]), value.isFinite, (0...1).contains(value) else {
                    throw ScoringError.malformedLine(
                        path: path, line: line,
                        reason: "confidence '\(parts[5])' must be a number from 0 to 1 (or leave the field out)."
                            + ctmIDHint)
                }
                confidence = value
            }
            words.append(
                TimedWord(
                    file: parts[0], channel: parts[1], start: begin, duration: duration, word: parts[4],
                    confidence: confidence))
        }
        return words
    }

    package static func stmSegments(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, warnings: inout [ScoringWarning]
    ) throws -> [Segment] {
        var segments: [Segment] = []
        try forEachLine(bytes) { start, end, line in
            try validateUTF8(bytes, start, end, path: path, line: line) { nil }
            let parts = fields(bytes, start, end)
            if parts.isEmpty || parts[0].hasPrefix(";;") { return }
            guard parts.count >= 5, let begin = Double(parts[3]), let finish = Double(parts[4]) else {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "an stm line needs 'file channel speaker begin end "
                        + "[<labels>] text' with numeric begin and end times.")
            }
            guard begin.isFinite, finish.isFinite, begin >= 0, finish >= begin else {
                throw ScoringError.malformedLine(
                    path: path, line: line,
                    reason: "begin '\(parts[3])' and end '\(parts[4])' must be finite times with 0 ≤ begin ≤ end.")
            }
            var words = Array(parts[5...])
            if let label = words.first, label.hasPrefix("<"), label.hasSuffix(">") { words.removeFirst() }
            // sclite's marker for a region that is not scored.
            if words == ["ignore_time_segment_in_scoring"] { words = [] }
            segments.append(
                Segment(
                    file: parts[0], channel: parts[1], speaker: parts[2], begin: begin, end: finish,
                    text: words.joined(separator: " ")))
        }
        return segments
    }

    /// How an utterance's length follows from its timed pieces.
    private enum TimedLength {
        /// The segments' lengths, summed (stm: the scored regions of the audio).
        case segments
        /// From the first piece's start to the last one's end (ctm: the words' span, no longer than the audio).
        case span
    }

    /// Joins timed pieces into one utterance per file, in time order, files in order of first appearance, each
    /// with its length as `length` says.
    private static func emitGrouped(
        _ pieces: [(file: String, time: Double, text: String, speaker: String?, end: Double)],
        length: TimedLength,
        path: String,
        emit: (RawRecord) throws -> Void
    ) throws {
        var order: [String] = []
        var grouped: [String: [(time: Double, text: String, speaker: String?)]] = [:]
        var seconds: [String: Double] = [:]
        var extent: [String: (start: Double, end: Double)] = [:]
        for piece in pieces {
            if grouped[piece.file] == nil { order.append(piece.file) }
            grouped[piece.file, default: []].append((piece.time, piece.text, piece.speaker))
            seconds[piece.file, default: 0] += piece.end - piece.time
            let known = extent[piece.file] ?? (piece.time, piece.end)
            extent[piece.file] = (min(known.start, piece.time), max(known.end, piece.end))
        }
        if length == .span { for (file, range) in extent { seconds[file] = range.end - range.start } }
        for (line, file) in order.enumerated() {
            let sorted = grouped[file]!.enumerated().sorted { a, b in
                a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
            }
            var text = sorted.map(\.element.text).filter { !$0.isEmpty }.joined(separator: " ")
            var id = file
            var speaker = sorted.first?.element.speaker
            try id.withUTF8 { idBuffer in
                try text.withUTF8 { textBuffer in
                    if speaker != nil {
                        try speaker!.withUTF8 { speakerBuffer in
                            try emit(
                                RawRecord(
                                    id: idBuffer, text: textBuffer, speaker: speakerBuffer, line: line + 1,
                                    seconds: seconds[file]))
                        }
                    } else {
                        try emit(
                            RawRecord(
                                id: idBuffer, text: textBuffer, speaker: nil, line: line + 1, seconds: seconds[file]))
                    }
                }
            }
        }
    }
}

/// The one reader of users' JSON lines (transcripts, corpus manifests, the labels of a breakdown): one flat JSON
/// object per line, string keys; string, number, boolean or null values, lists of strings. Nested values are
/// skipped. Enough for manifests, and much faster than `JSONDecoder` for 100,000 lines.
public struct FlatJSONParser {
    public enum Value: Sendable, Equatable {
        case string(String)
        /// A number, as written.
        case number(String)
        case bool(Bool)
        case null
        /// A list whose elements are all strings.
        case strings([String])
        /// A list with an element that is not a string: its position (1-based).
        case mixedList(firstNonString: Int)
        /// An object.
        case nested

        /// The value as text: strings as they are, numbers as written.
        public var text: String? {
            switch self {
            case .string(let value), .number(let value): value
            default: nil
            }
        }
    }

    /// Why a line is not a flat JSON object, with the column.
    public struct Failure: Error, Sendable {
        public var reason: String
    }

    /// The object one line holds (without its line end).
    /// - Throws: ``Failure`` when the line is not one JSON object.
    public static func object(in line: String) throws(Failure) -> [String: Value] {
        let parsed = Array(line.utf8).withUnsafeBufferPointer { buffer in
            var parser = FlatJSONParser(bytes: buffer)
            return Result { try parser.parseObject() }
        }
        return try parsed.mapError { $0 as? Failure ?? Failure(reason: "\($0)") }.get()
    }

    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func skipSpace() {
        while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D) {
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else {
            throw Failure(reason: "expected '\(Character(Unicode.Scalar(byte)))' at column \(index + 1)")
        }
        index += 1
    }

    /// A JSON list of strings, the whole input: `["a", "b"]`, or `[]`.
    package mutating func parseStringArray() throws -> [String] {
        var values: [String] = []
        try parseWhole(open: "[", close: "]", kind: "list") { parser in values.append(try parser.parseString()) }
        return values
    }

    /// The position (1-based) of the first element of a list that is not a string; 1 when it cannot be told.
    private mutating func firstNonString() -> Int {
        var position = 0
        var found = 1
        try? parseWhole(open: "[", close: "]", kind: "list") { parser in
            position += 1
            if case .string = try parser.parseValue() { return }
            found = position
            throw Failure(reason: "found")
        }
        return found
    }

    package mutating func parseObject() throws -> [String: Value] {
        var fields: [String: Value] = [:]
        try parseWhole(open: "{", close: "}", kind: "object") { parser in
            let key = try parser.parseString()
            try parser.expect(UInt8(ascii: ":"))
            fields[key] = try parser.parseValue()
        }
        return fields
    }

    /// A bracketed, comma-separated sequence that must be the whole input, each element read by `element`.
    private mutating func parseWhole(
        open: Unicode.Scalar, close: Unicode.Scalar, kind: String, element: (inout FlatJSONParser) throws -> Void
    ) throws {
        let closing = UInt8(ascii: close)
        try expect(UInt8(ascii: open))
        skipSpace()
        if index < bytes.count && bytes[index] == closing {
            index += 1
        } else {
            while true {
                skipSpace()
                try element(&self)
                skipSpace()
                guard index < bytes.count else { throw Failure(reason: "unterminated \(kind)") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == closing {
                    index += 1
                    break
                }
                throw Failure(reason: "expected ',' or '\(close)' at column \(index + 1)")
            }
        }
        skipSpace()
        guard index == bytes.count else { throw Failure(reason: "text after the \(kind) at column \(index + 1)") }
    }

    private mutating func parseValue() throws -> Value {
        skipSpace()
        guard index < bytes.count else { throw Failure(reason: "missing value") }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let start = index
            try skipNested()
            if bytes[start] == UInt8(ascii: "[") {
                var list = FlatJSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                if let strings = try? list.parseStringArray() { return .strings(strings) }
                var elements = FlatJSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                return .mixedList(firstNonString: elements.firstNonString())
            }
            return .nested
        default:
            let start = index
            while index < bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                    || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")]
                        .contains(bytes[index])
            {
                index += 1
            }
            guard index > start else { throw Failure(reason: "unexpected character at column \(index + 1)") }
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }
    }

    private mutating func literal(_ word: String, _ value: Value) throws -> Value {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw Failure(reason: "invalid literal") }
            index += 1
        }
        return value
    }

    private mutating func skipNested() throws {
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                _ = try parseString()
                continue
            }
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 {
                    index += 1
                    return
                }
            }
            index += 1
        }
        throw Failure(reason: "unterminated nested value")
    }

    private mutating func parseString() throws -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw Failure(reason: "expected a string at column \(index + 1)")
        }
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count && bytes[index] != UInt8(ascii: "\"") && bytes[index] != UInt8(ascii: "\\") {
            index += 1
        }
        guard index < bytes.count else { throw Failure(reason: "unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(
            contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                .unicodeScalars)
        // A `\uD800`…`\uDBFF` escape waiting for the `\uDC00`…`\uDFFF` that completes it. Half a pair alone is no
        // character: it is refused, as JSON parsers refuse it, rather than read as U+FFFD and scored as a word.
        var pendingHigh: (code: UInt32, column: Int)? = nil
        var utf8Run: [UInt8] = []
        func flushRun() {
            if !utf8Run.isEmpty {
                scalars.append(contentsOf: String(decoding: utf8Run, as: UTF8.self).unicodeScalars)
                utf8Run.removeAll(keepingCapacity: true)
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            let column = index + 1
            if let high = pendingHigh, byte != UInt8(ascii: "\\") || bytes[safe: index + 1] != UInt8(ascii: "u") {
                throw Self.unpaired(high.code, column: high.column)
            }
            if byte == UInt8(ascii: "\"") {
                index += 1
                flushRun()
                return String(scalars)
            }
            if byte != UInt8(ascii: "\\") {
                utf8Run.append(byte)
                index += 1
                continue
            }
            flushRun()
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "u"):
                let code = try hexEscape()
                if (0xD800..<0xDC00).contains(code) {
                    if let high = pendingHigh { throw Self.unpaired(high.code, column: high.column) }
                    pendingHigh = (code, column)
                } else if (0xDC00..<0xE000).contains(code) {
                    guard let high = pendingHigh else { throw Self.unpaired(code, column: column) }
                    let value = 0x10000 + ((high.code - 0xD800) << 10) + (code - 0xDC00)
                    scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                    pendingHigh = nil
                } else {
                    if let high = pendingHigh { throw Self.unpaired(high.code, column: high.column) }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                }
            default: scalars.append(Unicode.Scalar(escape))
            }
        }
        throw Failure(reason: "unterminated string")
    }

    /// The code a `\u` escape's four hex digits (at ``index``) give.
    private mutating func hexEscape() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            let code = UInt32(
                String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self), radix: 16)
        else { throw Failure(reason: "invalid \\u escape") }
        index += 4
        return code
    }

    /// Half a UTF-16 surrogate pair, escaped at `column` without its other half.
    private static func unpaired(_ code: UInt32, column: Int) -> Failure {
        Failure(
            reason: String(format: "\\u%04X at column %ld", code, column)
                + " is half of a UTF-16 surrogate pair without its other half, so it is no character")
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The byte at `index`, or nil past the end.
    fileprivate subscript(safe index: Int) -> UInt8? { index < count ? self[index] : nil }
}
