import Foundation

/// An n-gram language model in backoff form, as ARPA files store it.
///
/// Each n-gram has a log10 probability; each n-gram that is a history has a log10 backoff weight.
/// P(w | h) is the stored probability of `h w` if present, else backoff(h) · P(w | h minus its first
/// word), recursively. Words are stored as integer ids in a trie of hash tables, one table per order.
public struct BackoffModel: Sendable {
    /// One order of the trie.
    struct Level: Sendable {
        /// (parent entry, word) → entry; empty for unigrams, whose entry index is the word id.
        var index: [UInt64: Int32] = [:]
        var parents: [Int32] = []
        var words: [Int32] = []
        /// log10 probabilities; NaN marks an entry present only as the prefix of a longer n-gram.
        var logProbs: [Double] = []
        /// log10 backoff weights; 0 when none.
        var backoffs: [Double] = []
        /// Whether the entry is the history of some longer n-gram.
        var isHistory: [Bool] = []

        var count: Int { words.count }
    }

    /// The sentence start marker.
    public static let sentenceStart = "<s>"
    /// The sentence end marker.
    public static let sentenceEnd = "</s>"
    /// The unknown-word token.
    public static let unknownWord = "<unk>"

    /// The highest n-gram order.
    public let order: Int
    /// Words by id, in the order of the unigram table.
    public private(set) var words: [String]
    var wordIDs: [String: Int32]
    var levels: [Level]

    init(order: Int, words: [String], levels: [Level]) {
        self.order = order
        self.words = words
        self.levels = levels
        var ids: [String: Int32] = [:]
        ids.reserveCapacity(words.count)
        for (id, word) in words.enumerated() { ids[word] = Int32(id) }
        self.wordIDs = ids
    }

    static func key(parent: Int32, word: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: parent)) << 32 | UInt64(UInt32(bitPattern: word))
    }

    /// The number of n-grams of each order, lowest first.
    public var counts: [Int] { levels.map { level in level.logProbs.count { !$0.isNaN } } }

    /// The words that can be predicted: every unigram except `<s>`.
    public var vocabulary: [String] { words.filter { $0 != Self.sentenceStart } }

    /// The listed n-grams of order `n` (1-based), in the order the model holds them (a file's order, for a model
    /// read from ARPA); prefixes present only as the history of a longer n-gram are left out.
    public func ngrams(ofOrder n: Int) -> [[String]] {
        guard n >= 1, n <= levels.count else { return [] }
        let level = levels[n - 1]
        return (0..<level.count).compactMap { entry in
            guard !level.logProbs[entry].isNaN else { return nil }
            var ids = [Int32](repeating: 0, count: n)
            var current = Int32(entry)
            for position in stride(from: n - 1, through: 0, by: -1) {
                ids[position] = levels[position].words[Int(current)]
                current = levels[position].parents[Int(current)]
            }
            return ids.map { words[Int($0)] }
        }
    }

    /// The id of `word`, if it is in the model.
    func id(of word: String) -> Int32? { wordIDs[word] }

    /// The entry of the n-gram `ids` at level `ids.count - 1`, if stored.
    func entry<C: Collection<Int32>>(_ ids: C) -> Int32? {
        guard let first = ids.first, first >= 0, Int(first) < levels[0].count else { return nil }
        var entry = first
        var level = 1
        for word in ids.dropFirst() {
            guard level < levels.count, let next = levels[level].index[Self.key(parent: entry, word: word)] else {
                return nil
            }
            entry = next
            level += 1
        }
        return entry
    }

    /// log10 P(word | context) through the backoff chain, with word ids.
    func logProb(word: Int32, context: ArraySlice<Int32>) -> Double {
        let longest = min(context.count, order - 1)
        var accumulated = 0.0
        var length = longest
        while length >= 0 {
            let history = context.suffix(length)
            if length == 0 {
                let value = levels[0].logProbs[Int(word)]
                return accumulated + (value.isNaN ? -99 : value)
            }
            if let historyEntry = entry(history) {
                if let found = levels[length].index[Self.key(parent: historyEntry, word: word)],
                    !levels[length].logProbs[Int(found)].isNaN
                {
                    return accumulated + levels[length].logProbs[Int(found)]
                }
                accumulated += levels[length - 1].backoffs[Int(historyEntry)]
            }
            length -= 1
        }
        return accumulated
    }

    /// log10 P(word | context) through the backoff chain.
    /// - Parameters:
    ///   - word: The predicted word.
    ///   - context: The preceding words, oldest first; may start with `<s>`.
    /// - Returns: The log10 probability, or nil if `word` is not in the model. Context words not in
    ///   the model shorten the usable history.
    public func logProb(of word: String, after context: [String]) -> Double? {
        guard let id = wordIDs[word] else { return nil }
        var ids: [Int32] = []
        for word in context {
            if let id = wordIDs[word] { ids.append(id) } else { ids.removeAll() }
        }
        return logProb(word: id, context: ids[...])
    }

    /// The words of entry `entry` at `level`, oldest first.
    func ngramWords(level: Int, entry: Int32) -> [Int32] {
        var result = [Int32](repeating: 0, count: level + 1)
        var current = entry
        var position = level
        while position >= 0 {
            result[position] = levels[position].words[Int(current)]
            current = levels[position].parents[Int(current)]
            position -= 1
        }
        return result
    }
}

