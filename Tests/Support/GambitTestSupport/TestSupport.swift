import Foundation

/// Shared helpers for Gambit's test suites: running the real tools (sox, flite, pocketsphinx_batch,
/// sclite) and locating Debian's test recordings. Tests use real data only.
public enum TestSupport {
    /// Debian's `pocketsphinx-testdata` recordings.
    public static let testData = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data")

    /// The five LibriVox recordings, in `fileids` order.
    public static var librivox: [URL] {
        let folder = testData.appendingPathComponent("librivox")
        let ids = (try? String(contentsOf: folder.appendingPathComponent("fileids"), encoding: .utf8)) ?? ""
        return ids.split(separator: "\n").map { folder.appendingPathComponent("\($0).wav") }
    }

    /// The five "cards" recordings.
    public static var cards: [URL] {
        (1...5).map { testData.appendingPathComponent("cards/00\($0).wav") }
    }

    /// The package's root folder (found from this source file's location, `Tests/Support/GambitTestSupport/`).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The folders of Swift code that ships or runs from the package (not the tests): the product's modules,
    /// benchmarks and fuzz targets. Checks over "every source file" walk these.
    public static let codeFolders = ["Sources", "Benchmarks", "Fuzz"]

    /// This test process's folder under the system temporary directory; removed, with everything in
    /// it, when the process exits, so that no test leaves a folder behind however it ends.
    public static let temporaryRoot: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-tests-\(getpid())")
        atexit { try? FileManager.default.removeItem(at: TestSupport.temporaryRoot) }
        return url
    }()

    /// A new empty folder under ``temporaryRoot``.
    /// Makes the file at `url` an executable the tests start: written again, into a new file opened with
    /// `O_CLOEXEC`, and made executable. Foundation writes through a descriptor every child started meanwhile (by a
    /// test running beside) inherits and keeps for its whole life; starting a program some process holds open for
    /// writing fails with "Text file busy".
    public static func makeExecutable(_ url: URL) throws {
        let text = try Data(contentsOf: url)
        try FileManager.default.removeItem(at: url)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        func failure(_ what: String) -> ToolFailure {
            ToolFailure(command: "\(what) \(url.path)", status: errno, stderr: String(cString: strerror(errno)))
        }
        guard descriptor >= 0 else { throw failure("create") }
        defer { close(descriptor) }
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == text.count else { throw failure("write") }
        guard fchmod(descriptor, 0o755) == 0 else { throw failure("chmod") }
    }

    public static func temporaryDirectory(_ label: String = "test") throws -> URL {
        let url = temporaryRoot.appendingPathComponent("gambit-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// True when an executable is on PATH.
    public static func hasTool(_ name: String) -> Bool {
        (try? run("/usr/bin/env", ["which", name])) != nil
    }

    /// Runs a program and returns its standard output; throws with its standard error on failure.
    /// `environment` replaces the child's environment (nil: ours).
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(input)
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(
                command: ([executable] + arguments).joined(separator: " "),
                status: process.terminationStatus, stderr: String(decoding: err, as: UTF8.self))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The `gambit` executable built beside the running test bundle.
    public static var gambitExecutable: URL {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("gambit").path),
            folder.path != "/"
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("gambit")
    }

    /// Runs `gambit` with `arguments` and returns its exit status and its standard output and
    /// error, interleaved, whatever the status. `environment` replaces the child's environment (nil: ours).
    public static func gambit(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = gambitExecutable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Speaks `text` with a flite voice into a 16 kHz mono WAV file.
    public static func synthesize(_ text: String, voice: String = "slt", to url: URL) throws {
        let raw = url.deletingPathExtension().appendingPathExtension("flite.wav")
        try run("flite", ["-voice", voice, "-t", text, "-o", raw.path])
        try run("sox", ["-R", raw.path, "-r", "16000", "-c", "1", "-b", "16", url.path])
        try? FileManager.default.removeItem(at: raw)
    }
}

/// A tool exited with a non-zero status.
public struct ToolFailure: Error, CustomStringConvertible {
    public let command: String
    public let status: Int32
    public let stderr: String

    public var description: String { "\(command) exited \(status): \(stderr.suffix(2000))" }
}
