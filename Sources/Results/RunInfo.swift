public import Scoring

/// Where a run came from: enough to reproduce it.
public struct RunInfo: Codable, Sendable, Equatable {
    /// The `gambit` version that produced the results, e.g. `0.3.0`.
    public var gambitVersion: String
    /// When the run started, ISO-8601 (e.g. `2025-05-01T12:00:00Z`), set by the runner.
    public var createdAt: String
    public var suite: SuiteInfo
    /// Which slice of the suite this run covered; `nil` for a whole (or merged) run.
    public var shard: Shard?
    public var settings: RunSettings
    public var engine: EngineInfo
    /// Recognizers evaluated beside the engine through a command; nil or empty when none.
    public var externalRecognizers: [ExternalRecognizerInfo]?
    /// Set when these results merge only some of a run's shards (`gambit merge --partial`): which shards are in
    /// and which are missing. `nil` for a complete run, and in files written before the field existed.
    public var partial: PartialRun?

    public init(
        gambitVersion: String, createdAt: String, suite: SuiteInfo, shard: Shard? = nil, settings: RunSettings,
        engine: EngineInfo, externalRecognizers: [ExternalRecognizerInfo]? = nil, partial: PartialRun? = nil
    ) {
        self.gambitVersion = gambitVersion
        self.createdAt = createdAt
        self.suite = suite
        self.shard = shard
        self.settings = settings
        self.engine = engine
        self.externalRecognizers = externalRecognizers
        self.partial = partial
    }
}

/// Results that merge some of a run's shards but not all (`gambit merge --partial`).
///
/// Every number in such results covers the ``present`` shards' utterances only; every report says so, and the
/// gate refuses them.
public struct PartialRun: Codable, Sendable, Equatable {
    /// How many shards the run was split into (the `N` of `--shard I/N`).
    public var shardCount: Int
    /// Zero-based indices of the shards merged, ascending.
    public var present: [Int]
    /// Zero-based indices of the shards not merged, ascending; never empty.
    public var missing: [Int]

    public init(shardCount: Int, present: [Int], missing: [Int]) {
        self.shardCount = shardCount
        self.present = present
        self.missing = missing
    }

    /// `1/4, 3/4`: shard indices as `--shard` takes them.
    public static func list(_ indices: [Int], of count: Int) -> String {
        indices.map { "\($0)/\(count)" }.joined(separator: ", ")
    }

    /// What is in and what is missing, for every report: "2 of 4 shards merged (0/4, 2/4); missing 1/4, 3/4 — every
    /// number covers the merged shards' utterances only".
    public var detail: String {
        "\(present.count) of \(shardCount) shards merged (\(Self.list(present, of: shardCount))); "
            + "missing \(Self.list(missing, of: shardCount)) — every number covers the merged shards' utterances only"
    }

    /// ``detail`` as a sentence on its own: "partial results: 2 of 4 shards merged …".
    public var summary: String { "partial results: " + detail }
}

/// A recognizer run through a command (see the runner's `ExternalRecognizer`).
public struct ExternalRecognizerInfo: Codable, Sendable, Equatable {
    public var name: String
    /// The command with `{audio}` where the audio path goes.
    public var command: [String]
    /// Declared to run on the device: then it ran with the network denied, and ``networkDenied`` says for how
    /// many of its ``decodings``.
    public var onDevice: Bool
    public var decodings: Int
    public var networkDenied: Int
    /// The version the suite declares for it.
    public var version: String?
    /// Its customization with each variant assigned to it, in suite order; nil when it is evaluated uncustomized
    /// only.
    public var customizations: [ExternalCustomizationInfo]?
    /// Its transcripts were made outside the run and imported from these files (relative to the suite's folder):
    /// nothing about how they were made, on the device or not, was witnessed. Nil when Gambit ran it.
    public var importedFiles: [String]?
    /// How many times its long-lived program (`serve:`) was started, over every worker and system: each start loads
    /// its model. Nil when it has no long-lived form or ran no decode here.
    public var modelLoads: Int?

    public init(
        name: String, command: [String], onDevice: Bool, decodings: Int, networkDenied: Int, version: String? = nil,
        customizations: [ExternalCustomizationInfo]? = nil, importedFiles: [String]? = nil, modelLoads: Int? = nil
    ) {
        self.importedFiles = importedFiles
        self.modelLoads = modelLoads
        self.name = name
        self.command = command
        self.onDevice = onDevice
        self.decodings = decodings
        self.networkDenied = networkDenied
        self.version = version
        self.customizations = customizations
    }
}

/// One variant prepared for an external recognizer by its prepare command.
public struct ExternalCustomizationInfo: Codable, Sendable, Equatable {
    public var variant: String
    /// The prepared artifact's content fingerprint (every file of its folder); nil when the prepare failed.
    public var artifactFingerprint: String?
    /// How long its prepare command took (when this run found it in the cache: when it was made); 0 without a
    /// prepare command.
    public var prepareSeconds: Double
    /// This run found the artifact in the cache and prepared nothing.
    public var cached: Bool
    /// Why the prepare failed; nil when it did not. Every utterance of the variant then failed with it.
    public var failure: String?
    /// The prepare command ran in a network namespace of its own (checked for an on-device recognizer).
    public var networkDenied: Bool
    /// The variant's training data is private and went to a recognizer that runs off the device, because the
    /// suite allowed it for this recognizer by name.
    public var privateDataSentOffDevice: Bool
    /// What the prepare command said of its work, its last line on standard output (Whisper's adapter: how many
    /// phrases its prompt kept and dropped); nil when it printed none.
    public var prepareReport: String?

