import Formats
import Foundation
import Scoring

/// Everything one Gambit run measured: the single source every report and the gate read.
///
/// A `RunResults` is written once by the runner (`results.json`) and read by `gambit report`, `gambit gate` and
/// `gambit merge`. It holds the run's provenance (suite, engine, acoustic model, settings, network denial), the
/// language-model variants that were prepared, the corpora that were decoded, one ``SystemResults`` per
/// corpus × mode × variant with every utterance's record, the comparisons of each variant against the baseline, the
/// named checks, and an optional parameter sweep.
///
/// The JSON form is versioned by ``schemaVersion`` and documented field by field in `Sources/Results/SCHEMA.md`.
/// Aggregates (``SystemMetrics``, ``Comparison``) are always derivable from the per-utterance records with
/// ``Aggregation``, which is what makes ``merge(_:)`` exact.
///
/// Conventions: rates are fractions (0.125 is 12.5%); deltas are customized − baseline, so a negative ΔWER is an
/// improvement; durations are seconds; sizes are megabytes (10⁶ bytes).
public struct RunResults: Codable, Sendable, Equatable {
    /// The schema version this build reads and writes.
    public static let schemaVersion = 1

    /// The schema version of this value; ``schemaVersion`` for anything created by this build.
    public var schemaVersion: Int
    /// Provenance: versions, suite, shard, settings, engine.
    public var run: RunInfo
    /// How the run was kept off the network, and whether that was verified.
    public var networkDenial: NetworkDenialEvidence
    /// The custom language-model variants, in suite order.
    public var variants: [VariantInfo]
    /// The corpora decoded, in suite order.
    public var corpora: [CorpusInfo]
    /// One entry per corpus × mode × variant, in the order corpora, then baseline, customized (variant order),
    /// oracle.
    public var systems: [SystemResults]
    /// Each customized system against the baseline of its corpus.
    public var comparisons: [Comparison]
    /// Named pass/fail checks (on-device, canary, gates, latency…).
    public var checks: [Check]
    /// A parameter sweep, when the run was a tuning run.
    public var sweep: SweepResults?
    /// The last `gambit sweep --lists` recorded into this run folder: a phrase list's length and distractors.
    public var listSweep: ListSweepResults?
    /// Where the run's time went; nil for merged shards (each shard's are its own) and older results.
    public var timings: RunTimings?
    /// Why each boosted-word error of the customized decodes happened, once `gambit diagnose` has examined the
    /// run; nil before that, and in merged results.
    public var diagnosis: DiagnosisReport?

    public init(
        run: RunInfo,
        networkDenial: NetworkDenialEvidence,
        variants: [VariantInfo] = [],
        corpora: [CorpusInfo] = [],
        systems: [SystemResults] = [],
        comparisons: [Comparison] = [],
        checks: [Check] = [],
        sweep: SweepResults? = nil
    ) {
        self.schemaVersion = Self.schemaVersion
        self.run = run
        self.networkDenial = networkDenial
        self.variants = variants
        self.corpora = corpora
        self.systems = systems
        self.comparisons = comparisons
        self.checks = checks
        self.sweep = sweep
    }

    // MARK: Lookup

    /// The variant named `name`.
    public func variant(named name: String) -> VariantInfo? { variants.first { $0.name == name } }

    /// The corpus named `name`.
    public func corpus(named name: String) -> CorpusInfo? { corpora.first { $0.name == name } }

    /// The system of `corpus` in `mode` (with `variant` for customized systems), decoded by PocketSphinx
    /// or by the external `recognizer`, given the phrase list named `list` (``PhraseListUse/name``) for a list
    /// system.
    public func system(
        corpus: String, mode: SystemMode, variant: String? = nil, recognizer: String? = nil, list: String? = nil
    ) -> SystemResults? {
        systems.first {
            $0.corpus == corpus && $0.mode == mode && $0.variant == variant && $0.recognizer == recognizer
                && $0.list?.name == list
        }
    }

