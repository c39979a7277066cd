public import Scoring

/// When words appeared while streaming one utterance, on the audio's own clock (seconds from its start, as if it
/// were being spoken), or how long a recognizer that does not stream took over the whole utterance.
public struct StreamingLatency: Codable, Sendable, Equatable {
    /// From the start of audio to the first partial hypothesis, seconds.
    public var firstPartialSeconds: Double?
    /// From the end of audio to the final hypothesis, seconds ("time to final segment"); nil for a missing final.
    public var finalLatencySeconds: Double?
    /// Boosted term → seconds from the start of audio until the term first appeared correctly in a partial.
    public var firstCorrectEmission: [String: Double]
    /// `realTime` or `simulated`; nil in results of a Gambit that only simulated.
    public var pacing: String?
    /// Where speech starts and ends in the audio, seconds, and how that was found (`energy`); nil when none was.
    public var speechOnsetSeconds: Double?
    public var speechEndSeconds: Double?
    public var speechSource: String?
    /// From the speech onset to the first partial hypothesis, seconds.
    public var firstPartialAfterOnsetSeconds: Double?
    /// When the recognizer's own detector first said speech had ended, from the start of audio; nil when it did not
    /// before the audio ended.
    public var endpointSeconds: Double?
    /// From the end of speech to that detection (negative: it cut the speaker off in a pause).
    public var endpointLatencySeconds: Double?
    /// A recognizer that does not stream: from handing it the whole recording to its transcript, seconds (an
    /// external recognizer's long-lived program, asked once per utterance). Its other fields are then empty.
    public var wholeUtteranceSeconds: Double?
    /// Why streaming failed though the batch decode did not (a missing final).
    public var failure: String?

    public init(
        firstPartialSeconds: Double? = nil, finalLatencySeconds: Double? = nil,
        firstCorrectEmission: [String: Double] = [:], pacing: String? = nil, speechOnsetSeconds: Double? = nil,
        speechEndSeconds: Double? = nil, speechSource: String? = nil, firstPartialAfterOnsetSeconds: Double? = nil,
        endpointSeconds: Double? = nil, endpointLatencySeconds: Double? = nil, wholeUtteranceSeconds: Double? = nil,
        failure: String? = nil
    ) {
        self.firstPartialSeconds = firstPartialSeconds
        self.finalLatencySeconds = finalLatencySeconds
        self.firstCorrectEmission = firstCorrectEmission
        self.pacing = pacing
        self.speechOnsetSeconds = speechOnsetSeconds
        self.speechEndSeconds = speechEndSeconds
        self.speechSource = speechSource
        self.firstPartialAfterOnsetSeconds = firstPartialAfterOnsetSeconds
        self.endpointSeconds = endpointSeconds
        self.endpointLatencySeconds = endpointLatencySeconds
        self.wholeUtteranceSeconds = wholeUtteranceSeconds
        self.failure = failure
    }

    /// Whether the utterance was streamed (rather than timed whole).
    public var isStreamed: Bool { wholeUtteranceSeconds == nil }
}

/// Cost of one system.
public struct SystemTiming: Codable, Sendable, Equatable {
    /// Loading the acoustic and language models (summed over shards after a merge).
    public var modelLoadSeconds: Double
    /// Wall-clock time of decoding the corpus (summed over shards after a merge).
    public var decodeWallSeconds: Double
    /// Σ decode seconds / Σ audio seconds over utterances (per-decoder real-time factor; lower is faster).
    public var realTimeFactor: Double
    /// 1 / ``realTimeFactor`` (RTFx; higher is faster).
    public var inverseRealTimeFactor: Double
    /// Peak resident memory of the decoding process, megabytes (maximum over shards after a merge).
    public var peakResidentMegabytes: Double
    /// Final latency after end of audio over streamed utterances.
    public var finalLatency: Percentiles?
    /// Time to first partial from the start of audio over streamed utterances.
    public var firstPartial: Percentiles?
    /// How the system's utterances were streamed and what the other latencies were; nil when none was.
    public var streaming: StreamingSummary?
    /// A recognizer that does not stream: the time over each whole utterance (``StreamingLatency/wholeUtteranceSeconds``).
    public var wholeUtterance: Percentiles?

    public init(
        modelLoadSeconds: Double = 0, decodeWallSeconds: Double = 0, realTimeFactor: Double = 0,
        inverseRealTimeFactor: Double = 0, peakResidentMegabytes: Double = 0, finalLatency: Percentiles? = nil,
        firstPartial: Percentiles? = nil, streaming: StreamingSummary? = nil, wholeUtterance: Percentiles? = nil
    ) {
        self.modelLoadSeconds = modelLoadSeconds
        self.decodeWallSeconds = decodeWallSeconds
        self.realTimeFactor = realTimeFactor
        self.inverseRealTimeFactor = inverseRealTimeFactor
        self.peakResidentMegabytes = peakResidentMegabytes
        self.finalLatency = finalLatency
        self.firstPartial = firstPartial
        self.streaming = streaming
        self.wholeUtterance = wholeUtterance
    }
}

