import Foundation
import GambitTestSupport
import LanguageModel
import Recognition
import Runner
import Testing

/// A `gambit worker` process fed requests one at a time, as the runner feeds it.
private struct WorkerProcess {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    var buffer = Data()

    init() throws {
        process.executableURL = TestSupport.gambitExecutable
        process.arguments = ["worker"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = try nextLine()  // hello
    }

    mutating func nextLine() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
                buffer = Data(buffer[(end + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw WorkerStopped() }
            buffer.append(chunk)
        }
    }

    mutating func decode(_ audio: URL, with configuration: LanguageModelConfiguration?) throws -> WorkResponse {
        var line = try JSONEncoder().encode(
            WorkRequest(key: UUID().uuidString, audio: audio.path, configuration: configuration))
        line.append(UInt8(ascii: "\n"))
        input.fileHandleForWriting.write(line)
        return try JSONDecoder().decode(WorkResponse.self, from: Data(try nextLine().utf8))
    }

    func stop() throws {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    struct WorkerStopped: Error {}
}

@Suite("A worker's memory", .serialized)
struct WorkerMemoryTests {
    @Test("A worker reports its own peak memory, not what its parent held before it started")
    func peakIsTheWorkersOwn() throws {
        // The parent holds 600 MB, touched, while it starts the worker: getrusage's ru_maxrss would
        // hand that high-water mark on to the child through exec.
        let size = 600 << 20
        let ballast = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { ballast.deallocate() }
        memset(ballast, 1, size)
        var worker = try WorkerProcess()
        let response = try worker.decode(TestSupport.librivox[0], with: nil)
        try worker.stop()
        #expect(response.failure == nil)
        #expect(response.peakResidentMegabytes > 20 && response.peakResidentMegabytes < 400, "\(response)")
    }

    @Test("A worker moving through customized models holds one decoder, not the base model's beside it")
    func oneDecoderAtATime() throws {
        let folder = try TestSupport.temporaryDirectory("worker-memory")
        let toolchain = Toolchain(cacheFolder: folder)
        let training = TestSupport.packageRoot.appendingPathComponent("Corpora/chess/training/minimal.yaml")
        let artifact = try toolchain.prepare(training).artifact
        // Three weights: three distinct models, each a set of the base model and the custom one.
        let configurations = [0.3, 0.5, 0.7].map { Toolchain.configuration(artifact, weight: $0) }
        var worker = try WorkerProcess()
        let audio = TestSupport.librivox[0]
        let base = try worker.decode(audio, with: nil)
        var peaks: [Double] = []
        for configuration in configurations {
            let response = try worker.decode(audio, with: configuration)
            #expect(response.failure == nil && response.customization == .applied, "\(response)")
            peaks.append(response.peakResidentMegabytes)
        }
        try worker.stop()
        // A set decoder loads its own copy of the base model (about 60 MB beside the acoustic model
        // and search): keeping the base decoder as well would add about 150 MB over the baseline.
        #expect(peaks[0] - base.peakResidentMegabytes < 100, "baseline \(base.peakResidentMegabytes) MB, then \(peaks)")
        #expect(peaks[2] - peaks[0] < 20, "the peak grows with the number of models: \(peaks)")
    }
}