    /// The comparison of `variant` (given the phrase list named `list`, for a list system) against the baseline on
    /// `corpus`.
    public func comparison(corpus: String, variant: String, recognizer: String? = nil, list: String? = nil)
        -> Comparison?
    {
        comparisons.first {
            $0.corpus == corpus && $0.variant == variant && $0.recognizer == recognizer && $0.list?.name == list
        }
    }

    // MARK: Reading and writing

    /// The results as JSON: pretty-printed, sorted keys, no escaped slashes, so the same results give the same bytes.
    /// - Throws: `EncodingError` if a value cannot be encoded (e.g. a NaN or infinite number).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Decodes results from JSON bytes.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - path: Where the bytes came from, for error messages.
    /// - Throws: ``ResultsError`` when the bytes are not JSON, not Gambit results, of another schema version, or
    ///   malformed.
    public static func decode(_ data: Data, path: String = "<memory>") throws -> RunResults {
        struct Header: Decodable { var schemaVersion: Int? }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data)
        } catch {
            throw ResultsError.malformed(path: path, detail: "not a JSON object (\(describe(error)))")
        }
        guard let version = header.schemaVersion else {
            throw ResultsError.malformed(
                path: path, detail: "no \"schemaVersion\" field; this is not a Gambit results file")
        }
        guard version == schemaVersion else {
            throw ResultsError.unsupportedVersion(path: path, found: version, supported: schemaVersion)
        }
        do {
            return try JSONDecoder().decode(RunResults.self, from: data)
        } catch {
            throw ResultsError.malformed(path: path, detail: describe(error))
        }
    }

    /// Reads results written by ``write(to:)``.
    /// - Parameter url: A `results.json` file.
    /// - Returns: The results.
    /// - Throws: ``ResultsError`` when the file cannot be read, is of another schema version or is malformed.
    public static func load(from url: URL) throws -> RunResults {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ResultsError.unreadable(path: url.path, detail: FileSystemReason.reading(url, error))
        }
        return try decode(data, path: url.path)
    }

    /// Writes the results as JSON, atomically (a reader never sees a half-written file).
    /// - Parameter url: Destination file; its directory must exist.
    /// - Throws: ``ResultsError/unwritable(path:detail:)`` or an encoding error.
    public func write(to url: URL) throws {
        let data = try jsonData()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw ResultsError.unwritable(path: url.path, detail: FileSystemReason.writing(url, error))
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            return keys.isEmpty ? "the top level" : keys.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null at \(path(context))"
        case .dataCorrupted(let context):
            return "invalid value at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Why results could not be read, written or merged.
public enum ResultsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, detail: String)
    case unwritable(path: String, detail: String)
    case malformed(path: String, detail: String)
    case unsupportedVersion(path: String, found: Int, supported: Int)
    case nothingToMerge
    case mergeMismatch(what: String, detail: String)
    case overlappingShards(system: String, utterance: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let detail):
            return "\(path): cannot read the results file (\(detail))."
        case .unwritable(let path, let detail):
            return
                "\(path): cannot write the results file (\(detail)). Choose a file in a folder you can write."
        case .malformed(let path, let detail):
            return "\(path): not valid Gambit results: \(detail)."
        case .unsupportedVersion(let path, let found, let supported):
            return
                "\(path): results schema version \(found), but this gambit reads version \(supported). "
                + (found > supported
                    ? "Use a newer gambit to read it."
                    : "Re-run the suite with this gambit to produce version \(supported).")
        case .nothingToMerge:
            return "Nothing to merge: give at least one results file."
        case .mergeMismatch(let what, let detail):
            return "Cannot merge: the shards differ in \(what) (\(detail)). Merge only shards of one run of one suite."
        case .overlappingShards(let system, let utterance):
            return
                "Cannot merge: utterance \"\(utterance)\" of \(system) appears in more than one shard. "
                + "Each shard must cover different utterances."
        }
    }
}
