import Foundation
import NGram
import PocketSphinx

/// A sphinxbase n-gram model (ARPA or binary) held open for conversion and scoring.
///
/// Not thread-safe: one owner at a time; never shared with a decoder.
public final class SphinxLanguageModel {
    private let model: NGramModel

    /// Reads a model file.
    ///
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
        do throws(EngineError) {
            let logMath: LogMath
            if let sibling { logMath = sibling.model.logMath } else { logMath = try LogMath() }
            model = try NGramModel(contentsOf: url.path, logMath: logMath)
        } catch {
            throw .engineRejected(path: url.path, reason: error.description)
        }
    }

    private init(model: NGramModel) {
        self.model = model
    }

    /// Writes the model in sphinxbase's binary format, which PocketSphinx loads fastest.
    ///
    /// The corresponding C function is `ngram_model_write` with `NGRAM_BIN`.
    public func writeBinary(to url: URL) throws(LanguageModelError) {
        do {
            try model.writeBinary(to: url.path)
        } catch {
            throw .writeFailed(path: url.path, reason: error.description)
        }
    }

    /// N-gram counts per order, as the model file declares them.
    public var counts: [Int] { model.counts }

    /// The model's words, most probable unigram first.
    ///
    /// The top of this list is what "common words" means for B-WER: Le et al. (2021) call a word
    /// rare when it is outside the most frequent few thousand.
    public func wordsByUnigramProbability() -> [String] {
        let total = counts.first ?? 0
        var scored: [(String, Int32)] = []
        scored.reserveCapacity(total)
        for wid in 0..<Int32(total) {
            guard let word = model.word(id: wid), !word.hasPrefix("<") else { continue }
            scored.append((word, model.logScore(of: word)))
        }
        return scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
    }

    /// Natural-log probability of a sentence (with `<s>` and `</s>`), from the raw n-gram
    /// probabilities (no language weight or insertion penalty).
    public func logProbability(of words: [String]) -> Double {
        let tokens = [BackoffModel.sentenceStart] + words + [BackoffModel.sentenceEnd]
        var total = 0.0
        for index in 1..<tokens.count {
            total += logProbability(tokens[index], after: Array(tokens[..<index]))
        }
        return total
    }

    /// Perplexity of held-out sentences (tokens without `<s>` and `</s>`), scored as
    /// ``BackoffModel/perplexity(of:)`` scores them: words the model lacks are counted apart, not
    /// scored, and reset the history.
    public func perplexity(of sentences: [[String]]) -> BackoffModel.Perplexity {
        let unknown = model.unknownWordID
        func known(_ word: String) -> Bool { model.id(of: word) != unknown }
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
        model.logMath.naturalLog(model.logScore(of: word, after: Array(context.suffix(2))))
    }

    /// This model linearly interpolated with another, as the recognizer combines them:
    /// P = (1 − weight) · P_self + weight · P_other. The other model must share this one's log tables.
    public func interpolated(with other: SphinxLanguageModel, weight: Double) throws(LanguageModelError)
        -> SphinxLanguageModel
    {
        do {
            return SphinxLanguageModel(
                model: try NGramModel.interpolating(base: model, custom: other.model, weight: weight))
        } catch {
            throw .engineRejected(path: "interpolated model", reason: error.description)
        }
    }
}
