import Foundation

/// Fractional n-gram counts, accumulated one weighted sentence at a time.
///
/// Sentences are framed as `<s> w1 … wn </s>`; every n-gram up to ``order`` that ends on a word or
/// on `</s>` is counted with the sentence's weight. Only the counts are kept, never the sentences,
/// so any number of sentences (a million template expansions) can be streamed through.
///
/// N-grams are stored as a trie of hash tables keyed by (prefix entry, word id), one per order, so
/// adding a sentence costs one hash lookup per word per order.
public struct NGramCounts: Sendable {
    struct Level: Sendable {
        var index: [UInt64: Int32] = [:]
        var parents: [Int32] = []
        var words: [Int32] = []
        /// The (n−1)-gram made of this n-gram's last n−1 words.
        var suffixes: [Int32] = []
        var counts: [Double] = []
    }

    /// The highest n-gram order counted.
    public let order: Int
    var words: [String] = []
    var wordIDs: [String: Int32] = [:]
    var levels: [Level]
    let start: Int32
    let end: Int32
    /// The number of sentences added.
    public private(set) var sentenceCount = 0
    /// The sum of the weights of the sentences added.
    public private(set) var totalWeight = 0.0
    /// Per history level, the escape mass of fragments (see ``add(_:count:boundaryShare:)``).
    var escapes: [[Int32: Double]] = []

    /// Creates empty counts.
    /// - Parameter order: The highest n-gram order, 1 or more (3 for a trigram model).
    public init(order: Int = 3) {
        self.order = max(order, 1)
        levels = Array(repeating: Level(), count: self.order)
        start = 0
        end = 1
        _ = wordID(BackoffModel.sentenceStart)
        _ = wordID(BackoffModel.sentenceEnd)
    }

    mutating func wordID(_ word: String) -> Int32 {
        if let id = wordIDs[word] { return id }
        let id = Int32(words.count)
        words.append(word)
        wordIDs[word] = id
        levels[0].parents.append(-1)
        levels[0].words.append(id)
        levels[0].suffixes.append(-1)
        levels[0].counts.append(0)
        return id
    }

    /// Adds one sentence with a weight.
    ///
    /// Empty sentences and non-positive or non-finite weights are ignored. `<s>` and `</s>` are added
    /// here: `tokens` are the words only.
    /// - Parameters:
    ///   - tokens: The words of the sentence.
    ///   - count: How many times it was seen; may be fractional.
    ///   - boundaryShare: The share of `count` for which the tokens are a whole utterance. Apple's
    ///     `PhraseCount` holds "an exact phrase or part of a phrase": with a share b < 1, the n-grams
    ///     that contain `<s>` or `</s>` are counted b · count times, and the rest, (1 − b) · count, is
    ///     recorded as escape mass of the histories they leave (``escape(level:node:)``): the phrase
    ///     was preceded or followed by words this data does not name. 1 frames every sentence whole.
    public mutating func add(_ tokens: [String], count: Double, boundaryShare: Double = 1) {
        guard !tokens.isEmpty, count > 0, count.isFinite else { return }
        let share = min(max(boundaryShare.isFinite ? boundaryShare : 1, 0), 1)
        sentenceCount += 1
        totalWeight += count
        var previous = [Int32](repeating: -1, count: order)
        var current = [Int32](repeating: -1, count: order)
        previous[0] = start
        for position in 0...tokens.count {
            let isEnd = position == tokens.count
            let word = isEnd ? end : wordID(tokens[position])
            current[0] = word
            if isEnd {
                levels[0].counts[Int(word)] += count * share
            } else {
                levels[0].counts[Int(word)] += count
            }
            var level = 1
            while level < order {
                let parent = previous[level - 1]
                if parent < 0 {
                    current[level] = -1
                    level += 1
                    continue
                }
                let key = BackoffModel.key(parent: parent, word: word)
                let node: Int32
                if let existing = levels[level].index[key] {
                    node = existing
                } else {
                    node = Int32(levels[level].words.count)
                    levels[level].index[key] = node
                    levels[level].parents.append(parent)
                    levels[level].words.append(word)
                    levels[level].suffixes.append(current[level - 1])
                    levels[level].counts.append(0)
                }
                // The n-gram touches a sentence boundary when it ends on </s> or its oldest word is
                // <s> (an n-gram of `level + 1` words starting at position − level).
                let touchesStart = position - level < 0
                if isEnd || touchesStart {
                    levels[level].counts[Int(node)] += count * share
                    // The rest continues past the phrase's end, or came after other words; a history
                    // that begins with <s> exists only for the share b, so it gets no escape.
                    if share < 1, isEnd || level == 1 {
                        addEscape(count * (1 - share), level: level - 1, node: parent)
                    }
                } else {
                    levels[level].counts[Int(node)] += count
                }
                current[level] = node
                level += 1
            }
            swap(&previous, &current)
        }
    }

