import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion with `posix_spawn`, collecting its output, and kills it (with its
/// process group) after a timeout. Foundation's `Process` is not used: on Linux it reaps children on
/// a run loop that a worker's threads do not run, and its `waitUntilExit` spins.
enum ChildProcess {
    enum Termination: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
    }

    struct Outcome {
        var termination: Termination
        var standardOutput: Data
        var standardError: Data
        /// The program printed more than the output limit it was run with: ``standardOutput`` holds the first
        /// that many bytes, and the rest was read and dropped.
        var standardOutputCut = false

        /// Why the program did not succeed, as a message names it (`asr exited with status 3: model not loaded`,
        /// with the end of its standard error), and whether it was killed for its time; nil when it exited 0.
        func failure(program: String, timeoutSeconds: Double) -> (reason: String, timedOut: Bool)? {
            let how: String
            switch termination {
            case .timedOut: return (String(format: "no answer within %.0f s (killed)", timeoutSeconds), true)
            case .exited(0): return nil
            case .exited(let status): how = "exited with status \(status)"
            case .signalled(let signal): how = "was killed by signal \(signal)"
            }
            let message = String(decoding: standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return ("\(program) \(how)" + (message.isEmpty ? "" : ": \(message.suffix(300))"), false)
        }
    }

    struct LaunchError: Error {
        var message: String
    }

    /// - Parameters:
    ///   - arguments: The program's path, then its arguments.
    ///   - outputLimit: The most bytes of its standard output kept; nil for all of them. What it prints beyond is
    ///     read (so that it does not block on a full pipe) and dropped, so its memory stays bounded.
    static func run(_ arguments: [String], timeoutSeconds: Double, outputLimit: Int? = nil) throws(LaunchError)
        -> Outcome
    {
        var output: [Int32] = [0, 0]
        var errors: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw LaunchError(message: "pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errors) == 0 else {
            close(output[0])
            close(output[1])
            throw LaunchError(message: "pipe: \(String(cString: strerror(errno)))")
        }
        let (pid, status) = spawn(
            arguments, input: nil, output: output[1], errors: errors[1], closing: output + errors)
        close(output[1])
        close(errors[1])
        guard status == 0 else {
            close(output[0])
            close(errors[0])
            throw LaunchError(message: "cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }

        let collect = drain(output: output[0], errors: errors[0], outputLimit: outputLimit)

        // A suite's timeouts are bounded where they are read (``DurationSetting``); one given in code is held to
        // the same bound here, since a conversion of 1e30 (or NaN) to nanoseconds traps.
        let range = DurationSetting.timeout.range
        let bounded =
            timeoutSeconds.isNaN ? range.upperBound : Swift.min(Swift.max(timeoutSeconds, 0), range.upperBound)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(bounded * 1e9)
        var code: Int32 = 0
        var termination: Termination?
        while termination == nil {
            let reaped = waitpid(pid, &code, WNOHANG)
            if reaped == pid {
                let signal = code & 0x7f
                termination = signal == 0 ? .exited((code >> 8) & 0xff) : .signalled(signal)
            } else if reaped < 0 && errno != EINTR {
                termination = .exited(-1)
            } else if DispatchTime.now().uptimeNanoseconds > deadline {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                while waitpid(pid, &code, 0) < 0 && errno == EINTR {}
                termination = .timedOut
            } else {
                usleep(5_000)
            }
        }
        let (printed, standardError) = collect()
        return Outcome(
            termination: termination!, standardOutput: printed.data, standardError: standardError,
            standardOutputCut: printed.cut)
    }

    /// Starts `arguments` in a process group of its own (so that a kill reaches whatever it starts too), with
    /// `input` (nil: `/dev/null`), `output` and `errors` as its standard descriptors and every descriptor of
    /// `closing` closed in it. Returns its pid and `posix_spawn`'s status (0 when it started).
    static func spawn(_ arguments: [String], input: Int32?, output: Int32, errors: Int32, closing: [Int32])
        -> (pid: pid_t, status: Int32)
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        for descriptor in closing { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        var status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        // A process started elsewhere (by another thread, without closing descriptors) may still hold the program
        // open for writing for a moment: try again for up to a second, as Go's os/exec does.
        var attempts = 1
        while status == ETXTBSY && attempts < 20 {
            usleep(UInt32(50_000))
            status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
            attempts += 1
        }
        return (pid, status)
    }

    /// Reads both pipes on threads of their own while the program runs, so that a chatty program cannot block on a
    /// full pipe; the function returned waits for both to end and gives what they delivered (standard output up
    /// to `outputLimit` bytes, and whether there was more).
    private static func drain(output: Int32, errors: Int32, outputLimit: Int?)
        -> () -> (output: (data: Data, cut: Bool), errors: Data)
    {
        let group = DispatchGroup()
        let standardOutput = Mutex((data: Data(), cut: false))
        let standardError = Mutex(Data())
        DispatchQueue.global().async(group: group) {
            let read = readAll(output, limit: outputLimit)
            standardOutput.withLock { $0 = read }
        }
        DispatchQueue.global().async(group: group) {
            let data = readAll(errors, limit: nil).data
            standardError.withLock { $0 = data }
        }
        return {
            group.wait()
            return (standardOutput.withLock { $0 }, standardError.withLock { $0 })
        }
    }

    /// What a descriptor delivers until end of file, up to `limit` bytes (all of it when nil) and whether there
    /// was more; closes it.
    private static func readAll(_ descriptor: Int32, limit: Int?) -> (data: Data, cut: Bool) {
        defer { close(descriptor) }
        var data = Data()
        var cut = false
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                let kept = limit.map { Swift.max(0, Swift.min(count, $0 - data.count)) } ?? count
                data.append(contentsOf: buffer[0..<kept])
                cut = cut || kept < count
            } else if count == 0 || errno != EINTR {
                return (data, cut)
            }
        }
    }
}
