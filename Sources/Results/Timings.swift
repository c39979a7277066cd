import Foundation

/// Where a run's time went: each stage of `gambit run` in its own process, with wall and CPU time, and the
/// workers' time by what they spent it on, beside the decode floor, the least wall time the decoding could have
/// taken on this many workers.
public struct RunTimings: Codable, Sendable, Equatable {
    /// A stage of the run in Gambit's own process.
    public struct Stage: Codable, Sendable, Equatable {
        /// `synthesis`, `prepare`, `audio hashes`, `plan`, `decoding`, `scoring`, `reports`.
        public var name: String
        public var wallSeconds: Double
        /// User and system time of this process and of the child processes it waited for during the stage (the
        /// workers while decoding, flite and sox while synthesising).
        public var cpuSeconds: Double

        public init(name: String, wallSeconds: Double, cpuSeconds: Double) {
            self.name = name
            self.wallSeconds = wallSeconds
            self.cpuSeconds = cpuSeconds
        }
    }

    /// Time spent in the workers on one kind of work, summed over the utterances this invocation decoded
    /// (answers read back from the journal cost nothing now and are not counted).
    public struct WorkerTime: Codable, Sendable, Equatable {
        /// `model loads`, `decoding: baseline`, `decoding: customized`, `decoding: oracle`, `streaming`,
        /// `external recognizer: NAME`.
        public var name: String
        public var seconds: Double
        /// Utterances (or, for model loads, loads) it covers.
        public var count: Int
        /// The length of the audio it decoded; nil for model loads and in older results.
        public var audioSeconds: Double?

        public init(name: String, seconds: Double, count: Int, audioSeconds: Double? = nil) {
            self.name = name
            self.seconds = seconds
            self.count = count
            self.audioSeconds = audioSeconds
        }

        /// Seconds of work per second of audio (the real-time factor), when the audio's length is known.
        public var costPerAudioSecond: Double? {
            audioSeconds.flatMap { $0 > 0 ? seconds / $0 : nil }
        }
    }

    /// The customized decodes' cost per second of audio over the baseline's, from this run's own breakdown; nil
    /// when either is missing.
    public var customizedCostRatio: Double? {
        guard let customized = workers.first(where: { $0.name == "decoding: customized" })?.costPerAudioSecond,
            let baseline = workers.first(where: { $0.name == "decoding: baseline" })?.costPerAudioSecond
        else { return nil }
        return customized / baseline
    }

    /// The stages in the order they ran.
    public var stages: [Stage]
    /// The workers' time by kind of work.
    public var workers: [WorkerTime]
    /// Decoder worker processes.
    public var workerCount: Int
    /// Utterance decodings this invocation did; the rest of the run's answers came from its journal.
    public var decoded: Int
    /// Work items answered from the journal.
    public var journaled: Int

    public init(stages: [Stage], workers: [WorkerTime], workerCount: Int, decoded: Int, journaled: Int) {
        self.stages = stages
        self.workers = workers
        self.workerCount = workerCount
        self.decoded = decoded
        self.journaled = journaled
    }

    /// The run's wall time: its stages, one after another.
    public var wallSeconds: Double { stages.reduce(0) { $0 + $1.wallSeconds } }

    /// The workers' time spent decoding and streaming with PocketSphinx (model loads included) divided by the
    /// number of workers: the wall time decoding would take if the work were split evenly and nothing else ran.
    public var decodeFloorSeconds: Double {
        let engine = workers.filter { !$0.name.hasPrefix(Self.externalPrefix) }.reduce(0) { $0 + $1.seconds }
        return engine / Double(max(workerCount, 1))
    }

    /// The prefix of an external recognizer's ``WorkerTime`` name.
    public static let externalPrefix = "external recognizer: "

    /// The wall time of the stage named `name`, when it ran.
    public func wallSeconds(of name: String) -> Double? { stages.first { $0.name == name }?.wallSeconds }
}
