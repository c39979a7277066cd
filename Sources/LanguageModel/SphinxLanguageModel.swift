internal import CPocketSphinx
import Foundation
import NGram

/// Serialises sphinxbase model reading (its number parser keeps a shared free list).
private let sphinxbaseLock = NSLock()

/// A sphinxbase n-gram model (ARPA or binary) held open for conversion and scoring.
///
/// Owns an `ngram_model_t` and its `logmath_t`, freed in `deinit`. Not thread-safe: one owner at a
/// time; never shared with a decoder.
public final class SphinxLanguageModel {
    private let model: OpaquePointer
    private let logmath: OpaquePointer
    private let ownsLogmath: Bool
    /// Models whose log tables or n-grams this one uses.
    private let dependencies: [SphinxLanguageModel]

    /// Reads a model file.
    ///
    /// The corresponding C function is `ngram_model_read`.
    /// - Parameters:
    ///   - url: An ARPA or binary model.
    ///   - sibling: A model to share log tables with, so that the two can be interpolated.
    /// - Throws: ``LanguageModelError/engineRejected(path:reason:)`` when sphinxbase cannot read it.
    public init(contentsOf url: URL, sharingLogTablesWith sibling: SphinxLanguageModel? = nil)
        throws(LanguageModelError)
    {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw .unreadable(path: url.path, reason: "no such language model file")
        }
        guard let logmath = sibling?.logmath ?? logmath_init(1.0001, 0, 0) else {
            throw .engineRejected(path: url.path, reason: "logmath_init failed")
        }
        sphinxbaseLock.lock()
        defer { sphinxbaseLock.unlock() }
        gambit_ps_install_log_capture()
        gambit_ps_clear_last_error()
        guard let model = ngram_model_read(nil, url.path, NGRAM_AUTO, logmath) else {
            if sibling == nil { logmath_free(logmath) }
            let message = String(cString: gambit_ps_last_error())
            throw .engineRejected(path: url.path, reason: message.isEmpty ? "unreadable n-gram model" : message)
        }
        self.model = model
        self.logmath = logmath
        self.ownsLogmath = sibling == nil
        self.dependencies = sibling.map { [$0] } ?? []
    }

    private init(model: OpaquePointer, logmath: OpaquePointer, dependencies: [SphinxLanguageModel]) {
        self.model = model
        self.logmath = logmath
        self.ownsLogmath = false
        self.dependencies = dependencies
    }

    deinit {
        ngram_model_free(model)
        if ownsLogmath { logmath_free(logmath) }
    }

    /// Writes the model in sphinxbase's binary format, which PocketSphinx loads fastest.
    ///
    /// The corresponding C function is `ngram_model_write` with `NGRAM_BIN`.
    public func writeBinary(to url: URL) throws(LanguageModelError) {
        guard ngram_model_write(model, url.path, NGRAM_BIN) == 0 else {
            throw .writeFailed(path: url.path, reason: String(cString: gambit_ps_last_error()))
        }
    }

    /// N-gram counts per order, as the model file declares them.
    public var counts: [Int] {
        let order = Int(ngram_model_get_size(model))
        guard let counts = ngram_model_get_counts(model) else { return [] }
        return (0..<order).map { Int(counts[$0]) }
    }

    /// The model's words, most probable unigram first.
    ///
    /// The top of this list is what "common words" means for B-WER: Le et al. (2021) call a word
    /// rare when it is outside the most frequent few thousand.
    public func wordsByUnigramProbability() -> [String] {
        let total = counts.first ?? 0
        var scored: [(String, Int32)] = []
        scored.reserveCapacity(total)
        for wid in 0..<Int32(total) {
            guard let cWord = ngram_word(model, wid) else { continue }
            var words: [UnsafePointer<CChar>?] = [cWord]
            let probability = ngram_prob(model, &words, 1)
            let word = String(cString: cWord)
            if word.hasPrefix("<") { continue }
            scored.append((word, probability))
        }
        return scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
    }

    /// Natural-log probability of a sentence (with `<s>` and `</s>`), from the raw n-gram
    /// probabilities (no language weight or insertion penalty).
    public func logProbability(of words: [String]) -> Double {
        let tokens = [BackoffModel.sentenceStart] + words + [BackoffModel.sentenceEnd]
        var total = 0.0
        for index in 1..<tokens.count {
            let history = tokens[max(0, index - 2)..<index].reversed()
            let cStrings = ([tokens[index]] + history).map { strdup($0) }
            defer { for pointer in cStrings { free(pointer) } }
            var pointers: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) }
            let score = ngram_prob(model, &pointers, Int32(pointers.count))
            total += logmath_log_to_ln(logmath, score)
        }
        return total
    }

    /// Perplexity of held-out sentences (tokens without `<s>` and `</s>`), scored as
    /// ``BackoffModel/perplexity(of:)`` scores them: words the model lacks are counted apart, not
    /// scored, and reset the history.
    public func perplexity(of sentences: [[String]]) -> BackoffModel.Perplexity {
        let unknown = ngram_unknown_wid(model)
        func known(_ word: String) -> Bool { ngram_wid(model, word) != unknown }
        var logProb = 0.0
        var words = 0
        var oovs = 0
        var scored = 0
        for sentence in sentences {
            var context = [BackoffModel.sentenceStart]
            for token in sentence + [BackoffModel.sentenceEnd] {
                let isEnd = token == BackoffModel.sentenceEnd && context.count <= sentence.count + 1
                if !isEnd { words += 1 }
                guard isEnd || (known(token) && token != BackoffModel.sentenceStart) else {
                    oovs += 1
                    context.removeAll()
                    continue
                }
                logProb += logProbability(token, after: context) / M_LN10
                scored += 1
                context.append(token)
            }
        }
        return BackoffModel.Perplexity(
            sentences: sentences.count, words: words, oovs: oovs, logProb: logProb, scored: scored)
    }

    /// Natural-log probability of `word` after up to two words of `context` (raw n-gram score).
    func logProbability(_ word: String, after context: [String]) -> Double {
        let history = context.suffix(2).reversed()
        let cStrings = ([word] + history).map { strdup($0) }
        defer { for pointer in cStrings { free(pointer) } }
        var pointers: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) }
        return logmath_log_to_ln(logmath, ngram_prob(model, &pointers, Int32(pointers.count)))
    }

    /// This model linearly interpolated with another, as the recognizer combines them:
    /// P = (1 − weight) · P_self + weight · P_other. The other model must share this one's log tables.
    ///
    /// The corresponding C function is `ngram_model_set_init`.
    public func interpolated(with other: SphinxLanguageModel, weight: Double) throws(LanguageModelError)
        -> SphinxLanguageModel
    {
        guard other.logmath == logmath else {
            throw .engineRejected(path: "interpolated model", reason: "models must share log tables")
        }
        let w = Float(min(max(weight, 1e-6), 1 - 1e-6))
        var models: [OpaquePointer?] = [ngram_model_retain(model), ngram_model_retain(other.model)]
        var weights: [Float] = [1 - w, w]
        var names: [UnsafeMutablePointer<CChar>?] = [strdup("base"), strdup("custom")]
        defer { for name in names { free(name) } }
        sphinxbaseLock.lock()
        defer { sphinxbaseLock.unlock() }
        guard let set = ngram_model_set_init(nil, &models, &names, &weights, 2) else {
            throw .engineRejected(path: "interpolated model", reason: String(cString: gambit_ps_last_error()))
        }
        ngram_model_free(models[0])
        ngram_model_free(models[1])
        return SphinxLanguageModel(model: set, logmath: logmath, dependencies: [self, other])
    }
}
