import Audio
import Foundation
import GambitTestSupport
import Recognition
import Testing

/// A clock whose time moves only when the test says: by a wait (``sleep(until:)``) or by the work the stand-in
/// recognizer is said to take (``advance(by:)``).
final class FakeClock: StreamClock {
    private(set) var time: Double
    /// Every time waited until, in order.
    private(set) var waits: [Double] = []

    init(at time: Double) { self.time = time }

    func now() -> Double { time }

    func sleep(until target: Double) {
        waits.append(target)
        time = max(time, target)
    }

    func advance(by seconds: Double) { time += seconds }
}

@Suite("Streaming latency")
struct StreamingLatencyTests {
    /// Four 100 ms chunks and a last one of 50 ms (0.45 s of audio), speech from 0.10 s to 0.35 s. The stand-in
    /// recognizer takes 20, 30, 150, 10 and 10 ms over the chunks (the third longer than a chunk lasts, so the
    /// fourth waits for nothing) and 70 ms to finish.
    ///
    /// On the audio's clock: chunk 1 arrives at 0.2 s and is done at 0.23 s (the first partial, "play"); chunk 2
    /// arrives at 0.3 s, done at 0.45 s; chunk 3 arrived at 0.4 s, is taken at 0.45 s and done at 0.46 s, when the
    /// detector says speech has ended and "knight" first appears; chunk 4 arrives at 0.45 s, done at 0.47 s; the
    /// final is at 0.54 s.
    static let computeSeconds = [0.02, 0.03, 0.15, 0.01, 0.01]
    static let steps = [
        StreamStep(text: "", inSpeech: false), StreamStep(text: "play", inSpeech: true),
        StreamStep(text: "play the", inSpeech: true), StreamStep(text: "play the knight", inSpeech: false),
        StreamStep(text: "play the knight", inSpeech: false),
    ]
    static let chunks =
        [[Int16]](repeating: [Int16](repeating: 0, count: 1600), count: 4) + [[Int16](repeating: 0, count: 800)]

    static func measure(_ pacing: StreamPacing, clock: FakeClock) -> DecodeLatency {
        StreamTimer(clock: clock, pacing: pacing).measure(
            chunks: chunks, speech: SpeechSpan(start: 0.10, end: 0.35, source: "energy"), terms: ["knight", "rook"],
            feed: { index in
                clock.advance(by: computeSeconds[index])
                return steps[index]
            },
            finish: {
                clock.advance(by: 0.07)
                return "play the knight"
            })
    }

    static func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }

    @Test(
        "Each latency is timed on the audio's clock, the same paced in real time and simulated",
        arguments: StreamPacing.allCases)
    func definitions(pacing: StreamPacing) {
        let latency = Self.measure(pacing, clock: FakeClock(at: 100))
        #expect(latency.pacing == pacing)
        #expect(Self.close(latency.firstPartialSeconds, 0.23))
        #expect(Self.close(latency.firstPartialAfterOnsetSeconds, 0.13))
        #expect(Self.close(latency.finalLatencySeconds, 0.09))
        #expect(Self.close(latency.endpointSeconds, 0.46))
        #expect(Self.close(latency.endpointLatencySeconds, 0.11))
        #expect(Set(latency.firstCorrectEmission.keys) == ["knight"])
        #expect(Self.close(latency.firstCorrectEmission["knight"], 0.46))
    }

    @Test("Real-time pacing waits for each chunk's last sample; simulated pacing never waits")
    func pacing() {
        let paced = FakeClock(at: 100)
        _ = Self.measure(.realTime, clock: paced)
        let expected = [100.1, 100.2, 100.3, 100.4, 100.45, 100.45]
        #expect(paced.waits.count == expected.count)
        #expect(zip(paced.waits, expected).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(Self.close(paced.now(), 100.54))
        let fast = FakeClock(at: 100)
        _ = Self.measure(.simulated, clock: fast)
        #expect(fast.waits.isEmpty)
        // It took only the work: 0.22 s of engine time for 0.45 s of audio.
        #expect(Self.close(fast.now(), 100.29))
    }

    @Test("No speech heard, no endpoint; no speech found, no latency from it")
    func nothingToMeasureFrom() {
        let clock = FakeClock(at: 0)
        let latency = StreamTimer(clock: clock, pacing: .realTime).measure(
            chunks: [[Int16](repeating: 0, count: 1600)], speech: nil,
            feed: { _ in StreamStep(text: "", inSpeech: false) }, finish: { "" })
        #expect(latency.firstPartialSeconds == nil)
        #expect(latency.firstPartialAfterOnsetSeconds == nil)
        #expect(latency.endpointSeconds == nil)
        #expect(latency.endpointLatencySeconds == nil)
        #expect(Self.close(latency.finalLatencySeconds, 0))
    }

    /// 0.3 s of faint noise, 0.5 s of a loud tone, 0.4 s of faint noise: speech is the tone, within a frame.
    @Test("The energy estimate finds the loud part of a recording, and the noise after it is the recording's own level")
    func speechActivity() throws {
        var state: UInt32 = 7
        func noise(_ count: Int, amplitude: Double) -> [Int16] {
            (0..<count).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return Int16((Double(state) / Double(UInt32.max) * 2 - 1) * amplitude)
            }
        }
        let tone = (0..<8000).map { Int16(8000 * sin(Double($0) * 2 * .pi * 440 / 16_000)) }
        let samples = noise(4800, amplitude: 40) + tone + noise(6400, amplitude: 40)
        let span = try #require(SpeechActivity.span(of: samples))
        #expect(abs(span.start - 0.30) <= 0.01)
        #expect(abs(span.end - 0.80) <= 0.01)
        #expect(span.source == "energy")
        let tail = SpeechActivity.trailingNoise(after: samples, seconds: 1)
        #expect(tail.count == 16_000)
        let rms = (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
        // Uniform noise of amplitude 40 has an RMS of 40 / √3 ≈ 23.
        #expect(abs(rms - 40 / 3.0.squareRoot()) < 4)
        #expect(SpeechActivity.span(of: noise(16_000, amplitude: 40)) == nil)
    }

    /// A real recording streamed in real time through PocketSphinx, with a second of its own background after it:
    /// its voice-activity detector says speech ended after the words did, and the final comes after the audio.
    @Test("PocketSphinx streamed in real time detects the end of speech itself")
    func realEngine() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let clip = try AudioLoader().load(TestSupport.cards[4])
        let speech = try #require(SpeechActivity.span(of: clip.samples))
        let padded = AudioClip(
            samples: clip.samples + SpeechActivity.trailingNoise(after: clip.samples, seconds: 1),
            sampleRate: clip.sampleRate)
        let chunks = AudioBufferRecognitionRequest.chunks(of: padded, milliseconds: 100)
        let stream = try recognizer.stream(RecognitionOptions())
        let latency = try StreamTimer(clock: MonotonicClock(), pacing: .realTime).measure(
            chunks: chunks, speech: speech, feed: { try stream.feed(chunks[$0]) }, finish: { try stream.finish() })
        let endpoint = try #require(latency.endpointLatencySeconds)
        #expect(endpoint > 0 && endpoint < 1)
        #expect(try #require(latency.finalLatencySeconds) >= 0)
        #expect(try #require(latency.firstPartialAfterOnsetSeconds) > 0)
    }
}
