import Foundation
import Hashing
import NGram
import Synchronization

/// Reads the base language model's n-grams once per process, keyed by the model file's fingerprint.
///
/// Debian's `en-us.lm.bin` ships in no text form, the sphinxbase functions that would iterate it are
/// absent from Debian's library, and its ARPA writer aborts on that file. So the binary trie is read
/// directly (``TrigramTables/init(sphinxBinary:logBase:)``): 0.3 s for its 3.8 million n-grams, fast
/// enough that no copy is kept on disk. An ARPA base model is read as text.
public enum BaseModelStore {
    /// The base model's n-grams and what reading them cost, for `gambit-bench prepare`.
    public struct Load: Sendable {
        public var ngrams: TrigramTables
        /// SHA-256 of the model file.
        public var fingerprint: String
        public var seconds: Double
        /// Whether this process had already read the same file.
        public var fromCache: Bool
    }

    private static let loaded = Mutex<[String: TrigramTables]>([:])

    /// The base model's n-grams, read now or earlier in this process.
    /// - Parameter languageModel: A sphinxbase binary trie or an ARPA model of order ≤ 3.
    /// - Throws: ``LanguageModelError/unreadable(path:reason:)`` naming the file and what is wrong.
    public static func load(languageModel: URL) throws(LanguageModelError) -> Load {
        var clock = Stopwatch()
        guard let data = try? Data(contentsOf: languageModel, options: .alwaysMapped) else {
            throw .unreadable(path: languageModel.path, reason: "no such base language model file")
        }
        let fingerprint = ContentHash.sha256Hex(data)
        if let cached = loaded.withLock({ $0[fingerprint] }) {
            return Load(ngrams: cached, fingerprint: fingerprint, seconds: clock.lap(), fromCache: true)
        }
        let ngrams: TrigramTables
        do {
            if data.starts(with: Array("Trie Language Model".utf8)) {
                ngrams = try TrigramTables(sphinxBinary: data)
            } else {
                ngrams = try TrigramTables(arpaFile: languageModel)
            }
        } catch {
            throw .unreadable(path: languageModel.path, reason: "\(error)")
        }
        loaded.withLock { $0[fingerprint] = ngrams }
        return Load(ngrams: ngrams, fingerprint: fingerprint, seconds: clock.lap(), fromCache: false)
    }
}
