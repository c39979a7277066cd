import Crypto
import Foundation

/// A file a fingerprint covers could not be read: which, and why.
public struct FingerprintError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file's path.
    public var path: String
    /// `no such file`, or `cannot be read`.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot fingerprint \(path): \(reason)" }
}

extension ContentHash {
    /// A fingerprint of files' contents, the one way Gambit fingerprints files (a prepared model's files, the
    /// acoustic model's, an external recognizer's artifact folder): for each file in order, `name:length` and a
    /// line break, then its bytes; SHA-256 over all of it, as lowercase hex.
    ///
    /// - Parameter files: Each file with the name it is hashed under (its file name, or its path in a folder), so
    ///   that a file renamed changes the fingerprint.
    /// - Returns: 64 hex digits.
    /// - Throws: ``FingerprintError`` naming the first file that is missing or cannot be read: a fingerprint
    ///   that skipped it would describe other content than the caller has.
    public static func fingerprint(of files: [(name: String, url: URL)]) throws(FingerprintError) -> String {
        var hasher = SHA256()
        for (name, url) in files {
            guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else {
                let exists = FileManager.default.fileExists(atPath: url.path)
                throw FingerprintError(path: url.path, reason: exists ? "cannot be read" : "no such file")
            }
            hasher.update(data: Data("\(name):\(data.count)\n".utf8))
            hasher.update(data: data)
        }
        return hex(hasher.finalize())
    }

    /// A fingerprint of a folder: ``fingerprint(of:)`` over every regular file in it, at any depth, named by its
    /// path relative to the folder, in path order.
    ///
    /// - Throws: ``FingerprintError`` naming a file that cannot be read.
    public static func fingerprint(ofFolder folder: URL) throws(FingerprintError) -> String {
        let base = folder.standardizedFileURL.path
        let files =
            (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])?
            .compactMap { $0 as? URL } ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map { (name: String($0.standardizedFileURL.path.dropFirst(base.count)), url: $0) }
            .sorted { $0.name < $1.name }
        return try fingerprint(of: files)
    }
}
