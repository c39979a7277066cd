import Foundation

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
        let digest = SHA256Digest.hash(Array(encoded.utf8)).prefix(16)
        let suffix = "~" + digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
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

/// SHA-256 (FIPS 180-4), for shortening long names; Results has no crypto dependency and needs only this.
enum SHA256Digest {
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        var data = message
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                w[i] = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[chunk + 4 * i + $1]) }
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, value) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ value }
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }
}