    public init(
        variant: String, artifactFingerprint: String?, prepareSeconds: Double, cached: Bool, failure: String? = nil,
        networkDenied: Bool, privateDataSentOffDevice: Bool = false, prepareReport: String? = nil
    ) {
        self.prepareReport = prepareReport
        self.variant = variant
        self.artifactFingerprint = artifactFingerprint
        self.prepareSeconds = prepareSeconds
        self.cached = cached
        self.failure = failure
        self.networkDenied = networkDenied
        self.privateDataSentOffDevice = privateDataSentOffDevice
    }
}

/// The suite file a run executed.
public struct SuiteInfo: Codable, Sendable, Equatable {
    public var name: String
    /// The suite file's path as given on the command line.
    public var path: String
    /// Content hash of the suite and everything it names (e.g. `sha256:…`); shards merge only when it is equal.
    public var contentHash: String
    /// The suite file's path relative to the output folder the results were written in, links resolved
    /// (`../Corpora/suite.yaml`): how a command given that folder finds the suite, whatever its working
    /// directory (``path`` is relative to the run's). Nil in results written before it was recorded.
    public var pathFromOutput: String?

    public init(name: String, path: String, contentHash: String, pathFromOutput: String? = nil) {
        self.name = name
        self.path = path
        self.contentHash = contentHash
        self.pathFromOutput = pathFromOutput
    }
}

/// One slice of a suite run on its own (`--shard index/count`).
public struct Shard: Codable, Sendable, Equatable {
    /// Zero-based shard index, less than ``count``.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
}

/// Settings that change the numbers.
public struct RunSettings: Codable, Sendable, Equatable {
    /// Decoding workers (parallel decoders).
    public var workers: Int
    /// The normalizer applied to references, hypotheses and terms; ``Aggregation`` uses it to recompute aggregates.
    public var normalizer: Normalizer
    /// ``Scoring/Normalizer/summary`` of ``normalizer``, for display.
    public var normalization: String
    public var alignmentMode: AlignmentMode
    /// Resamples and seed of the paired bootstrap intervals.
    public var bootstrap: BootstrapOptions
    /// Correct words that bound a MAPSSWE segment (`sc_stats` uses 2).
    public var minimumGoodWords: Int
    /// ``Scoring/Normalizer/rulesVersion`` of the Gambit that scored the run; absent in results written before
    /// it was recorded, which scored under version 1 (``normalizerRules``).
    public var normalizerRulesVersion: Int?

    /// The version of the normalizer's rules the run was scored under.
    public var normalizerRules: Int { normalizerRulesVersion ?? 1 }

    public init(
        workers: Int, normalizer: Normalizer = .standard, alignmentMode: AlignmentMode = .sclite,
        bootstrap: BootstrapOptions = .init(), minimumGoodWords: Int = 2
    ) {
        self.workers = workers
        self.normalizer = normalizer
        self.normalizerRulesVersion = Normalizer.rulesVersion
        self.normalization = normalizer.summary
        self.alignmentMode = alignmentMode
        self.bootstrap = bootstrap
        self.minimumGoodWords = minimumGoodWords
    }
}

/// The recognizer and its acoustic model.
public struct EngineInfo: Codable, Sendable, Equatable {
    /// e.g. `PocketSphinx`.
    public var name: String
    /// e.g. `5.0.3`.
    public var version: String
    /// The acoustic model's folder name (`en-us`); the fingerprint identifies its content.
    public var acousticModelPath: String
    /// Content hash of the acoustic model directory.
    public var acousticModelFingerprint: String
    /// Decoder arguments beyond the defaults, in order, e.g. `["-beam", "1e-60", "-lw", "6.5"]`.
    public var decoderArguments: [String]

    public init(
        name: String, version: String, acousticModelPath: String, acousticModelFingerprint: String,
        decoderArguments: [String] = []
    ) {
        self.name = name
        self.version = version
        self.acousticModelPath = acousticModelPath
        self.acousticModelFingerprint = acousticModelFingerprint
        self.decoderArguments = decoderArguments
    }
}

/// Evidence that recognition ran without network access, as on a device.
public struct NetworkDenialEvidence: Codable, Sendable, Equatable {
    /// How the network was denied, e.g. `network namespace (unshare -n)`, `seccomp`, or `none`.
    public var method: String
    /// A connect attempt from inside the sandbox failed with `ENETUNREACH`.
    public var verified: Bool
    /// What was tried and what happened, in words.
    public var detail: String
    /// The utterance decodings by Gambit's workers, and how many of them ran in a worker that proved it had
    /// no network; nil where the evidence is not counted (results of Gambit before 0.1.0's step 7).
    public var decodings: Int?
    public var denied: Int?

    public init(method: String, verified: Bool, detail: String) {
        self.method = method
        self.verified = verified
        self.detail = detail
    }

    /// The evidence of the workers' decodings: `denied` of `decodings` ran in a worker whose connect
    /// attempt failed with `ENETUNREACH`; `methods` are the ways the workers were isolated.
    public static func workers(denied: Int, of decodings: Int, methods: [String]) -> NetworkDenialEvidence {
        var evidence = NetworkDenialEvidence(
            method: methods.joined(separator: "; "), verified: denied == decodings,
            detail: "\(denied) of \(decodings) utterance decodings ran in a worker whose connect(127.0.0.1:9) "
                + "failed with ENETUNREACH")
        evidence.decodings = decodings
        evidence.denied = denied
        return evidence
    }

    /// No denial was attempted.
    public static let none = NetworkDenialEvidence(method: "none", verified: false, detail: "network not denied")
}
