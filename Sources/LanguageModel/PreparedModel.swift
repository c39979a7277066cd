import Foundation
import Hashing
import NGram
import TrainingData

/// The two artifacts `prepare` writes (a language model and a vocabulary), as Apple's
/// `prepareCustomLanguageModel` does, plus a manifest that says what they were made from.
///
/// Folder layout: `manifest.json`, `custom.arpa` (the custom side's Witten-Bell estimate, as text),
/// `custom.lm.bin` (what the decoder loads: with the merged mix, the whole merged model; with the
/// set mix, the custom model alone), `vocabulary.dict`, and `merged.arpa` when asked for.
public struct PreparedModel: Codable, Sendable, Hashable {
    /// Bumped whenever the compiler's output for the same input changes, to invalidate caches.
    public static let compilerVersion = 8

    /// How long each step of `prepare` took, in seconds.
    public struct Timings: Codable, Sendable, Hashable {
        public var validate = 0.0
        public var count = 0.0
        public var estimate = 0.0
        public var writeARPA = 0.0
        public var compileBinary = 0.0
        public var vocabulary = 0.0
        /// Merged mix: reading the base model's n-grams (from the cache after the first time).
        public var readBase = 0.0
        /// Merged mix: merging the two sides.
        public var merge = 0.0
        public var total: Double {
            validate + count + estimate + writeARPA + compileBinary + vocabulary + readBase + merge
        }
    }

    public var compilerVersion: Int
    public var identifier: String
    public var version: String
    public var locale: String
    public var isPrivate: Bool
    /// SHA-256 of the exported training data, the options and the acoustic model: names the work.
    public var inputFingerprint: String
    /// SHA-256 of the written artifacts (binary LM and vocabulary): checked at load.
    public var fingerprint: String
    /// The acoustic model the vocabulary's phones were chosen for.
    public var acousticModelFingerprint: String
    public var order: Int
    public var ngramCounts: [Int]
    public var samples: Int
    public var sampleBudget: Int
    public var sentences: Int
    public var vocabulary: Vocabulary
    public var timings: Timings
    /// The words and multi-word terms the training data boosts (for B-WER and keyword F1).
    public var boostedWords: [String]
    public var boostedTerms: [String]
    /// Template patterns and their classes, for per-slot error rates.
    public var templates: [TemplateSlots]
    /// Fixed expressions predicted as one token (see ``Compounds``), words separated by spaces.
    public var compounds: [String]
    /// How the customization is combined with the base model.
    public var mix: LanguageModelMix
    /// Merged mix: the merge settings (π, π₀, s).
    public var merge: MergeOptions?
    /// Merged mix: the share of each phrase's count counted as a whole utterance.
    public var boundaryShare: Double?
    /// Merged mix: n-gram counts, new words, mixed histories and the spread of λ(h).
    public var mergeStatistics: MergedModel.Statistics?
    /// Merged mix: SHA-256 of the base model the merged model contains.
    public var baseModelFingerprint: String?

    /// Whether `custom.lm.bin` already contains the base model (load it alone, never interpolate).
    public var containsBaseModel: Bool { mix == .merged }

    /// File names inside the artifact folder.
    public static let manifestName = "manifest.json"
    public static let arpaName = "custom.arpa"
    public static let binaryName = "custom.lm.bin"
    public static let vocabularyName = "vocabulary.dict"
    public static let mergedARPAName = "merged.arpa"
}

/// A template's tokens and the values of each class it uses.
public struct TemplateSlots: Codable, Sendable, Hashable {
    public var tokens: [String]
    public var classes: [String: [String]]

    public init(tokens: [String], classes: [String: [String]]) {
        self.tokens = tokens
        self.classes = classes
    }
}

/// A prepared model found on disk and checked.
public struct PreparedArtifact: Sendable, Hashable {
    public var folder: URL
    public var manifest: PreparedModel

    public var languageModel: URL { folder.appendingPathComponent(PreparedModel.binaryName) }
    public var arpa: URL { folder.appendingPathComponent(PreparedModel.arpaName) }
    public var vocabulary: URL { folder.appendingPathComponent(PreparedModel.vocabularyName) }

    /// Whether the artifact is a weighted merge, whose custom side (`custom.arpa`) is the set's: interpolated with
    /// the base model at decode time at the merge's weight, that set twin scores as the merge does (docs/measured.md),
    /// and its weight changes on a lattice without preparing again. The sweep and the diagnosis try other
    /// weights with it.
    public var hasSetTwin: Bool { manifest.mix == .merged && manifest.merge?.interpolation == .weighted }

    /// Opens a prepared folder, refusing anything incomplete, corrupt or from another compiler.
    ///
    /// - Throws: ``LanguageModelError/artifactInvalid(path:reason:)`` naming what is wrong.
    public init(folder: URL) throws(LanguageModelError) {
        let manifestURL = folder.appendingPathComponent(PreparedModel.manifestName)
        guard let data = try? Data(contentsOf: manifestURL) else {
            throw .artifactInvalid(path: manifestURL.path, reason: "manifest.json is missing")
        }
        // The version first: an older manifest may lack fields this version has.
        struct Version: Decodable { var compilerVersion: Int }
        if let version = try? JSONDecoder().decode(Version.self, from: data),
            version.compilerVersion != PreparedModel.compilerVersion
        {
            throw .artifactInvalid(
                path: folder.path,
                reason: "made by compiler version \(version.compilerVersion), this is \(PreparedModel.compilerVersion)"
            )
        }
        let manifest: PreparedModel
        do {
            manifest = try JSONDecoder().decode(PreparedModel.self, from: data)
        } catch {
            throw .artifactInvalid(path: manifestURL.path, reason: "manifest.json is malformed (\(error))")
        }
        self.folder = folder
        self.manifest = manifest
        let actual = try Self.fingerprint(languageModel: languageModel, vocabulary: vocabulary)
        guard actual == manifest.fingerprint else {
            throw .artifactInvalid(
                path: folder.path, reason: "its files do not match the manifest's fingerprint (truncated or edited?)")
        }
    }

    /// The fingerprint of a prepared model's two files (``ContentHash/fingerprint(of:)``).
    ///
    /// - Throws: ``LanguageModelError/artifactInvalid(path:reason:)`` naming a file that is missing.
    static func fingerprint(languageModel: URL, vocabulary: URL) throws(LanguageModelError) -> String {
        do {
            return try ContentHash.fingerprint(of: [languageModel, vocabulary].map { ($0.lastPathComponent, $0) })
        } catch {
            throw .artifactInvalid(path: error.path, reason: "file is missing")
        }
    }
}
