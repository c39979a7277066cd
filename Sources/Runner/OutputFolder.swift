import Formats
import Foundation
import Glibc
import Results
import Scoring

/// Why an output folder cannot be used; each message names the folder and what to do.
public struct OutputFolderError: Error, CustomStringConvertible, Equatable {
    public enum Problem: Equatable, Sendable {
        /// The path (or one of its parents) is a file.
        case isFile(String)
        /// The folder, or the parent it would be made in, cannot be written (the system's reason).
        case notWritable(String, reason: String)
        /// The folder could not be made in a parent that can be written: a name too long, a full disk (the
        /// reason, in words).
        case cannotCreate(reason: String)
        /// Another run holds the folder's lock.
        case inUse(pid: Int32?)
        /// The folder is the suite's own folder or holds it, or holds a file the suite reads (the
        /// suite's folder or that file): reports written there would mix with, or overwrite, the user's files.
        case holdsSuite(String)
        /// The folder is the output folder of a results file the command reads (a shard given to `gambit merge`):
        /// the results and reports written there would replace it.
        case holdsInput(String)
    }

    /// The output folder.
    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .isFile(let file) where file == path:
            "\(path): the output path is a file, not a folder; choose another --output or move the file"
        case .isFile(let file):
            "\(path): cannot make the output folder: \(file) is a file, not a folder"
        case .notWritable(let folder, let reason):
            "\(path): cannot write the output folder: \(folder) is not writable (\(reason)); "
                + "choose a writable --output or fix its permissions"
        case .cannotCreate(let reason):
            "\(path): cannot make the output folder: \(reason); choose another --output"
        case .inUse(let pid):
            "\(path): the output folder is in use by another gambit run"
                + (pid.map { " (pid \($0))" } ?? "")
                + "; wait for it to finish or choose another --output"
        case .holdsSuite(let input):
            "\(path): the output folder holds the suite's own files (\(input)); reports written there would mix "
                + "with or overwrite them. Choose an --output of its own, such as a Reports folder beside or inside "
                + "the suite's folder"
        case .holdsInput(let input):
            "\(path): the output folder holds an input of this command (\(input)); the results and reports written "
                + "there would replace it. Choose an --output of its own, such as a new folder beside the inputs"
        }
    }
}

