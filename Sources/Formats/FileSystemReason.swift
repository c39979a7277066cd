import Foundation

/// Why a file could not be read or written, in words a user can act on: "a folder, not a file", "no such file",
/// "/data/run is a file, not a folder", "the name … is 300 bytes long, over the 255 a name may have",
/// "Permission denied".
///
/// Foundation's own message names an error domain and number ("The operation could not be completed.
/// (NSCocoaErrorDomain error 256.)") or dumps the whole error, and says none of that. The path itself is looked
/// at first, since Foundation does not always carry the system's reason; the system's reason (`strerror`) is the
/// last resort.
public enum FileSystemReason {
    /// What the path should name.
    public enum Expected: Sendable {
        case file, folder
    }

    /// The most bytes one name in a path may have on Linux and macOS file systems (`NAME_MAX`).
    public static let maxNameBytes = 255
    /// The most bytes a whole path may have on Linux (`PATH_MAX`, its final NUL included).
    public static let maxPathBytes = 4096

    /// Why reading `url` failed with `error`.
    public static func reading(_ url: URL, _ error: any Error, expecting expected: Expected = .file) -> String {
        describe(url, error, expected: expected, writing: false)
    }

    /// Why writing (or creating) `url` failed with `error`.
    public static func writing(_ url: URL, _ error: any Error, expecting expected: Expected = .file) -> String {
        describe(url, error, expected: expected, writing: true)
    }

    /// Why no file system takes `path`, if none does: a name over ``maxNameBytes``, or the whole over
    /// ``maxPathBytes``.
    public static func tooLong(_ path: String) -> String? {
        if let name = path.split(separator: "/").first(where: { $0.utf8.count > maxNameBytes }) {
            return "the name \"\(name.prefix(24))…\" is \(name.utf8.count) bytes long, over the \(maxNameBytes) a "
                + "file or folder name may have"
        }
        if path.utf8.count >= maxPathBytes {
            return "the path is \(path.utf8.count) bytes long, over the \(maxPathBytes - 1) a path may have"
        }
        return nil
    }

    /// What a path names when it is neither a regular file nor a folder, following symbolic links: "a character
    /// device" (as `/dev/null` is), "a block device", "a named pipe (FIFO)" or "a socket"; nil for a file, a folder
    /// or nothing.
    public static func specialKind(of url: URL) -> String? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        default: return nil
        }
    }

    package static func describe(_ url: URL, _ error: any Error, expected: Expected, writing: Bool) -> String {
        let path = url.standardizedFileURL.path
        if let tooLong = tooLong(path) { return tooLong }
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue && expected == .file { return "it is a folder, not a file" }
            if let kind = specialKind(of: url) {
                return "it is \(kind), not a \(expected == .file ? "file" : "folder")"
            }
            if !isFolder.boolValue && expected == .folder { return "it is a file, not a folder" }
        } else {
            // The nearest part of the path that exists says what is wrong when it is not a folder.
            var parent = url.standardizedFileURL.deletingLastPathComponent()
            while !files.fileExists(atPath: parent.path, isDirectory: &isFolder), parent.path != "/" {
                parent = parent.deletingLastPathComponent()
            }
            if !isFolder.boolValue { return "\(parent.path) is a file, not a folder" }
            let folder = url.standardizedFileURL.deletingLastPathComponent()
            if parent.path != folder.path {
                return "no such folder: \(folder.path)" + (writing ? "; create it first" : "")
            }
            if !writing { return "no such file" }
        }
        if let code = posixCode(of: error) {
            return String(cString: strerror(code))
        }
        return "\(error)"
    }

    /// The system's error number under a Foundation error, if it carries one.
    package static func posixCode(of error: any Error) -> Int32? {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return Int32(bridged.code) }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? any Error { return posixCode(of: underlying) }
        return nil
    }
}
