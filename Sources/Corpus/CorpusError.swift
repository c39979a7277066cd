import Audio
import Formats
import Foundation
import TrainingData

/// Why a corpus could not be read, planned or synthesized.
///
/// Problems with an input file name the file and the 1-based line; problems with a tool say which tool and
/// how to install it. The ``description`` is meant to be shown to the user as it is.
public enum CorpusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file could not be read at all.
    case unreadable(path: String, detail: String)
    /// A file could not be written.
    case unwritable(path: String, detail: String)
    /// The manifest's format could not be told from its name or first line.
    case unknownFormat(path: String, detail: String)
    /// A line is not what its format requires (malformed JSON, a `trn` line without `(id)`, …).
    case malformedLine(path: String, line: Int, detail: String)
    /// A required key is absent from a manifest line.
    case missingKey(path: String, line: Int, key: String)
    /// A key holds the wrong kind of JSON value (for example a number where a string belongs).
    case wrongType(path: String, line: Int, key: String, expected: String)
    /// A key that must not be empty is an empty string.
    case emptyValue(path: String, line: Int, key: String)
    /// An audio path leads out of the folders the run may read (the suite's, and those it allows by name).
    case outsideAllowedFolders(path: String, line: Int, audio: String, allowed: [String])
    /// An id appears twice in one file.
    case duplicateID(path: String, line: Int, id: String, firstLine: Int)
    /// An id that sclite `trn` and `ctm` files cannot hold (see ``CorpusEntry/idProblem(_:)``); `source` says
    /// where the id came from when it is not written out (the audio file's name, for NeMo manifests).
    case unwritableID(path: String, line: Int, id: String, problem: String, source: String?)
    /// A voice could not be parsed or is not installed.
    case invalidVoice(String, detail: String)
    /// A condition could not be parsed.
    case invalidCondition(String, detail: String)
    /// A synthesis plan that cannot be carried out.
    case invalidPlan(detail: String)
    /// An external program is not on the search path.
    case toolMissing(tool: String, package: String)
    /// An external program ran and failed.
    case toolFailed(command: String, status: Int32, output: String)
    /// Synthesized audio could not be read back.
    case audio(AudioError)

    public var description: String {
        switch self {
        case .unreadable(let path, let detail):
            "\(path): cannot read the file (\(detail))"
        case .unwritable(let path, let detail):
            "\(path): cannot write the file (\(detail))"
        case .unknownFormat(let path, let detail):
            "\(path): cannot tell the manifest format (\(detail)); pass --format jsonl, nemo or trn"
        case .malformedLine(let path, let line, let detail):
            "\(path):\(line): \(detail)"
        case .missingKey(let path, let line, let key):
            "\(path):\(line): missing key \"\(key)\""
        case .wrongType(let path, let line, let key, let expected):
            "\(path):\(line): key \"\(key)\" must be \(expected)"
        case .emptyValue(let path, let line, let key):
            "\(path):\(line): key \"\(key)\" is empty"
        case .outsideAllowedFolders(let path, let line, let audio, let allowed):
            "\(path):\(line): audio \"\(audio)\" is outside "
                + (allowed.count == 1
                    ? "the suite's folder \(allowed[0])" : "the folders \(allowed.joined(separator: ", "))")
                + "; list its folder under the corpus's allow-outside-paths, or run with --allow-outside-paths"
        case .duplicateID(let path, let line, let id, let firstLine):
            "\(path):\(line): duplicate id \"\(PrintedName.alone(id))\" (first on line \(firstLine)); ids must be unique"
        case .unwritableID(let path, let line, let id, let problem, let source):
            "\(path):\(line): id \(CorpusManifest.jsonString(id))"
                + (source.map { " (taken from the audio file name \(CorpusManifest.jsonString($0)))" } ?? "")
                + " \(problem); ids are written into sclite trn \"text (id)\" and ctm \"id channel start duration "
                + "word\" files, which cannot hold whitespace, parentheses or control characters. "
                + (source == nil
                    ? "Rename it with letters, digits, \"-\", \"_\" or \".\"."
                    : "Rename the audio file, or list it in a Gambit JSON-lines manifest with an \"id\" of its own.")
        case .invalidVoice(let voice, let detail):
            "voice \"\(voice)\": \(detail)"
        case .invalidCondition(let condition, let detail):
            "condition \"\(condition)\": \(detail)"
        case .invalidPlan(let detail):
            "synthesis plan: \(detail)"
        case .toolMissing(let tool, let package):
            "\(tool) not found: apt-get install \(package)"
        case .toolFailed(let command, let status, let output):
            "\(command) exited with status \(status)"
                + (output.isEmpty ? "" : ": " + output.trimmingCharacters(in: .whitespacesAndNewlines).suffix(1000))
        case .audio(let error):
            error.description
        }
    }
}

extension CorpusError {
    /// A corpus file's text: ``unreadable(path:detail:)`` when it is missing or not UTF-8.
    static func readText(_ url: URL) throws(CorpusError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, detail: FileSystemReason.reading(url, error))
        }
        switch UTF8Text.decode(data) {
        case .success(let text): return text
        case .failure(let invalid): throw .unreadable(path: url.path, detail: invalid.explanation)
        }
    }
}
