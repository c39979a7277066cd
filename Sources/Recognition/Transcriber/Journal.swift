import Foundation
import Glibc
import Synchronization

/// Append-only record of finished work (a decoded utterance, a diagnosed one): one JSON line each, flushed as it is written, so a
/// crash or `kill -9` loses at most the line being written (which is then ignored).
///
/// A line is written whole or not at all: when an append fails (a full disk), the bytes it managed
/// to write are cut off again and the run stops with ``JournalError``, so that the next run, with
/// space freed, resumes from whole lines.
public final class Journal: Sendable {
    private let handle: FileHandle
    private let path: String
    /// Lines appended so far; appends hold this lock for the whole write, so lines never interleave.
    private let lines = Mutex(0)
    /// Test hook: the append after this many lines fails half-way with ENOSPC.
    private let failAfterLinesForTesting: Int?

    public init(appendingTo url: URL, failAfterLinesForTesting: Int? = nil) throws {
        self.failAfterLinesForTesting = failAfterLinesForTesting
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        path = url.path
        handle = try FileHandle(forWritingTo: url)
        let end = try handle.seekToEnd()
        // A run killed mid-write leaves a torn last line: end it so the next line starts clean.
        if end > 0, let reader = try? FileHandle(forReadingFrom: url) {
            try reader.seek(toOffset: end - 1)
            if reader.readData(ofLength: 1) != Data("\n".utf8) { try handle.write(contentsOf: Data("\n".utf8)) }
            try? reader.close()
        }
    }

    public func append(_ entry: some Encodable) throws(JournalError) {
        try lines.withLock { (lines: inout Int) throws(JournalError) in try append(entry, lines: &lines) }
    }

    private func append(_ response: some Encodable, lines: inout Int) throws(JournalError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data: Data
        do {
            data = try encoder.encode(response)
        } catch {
            throw JournalError(path: path, reason: "cannot encode a result: \(error)", kept: lines)
        }
        data.append(UInt8(ascii: "\n"))
        let fd = handle.fileDescriptor
        let start = lseek(fd, 0, SEEK_END)
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            let injected = failAfterLinesForTesting == lines
            let limit = injected ? raw.count / 2 : raw.count
            while offset < limit {
                let written = Glibc.write(fd, raw.baseAddress! + offset, limit - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
            if injected { failure = ENOSPC }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        guard failure != 0 else {
            lines += 1
            return
        }
        // Cut the partial line off, so that the journal holds whole lines only.
        if start >= 0 {
            _ = ftruncate(fd, start)
            _ = lseek(fd, start, SEEK_SET)
        }
        throw JournalError(path: path, reason: String(cString: strerror(failure)), kept: lines)
    }

    public func close() { try? handle.close() }

    /// Whether an answer is kept on resume: a crashed attempt is retried, a normal answer is final.
    static func isFinal(_ response: WorkResponse) -> Bool {
        response.failure == nil || !response.crashed
    }

    /// Finished work by key; a torn last line is skipped.
    static func read(_ url: URL) -> [String: WorkResponse] {
        var done: [String: WorkResponse] = [:]
        for response in entries(url, as: WorkResponse.self) where isFinal(response) { done[response.key] = response }
        return done
    }

    /// Every whole line of the journal at `url` that decodes as `Entry`, in order; none when there is no file.
    public static func entries<Entry: Decodable>(_ url: URL, as: Entry.Type) -> [Entry] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONDecoder().decode(Entry.self, from: Data($0))
        }
    }
}

/// A result could not be written to the run's journal, so the run stopped rather than lose it.
public struct JournalError: Error, CustomStringConvertible, Equatable {
    /// The journal file.
    public var path: String
    /// Why the write failed, e.g. "No space left on device".
    public var reason: String
    /// Results this run appended before the failure; they are kept, whole.
    public var kept: Int

    public var description: String {
        "\(path): cannot append to the run's journal (\(reason)); the run stopped. The \(kept) result(s) it "
            + "journaled are kept; free space and run the same command again to resume where it stopped."
    }
}
