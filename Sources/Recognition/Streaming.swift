import Audio
import Foundation

/// The clock a streamed decode is timed on: seconds on a monotonic clock, and a wait until a time on it. The worker
/// uses ``MonotonicClock``; a test gives its own, whose time moves only when the test says, so that pacing and every
/// latency can be checked on a hand-made example without depending on how fast the machine is.
public protocol StreamClock: AnyObject {
    /// Seconds since an arbitrary fixed point; never goes back.
    func now() -> Double
    /// Returns once `now()` has reached `time` (at once when it has already).
    func sleep(until time: Double)
}

/// The system's monotonic clock (`CLOCK_MONOTONIC`, as `DispatchTime` reads it).
public final class MonotonicClock: StreamClock {
    public init() {}

    public func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    public func sleep(until time: Double) {
        // nanosleep may return early on a signal: wait again for what is left.
        while case let wait = time - now(), wait > 0 {
            var request = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - wait.rounded(.down)) * 1e9))
            nanosleep(&request, nil)
        }
    }
}

/// How audio is handed to a streaming recognizer.
public enum StreamPacing: String, Codable, Sendable, CaseIterable {
    /// In real time, as a microphone makes it: each chunk is given when its last sample has arrived, and the worker
    /// waits in between. What the field measures; an utterance takes as long to stream as it lasts.
    case realTime
    /// As fast as the engine takes the chunks, with the audio's clock replayed afterwards: a chunk counts as
    /// processed at the later of its arrival and the engine's finishing the one before, plus the time the engine
    /// took. Quicker than real time and the same in theory, but the engine never idles between chunks (warm caches,
    /// no wake-up), so it can read a little faster than real streaming.
    case simulated

    /// How reports name it.
    public var label: String {
        switch self {
        case .realTime: "real-time paced"
        case .simulated: "simulated (fed as fast as decoded)"
        }
    }
}

/// How one utterance is streamed: chunk length, pacing and any silence left after it.
public struct StreamingSetup: Codable, Sendable, Hashable {
    public var chunkMilliseconds: Int
    public var pacing: StreamPacing
    /// Background noise appended after the audio (at the recording's own noise floor), as a microphone left open
    /// after the speaker stops: what lets a recognizer's end-of-speech detector fire on recordings cut close to
    /// the last word. Final latency is then timed from the end of this silence. 0 for none.
    public var trailingSilenceMilliseconds: Int

    public init(chunkMilliseconds: Int = 100, pacing: StreamPacing = .simulated, trailingSilenceMilliseconds: Int = 0) {
        self.chunkMilliseconds = chunkMilliseconds
        self.pacing = pacing
        self.trailingSilenceMilliseconds = trailingSilenceMilliseconds
    }

    /// What a work key adds for this setup. Every part of it is named, `vad` included: a stream now listens with
    /// the engine's voice-activity detector on, so no answer streamed before it was may be taken for one of these.
    public var keyText: String {
        "\(chunkMilliseconds)/\(pacing.rawValue)/\(trailingSilenceMilliseconds)/vad"
    }
}

/// What a streaming recognizer says after one chunk.
public struct StreamStep: Sendable, Equatable {
    /// The partial hypothesis so far ("" for none).
    public var text: String
    /// Whether the recognizer's own voice-activity detector hears speech now; nil when it has none.
    public var inSpeech: Bool?

    public init(text: String, inSpeech: Bool? = nil) {
        self.text = text
        self.inSpeech = inSpeech
    }
}

/// Times one streamed utterance against the audio's own clock (seconds from the start of the audio, as if it were
/// being spoken now).
///
/// - *First partial*: when the first non-empty partial hypothesis came, from the start of the audio and from the
///   speech onset (the ``SpeechActivity`` estimate).
/// - *Final*: from the end of the audio (the client's `endAudio()`) to the final hypothesis, "time to final
///   segment". Negative would be a final before the audio ended (an early final); PocketSphinx finalizes only when
///   told, so it never is.
/// - *Endpoint*: when the recognizer's own detector first said speech had ended (speech heard, then none), from the
///   end of speech; negative when it cut the speaker off in a pause. Nil when it never said so before the audio
///   ended, or has no detector.
///
/// A partial's time is when the engine finished the chunk that produced it. Under ``StreamPacing/realTime`` that is
/// read off the clock, the clock having waited for each chunk's arrival; under ``StreamPacing/simulated`` it is
/// replayed: max(arrival, engine free) + the time the engine took.
public struct StreamTimer {
    public var clock: any StreamClock
    public var pacing: StreamPacing

    public init(clock: any StreamClock, pacing: StreamPacing) {
        self.clock = clock
        self.pacing = pacing
    }

