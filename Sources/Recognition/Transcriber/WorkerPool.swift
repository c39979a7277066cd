import Audio
import Foundation
import Synchronization

/// Decoder worker processes, one per core, each with its own decoders and models.
///
/// PocketSphinx can crash the whole process, so decoding never runs in the runner's: a crash costs
/// the utterance being decoded, is recorded, the worker is restarted and the utterance retried once.
/// Workers are started inside a fresh network namespace (`unshare -n`) when the machine allows it,
/// and each reports whether its network is really denied.
final class WorkerPool: Sendable {
    private let executable: URL
    private let count: Int
    private let denyNetwork: Bool
    private let decoder: DecoderSettings
    /// What the workers' threads share; each worker process's pipes are touched only by its own thread.
    private let state = Mutex(State())

    private struct State {
        var nextRequest = 0
        /// Why the run stops early: a worker that did not start, or an answer `completed` could not keep.
        var stopError: (any Error)?
        /// Each worker's request in flight (by worker), and when it was sent.
        var inFlight: [Int: (request: WorkRequest, started: Double)] = [:]
        /// The run has ended: the heartbeat stops.
        var ended = false
    }

    /// Says, every `interval` seconds, which decode has been running longest once it has run that long: a decode
    /// of an hour of audio answers nothing for minutes, and a run that prints nothing looks hung.
    private let heartbeat: DecodeHeartbeat?

    /// - Parameters:
    ///   - executable: The `gambit` executable (run as `gambit worker`).
    ///   - count: Number of worker processes.
    ///   - denyNetwork: Start workers in a network namespace when `unshare` works here.
    ///   - decoder: The engine settings every worker decodes with (passed as `gambit worker --decoder JSON`).
    ///   - heartbeat: What to tell of a long decode, and how often; nil for nothing.
    public init(
        executable: URL, count: Int, denyNetwork: Bool = true, decoder: DecoderSettings = .standard,
        heartbeat: DecodeHeartbeat? = nil
    ) {
        self.executable = executable
        self.count = max(1, count)
        self.denyNetwork = denyNetwork
        self.decoder = decoder
        self.heartbeat = heartbeat
    }

    /// Decodes every request, calling `completed` (serialised) as each finishes, in completion order.
    ///
    /// When `completed` throws (its result could not be kept), no new request starts, answers still
    /// in flight are dropped (a resumed run decodes them again) and `run` throws that error.
    public func run(_ requests: [WorkRequest], completed: @escaping @Sendable (WorkResponse) throws -> Void) throws {
        guard !requests.isEmpty else { return }
        let (launcher, isolation) = try launchCommand()
        state.withLock { $0 = State() }
        let group = DispatchGroup()
        let beating = startHeartbeat()
        defer {
            state.withLock { $0.ended = true }
            beating?.signal()
        }
        for slot in 0..<min(count, requests.count) {
            group.enter()
            Thread.detachNewThread { [self] in
                defer {
                    state.withLock { _ = $0.inFlight.removeValue(forKey: slot) }
                    group.leave()
                }
                var worker: WorkerProcess?
                while let next = claim(requests.count) {
                    var request = requests[next]
                    if let clock = heartbeat?.clock {
                        let started = clock()
                        state.withLock { $0.inFlight[slot] = (requests[next], started) }
                    }
                    var attempt = 0
                    var response: WorkResponse?
                    var crashed = false
                    while response == nil && attempt < 2 {
                        attempt += 1
                        do {
                            if worker == nil { worker = try WorkerProcess(command: launcher) }
                            response = try worker!.decode(request)
                        } catch WorkerProcess.Failure.crashed(let detail) {
                            crashed = true
                            worker = nil
                            // The test hook crashes the first attempt only.
                            request.crashForTesting = nil
                            if attempt == 2 {
                                response = Self.failed(request, "decoder crashed twice (\(detail))")
                            }
                        } catch {
                            state.withLock { $0.stopError = error }
                            return
                        }
                    }
                    state.withLock { _ = $0.inFlight.removeValue(forKey: slot) }
                    guard var final = response else { continue }
                    final.retries += attempt - 1
                    final.crashed = crashed
                    final.networkIsolation = isolation
                    final.networkDenied = worker?.hello.networkDenied ?? false
                    let kept: Bool = state.withLock { state in
                        guard state.stopError == nil else { return false }
                        do {
                            try completed(final)
                            return true
                        } catch {
                            state.stopError = error
                            return false
                        }
                    }
                    if !kept { break }
                }
                worker?.finish()
            }
        }
        group.wait()
        if let error = state.withLock({ $0.stopError }) { throw error }
    }

