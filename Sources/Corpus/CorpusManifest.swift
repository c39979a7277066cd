import Formats
import Foundation
import StrictYAML

/// Reads and writes corpus manifests: the list of utterances (id, audio file, reference text) a run decodes.
///
/// Three formats are read:
/// - **JSON lines** (`.jsonl`): one object per line with `id`, `audio` and `text`, and optionally `speaker`,
///   `split`, `condition`, `duration` and `boosted` (the utterance's biasing list, a JSON list of strings; when
///   one line has it, every line must, so that a corpus is scored by one rule).
/// - **NeMo** manifests: one object per line with `audio_filepath`, `text` and `duration`; the id is the audio
///   file's name without its extension.
/// - **sclite `trn`**: lines `text (id)`, with the audio in a folder as `id.wav` (or `id.flac`).
///
/// Relative audio paths are resolved against the manifest's folder. Blank lines are skipped. An audio file
/// that does not exist is not an error here: the runner reports it for that utterance.
public enum CorpusManifest {
    /// The layout of a manifest file.
    public enum Format: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Decide from the file name (`.trn`) or the keys on the first line.
        case auto
        /// Gambit's JSON lines: `id`, `audio`, `text`, optional `speaker`, `split`, `condition`, `duration`,
        /// `boosted`.
        case jsonl
        /// NeMo's JSON lines: `audio_filepath`, `text`, `duration`.
        case nemo
        /// sclite transcripts: `text (id)`.
        case trn

