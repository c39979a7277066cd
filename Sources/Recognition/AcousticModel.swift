import Crypto
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

    /// Checks that every file is there, so a missing package is reported before the engine starts.
    public func validate() throws(RecognitionError) {
        let hint = "install Debian's pocketsphinx-en-us, or set GAMBIT_MODEL_DIR"
        for url in [hmm.appendingPathComponent("mdef"), languageModel, dictionary]
        where !FileManager.default.isReadableFile(atPath: url.path) {
            throw .modelMissing(path: url.path, hint: hint)
        }
    }

    /// A SHA-256 fingerprint of the model's defining files (model definition, feature parameters,
    /// base LM), recorded with results so that a report says which model produced them and a
    /// prepared artifact can refuse to load on a different model.
    public var fingerprint: String {
        var hasher = SHA256()
        for url in [hmm.appendingPathComponent("mdef"), hmm.appendingPathComponent("feat.params"), languageModel] {
            if let data = try? Data(contentsOf: url, options: .alwaysMapped) {
                hasher.update(data: data)
            }
        }
        return ContentHash.hex(hasher.finalize())
    }
}