// MARK: - Checks and perplexity

extension BackoffModel {
    /// A history whose next-word probabilities do not sum to one.
    public struct NormalizationFailure: Sendable, Hashable, CustomStringConvertible {
        /// The history, oldest word first (empty for the unigram distribution).
        public var history: [String]
        /// The sum of P(w | history) over the vocabulary.
        public var sum: Double

        public var description: String {
            "P(· | \(history.joined(separator: " "))) sums to \(sum), not 1"
        }
    }

    /// Checks that for every history in the model (and the empty one), the probabilities of all
    /// vocabulary words, computed through the backoff chain, sum to 1.
    ///
    /// Costs one lookup per history per word: meant for tests and small models.
    /// - Parameter tolerance: The allowed deviation from 1.
    /// - Returns: The histories that fail; empty when the model is normalized.
    public func normalizationFailures(tolerance: Double = 1e-4) -> [NormalizationFailure] {
        let predicted = (0..<Int32(words.count)).filter { words[Int($0)] != Self.sentenceStart }
        var failures: [NormalizationFailure] = []
        func check(_ history: [Int32]) {
            var sum = 0.0
            for word in predicted {
                sum += pow10(logProb(word: word, context: history[...]))
            }
            if abs(sum - 1) > tolerance {
                failures.append(NormalizationFailure(history: history.map { words[Int($0)] }, sum: sum))
            }
        }
        check([])
        for level in 0..<max(order - 1, 0) {
            for entry in 0..<levels[level].count where !levels[level].logProbs[entry].isNaN || level == 0 {
                let history = ngramWords(level: level, entry: Int32(entry))
                // A history ending in </s> is never used; skip it as SRILM does.
                if history.last == wordIDs[Self.sentenceEnd] { continue }
                check(history)
            }
        }
        return failures
    }

    /// Perplexity of held-out sentences.
    public struct Perplexity: Sendable, Hashable, Codable {
        /// Sentences scored.
        public var sentences: Int
        /// Words in the sentences, OOVs included, sentence ends excluded.
        public var words: Int
        /// Words not in the model; they are not scored and reset the history.
        public var oovs: Int
        /// Sum of log10 probabilities of the scored words and sentence ends.
        public var logProb: Double
        /// 10^(−logProb / (words − oovs + sentences)): per scored token, sentence ends included.
        public var perplexity: Double
        /// 10^(−logProb / (words − oovs)): sentence ends excluded, as SRILM's `ppl1`.
        public var perplexityExcludingSentenceEnds: Double

        /// Totals from per-token scores; `scored` counts sentence ends too.
        public init(sentences: Int, words: Int, oovs: Int, logProb: Double, scored: Int) {
            self.sentences = sentences
            self.words = words
            self.oovs = oovs
            self.logProb = logProb
            perplexity = scored > 0 ? pow10(-logProb / Double(scored)) : .nan
            perplexityExcludingSentenceEnds =
                scored - sentences > 0 ? pow10(-logProb / Double(scored - sentences)) : .nan
        }
    }

    /// Scores `sentences` (tokens without `<s>` and `</s>`), the way SRILM's `-ppl` does: each
    /// sentence is preceded by `<s>` and followed by `</s>`; OOV words are counted apart and not scored.
    public func perplexity(of sentences: [[String]]) -> Perplexity {
        let start = wordIDs[Self.sentenceStart]
        let end = wordIDs[Self.sentenceEnd]
        var logProb = 0.0
        var words = 0
        var oovs = 0
        var scored = 0
        for sentence in sentences {
            var context: [Int32] = start.map { [$0] } ?? []
            for token in sentence {
                words += 1
                guard let id = wordIDs[token], id != start, token != Self.unknownWord else {
                    oovs += 1
                    context.removeAll()
                    continue
                }
                logProb += self.logProb(word: id, context: context[...])
                scored += 1
                context.append(id)
            }
            if let end {
                logProb += self.logProb(word: end, context: context[...])
                scored += 1
            }
        }
        return Perplexity(sentences: sentences.count, words: words, oovs: oovs, logProb: logProb, scored: scored)
    }
}

/// 10 raised to `exponent`, without Foundation.
func pow10(_ exponent: Double) -> Double {
    exp(exponent * 2.302585092994046)
}