        public var description: String { rawValue }
    }

    /// Reads a manifest into corpus entries, in file order.
    ///
    /// - Parameters:
    ///   - url: The manifest file.
    ///   - format: Its format; ``Format/auto`` looks at the extension and the first line.
    ///   - audioFolder: For `trn` manifests, the folder holding `id.wav` or `id.flac`; nil for the manifest's
    ///     own folder. Ignored for JSON manifests, whose lines name their audio.
    ///   - allowedFolders: When given, every audio file must lie inside one of these folders (after `..` and
    ///     symbolic links are resolved, see ``isInside(_:_:)``), so a manifest cannot make the run read
    ///     `../../etc/passwd`, directly or through a link; nil reads any path.
    /// - Returns: One entry per non-blank line, with absolute audio URLs.
    /// - Throws: ``CorpusError`` naming the file and line of the first malformed line, missing key,
    ///   duplicate id, id that sclite files cannot hold (``CorpusEntry/idProblem(_:)``) or audio path outside
    ///   `allowedFolders`.
    public static func load(
        _ url: URL, format: Format = .auto, audioFolder: URL? = nil, allowedFolders: [URL]? = nil
    ) throws(CorpusError) -> [CorpusEntry] {
        try numberedEntries(url, format: format, audioFolder: audioFolder, allowedFolders: allowedFolders).map(\.entry)
    }

    /// ``load(_:format:audioFolder:allowedFolders:)``, each entry with the 1-based line it was read from, for
    /// messages that send the user to the manifest (an oracle's unpronounceable word).
    public static func numberedEntries(
        _ url: URL, format: Format = .auto, audioFolder: URL? = nil, allowedFolders: [URL]? = nil
    ) throws(CorpusError) -> [(line: Int, entry: CorpusEntry)] {
        let path = url.path
        let contents = try CorpusError.readText(url)
        let lines = numberedLines(contents)
        let folder = url.deletingLastPathComponent()
        let resolved = format == .auto ? try detectFormat(of: url, lines: lines) : format

        var entries: [(line: Int, entry: CorpusEntry)] = []
        var firstLineOfID: [String: Int] = [:]
        var firstEntry: (Int, CorpusEntry)? = nil
        for (number, line) in lines {
            let entry: CorpusEntry
            switch resolved {
            case .jsonl, .auto:
                entry = try jsonEntry(line, path: path, line: number, folder: folder)
            case .nemo:
                entry = try nemoEntry(line, path: path, line: number, folder: folder)
            case .trn:
                entry = try trnEntry(line, path: path, line: number, audioFolder: audioFolder ?? folder)
            }
            if let problem = CorpusEntry.idProblem(entry.id) {
                throw .unwritableID(
                    path: path, line: number, id: entry.id, problem: problem,
                    source: resolved == .nemo ? audioText(line) ?? entry.audio.lastPathComponent : nil)
            }
            if let allowedFolders, !allowedFolders.contains(where: { isInside(entry.audio, $0) }) {
                let physical = physicalPath(entry.audio)
                throw .outsideAllowedFolders(
                    path: path, line: number,
                    audio: (audioText(line) ?? entry.audio.path)
                        + (physical == entry.audio.path ? "" : " (a link to \(physical))"),
                    allowed: allowedFolders.map(\.path))
            }
            if let first = firstLineOfID[entry.id] {
                throw .duplicateID(path: path, line: number, id: entry.id, firstLine: first)
            }
            firstLineOfID[entry.id] = number
            // Per-utterance lists change how B-WER is counted; a corpus scored half one way and half the other
            // would report a rate that is neither, so a list on some lines only is an error: it names the first
            // pair of lines that differ, and which of them has the list.
            if let (firstNumber, firstEntry) = firstEntry, (firstEntry.boosted == nil) != (entry.boosted == nil) {
                let (with, without) = entry.boosted == nil ? (firstNumber, number) : (number, firstNumber)
                throw .malformedLine(
                    path: path, line: without,
                    detail: "no \"boosted\" list, while line \(with) has one; when a corpus carries per-utterance "
                        + "biasing lists every line needs one (write [] for an utterance with none)")
            }
            if firstEntry == nil { firstEntry = (number, entry) }
            entries.append((number, entry.composed()))
        }
        return entries
    }

    /// Writes entries as Gambit JSON lines, one object per line with keys in a fixed order
    /// (`id`, `audio`, `text`, `speaker`, `split`, `condition`, `duration`, `boosted`), leaving out absent ones.
    ///
    /// Audio files inside the manifest's folder are written as paths relative to it, so the corpus folder can
    /// be moved; others keep their absolute path.
    ///
    /// - Parameters:
    ///   - entries: The utterances, written in this order.
    ///   - url: The manifest file; its folder is created if needed.
    /// - Throws: ``CorpusError/unwritable(path:detail:)``.
    public static func write(_ entries: [CorpusEntry], to url: URL) throws(CorpusError) {
        let text = jsonLines(entries, relativeTo: url.deletingLastPathComponent())
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .unwritable(path: url.path, detail: FileSystemReason.writing(url, error))
        }
    }

    /// The JSON-lines text ``write(_:to:)`` writes, with audio paths relative to `folder` where possible.
    public static func jsonLines(_ entries: [CorpusEntry], relativeTo folder: URL) -> String {
        var text = ""
        for entry in entries {
            var fields = [
                ("id", jsonString(entry.id)),
                ("audio", jsonString(relativePath(of: entry.audio, in: folder))),
                ("text", jsonString(entry.text)),
            ]
            if let speaker = entry.speaker { fields.append(("speaker", jsonString(speaker))) }
            if let split = entry.split { fields.append(("split", jsonString(split))) }
            if let condition = entry.condition { fields.append(("condition", jsonString(condition))) }
            if let duration = entry.duration, duration.isFinite {
                // Milliseconds are plenty, and rounding keeps the file identical across runs and machines.
                fields.append(("duration", "\((duration * 1000).rounded() / 1000)"))
            }
            if let boosted = entry.boosted {
                fields.append(("boosted", "[" + boosted.map(jsonString).joined(separator: ", ") + "]"))
            }
            text += "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}\n"
        }
        return text
    }

    // MARK: - Formats

    private static func detectFormat(of url: URL, lines: [(Int, String)]) throws(CorpusError) -> Format {
        if url.pathExtension.lowercased() == "trn" { return .trn }
        guard let (_, first) = lines.first else { return .jsonl }
        if first.hasPrefix("{") {
            if let object = try? FlatJSONParser.object(in: first), object["audio_filepath"] != nil,
                object["audio"] == nil
            {
                return .nemo
            }
            return .jsonl
        }
        if first.hasSuffix(")") && first.contains("(") { return .trn }
        throw .unknownFormat(path: url.path, detail: "the first line is neither a JSON object nor \"text (id)\"")
    }

    private static func jsonEntry(_ line: String, path: String, line number: Int, folder: URL) throws(CorpusError)
        -> CorpusEntry
    {
        let object = try jsonObject(line, path: path, line: number)
        // A misspelt key ("spilt") would leave the entry in every split, scored where it does not belong.
        // Keys of other tools' metadata ("offset", "lang") are far from every key of ours and stay allowed.
        for unknown in object.keys.sorted() where !jsonKeys.contains(unknown) {
            guard let meant = nearestKey(to: unknown, in: jsonKeys) else { continue }
            throw .malformedLine(
                path: path, line: number,
                detail: "unknown key \"\(unknown)\"; did you mean \"\(meant)\"? Gambit reads "
                    + jsonKeys.joined(separator: ", ")
                    + " (keys far from all of these are kept as other tools' metadata)")
        }
        let id = try string(object, "id", path: path, line: number, allowEmpty: false)
        let audio = try string(object, "audio", path: path, line: number, allowEmpty: false)
        return CorpusEntry(
            id: id,
            audio: resolve(audio, against: folder),
            text: try string(object, "text", path: path, line: number, allowEmpty: true),
            speaker: try optionalString(object, "speaker", path: path, line: number),
            split: try optionalString(object, "split", path: path, line: number),
            condition: try optionalString(object, "condition", path: path, line: number),
            duration: try optionalNumber(object, "duration", path: path, line: number),
            boosted: try optionalStrings(object, "boosted", path: path, line: number))
    }

    /// The keys of a line of Gambit's JSON-lines manifest.
    static let jsonKeys = ["id", "audio", "text", "speaker", "split", "condition", "duration", "boosted"]

    private static func nemoEntry(_ line: String, path: String, line number: Int, folder: URL) throws(CorpusError)
        -> CorpusEntry
    {
        let object = try jsonObject(line, path: path, line: number)
        let audio = try string(object, "audio_filepath", path: path, line: number, allowEmpty: false)
        let url = resolve(audio, against: folder)
        let id = url.deletingPathExtension().lastPathComponent
        guard !id.isEmpty else {
            throw .malformedLine(path: path, line: number, detail: "cannot take an id from \"\(audio)\"")
        }
        return CorpusEntry(
            id: id, audio: url,
            text: try string(object, "text", path: path, line: number, allowEmpty: true),
            speaker: try optionalString(object, "speaker", path: path, line: number),
            duration: try optionalNumber(object, "duration", path: path, line: number))
    }

    private static func trnEntry(_ line: String, path: String, line number: Int, audioFolder: URL)
        throws(CorpusError) -> CorpusEntry
    {
        let read: (text: String, id: String)
        do throws(TRNLine.Problem) {
            read = try TRNLine.read(line)
        } catch .noID {
            guard line.hasSuffix(")"), line.contains("(") else {
                throw .malformedLine(path: path, line: number, detail: "expected \"text (id)\", the sclite trn format")
            }
            throw .emptyValue(path: path, line: number, key: "id")
        } catch .unclosedParenthesis(let id) {
            throw .unwritableID(path: path, line: number, id: id, problem: "holds a parenthesis \"(\"", source: nil)
        } catch .unwritableID(let id, let what) {
            throw .unwritableID(path: path, line: number, id: id, problem: "holds \(what)", source: nil)
        } catch {
            throw .malformedLine(path: path, line: number, detail: "expected \"text (id)\", the sclite trn format")
        }
        let id = read.id
        let text = read.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var audio = audioFolder.appendingPathComponent(id + ".wav")
        let flac = audioFolder.appendingPathComponent(id + ".flac")
        if !FileManager.default.fileExists(atPath: audio.path) && FileManager.default.fileExists(atPath: flac.path) {
            audio = flac
        }
        return CorpusEntry(id: id, audio: audio, text: text)
    }

    // MARK: - JSON values

    /// A line's JSON object, read by the one reader of users' JSON lines (``FlatJSONParser``).
    private static func jsonObject(_ line: String, path: String, line number: Int) throws(CorpusError)
        -> [String: FlatJSONParser.Value]
    {
        do {
            return try FlatJSONParser.object(in: line)
        } catch {
            let isObject = line.trimmingCharacters(in: .whitespaces).first == "{"
            throw .malformedLine(
                path: path, line: number,
                detail: (isObject ? "malformed JSON: " : "expected a JSON object: ") + excerpt(line))
        }
    }

    private static func string(
        _ object: [String: FlatJSONParser.Value], _ key: String, path: String, line: Int, allowEmpty: Bool
    ) throws(CorpusError) -> String {
        guard let value = object[key] else { throw .missingKey(path: path, line: line, key: key) }
        guard case .string(let text) = value else {
            throw .wrongType(path: path, line: line, key: key, expected: "a string")
        }
        if !allowEmpty && text.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .emptyValue(path: path, line: line, key: key)
        }
        return text
    }

    private static func optionalString(_ object: [String: FlatJSONParser.Value], _ key: String, path: String, line: Int)
        throws(CorpusError) -> String?
    {
        guard let value = object[key], value != .null else { return nil }
        guard case .string(let text) = value else {
            throw .wrongType(path: path, line: line, key: key, expected: "a string")
        }
        return text
    }

    /// A list of strings (a biasing list); each entry must hold a word, since an empty entry biases nothing.
    private static func optionalStrings(
        _ object: [String: FlatJSONParser.Value], _ key: String, path: String, line: Int
    ) throws(CorpusError) -> [String]? {
        let strings: [String]
        switch object[key] {
        case nil, .null?: return nil
        case .strings(let list)?: strings = list
        case .mixedList(let position)?:
            throw .wrongType(
                path: path, line: line, key: key, expected: "a list of strings (entry \(position) is not)")
        default:
            throw .wrongType(path: path, line: line, key: key, expected: "a list of strings")
        }
        if let empty = strings.firstIndex(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) {
            throw .malformedLine(
                path: path, line: line,
                detail: "entry \(empty + 1) of \"\(key)\" is empty; a biasing list holds words")
        }
        return strings
    }

    private static func optionalNumber(_ object: [String: FlatJSONParser.Value], _ key: String, path: String, line: Int)
        throws(CorpusError) -> Double?
    {
        guard let value = object[key], value != .null else { return nil }
        guard case .number(let text) = value, let number = Double(text), number.isFinite, number >= 0 else {
            throw .wrongType(path: path, line: line, key: key, expected: "a number of seconds")
        }
        return number
    }

    // MARK: - Text and paths

    /// Non-blank lines with their 1-based numbers; tolerates CRLF line ends and a byte-order mark.
    /// - Parameter keepingLeadingTabs: Keep the tabs that open a line, so that in a tab-separated file a row with
    ///   an empty first column (`\ttext`) stays one, not a row whose first column is `text`.
    static func numberedLines(_ contents: String, keepingLeadingTabs: Bool = false) -> [(Int, String)] {
        var text = Substring(contents)
        if text.first == "\u{FEFF}" { text = text.dropFirst() }
        var result: [(Int, String)] = []
        // Split on "\n" only: "\r\n" is a single Character in Swift, so split on unicode scalars instead.
        for (index, raw) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(String.UnicodeScalarView(raw))
            if line.hasSuffix("\r") { line.removeLast() }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            if keepingLeadingTabs, line.first(where: { $0 != " " }) == "\t" {
                // Only the spaces before the first tab and the trailing whitespace go.
                var kept = line.drop { $0 == " " }
                while let last = kept.last, last.isWhitespace { kept.removeLast() }
                result.append((index + 1, String(kept)))
            } else {
                result.append((index + 1, trimmed))
            }
        }
        return result
    }

    static func resolve(_ path: String, against folder: URL) -> URL {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
        return url.standardizedFileURL
    }

    /// Whether `file` lies inside `folder` once `.`, `..` and every symbolic link are resolved on both sides.
    ///
    /// Links are followed because the kernel follows them when the file is opened: a link inside the suite folder
    /// to `/etc/passwd` is outside, and a suite folder that is itself a link (`/tmp/x` → `/work/suite`) holds
    /// what its target holds. A path that does not exist yet is judged by its nearest existing folder.
    public static func isInside(_ file: URL, _ folder: URL) -> Bool {
        var base = physicalPath(folder)
        if !base.hasSuffix("/") { base += "/" }
        return physicalPath(file).hasPrefix(base)
    }

    /// `url`'s path with `.`, `..` and symbolic links resolved (`realpath`); for a path that does not exist, its
    /// longest existing ancestor is resolved and the rest appended, and a dangling link is followed by hand.
    static func physicalPath(_ url: URL) -> String {
        var path = url.standardizedFileURL.path
        var rest: [String] = []
        var links = 0
        while true {
            if let resolved = realpath(path, nil) {
                defer { free(resolved) }
                let head = String(cString: resolved)
                return rest.reversed().reduce(head) { $0.hasSuffix("/") ? $0 + $1 : $0 + "/" + $1 }
            }
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
            // A link whose target does not exist: judge it by where it points (at most 40 links, as the kernel).
            if links < 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                links += 1
                path =
                    (target.hasPrefix("/") ? URL(fileURLWithPath: target) : parent.appendingPathComponent(target))
                    .standardizedFileURL.path
                continue
            }
            let parentPath = parent.standardizedFileURL.path
            if parentPath == path || path.isEmpty { return url.standardizedFileURL.path }
            rest.append(URL(fileURLWithPath: path).lastPathComponent)
            path = parentPath
        }
    }

    /// The audio path as the manifest line wrote it, for messages (JSON lines only).
    private static func audioText(_ line: String) -> String? {
        guard let object = try? FlatJSONParser.object(in: line) else { return nil }
        if case .string(let audio)? = object["audio"] ?? object["audio_filepath"] { return audio }
        return nil
    }

    static func relativePath(of audio: URL, in folder: URL) -> String {
        let file = audio.standardizedFileURL.path
        var base = folder.standardizedFileURL.path
        if !base.hasSuffix("/") { base += "/" }
        return file.hasPrefix(base) ? String(file.dropFirst(base.count)) : file
    }

    /// A JSON string literal; non-ASCII characters are kept as UTF-8, controls are escaped.
    static func jsonString(_ text: String) -> String { quotedString(text) }

    private static func excerpt(_ line: String) -> String {
        line.count > 60 ? String(line.prefix(60)) + "…" : line
    }
}
