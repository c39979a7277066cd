import Foundation
import GambitTestSupport
import LanguageModel
import Recognition
import Runner
import Testing

/// A `gambit worker` started directly (no network namespace), as the runner starts it.
private func startWorker() throws -> WorkerProcess {
    try WorkerProcess(command: [TestSupport.gambitExecutable.path, "worker"])
}

private func decode(
    _ worker: WorkerProcess, _ audio: URL, with configuration: LanguageModelConfiguration?
) throws -> WorkResponse {
    try worker.decode(WorkRequest(key: UUID().uuidString, audio: audio.path, configuration: configuration))
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
        let worker = try startWorker()
        let response = try decode(worker, TestSupport.librivox[0], with: nil)
        worker.finish()
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
        let worker = try startWorker()
        let audio = TestSupport.librivox[0]
        let base = try decode(worker, audio, with: nil)
        var peaks: [Double] = []
        for configuration in configurations {
            let response = try decode(worker, audio, with: configuration)
            #expect(response.failure == nil && response.customization == .applied, "\(response)")
            peaks.append(response.peakResidentMegabytes)
        }
        worker.finish()
        // A set decoder loads its own copy of the base model (about 60 MB beside the acoustic model
        // and search): keeping the base decoder as well would add about 150 MB over the baseline.
        #expect(peaks[0] - base.peakResidentMegabytes < 100, "baseline \(base.peakResidentMegabytes) MB, then \(peaks)")
        #expect(peaks[2] - peaks[0] < 20, "the peak grows with the number of models: \(peaks)")
    }
}