    /// Streams `chunks` (16 kHz samples each) through `feed`, then `finish`es, and says when each thing came.
    ///
    /// - Parameters:
    ///   - speech: Where speech lies in the audio, for the latencies measured from it; nil when none was found.
    ///   - terms: Words whose first correct appearance in a partial (or the final) is timed.
    ///   - feed: Gives the recognizer chunk `index` and returns what it says.
    ///   - finish: Ends the audio and returns the final hypothesis.
    public func measure(
        chunks: [[Int16]], sampleRate: Int = 16_000, speech: SpeechSpan?, terms: [String] = [],
        feed: (Int) throws -> StreamStep, finish: () throws -> String
    ) rethrows -> DecodeLatency {
        let start = clock.now()
        var engineFree = 0.0
        var received = 0
        var firstPartial: Double?
        var endpoint: Double?
        var heardSpeech = false
        var emissions: [String: Double] = [:]
        func note(_ text: String, at time: Double) {
            let padded = " \(text) "
            for term in terms where emissions[term] == nil && padded.contains(" \(term) ") { emissions[term] = time }
        }
        // Runs `work` at audio time `arrival` and returns when, on the audio's clock, it was done.
        func timed<T>(arrival: Double, _ work: () throws -> T) rethrows -> (T, Double) {
            if pacing == .realTime { clock.sleep(until: start + arrival) }
            let before = clock.now()
            let value = try work()
            let after = clock.now()
            switch pacing {
            case .realTime: return (value, after - start)
            case .simulated:
                engineFree = max(engineFree, arrival) + (after - before)
                return (value, engineFree)
            }
        }
        for index in chunks.indices {
            received += chunks[index].count
            let (step, time) = try timed(arrival: Double(received) / Double(sampleRate)) { try feed(index) }
            if firstPartial == nil, !step.text.isEmpty { firstPartial = time }
            if step.inSpeech == true { heardSpeech = true }
            if heardSpeech, step.inSpeech == false, endpoint == nil { endpoint = time }
            note(step.text, at: time)
        }
        let duration = Double(received) / Double(sampleRate)
        let (final, time) = try timed(arrival: duration, finish)
        note(final, at: time)
        return DecodeLatency(
            firstPartialSeconds: firstPartial, finalLatencySeconds: time - duration, firstCorrectEmission: emissions,
            pacing: pacing, speech: speech,
            firstPartialAfterOnsetSeconds: zip(firstPartial, speech).map { $0 - $1.start },
            endpointSeconds: endpoint, endpointLatencySeconds: zip(endpoint, speech).map { $0 - $1.end })
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}

/// Where speech lies in a recording, in seconds from its start, and how that was found.
public struct SpeechSpan: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// `energy`: ``SpeechActivity``'s estimate from the audio alone.
    public var source: String

    public init(start: Double, end: Double, source: String) {
        self.start = start
        self.end = end
        self.source = source
    }
}

/// A voice-activity estimate from the audio's energy alone, independent of any recognizer: where speech starts and
/// ends, and how loud the background is.
///
/// The audio is cut into 10 ms frames; a frame's level is its mean power in dB. The background is the 10th
/// percentile of the levels and the loudest speech their 99th; a frame is speech when it is above the background by
/// a third of that range and by at least 6 dB. Speech starts at the first run of 50 ms of speech frames and ends
/// after the last such run. A recording whose range is under 10 dB has no speech found (nil): noise, silence, or
/// speech too quiet to tell from its background.
public enum SpeechActivity {
    static let frameSeconds = 0.01
    static let minimumRunFrames = 5

    /// The speech span of `samples`, or nil when none is found.
    public static func span(of samples: [Int16], sampleRate: Int = 16_000) -> SpeechSpan? {
        let levels = frameLevels(samples, sampleRate: sampleRate)
        guard levels.count >= minimumRunFrames else { return nil }
        let sorted = levels.sorted()
        let floor = sorted[sorted.count / 10]
        let peak = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        guard peak - floor >= 10 else { return nil }
        let threshold = floor + max(6, (peak - floor) / 3)
        var runs: [Range<Int>] = []
        var runStart: Int?
        for (index, level) in levels.enumerated() {
            if level > threshold {
                if runStart == nil { runStart = index }
            } else if let begun = runStart {
                if index - begun >= minimumRunFrames { runs.append(begun..<index) }
                runStart = nil
            }
        }
        if let begun = runStart, levels.count - begun >= minimumRunFrames { runs.append(begun..<levels.count) }
        guard let first = runs.first, let last = runs.last else { return nil }
        return SpeechSpan(
            start: Double(first.lowerBound) * frameSeconds,
            end: min(Double(samples.count) / Double(sampleRate), Double(last.upperBound) * frameSeconds),
            source: "energy")
    }

    /// The root-mean-square amplitude of the quietest tenth of the frames: the recording's background.
    public static func backgroundLevel(of samples: [Int16], sampleRate: Int = 16_000) -> Double {
        let powers = framePowers(samples, sampleRate: sampleRate).sorted()
        guard !powers.isEmpty else { return 0 }
        let quiet = powers.prefix(max(1, powers.count / 10))
        return (quiet.reduce(0, +) / Double(quiet.count)).squareRoot()
    }

    /// `seconds` of noise at `samples`' background level, the same for the same audio: what a microphone left open
    /// after the speaker stopped would add.
    public static func trailingNoise(after samples: [Int16], seconds: Double, sampleRate: Int = 16_000) -> [Int16] {
        let count = Int((seconds * Double(sampleRate)).rounded())
        guard count > 0 else { return [] }
        // Uniform noise on [−a, a] has an RMS of a / √3.
        let amplitude = backgroundLevel(of: samples, sampleRate: sampleRate) * 3.0.squareRoot()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(samples.count)
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(state >> 11) / Double(1 << 53) * 2 - 1
            return Int16(clamping: Int((unit * amplitude).rounded()))
        }
    }

    private static func framePowers(_ samples: [Int16], sampleRate: Int) -> [Double] {
        let size = max(1, Int(Double(sampleRate) * frameSeconds))
        return stride(from: 0, to: samples.count - size + 1, by: size).map { start in
            var sum = 0.0
            for sample in samples[start..<start + size] { sum += Double(sample) * Double(sample) }
            return sum / Double(size)
        }
    }

    private static func frameLevels(_ samples: [Int16], sampleRate: Int) -> [Double] {
        framePowers(samples, sampleRate: sampleRate).map { 10 * log10($0 + 1) }
    }
}
