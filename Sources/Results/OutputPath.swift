import Foundation
import Hashing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A name made safe to be one component of a file path.
///
/// Corpus, variant, suite and recognizer names come from a suite a user writes, and some become file
/// names (`trn/<corpus>.ref.trn`, a sweep's model folder). This type is the one place that turns a name
/// into a path component, so that no name leads out of the folder it is written in (`../x`, `/abs`,
/// `a/b`, `..`), and two different names never share a file:
///
/// - ASCII letters and digits, `-`, `_` and `.` are kept, so ordinary names read as they are;
/// - every other byte of the name's UTF-8 is written `%XX` (uppercase hex), `%` itself included, so
///   `a/b` becomes `a%2Fb` and `café` becomes `caf%C3%A9`;
/// - a leading `.` is written `%2E`, so no result is `.`, `..` or hidden; the empty name is `%`;
/// - a result longer than ``maximumBytes`` keeps its first bytes and ends with `~` and 32 hex digits
///   of the SHA-256 of the whole encoding (only such a shortened result holds a `~`).
///
/// Because `%` is always encoded, decoding gives back the name's bytes: the encoding is one-to-one,
/// and the shortened form is one-to-one up to a SHA-256 collision.
public struct PathComponent: Hashable, Sendable, CustomStringConvertible {
    /// The component: only `[A-Za-z0-9._%~-]`, never empty, `.` or `..`, at most ``maximumBytes``.
    public let value: String

    /// The longest component made, well under the 255 bytes file systems allow, leaving room for an
    /// extension and the temporary name an atomic write uses beside the file.
    public static let maximumBytes = 200

    /// One name as one component; dots inside it are kept (`v1.2` stays `v1.2`).
    public init(_ name: String) {
        value = Self.shortened(Self.encode(name, encodingDots: false))
    }

    /// Several names as one component, separated by `.` (`chess.customized.chess-full`). A dot inside a
    /// name is written `%2E`, so that `a.b` + `c` and `a` + `b.c` stay apart.
    /// - Parameter names: At least one name.
    public init(joining names: [String]) {
        precondition(!names.isEmpty, "PathComponent(joining:) needs at least one name")
        value = Self.shortened(names.map { Self.encode($0, encodingDots: true) }.joined(separator: "."))
    }

    public var description: String { value }

    private static func encode(_ name: String, encodingDots: Bool) -> String {
        guard !name.isEmpty else { return "%" }
        var out = ""
        for (index, byte) in name.utf8.enumerated() {
            let kept =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && index > 0 && !encodingDots)
            if kept {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private static func shortened(_ encoded: String) -> String {
        guard encoded.utf8.count > maximumBytes else { return encoded }
        let suffix = "~" + ContentHash.hex(ContentHash.sha256(Data(encoded.utf8)).prefix(16))
        var prefix = Array(encoded.utf8.prefix(maximumBytes - suffix.utf8.count))
        // Not in the middle of a `%XX`, so the kept part still reads as the name's start.
        if let percent = prefix.suffix(2).lastIndex(of: UInt8(ascii: "%")) { prefix.removeSubrange(percent...) }
        return String(decoding: prefix, as: UTF8.self) + suffix
    }
}

/// Why Gambit will not write a file: it would land outside the output folder.
public struct OutputPathError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file, as it would be written.
    public var file: String
    /// The output folder it must stay inside.
    public var folder: String

    public init(file: String, folder: String) {
        self.file = file
        self.folder = folder
    }

    public var description: String {
        "\(file): not written, because it would be outside the output folder \(folder); "
            + "a name in the suite or results (corpus, variant, recognizer) or a symbolic link inside the output "
            + "folder leads out of it. Rename it, or remove the link."
    }
}

/// The one check every file Gambit writes into an output folder goes through.
public enum OutputPath {
    /// A file inside `folder`: the sub-folders as given (Gambit's own, such as `trn`) and a last
    /// component made of names, checked to be inside the folder.
    /// - Parameters:
    ///   - folder: The output folder.
    ///   - subfolders: Gambit's own sub-folders (not names from a user), outermost first.
    ///   - name: The file's name, made safe.
    ///   - pathExtension: Appended after a `.`, e.g. `trn`.
    /// - Returns: The file's URL.
    /// - Throws: ``OutputPathError`` when it would be outside `folder`.
    public static func file(
        in folder: URL, _ subfolders: [String] = [], _ name: PathComponent, pathExtension: String? = nil
    ) throws(OutputPathError) -> URL {
        var url = folder
        for subfolder in subfolders { url.appendPathComponent(subfolder, isDirectory: true) }
        url.appendPathComponent(name.value + (pathExtension.map { ".\($0)" } ?? ""), isDirectory: false)
        try check(url, isInside: folder)
        return url
    }

    /// Checks that `file` is strictly inside `folder`, comparing real paths: both are made absolute,
    /// the parts that exist have their symbolic links resolved, and `.` and `..` are applied.
    /// - Throws: ``OutputPathError`` naming the file when it is outside, is the folder itself, or
    ///   holds a NUL byte.
    public static func check(_ file: URL, isInside folder: URL) throws(OutputPathError) {
        let error = OutputPathError(file: file.path, folder: folder.path)
        guard let real = realPath(file), let base = realPath(folder) else { throw error }
        let prefix = base == "/" ? "/" : base + "/"
        guard real.hasPrefix(prefix), real.count > prefix.count else { throw error }
    }

    /// The absolute path with symbolic links resolved in the part that exists; `nil` for a path with NUL.
    public static func realPath(_ url: URL) -> String? {
        var path = url.path
        guard !path.utf8.contains(0) else { return nil }
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        let parts = path.split(separator: "/").map(String.init)
        var existing = parts.count
        var resolved: [String] = []
        while existing >= 0 {
            if let real = realpath("/" + parts.prefix(existing).joined(separator: "/"), nil) {
                resolved = String(cString: real).split(separator: "/").map(String.init)
                free(real)
                break
            }
            existing -= 1
        }
        // What does not exist holds no link, so `..` there is plain text.
        for part in parts.dropFirst(max(existing, 0)) {
            switch part {
            case ".": continue
            case "..": _ = resolved.popLast()
            default: resolved.append(part)
            }
        }
        return "/" + resolved.joined(separator: "/")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
