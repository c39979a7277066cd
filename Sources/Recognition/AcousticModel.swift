import Foundation
import Hashing

/// The files that make up a PocketSphinx model for one locale: acoustic model folder, base language
/// model and pronunciation dictionary.
public struct AcousticModel: Sendable, Hashable, Codable {
    /// The locale the model recognises, as a BCP-47 identifier (`en-US`).
    public var locale: String
    /// The acoustic model folder (`-hmm`).
    public var hmm: URL
    /// The base n-gram language model (`-lm`).
    public var languageModel: URL
    /// The pronunciation dictionary (`-dict`).
    public var dictionary: URL

    public init(locale: String, hmm: URL, languageModel: URL, dictionary: URL) {
        self.locale = locale
        self.hmm = hmm
        self.languageModel = languageModel
        self.dictionary = dictionary
    }

    /// Debian's `pocketsphinx-en-us` model. `GAMBIT_MODEL_DIR` points at another copy of the same layout.
    public static var englishUS: AcousticModel {
        let root = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["GAMBIT_MODEL_DIR"]
                ?? "/usr/share/pocketsphinx/model/en-us"
        )
        return AcousticModel(
            locale: "en-US",
            hmm: root.appendingPathComponent("en-us"),
            languageModel: root.appendingPathComponent("en-us.lm.bin"),
            dictionary: root.appendingPathComponent("cmudict-en-us.dict")
        )
    }

    /// The phonetic language model beside the base model (Debian ships `en-us-phone.lm.bin`): what a phone loop
    /// decodes with.
    public var phoneLanguageModel: URL {
        languageModel.deletingLastPathComponent().appendingPathComponent("en-us-phone.lm.bin")
    }

    /// The models this machine can offer, by locale.
    public static var installed: [String: AcousticModel] { ["en-US": .englishUS] }

    /// The installed model for a locale (`en-US`, also `en_US`).
    ///
    /// - Throws: ``RecognitionError/unsupportedLocale(_:supported:)`` when this machine has none.
    public static func installed(for locale: String) throws(RecognitionError) -> AcousticModel {
        guard let model = installed[canonicalLocale(locale)] else {
            throw .unsupportedLocale(locale, supported: installed.keys.sorted())
        }
        return model
    }

    /// Normalises `en_US`, `en-us` and `en-US` to `en-US`.
    public static func canonicalLocale(_ identifier: String) -> String {
        let parts = identifier.replacingOccurrences(of: "_", with: "-").split(separator: "-")
        guard let language = parts.first else { return identifier }
        let rest = parts.dropFirst().map { $0.count == 2 ? $0.uppercased() : String($0) }
        return ([language.lowercased()] + rest).joined(separator: "-")
    }

    /// What to do about a missing model file.
    static let installHint = "install Debian's pocketsphinx-en-us, or set GAMBIT_MODEL_DIR"

    /// Checks that every file is there, so a missing package is reported before the engine starts.
    public func validate() throws(RecognitionError) {
        for url in [hmm.appendingPathComponent("mdef"), languageModel, dictionary]
        where !FileManager.default.isReadableFile(atPath: url.path) {
            throw .modelMissing(path: url.path, hint: Self.installHint)
        }
    }

    /// ``fingerprint``, or `missing:<path>` naming the file that is missing, for what makes keys before any decoder
    /// starts (a toolchain, a transcriber's work requests, a plan): as with ``WorkRequest/hashFile(_:)``, such a key
    /// matches no real model's, and the decode that follows fails naming the file, with the install hint
    /// (``validate()``). What checks a model against an artifact uses ``fingerprint`` itself.
    public var fingerprintForKeys: String {
        do {
            return try fingerprint
        } catch {
            guard case .modelMissing(let path, _) = error else { return "missing" }
            return "missing:\(path)"
        }
    }

    /// A SHA-256 fingerprint of the model's defining files (model definition, feature parameters,
    /// base LM), recorded with results so that a report says which model produced them and a
    /// prepared artifact can refuse to load on a different model.
    ///
    /// - Throws: ``RecognitionError/modelMissing(path:hint:)`` naming a file that is missing or unreadable.
    public var fingerprint: String {
        get throws(RecognitionError) {
            let files = [hmm.appendingPathComponent("mdef"), hmm.appendingPathComponent("feat.params"), languageModel]
            do {
                return try ContentHash.fingerprint(of: files.map { ($0.lastPathComponent, $0) })
            } catch {
                throw .modelMissing(path: error.path, hint: Self.installHint)
            }
        }
    }
}
