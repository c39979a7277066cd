import Foundation
import GambitTestSupport
import LanguageModel
import Recognition
import Runner
import Testing

/// One `gambit worker` started directly (no network namespace), as the runner starts them; it is given the
/// requests in order.
private func worker() throws -> Transcriber {
    let transcriber = try Transcriber(mode: .workers(executable: TestSupport.gambitExecutable, count: 1))
    transcriber.denyNetwork = false
    return transcriber
}

/// The answers to `requests`, in their order.
private func decode(_ transcriber: Transcriber, _ requests: [WorkRequest]) throws -> [WorkResponse] {
    let answers = try transcriber.transcribe(requests)
    return try requests.map { try #require(answers[$0.key]) }
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
        let transcriber = try worker()
        let response = try #require(
            try decode(transcriber, [transcriber.request(audio: TestSupport.librivox[0], configuration: nil)]).first)
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
        let transcriber = try worker()
        let audio = TestSupport.librivox[0]
        let answers = try decode(
            transcriber, ([nil] + configurations).map { transcriber.request(audio: audio, configuration: $0) })
        let base = answers[0]
        var peaks: [Double] = []
        for response in answers.dropFirst() {
            #expect(response.failure == nil && response.customization == .applied, "\(response)")
            peaks.append(response.peakResidentMegabytes)
        }
        // A set decoder loads its own copy of the base model (about 60 MB beside the acoustic model
        // and search): keeping the base decoder as well would add about 150 MB over the baseline.
        #expect(peaks[0] - base.peakResidentMegabytes < 100, "baseline \(base.peakResidentMegabytes) MB, then \(peaks)")
        #expect(peaks[2] - peaks[0] < 20, "the peak grows with the number of models: \(peaks)")
    }
}
