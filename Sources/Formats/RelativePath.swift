import Foundation

/// How results, reports and messages name a file: by a path relative to a folder, never by where the machine
/// keeps it.
public enum RelativePath {
    /// A path from `directory` to `target` with `..` steps where needed (`../b/c.wav` from `/a/d` to
    /// `/a/b/c.wav`); `.` when they are the same.
    public static func from(_ directory: URL, to target: URL) -> String {
        let from = directory.standardizedFileURL.pathComponents
        let to = target.standardizedFileURL.pathComponents
        var common = 0
        while common < min(from.count, to.count) && from[common] == to[common] { common += 1 }
        let parts = Array(repeating: "..", count: from.count - common) + to[common...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