    /// Starts the thread that tells of long decodes; returns what wakes it to stop, or nil when there is no
    /// heartbeat.
    private func startHeartbeat() -> DispatchSemaphore? {
        guard let heartbeat else { return nil }
        let wake = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            var lengths: [String: Double?] = [:]
            while wake.wait(timeout: .now() + heartbeat.interval) == .timedOut {
                let now = heartbeat.clock()
                let (ended, longest) = state.withLock { state in
                    (state.ended, state.inFlight.values.min { $0.started < $1.started })
                }
                guard !ended else { return }
                guard let longest, now - longest.started >= heartbeat.interval else { continue }
                let audio = longest.request.audio
                if lengths[audio] == nil { lengths[audio] = AudioLoader.headerSeconds(URL(fileURLWithPath: audio)) }
                heartbeat.report(
                    LongDecode(
                        request: longest.request, audioSeconds: lengths[audio] ?? nil, seconds: now - longest.started))
            }
        }
        return wake
    }

    /// The next request to decode, or nil when there is none or the run is stopping.
    private func claim(_ total: Int) -> Int? {
        state.withLock { state in
            guard state.nextRequest < total, state.stopError == nil else { return nil }
            defer { state.nextRequest += 1 }
            return state.nextRequest
        }
    }

    private static func failed(_ request: WorkRequest, _ message: String) -> WorkResponse {
        var response = WorkResponse(
            key: request.key, hypothesis: "", words: [], decodeSeconds: 0, audioSeconds: 0,
            customization: request.configuration == nil ? .notRequested : .ignored, appliedFingerprint: nil,
            latency: nil, failure: message, modelLoadSeconds: 0, peakResidentMegabytes: 0, retries: 0, crashed: true)
        response.failureKind = .crash
        return response
    }

    /// `unshare -n gambit worker` when a network namespace can be made here (``NetworkNamespace``), else
    /// `gambit worker`; with how that isolates the workers from the network.
    private func launchCommand() throws -> (command: [String], isolation: String) {
        var direct = [executable.path, "worker"]
        if decoder != .standard {
            // Settings that could not reach the workers would decode with the defaults under another key.
            try decoder.validate()
            direct += ["--decoder", String(decoding: try JSONEncoder().encode(decoder), as: UTF8.self)]
        }
        let (launcher, isolation) = NetworkNamespace.launcher(deny: denyNetwork)
        return (launcher + direct, isolation)
    }
}

/// A decode that has been running a while, as ``DecodeHeartbeat`` tells of it.
public struct LongDecode: Sendable, Equatable {
    /// What is being decoded.
    public var request: WorkRequest
    /// The audio's length, from its header; nil when that cannot be read.
    public var audioSeconds: Double?
    /// How long it has been decoding.
    public var seconds: Double
}

/// How a transcription in worker processes tells that it is alive while one decode takes long: every `interval`
/// seconds, the decode running longest, once it has run that long. PocketSphinx has no time limit of its own, so
/// an hour of silence decodes for minutes without an answer; this says which utterance, how long it is and how
/// long it has been decoding.
public struct DecodeHeartbeat: Sendable {
    /// Seconds between two reports, and how long a decode runs before one tells of it.
    public var interval: Double
    /// Seconds from a fixed point (monotonic by default); a test gives its own.
    public var clock: @Sendable () -> Double
    /// Called from a thread of its own with the decode running longest.
    public var report: @Sendable (LongDecode) -> Void

    public init(
        interval: Double = 30, clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime },
        report: @escaping @Sendable (LongDecode) -> Void
    ) {
        self.interval = interval
        self.clock = clock
        self.report = report
    }
}

/// One running `gambit worker` process and its pipes: requests in, responses out, one at a time.
final class WorkerProcess {
    public enum Failure: Error {
        case crashed(String)
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()
    public let hello: WorkerHello

    /// Starts `command` (e.g. `[gambit, "worker"]`) and reads its hello line.
    public init(command: [String]) throws {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let line = Self.readLine(output.fileHandleForReading, &buffer),
            let hello = try? JSONDecoder().decode(WorkerHello.self, from: line)
        else {
            process.terminate()
            throw TranscriberError.workerDidNotStart(command: command.joined(separator: " "))
        }
        self.hello = hello
    }

    public func decode(_ request: WorkRequest) throws -> WorkResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data = try encoder.encode(request)
        data.append(UInt8(ascii: "\n"))
        do {
            try input.fileHandleForWriting.write(contentsOf: data)
        } catch {
            throw Failure.crashed("worker gone: \(error)")
        }
        guard let line = Self.readLine(output.fileHandleForReading, &buffer) else {
            process.waitUntilExit()
            throw Failure.crashed("worker exited with status \(process.terminationStatus) on \(request.audio)")
        }
        guard let response = try? JSONDecoder().decode(WorkResponse.self, from: line) else {
            throw Failure.crashed("malformed worker response")
        }
        return response
    }

    /// Closes the worker's input and waits for it to exit.
    public func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private static func readLine(_ handle: FileHandle, _ buffer: inout Data) -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return Data(line)
            }
            // read(2) directly: Foundation's availableData traps on EINTR, which signals from
            // crashing or exiting worker processes can cause.
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
