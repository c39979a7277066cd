import Recognition
import Results

// A decode's answer (Recognition's types) as the results record it. The cases and fields correspond one to one,
// with the same JSON names, so a record reads the same whichever stage wrote it; the runner is the one place
// that turns one into the other (`Runner.results(of:items:answers:)`).

extension WordTiming {
    init(_ word: DecodedWord) {
        self.init(word: word.word, start: word.start, duration: word.duration, confidence: word.confidence)
    }
}

extension StreamingLatency {
    init(_ latency: DecodeLatency) {
        self.init(
            firstPartialSeconds: latency.firstPartialSeconds, finalLatencySeconds: latency.finalLatencySeconds,
            firstCorrectEmission: latency.firstCorrectEmission, pacing: latency.pacing?.rawValue,
            speechOnsetSeconds: latency.speech?.start, speechEndSeconds: latency.speech?.end,
            speechSource: latency.speech?.source, firstPartialAfterOnsetSeconds: latency.firstPartialAfterOnsetSeconds,
            endpointSeconds: latency.endpointSeconds, endpointLatencySeconds: latency.endpointLatencySeconds,
            failure: latency.failure)
    }
}

extension Results.CustomizationStatus {
    init(_ use: CustomizationUse) {
        switch use {
        case .applied: self = .applied
        case .ignored: self = .ignored
        case .notRequested: self = .notRequested
        }
    }
}

extension FailureKind {
    init(_ kind: DecodeFailureKind) {
        switch kind {
        case .audio: self = .audio
        case .engine: self = .engine
        case .timeout: self = .timeout
        case .crash: self = .crash
        case .recognizerOutput: self = .recognizerOutput
        case .preparation: self = .preparation
        case .missingTranscript: self = .missingTranscript
        }
    }
}