/// Output folders: made ready for writing with readable errors, and locked for one run at a time.
public enum OutputFolder {
    /// Creates `url` and its parents if needed, and checks that it can be written.
    /// - Throws: ``OutputFolderError`` when the path or a parent is a file, is not writable, or the folder cannot
    ///   be made in it (a name too long).
    public static func prepare(_ url: URL) throws(OutputFolderError) {
        let path = url.standardizedFileURL.path
        var existing = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory) {
            let parent = existing.deletingLastPathComponent()
            if parent.path == existing.path { break }
            existing = parent
        }
        guard isDirectory.boolValue else {
            throw OutputFolderError(path: path, problem: .isFile(existing.path))
        }
        guard access(existing.path, W_OK | X_OK) == 0 else {
            throw OutputFolderError(
                path: path, problem: .notWritable(existing.path, reason: String(cString: strerror(errno))))
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            // The parent passed the access check, so the system's reason is something else: say it in words.
            throw OutputFolderError(
                path: path, problem: .cannotCreate(reason: FileSystemReason.writing(url, error, expecting: .folder)))
        }
    }

    /// Refuses an output folder that is the suite's folder or a folder holding it, or that holds a
    /// corpus manifest or training-data file the suite names. A folder inside the suite's folder that
    /// holds none of them (`Corpora/Reports`) is fine. Symbolic links are resolved before comparing.
    /// - Parameters:
    ///   - url: The output folder (it need not exist).
    ///   - suite: The suite whose files must not be written over.
    /// - Throws: ``OutputFolderError`` with ``OutputFolderError/Problem/holdsSuite(_:)`` naming the input.
    public static func checkSeparate(_ url: URL, from suite: Suite) throws(OutputFolderError) {
        let output = OutputPath.realPath(url) ?? url.standardizedFileURL.path
        let inputs =
            [(suite.folder, true)]
            + (suite.corpora.map(\.manifest) + suite.variants.map(\.training)).map { ($0, false) }
        for (input, isFolder) in inputs {
            let folder = isFolder ? input : input.deletingLastPathComponent()
            guard let real = OutputPath.realPath(folder) else { continue }
            if real == output || real.hasPrefix(output == "/" ? "/" : output + "/") {
                throw OutputFolderError(
                    path: url.standardizedFileURL.path, problem: .holdsSuite(isFolder ? suite.file.path : input.path))
            }
        }
    }

    /// Refuses an output folder that is the output folder of one of the results files a command reads (`SHARD`
    /// for `SHARD/.gambit/results.json` or `SHARD/report.json`, see ``Runner/outputFolder(ofResults:)``): the
    /// results and reports written there would replace that input. Each path is taken as the command line gave
    /// it, and symbolic links are resolved before comparing; a folder beside or inside the inputs is fine.
    /// - Parameters:
    ///   - url: The output folder (it need not exist).
    ///   - inputs: The results files the command reads.
    /// - Throws: ``OutputFolderError`` with ``OutputFolderError/Problem/holdsInput(_:)`` naming the input.
    public static func checkSeparate(_ url: URL, fromResults inputs: [URL]) throws(OutputFolderError) {
        let output = OutputPath.realPath(url) ?? url.standardizedFileURL.path
        for input in inputs where OutputPath.realPath(Runner.outputFolder(ofResults: input)) == output {
            throw OutputFolderError(path: url.standardizedFileURL.path, problem: .holdsInput(input.path))
        }
    }

    /// The name of the lock file inside a run's data folder.
    public static let lockName = "lock"

    /// Takes the lock of a run's output folder (`OUTPUT/.gambit/lock`), making the folders it needs: every command
    /// that writes a run's folder (`run`, `sweep`, `merge`, `report`, `diagnose`) holds it while it writes, so that
    /// none overwrites what another is writing there.
    /// - Parameter output: The output folder.
    /// - Returns: The lock, held until ``Lock/release()`` or deinit.
    /// - Throws: ``OutputPathError`` when the data folder leads out of `output`; ``OutputFolderError`` when a
    ///   folder cannot be made or written, or another process holds the lock (naming its pid).
    public static func lock(_ output: URL) throws -> Lock {
        let data = output.appendingPathComponent(Runner.dataFolder)
        let file = data.appendingPathComponent(lockName)
        try OutputPath.check(file, isInside: output)
        try prepare(output)
        try prepare(data)
        return try Lock(file: file, folder: output)
    }

    /// An exclusive `flock` on a folder's lock file, held until ``release()`` or deinit. The lock
    /// file holds the owner's pid, so that a second run can name it.
    public final class Lock {
        private var descriptor: Int32

        /// Takes the lock at once or throws.
        /// - Parameters:
        ///   - file: The lock file (created if needed).
        ///   - folder: The folder it guards, for the message.
        /// - Throws: ``OutputFolderError`` with ``OutputFolderError/Problem/inUse(pid:)`` when another
        ///   process holds it, or ``OutputFolderError/Problem/notWritable(_:reason:)``.
        public init(file: URL, folder: URL) throws(OutputFolderError) {
            let fd = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw OutputFolderError(
                    path: folder.path, problem: .notWritable(file.path, reason: String(cString: strerror(errno))))
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let contents = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                close(fd)
                throw OutputFolderError(
                    path: folder.path,
                    problem: .inUse(pid: Int32(contents.trimmingCharacters(in: .whitespacesAndNewlines))))
            }
            descriptor = fd
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }

        /// Lets the next run in.
        public func release() {
            guard descriptor >= 0 else { return }
            _ = ftruncate(descriptor, 0)
            close(descriptor)
            descriptor = -1
        }

        deinit { release() }
    }
}