    /// Records that `mass` of a history's continuations are words outside this data.
    private mutating func addEscape(_ mass: Double, level: Int, node: Int32) {
        if escapes.count <= level { escapes += Array(repeating: [:], count: level + 1 - escapes.count) }
        escapes[level][node, default: 0] += mass
    }

    /// The escape mass recorded for a history (entry `node` of `level`, 0 for a single word) by
    /// sentences added with a boundary share below 1.
    public func escape(level: Int, node: Int32) -> Double {
        level < escapes.count ? escapes[level][node] ?? 0 : 0
    }

    /// Adds weighted sentences from any sequence.
    public mutating func add<S: Sequence>(contentsOf sentences: S)
    where S.Element == (tokens: [String], count: Double) {
        for sentence in sentences {
            add(sentence.tokens, count: sentence.count)
        }
    }

    /// The number of distinct n-grams of each order, lowest first (unigrams include `<s>`).
    public var ngramCounts: [Int] { levels.map(\.words.count) }

    /// Estimates an interpolated Witten-Bell model and returns it in backoff form.
    ///
    /// For a history h with total count c(h) and t(h) = Σ_w min(1, c(h w)) (the number of distinct
    /// words seen after h, where a word seen a fraction of a time counts as that fraction of a type):
    ///
    ///     P(w | h) = (c(h w) + t(h) · P(w | h′)) / (c(h) + t(h))
    ///
    /// with h′ = h without its oldest word. The unigram level interpolates with the uniform
    /// distribution over the vocabulary: every word seen, `</s>`, and `<unk>` when
    /// `includeUnknownWord` is set (so held-out OOV mass is reserved; PocketSphinx drops `<unk>`, which
    /// has no dictionary entry). In backoff form the stored probabilities are the interpolated ones
    /// and backoff(h) = t(h) / (c(h) + t(h)), which makes every distribution sum to exactly one.
    ///
    /// A history with escape mass e(h) (sentences added as fragments) gives it to the lower order
    /// too: P(w | h) = (c(h w) + (t(h) + e(h)) · P(w | h′)) / (c(h) + t(h) + e(h)).
    ///
    /// Witten-Bell depends on the scale of the counts: the same data with all counts divided by 100
    /// is smoothed more. Counts from Apple-style training data (tens to thousands) are in its range.
    /// - Parameter includeUnknownWord: Whether to add `<unk>` to the vocabulary.
    /// - Returns: The model, with `<s>` at log10 probability −99.
    ///
    /// - Parameter backgroundMass: The share of the unigram level kept for `<unk>`, i.e. for "some
    ///   word outside this data". A custom model interpolated with a general one should not claim its
    ///   own words in contexts its data never showed: with mass β, a custom word's probability after
    ///   an unseen history is scaled by (1 − β), while seen histories, whose own counts dominate, keep
    ///   nearly all of theirs. Every history still sums to 1 (higher orders interpolate with this
    ///   level). Requires `includeUnknownWord`; 0 leaves the estimate unchanged.
    public func estimateWittenBell(includeUnknownWord: Bool = true, backgroundMass: Double = 0) -> BackoffModel {
        var words = self.words
        var unigramCounts = levels[0].counts
        if includeUnknownWord, wordIDs[BackoffModel.unknownWord] == nil {
            words.append(BackoffModel.unknownWord)
            unigramCounts.append(0)
        }
        var modelLevels = [BackoffModel.Level](repeating: BackoffModel.Level(), count: order)
        // Unigrams.
        var total = 0.0
        var types = 0.0
        for (id, count) in unigramCounts.enumerated() where Int32(id) != start {
            total += count
            types += min(1, count)
        }
        let uniform = 1.0 / Double(max(words.count - 1, 1))
        var linear = [Double](repeating: 0, count: words.count)
        for id in words.indices where Int32(id) != start {
            linear[id] = total + types > 0 ? (unigramCounts[id] + types * uniform) / (total + types) : uniform
        }
        if includeUnknownWord, backgroundMass > 0, let unknown = words.firstIndex(of: BackoffModel.unknownWord) {
            let keep = 1 - min(max(backgroundMass, 0), 1)
            for id in words.indices where Int32(id) != start { linear[id] *= keep }
            linear[unknown] += 1 - keep
        }
        modelLevels[0].parents = [Int32](repeating: -1, count: words.count)
        modelLevels[0].words = (0..<Int32(words.count)).map { $0 }
        modelLevels[0].logProbs = linear.enumerated().map { Int32($0.offset) == start ? -99 : log10($0.element) }
        modelLevels[0].backoffs = [Double](repeating: 0, count: words.count)
        modelLevels[0].isHistory = [Bool](repeating: false, count: words.count)

        var lowerLinear = linear
        for level in 1..<max(order, 1) {
            let counts = levels[level]
            let historyCount = modelLevels[level - 1].words.count
            var historyTotals = [Double](repeating: 0, count: historyCount)
            var historyTypes = [Double](repeating: 0, count: historyCount)
            for node in counts.counts.indices {
                let parent = Int(counts.parents[node])
                historyTotals[parent] += counts.counts[node]
                historyTypes[parent] += min(1, counts.counts[node])
            }
            // A fragment's escape mass (see `add(_:count:boundaryShare:)`) continues with words this
            // data does not name: it goes to the lower order with the history's types.
            var historyEscapes = [Double](repeating: 0, count: historyCount)
            if level - 1 < escapes.count {
                for (node, mass) in escapes[level - 1] where Int(node) < historyCount {
                    historyEscapes[Int(node)] = mass
                }
            }
            var levelLinear = [Double](repeating: 0, count: counts.counts.count)
            for node in counts.counts.indices {
                let parent = Int(counts.parents[node])
                let lower = lowerLinear[Int(counts.suffixes[node])]
                let toLower = historyTypes[parent] + historyEscapes[parent]
                levelLinear[node] =
                    (counts.counts[node] + toLower * lower) / (historyTotals[parent] + toLower)
            }
            for history in 0..<historyCount where historyTotals[history] > 0 {
                let toLower = historyTypes[history] + historyEscapes[history]
                modelLevels[level - 1].isHistory[history] = true
                modelLevels[level - 1].backoffs[history] = log10(toLower / (historyTotals[history] + toLower))
            }
            modelLevels[level].index = counts.index
            modelLevels[level].parents = counts.parents
            modelLevels[level].words = counts.words
            modelLevels[level].logProbs = levelLinear.map { log10($0) }
            modelLevels[level].backoffs = [Double](repeating: 0, count: levelLinear.count)
            modelLevels[level].isHistory = [Bool](repeating: false, count: levelLinear.count)
            lowerLinear = levelLinear
        }
        return BackoffModel(order: order, words: words, levels: modelLevels)
    }
}
