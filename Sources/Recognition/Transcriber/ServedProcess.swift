import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program that stays loaded: started once, it reads one request per line on its standard input and answers each
/// with one line on its standard output, so that a recognizer pays its model load once per worker rather than once
/// per utterance (the long-lived form of an external recognizer, Step 5).
///
/// It is started on the first request, in its own process group, with the worker's environment and network
/// namespace. A request that gets no answer within its timeout kills the program (and what it started); a program
/// that exits or closes its output fails the request it was answering. Either way the next request starts it again,
/// and ``starts`` counts every start, so that model loads can be reported. What it writes on standard error is
/// drained as it comes (so that it never blocks on a full pipe) and its last ``errorTailBytes`` bytes are kept to
/// say why it died.
///
/// Not thread-safe: one worker thread owns it.
final class ServedProcess {
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The program could not be started.
        case cannotStart(String)
        /// It exited or closed its output before answering; what it last wrote on standard error.
        case died(String)
        /// No answer within the timeout; it was killed.
        case timedOut
        /// An answer longer than the limit; it was killed, since what it writes next belongs to this one.
        case tooLong(Int)

        var description: String {
            switch self {
            case .cannotStart(let why): "cannot start: \(why)"
            case .died(let errors): "it ended before answering" + (errors.isEmpty ? "" : ": \(errors)")
            case .timedOut: "no answer within the timeout; it was stopped"
            case .tooLong(let limit): "an answer longer than \(limit) bytes; it was stopped"
            }
        }
    }

    /// The program's path, then its arguments.
    let arguments: [String]
    /// How many times the program was started.
    private(set) var starts = 0
    static let errorTailBytes = 2_000

    private var pid: pid_t = 0
    private var input: Int32 = -1
    private var output: Int32 = -1
    private var pending = Data()
    private var errorTail: ErrorTail?
    private var errorReader: DispatchGroup?

    init(arguments: [String]) {
        self.arguments = arguments
    }

    deinit { stop() }

    /// Whether the program is running (started, and not stopped or found dead).
    var isRunning: Bool { pid != 0 }

    /// Sends one request and waits for its answer.
    /// - Parameters:
    ///   - line: The request, without its newline; it must hold none.
    ///   - timeoutSeconds: How long the answer may take, the program's start included when it is not running.
    ///   - outputLimit: The most bytes an answer may have.
    /// - Returns: The answer's line, without its newline.
    func request(_ line: Data, timeoutSeconds: Double, outputLimit: Int) throws(Failure) -> Data {
        if pid == 0 { try start() }
        var message = line
        message.append(0x0A)
        let written = message.withUnsafeBytes { bytes in writeAll(input, bytes) }
        guard written else { throw ended() }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, min(timeoutSeconds, 86_400)) * 1e9)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let answer = pending[pending.startIndex..<newline]
                pending = Data(pending[(newline + 1)...])
                return Data(answer)
            }
            guard pending.count <= outputLimit else {
                stop()
                throw .tooLong(outputLimit)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                stop()
                throw .timedOut
            }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let waitMilliseconds = Int32(min(1_000, (deadline - now) / 1_000_000 + 1))
            let ready = poll(&descriptor, 1, waitMilliseconds)
            if ready < 0 && errno != EINTR { throw ended() }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                throw ended()
            }
        }
    }

    /// Stops the program: closes its input, kills its process group and reaps it. Nothing when it is not running.
    func stop() {
        guard pid != 0 else { return }
        close(input)
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(output)
        _ = errorReader?.wait(timeout: .now() + 2)
        pid = 0
        input = -1
        output = -1
        pending = Data()
    }

    /// The failure of a program found dead: stopped, with the end of what it wrote on standard error.
    private func ended() -> Failure {
        stop()
        let tail = errorTail?.bytes.withLock { $0 } ?? Data()
        return .died(String(decoding: tail, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func start() throws(Failure) {
        // A program that dies leaves its input pipe without a reader; writing to it must fail, not end the worker.
        signal(SIGPIPE, SIG_IGN)
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var pair: [Int32] = [0, 0]
            guard pipe(&pair) == 0 else {
                for descriptor in pipes.joined() { close(descriptor) }
                throw .cannotStart("pipe: \(String(cString: strerror(errno)))")
            }
            pipes.append(pair)
        }
        let (standardInput, standardOutput, standardError) = (pipes[0], pipes[1], pipes[2])
        let (child, status) = ChildProcess.spawn(
            arguments, input: standardInput[0], output: standardOutput[1], errors: standardError[1],
            closing: Array(pipes.joined()))
        for descriptor in [standardInput[0], standardOutput[1], standardError[1]] { close(descriptor) }
        guard status == 0 else {
            for descriptor in [standardInput[1], standardOutput[0], standardError[0]] { close(descriptor) }
            throw .cannotStart("\(arguments[0]): \(String(cString: strerror(status)))")
        }
        pid = child
        input = standardInput[1]
        output = standardOutput[0]
        starts += 1
        let tail = ErrorTail()
        let group = DispatchGroup()
        let errors = standardError[0]
        DispatchQueue.global().async(group: group) { Self.keepTail(of: errors, in: tail) }
        errorTail = tail
        errorReader = group
    }

    /// Reads a descriptor to its end, keeping its last ``errorTailBytes`` bytes; closes it.
    private static func keepTail(of descriptor: Int32, in tail: ErrorTail) {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                tail.bytes.withLock { data in
                    data.append(contentsOf: buffer[0..<count])
                    if data.count > errorTailBytes { data = Data(data.suffix(errorTailBytes)) }
                }
            } else if count == 0 || errno != EINTR {
                return
            }
        }
    }

    /// The end of what the program wrote on standard error, filled by a reader thread.
    private final class ErrorTail: Sendable {
        let bytes = Mutex(Data())
    }

    /// Writes every byte, through interrupted and partial writes; false when the reader is gone.
    private func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count > 0 {
                offset += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}
