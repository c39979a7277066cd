import Formats
import Foundation

/// A command-line program found on a search path, run to completion with its output captured.
struct ExternalTool: Sendable {
    /// The program's name, e.g. `flite`.
    let name: String
    /// Where it was found.
    let executable: URL

    /// Finds `name` in the colon-separated `searchPath`.
    ///
    /// - Throws: ``CorpusError/toolMissing(tool:package:)`` naming the Debian package to install.
    static func locate(_ name: String, package: String, searchPath: String) throws(CorpusError) -> ExternalTool {
        for folder in searchPath.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return ExternalTool(name: name, executable: candidate)
            }
        }
        throw .toolMissing(tool: name, package: package)
    }

    /// Runs the program and returns what it wrote to standard output and standard error, interleaved.
    ///
    /// Both streams go to one pipe, which is read to its end before waiting, so a chatty program cannot fill
    /// a pipe nobody reads and hang.
    ///
    /// - Parameters:
    ///   - arguments: The program's arguments.
    ///   - anyStatus: Accept any exit status (`flite --version` exits 1 after printing its version).
    /// - Throws: ``CorpusError/toolFailed(command:status:output:)`` when it cannot start or exits non-zero.
    @discardableResult
    func run(_ arguments: [String], anyStatus: Bool = false) throws(CorpusError) -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let command = ([name] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        do {
            try process.run()
        } catch {
            throw .toolFailed(command: command, status: -1, output: FileSystemReason.reading(executable, error))
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationReason == .exit, anyStatus || process.terminationStatus == 0 else {
            throw .toolFailed(command: command, status: process.terminationStatus, output: output)
        }
        return output
    }
}

/// The synthesis programs a plan needs, found and checked before any work starts.
///
/// flite and espeak-ng quietly fall back to a default voice when asked for one they do not have, so every
/// voice in the plan is checked against their own lists here rather than discovered later by ear.
struct SynthesisTools: Sendable {
    private(set) var tools: [String: ExternalTool] = [:]
    /// Each tool's version text, part of every utterance's stamp so that an upgrade re-synthesizes.
    private(set) var versions: [String: String] = [:]

    init(searchPath: String, voices: [Voice], conditions: [Condition]) throws(CorpusError) {
        let fliteVoices = voices.compactMap { voice -> String? in
            if case .flite(let name) = voice { name } else { nil }
        }
        let espeakVoices = voices.compactMap { voice -> String? in
            if case .espeak(let name) = voice { name } else { nil }
        }
        if !fliteVoices.isEmpty {
            let flite = try add("flite", package: "flite", searchPath: searchPath, versionArguments: ["--version"])
            // "Voices available: kal awb_time kal16 awb rms slt"
            let listing = try flite.run(["-lv"])
            let available = listing.split(separator: ":").last.map { $0.split(whereSeparator: \.isWhitespace) } ?? []
            for name in fliteVoices where !available.contains(Substring(name)) {
                throw .invalidVoice(
                    "flite:\(name)", detail: "flite has no such voice; it has \(available.joined(separator: ", "))")
            }
        }
        if !espeakVoices.isEmpty {
            let espeak = try add(
                "espeak-ng", package: "espeak-ng", searchPath: searchPath, versionArguments: ["--version"])
            let languages = Self.espeakNames(try espeak.run(["--voices"]))
            let variants = Self.espeakNames(try espeak.run(["--voices=variant"]))
            for name in espeakVoices {
                let parts = name.split(separator: "+", maxSplits: 1).map { $0.lowercased() }
                if !languages.contains(parts[0]) {
                    throw .invalidVoice(
                        "espeak:\(name)",
                        detail: "espeak-ng has no language or voice \"\(parts[0])\"; "
                            + "see espeak-ng --voices")
                }
                if parts.count == 2 && !variants.contains(parts[1]) {
                    throw .invalidVoice(
                        "espeak:\(name)",
                        detail: "espeak-ng has no variant \"\(parts[1])\"; "
                            + "see espeak-ng --voices=variant")
                }
            }
        }
        if conditions.contains(where: \.needsSox) {
            try add("sox", package: "sox", searchPath: searchPath, versionArguments: ["--version"])
        }
    }

    /// The tool, which the initializer found because the plan needs it.
    func tool(_ name: String, package: String) throws(CorpusError) -> ExternalTool {
        guard let tool = tools[name] else { throw .toolMissing(tool: name, package: package) }
        return tool
    }

    @discardableResult
    private mutating func add(_ name: String, package: String, searchPath: String, versionArguments: [String])
        throws(CorpusError) -> ExternalTool
    {
        let tool = try ExternalTool.locate(name, package: package, searchPath: searchPath)
        tools[name] = tool
        versions[name] = try tool.run(versionArguments, anyStatus: true).trimmingCharacters(in: .whitespacesAndNewlines)
        return tool
    }

    /// Lowercased language codes, voice names and file names from an `espeak-ng --voices` listing, whose
    /// columns are `Pty Language Age/Gender VoiceName File Other…`; variant files look like `!v/m3`.
    private static func espeakNames(_ listing: String) -> Set<String> {
        var names: Set<String> = []
        for line in listing.split(separator: "\n").dropFirst() {
            let columns = line.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
            guard columns.count >= 5 else { continue }
            names.insert(columns[1])
            names.insert(columns[3])
            names.insert(String(columns[4].split(separator: "/").last ?? ""))
        }
        return names
    }
}

extension Condition {
    /// Whether applying the condition runs sox.
    var needsSox: Bool {
        switch self {
        case .clean, .noise: false
        case .speed, .telephone: true
        }
    }
}
