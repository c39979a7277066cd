import Formats
import Foundation
import Hashing
import LanguageModel
import Recognition
import Scoring
import TrainingData

/// Joins the pipeline's stages for one acoustic model: reads training data, prepares it (cached by
/// content) and turns the artifact into the recognizer's customized-model configuration.
public final class Toolchain {
    public let model: AcousticModel
    public let compiler: LanguageModelCompiler
    /// Where prepared artifacts are cached, one folder per training file.
    public let cacheFolder: URL

    public init(model: AcousticModel = .englishUS, cacheFolder: URL? = nil) {
        self.model = model
        let cacheFolder = cacheFolder ?? Self.defaultCacheFolder
        self.compiler = LanguageModelCompiler(
            base: BaseModelFiles(
                languageModel: model.languageModel, dictionary: model.dictionary,
                acousticModelFingerprint: model.fingerprintForKeys, locale: model.locale))
        self.cacheFolder = cacheFolder
    }

    /// The installed English model, used where no toolchain is at hand.
    static var sharedModel: AcousticModel { .englishUS }

    /// `$GAMBIT_CACHE`, else `$XDG_CACHE_HOME/gambit`, else `~/.cache/gambit`.
    public static var defaultCacheFolder: URL {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["GAMBIT_CACHE"] { return URL(fileURLWithPath: explicit) }
        let base =
            environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("gambit")
    }

    /// Reads training data from YAML (`.yaml`, `.yml`) or from an exported file (anything else).
    /// - Throws: ``TrainingDataError`` for the data's problems, ``LanguageModelError/unreadable(path:reason:)``
    ///   (in words: "a folder, not a training-data file") when the file cannot be read.
    public static func loadTrainingData(_ url: URL) throws -> CustomLanguageModelData {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw LanguageModelError.unreadable(path: url.path, reason: "no such training-data file")
        }
        guard !isFolder.boolValue else {
            throw LanguageModelError.unreadable(
                path: url.path, reason: "a folder, not a training-data file; give the YAML file itself")
        }
        do {
            switch url.pathExtension.lowercased() {
            case "yaml", "yml": return try CustomLanguageModelData(yamlFile: url)
            default: return try CustomLanguageModelData(contentsOf: url)
            }
        } catch let error as TrainingDataError {
            throw error
        } catch {
            throw LanguageModelError.unreadable(
                path: url.path, reason: "cannot read the training data: \(FileSystemReason.reading(url, error))")
        }
    }

    /// The artifact folder for a training file (and compiler options) under the cache.
    public func artifactFolder(for training: URL, options: PrepareOptions = PrepareOptions()) -> URL {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let optionBytes = (try? encoder.encode(options.normalized)) ?? Data()
        let digest = ContentHash.sha256(Data(training.standardizedFileURL.path.utf8) + optionBytes)
        let name = training.deletingPathExtension().lastPathComponent
        return cacheFolder.appendingPathComponent("prepared")
            .appendingPathComponent("\(name)-\(ContentHash.hex(digest.prefix(6)))")
    }

    /// Prepares a training file into the cache (or `output`) and returns the artifact.
    ///
    /// - Parameter data: The file's data when the caller has read it already (it is read here otherwise).
    public func prepare(
        _ training: URL, data: CustomLanguageModelData? = nil, output: URL? = nil,
        options: PrepareOptions = PrepareOptions(), ignoreCache: Bool = false
    ) throws -> (artifact: PreparedArtifact, cached: Bool) {
        let data = try data ?? Self.loadTrainingData(training)
        let folder = output ?? artifactFolder(for: training, options: options)
        let prepared = try compiler.prepare(data, output: folder, options: options, ignoreCache: ignoreCache)
        if output == nil { ModelCache.recordSources([training], in: folder) }
        return prepared
    }

    /// The recognizer configuration for a prepared artifact, as Apple's
    /// `SFSpeechLanguageModel.Configuration(languageModel:vocabulary:weight:)`.
    /// The configuration whose weight can change without preparing again: a weighted merge's set twin (its custom
    /// model, interpolated at decode time), else the artifact's own (a set's weight already can; a history or
    /// constant merge's weight is built in and has no twin).
    public static func reweightableConfiguration(
        _ artifact: PreparedArtifact, weight: Double
    ) -> LanguageModelConfiguration {
        var configuration = configuration(artifact, weight: weight)
        if artifact.hasSetTwin {
            configuration.languageModel = artifact.arpa
            configuration.containsBaseModel = false
        }
        return configuration
    }

    public static func configuration(_ artifact: PreparedArtifact, weight: Double) -> LanguageModelConfiguration {
        LanguageModelConfiguration(
            languageModel: artifact.languageModel, vocabulary: artifact.vocabulary, weight: weight,
            locale: artifact.manifest.locale, acousticModelFingerprint: artifact.manifest.acousticModelFingerprint,
            fingerprint: artifact.manifest.fingerprint, containsBaseModel: artifact.manifest.containsBaseModel)
    }
}
