import Foundation
import Results
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
    }

    /// - Parameters:
    ///   - executable: The `gambit` executable (run as `gambit worker`).
    ///   - count: Number of worker processes.
    ///   - denyNetwork: Start workers in a network namespace when `unshare` works here.
    ///   - decoder: The engine settings every worker decodes with (passed as `gambit worker --decoder JSON`).
    public init(executable: URL, count: Int, denyNetwork: Bool = true, decoder: DecoderSettings = .standard) {
        self.executable = executable
        self.count = max(1, count)
        self.denyNetwork = denyNetwork
        self.decoder = decoder
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
        for _ in 0..<min(count, requests.count) {
            group.enter()
            Thread.detachNewThread { [self] in
                defer { group.leave() }
                var worker: WorkerProcess?
                while let next = claim(requests.count) {
                    var request = requests[next]
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
                    guard var final = response else { continue }
                    final.retries = attempt - 1
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

    /// `unshare -n gambit worker` when a network namespace can be made here, else `gambit worker`; with how that
    /// isolates the workers from the network.
    private func launchCommand() throws -> (command: [String], isolation: String) {
        var direct = [executable.path, "worker"]
        if decoder != .standard {
            // Settings that could not reach the workers would decode with the defaults under another key.
            try decoder.validate()
            direct += ["--decoder", String(decoding: try JSONEncoder().encode(decoder), as: UTF8.self)]
        }
        guard denyNetwork, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            return (direct, "none")
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-n", "/bin/true"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            return (direct, "none (unshare -n is not permitted for this user)")
        }
        return (["/usr/bin/unshare", "-n"] + direct, "network namespace (unshare -n)")
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
