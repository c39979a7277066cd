import Foundation

/// How a child process Gambit starts (a decoder worker, an external recognizer's prepare command) is cut off from
/// the network, probed in one place: a fresh network namespace from `unshare -n` when this user may make one here.
enum NetworkNamespace {
    static let unshare = "/usr/bin/unshare"

    /// What to put before a command so that it runs without a network, and how that isolates it.
    ///
    /// - Parameter deny: Whether the run denies the network at all; when not, no launcher.
    /// - Returns: `[unshare, "-n"]` and `network namespace (unshare -n)` when an `unshare -n /bin/true` succeeds
    ///   here; otherwise no launcher and `none (…)` with why.
    static func launcher(deny: Bool) -> (launcher: [String], isolation: String) {
        guard deny else { return ([], "none (the run allows the network)") }
        guard FileManager.default.isExecutableFile(atPath: unshare) else {
            return ([], "none (unshare is not installed)")
        }
        let probe = try? ChildProcess.run([unshare, "-n", "/bin/true"], timeoutSeconds: 10)
        guard probe?.termination == .exited(0) else {
            return ([], "none (unshare -n is not permitted for this user)")
        }
        return ([unshare, "-n"], "network namespace (unshare -n)")
    }
}