/// What streaming one system's utterances gave, beyond final latency: how they were streamed, what is counted rather
/// than timed, and the latencies measured from speech.
public struct StreamingSummary: Codable, Sendable, Equatable {
    /// `realTime`, `simulated`, or `mixed` when the utterances were not all streamed alike.
    public var pacing: String
    /// Utterances streamed.
    public var streamed: Int
    /// Streamed utterances that gave no final hypothesis (the stream failed).
    public var missingFinals: Int
    /// Finals that came before the audio ended (final latency below 0).
    public var earlyFinals: Int
    /// Utterances in which speech was found (``StreamingLatency/speechSource``), the latencies from speech are over.
    public var speechFound: Int
    /// How speech was found (`energy`), when it was.
    public var speechSource: String?
    /// Utterances whose end of speech the recognizer detected before the audio ended.
    public var endpointsDetected: Int
    /// Of those, detections before the end of speech: the speaker cut off in a pause.
    public var prematureEndpoints: Int
    /// From speech onset to the first partial.
    public var firstPartialAfterOnset: Percentiles?
    /// From the end of speech to the recognizer's detection of it.
    public var endpointLatency: Percentiles?

    public init(
        pacing: String, streamed: Int, missingFinals: Int = 0, earlyFinals: Int = 0, speechFound: Int = 0,
        speechSource: String? = nil, endpointsDetected: Int = 0, prematureEndpoints: Int = 0,
        firstPartialAfterOnset: Percentiles? = nil, endpointLatency: Percentiles? = nil
    ) {
        self.pacing = pacing
        self.streamed = streamed
        self.missingFinals = missingFinals
        self.earlyFinals = earlyFinals
        self.speechFound = speechFound
        self.speechSource = speechSource
        self.endpointsDetected = endpointsDetected
        self.prematureEndpoints = prematureEndpoints
        self.firstPartialAfterOnset = firstPartialAfterOnset
        self.endpointLatency = endpointLatency
    }

    /// The summary of `latencies` (one per streamed utterance); nil when there is none.
    public init?(_ latencies: [StreamingLatency], bootstrap: BootstrapOptions) {
        let streamed = latencies.filter(\.isStreamed)
        guard !streamed.isEmpty else { return nil }
        let pacings = Set(streamed.map { $0.pacing ?? "simulated" })
        let sources = Set(streamed.compactMap(\.speechSource))
        let endpoints = streamed.compactMap(\.endpointLatencySeconds)
        self.init(
            pacing: pacings.count == 1 ? pacings.first! : "mixed", streamed: streamed.count,
            missingFinals: streamed.filter { $0.finalLatencySeconds == nil }.count,
            earlyFinals: streamed.filter { ($0.finalLatencySeconds ?? 0) < 0 }.count,
            speechFound: streamed.filter { $0.speechOnsetSeconds != nil }.count,
            speechSource: sources.count == 1 ? sources.first : sources.isEmpty ? nil : "mixed",
            endpointsDetected: streamed.filter { $0.endpointSeconds != nil }.count,
            prematureEndpoints: endpoints.filter { $0 < 0 }.count,
            firstPartialAfterOnset: Percentiles(
                streamed.compactMap(\.firstPartialAfterOnsetSeconds), bootstrap: bootstrap),
            endpointLatency: Percentiles(endpoints, bootstrap: bootstrap))
    }
}

/// Percentiles of a set of durations (linear interpolation between order statistics), each with a percentile
/// bootstrap interval when asked: the utterances are resampled with replacement and the percentile taken again.
///
/// With few values the high percentiles are the largest values and their intervals are wide: p99 of 20 values is
/// within the last two; reports show the count beside them.
public struct Percentiles: Codable, Sendable, Equatable {
    public var p50: Double
    public var p95: Double
    /// nil in results of a Gambit that did not compute it.
    public var p99: Double?
    /// How many values.
    public var count: Int
    /// 95% bootstrap intervals of p50, p95 and p99 ([lower, upper]); nil when none was drawn.
    public var p50Interval: [Double]?
    public var p95Interval: [Double]?
    public var p99Interval: [Double]?

    public init(
        p50: Double, p95: Double, count: Int, p99: Double? = nil, p50Interval: [Double]? = nil,
        p95Interval: [Double]? = nil, p99Interval: [Double]? = nil
    ) {
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
        self.count = count
        self.p50Interval = p50Interval
        self.p95Interval = p95Interval
        self.p99Interval = p99Interval
    }

    /// The percentiles of `values`, with intervals from `bootstrap` when it draws any; nil when there are none.
    public init?(_ values: [Double], bootstrap: BootstrapOptions = BootstrapOptions(resamples: 0)) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        self.init(
            p50: Self.quantile(0.5, sorted), p95: Self.quantile(0.95, sorted), count: sorted.count,
            p99: Self.quantile(0.99, sorted))
        guard bootstrap.resamples > 0 else { return }
        var generator = SplitMix64(seed: bootstrap.seed)
        var draws: [[Double]] = [[], [], []]
        var sample = [Double](repeating: 0, count: sorted.count)
        for _ in 0..<bootstrap.resamples {
            for i in sample.indices { sample[i] = sorted[Int.random(in: 0..<sorted.count, using: &generator)] }
            sample.sort()
            for (k, q) in [0.5, 0.95, 0.99].enumerated() { draws[k].append(Self.quantile(q, sample)) }
        }
        let intervals = draws.map { draw -> [Double] in
            let ordered = draw.sorted()
            return [Self.quantile(0.025, ordered), Self.quantile(0.975, ordered)]
        }
        (p50Interval, p95Interval, p99Interval) = (intervals[0], intervals[1], intervals[2])
    }

    static func quantile(_ q: Double, _ sorted: [Double]) -> Double { Significance.quantile(q, sorted) }
}
