import Foundation

/// How a custom model is merged into a base model (see ``MergedModel``).
public struct MergeOptions: Sendable, Hashable, Codable {
    /// How the weight of the custom side is set at each history.
    public enum Interpolation: String, Sendable, Hashable, Codable, CaseIterable {
        /// λ(h) from how well each side explains the history (the default; see ``MergedModel``).
        case historyDependent = "history"
        /// SRILM's static interpolation (`ngram -mix-lm … -lambda`): one λ = ``MergeOptions/weight``
        /// at every history and order, over the union of both sides' n-grams; ``unigramWeight`` and
        /// ``tempering`` do not apply.
        case constant
        /// The set's own combination in one static model, `(1/lw) · ln(w · Pc^lw + (1 − w) · Pb^lw)`
        /// (see ``MergedModel/init(base:weighting:options:correctionTolerance:)``): the custom side is
        /// the set's; ``unigramWeight`` and ``tempering`` do not apply, ``languageWeight`` does.
        case weighted
    }

    /// π: the prior weight of the custom side at a history both sides know equally well (Apple's
    /// `Configuration(…weight:)`), in [0, 1].
    public var weight: Double
    /// π₀: the custom side's weight in the unigram distribution, which every history that the data
    /// does not touch backs off to. Small, so that a custom word is cheap only where the data puts it.
    public var unigramWeight: Double
    /// s: tempering of the history probabilities in λ(h). 1 is Bayes' rule; below 1 pulls every λ(h)
    /// toward π, above 1 makes λ(h) more decisive.
    public var tempering: Double
    /// Constant, history-dependent or the set's weighting.
    public var interpolation: Interpolation
    /// Weighted only: the decoder's language weight (`-lw`) that the set's weight acts after.
    public var languageWeight: Double

    /// PocketSphinx's `-lw` unless told.
    public static let defaultLanguageWeight = 6.5

    /// The smallest share either side of the engine's set gets: sphinxbase takes the log of both weights, so
    /// PocketSphinx's `NGramModel.interpolating` keeps the custom weight within [10⁻⁶, 1 − 10⁻⁶] (its own copy of
    /// this number; `WeightedMergeTests` checks a merge at 10⁻⁹ against the engine's set).
    public static let setWeightFloor = 1e-6

    /// The custom side's weight as the set mixes it: `weight` within [``setWeightFloor``, 1 − ``setWeightFloor``].
    /// The weighted merge reproduces the set, so it mixes with this weight too: at 10⁻⁹ it had taken ln 10⁻⁹ where
    /// the set took ln 10⁻⁶, and at 0 the logarithm of 0 made its scores infinite. (Weight 0 itself is not a mix
    /// but the base model alone, which the decoder loads in place of any customized model.)
    public static func setWeight(_ weight: Double) -> Double {
        min(max(weight, setWeightFloor), 1 - setWeightFloor)
    }

    public init(
        weight: Double = 0.5, unigramWeight: Double = 0.02, tempering: Double = 1,
        interpolation: Interpolation = .historyDependent, languageWeight: Double = MergeOptions.defaultLanguageWeight
    ) {
        self.weight = weight
        self.unigramWeight = unigramWeight
        self.tempering = tempering
        self.interpolation = interpolation
        self.languageWeight = languageWeight
    }

    enum CodingKeys: String, CodingKey { case weight, unigramWeight, tempering, interpolation, languageWeight }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        weight = try container.decode(Double.self, forKey: .weight)
        unigramWeight = try container.decode(Double.self, forKey: .unigramWeight)
        tempering = try container.decode(Double.self, forKey: .tempering)
        // Manifests written before the constant mode existed are history-dependent.
        interpolation = try container.decodeIfPresent(Interpolation.self, forKey: .interpolation) ?? .historyDependent
        languageWeight =
            try container.decodeIfPresent(Double.self, forKey: .languageWeight) ?? Self.defaultLanguageWeight
    }
}

/// One static trigram model that contains a base model and a customization, merged with weights that
/// depend on the history.
///
/// The custom side covers the whole vocabulary: at a history h its interpolated Witten-Bell estimate
/// keeps its escape mass e_h for the base model, P̃c(w | h) = (1 − e_h) · P_WB(w | h) + e_h · P_base(w | h)
/// (e_h also counts the fragment escapes of ``NGramCounts/add(_:count:boundaryShare:)``; a history the
/// data never saw uses its longest seen suffix). The two sides are then mixed with a weight that
/// depends on how well each explains the history itself:
///
///     λ(h) = π · P̃c(h)^s / (π · P̃c(h)^s + (1 − π) · P_base(h)^s),   P(u v) = P(u) · P(v | u)
///     P(w | h) = λ(h) · P̃c(w | h) + (1 − λ(h)) · P_base(w | h)
///
/// for every n-gram of either side under every history the data touches; λ = π₀ at the unigram level;
/// the base's other n-grams are kept, and every backoff weight is recomputed so that each history
/// sums to 1. Speech the data does not resemble then pays about ln(1 − π) once, where a history
/// starts to look unlike the data, instead of at every word; a domain phrase gets nearly the custom
/// model's probability once its first words are heard.
public struct MergedModel: Sendable {
    /// The merged model: the base model's words, then the custom words it lacks.
    public let tables: TrigramTables

    /// What the merge did, for the artifact's manifest.
    public struct Statistics: Sendable, Hashable, Codable {
        /// N-grams per order in the merged model.
        public var counts: [Int]
        /// Custom words the base model lacked.
        public var newWords: Int
        /// Histories whose n-grams were mixed: one-word histories, two-word histories the data lists,
        /// and two-word histories that take the weight of their last word.
        public var mixedHistories: [Int]
        /// λ(h) over the mixed one-word histories: minimum, median, maximum.
        public var bigramLambda: [Double]
        /// λ(h) over the mixed two-word histories: minimum, median, maximum.
        public var trigramLambda: [Double]
        /// Weighted merge only: what it listed and how far it stays from the set.
        public var weighted: WeightedStatistics?
    }

    public let statistics: Statistics
}

extension MergedModel {
    /// Merges `custom` (fractional counts, order ≤ 3) into `base`.
    ///
    /// Algorithm: the vocabulary is the base's words, then the custom words it lacks. Unigrams mix with λ = π₀:
    /// P(w) = π₀ · P̃c(w) + (1 − π₀) · P_base(w). Bigrams, history u by u: an untouched u copies the base's bigrams; a
    /// touched u takes the union of both sides' words after it, P(w | u) = λ · P̃c(w | u) + (1 − λ) · P_base(w | u),
    /// λ = π · pc^s / (π · pc^s + (1 − π) · pb^s) (`lambda`), pc and pb each side's P(u) less P(t u) over listed "t u".
    /// Trigrams: a listed "u v" takes λ from each side's P(u v) = P(u) · P(v | u), an unlisted one ending in a mixed v
    /// inherits λ(v), the rest copy the base. Each history's backoff is, over its explicit words E (λ = 0 if unmixed),
    /// α(h) = (λ · (1 − Σ_E P̃c(w | h)) + (1 − λ) · α_base(h) · (1 − Σ_E P_base(w | h′))) / (1 − Σ_E P_M(w | h′))
    /// (``ratio(_:_:fallback:)``, h′ = h less its first word). Constant mode: λ = π at every history.
    public init(base: TrigramTables, custom: NGramCounts, options: MergeOptions) {
        let side = CustomSide(counts: custom)
        let constant = options.interpolation == .constant
        let pi = min(max(options.weight, 0), 1)
        let pi0 = constant ? pi : min(max(options.unigramWeight, 0), 1)
        let s = max(options.tempering, 0)
        let baseCount = base.words.count
        let start = base.id(of: BackoffModel.sentenceStart) ?? -1

        // Vocabulary and the id maps.
        var words = base.words
        var mergedOf = [Int32](repeating: -1, count: side.wordCount)
        for (cid, word) in custom.words.enumerated() {
            if let id = base.id(of: word) {
                mergedOf[cid] = id
            } else {
                mergedOf[cid] = Int32(words.count)
                words.append(word)
            }
        }
        var customOf = [Int32](repeating: -1, count: words.count)
        for (cid, mid) in mergedOf.enumerated() { customOf[Int(mid)] = Int32(cid) }
        let vocabulary = words.count
        let sentenceStart = mergedOf[Int(custom.start)]

        // Base probabilities in linear form, by merged id (0 for words the base lacks).
        func baseUnigram(_ w: Int32) -> Double {
            Int(w) < baseCount && w != start ? exp10(Double(base.unigramProb[Int(w)])) : 0
        }
        func baseProb(_ w: Int32, _ v: Int32) -> Double {
            guard Int(w) < baseCount else { return 0 }
            return exp10(base.logProb(w, after: Int(v) < baseCount ? v : -1))
        }
        func baseProb(_ w: Int32, _ u: Int32, _ v: Int32) -> Double {
            guard Int(w) < baseCount else { return 0 }
            let v = Int(v) < baseCount ? v : -1
            let u = Int(u) < baseCount && v >= 0 ? u : -1
            return exp10(base.logProb(w, after: u, v))
        }
        /// The custom side's probability of a word after one word (mid ids; cu the custom id of u).
        func customProb(_ w: Int32, afterCustom cu: Int32, base v: Int32) -> Double {
            let cw = customOf[Int(w)]
            let e = side.escape1(cu)
            let wb = cw >= 0 ? side.wittenBell(cw, after: cu) : 0
            return (1 - e) * wb + e * baseProb(w, v)
        }
        func customUnigram(_ w: Int32) -> Double {
            let cw = customOf[Int(w)]
            let wb = cw >= 0 ? side.unigram[Int(cw)] : 0
            return (1 - side.escape0) * wb + side.escape0 * baseUnigram(w)
        }
        func lambda(custom pc: Double, base pb: Double) -> Double {
            if constant || pi <= 0 { return pi }
            if pi >= 1 || pb <= 0 { return 1 }
            if pc <= 0 { return 0 }
            let logOdds = log(pi) + s * log(pc) - log(1 - pi) - s * log(pb)
            return 1 / (1 + exp(-logOdds))
        }

        // What reaches a one-word history's distribution: a decoder uses P(w | v) only after a word u
        // whose two-word history "u v" is not listed. The data lists its own, so λ at v is the
        // posterior of v after a word the data never put before it: each side's P(v) less its
        // P(u v) = P(u) · P(v | u) over the listed u (a sentence start counts at the rate of </s>).
        // For a common word such as "the" the custom side then keeps only its smoothing mass, and
        // ordinary speech that backs off to "the" keeps the base model's distribution.
        var listedCustom = [Double](repeating: 0, count: vocabulary)
        var listedBase = [Double](repeating: 0, count: vocabulary)
        if custom.order > 2 {
            let endID = mergedOf[Int(custom.end)]
            let startRateCustom = customUnigram(endID)
            let startRateBase = baseUnigram(endID)
            let level = custom.levels[1]
            for node in level.words.indices where side.isHistory2(Int32(node)) {
                let ct = level.parents[node]
                let t = mergedOf[Int(ct)]
                let v = mergedOf[Int(level.words[node])]
                let isStart = t == sentenceStart
                listedCustom[Int(v)] +=
                    (isStart ? startRateCustom : customUnigram(t)) * customProb(v, afterCustom: ct, base: t)
                listedBase[Int(v)] += (isStart ? startRateBase : baseUnigram(t)) * baseProb(v, t)
            }
        }
        func backoffLambda(_ v: Int32) -> Double {
            let custom = customUnigram(v)
            let base = baseUnigram(v)
            return lambda(
                custom: max(custom - listedCustom[Int(v)], side.escape0 * custom),
                base: max(base - listedBase[Int(v)], 1e-3 * base))
        }

        // Unigrams: λ = π₀.
        var unigram = [Double](repeating: 0, count: vocabulary)
        for w in 0..<Int32(vocabulary) where w != sentenceStart {
            unigram[Int(w)] = pi0 * customUnigram(w) + (1 - pi0) * baseUnigram(w)
        }

        // Bigrams, history by history.
        var bigramStart = [Int32](repeating: 0, count: vocabulary + 1)
        var bigramWord: [Int32] = []
        var bigramLinear: [Double] = []
        var bigramBaseEntry: [Int32] = []
        var bigramCustomNode: [Int32] = []
        bigramWord.reserveCapacity(base.bigramWord.count + side.bigramNodes)
        bigramLinear.reserveCapacity(base.bigramWord.count + side.bigramNodes)
        bigramBaseEntry.reserveCapacity(base.bigramWord.count + side.bigramNodes)
        bigramCustomNode.reserveCapacity(base.bigramWord.count + side.bigramNodes)
        var unigramBackoffLinear = [Double](repeating: 1, count: vocabulary)
        var mixedUnigramHistories = 0
        var bigramLambdas: [Double] = []
        /// λ of each mixed one-word history (0 for the others): also the weight of the two-word
        /// histories ending in it that the data does not list.
        var historyLambda = [Double](repeating: 0, count: vocabulary)
        for u in 0..<Int32(vocabulary) {
            let baseRange =
                Int(u) < baseCount ? Int(base.bigramStart[Int(u)])..<Int(base.bigramStart[Int(u) + 1]) : 0..<0
            let cu = customOf[Int(u)]
            let children = cu >= 0 ? side.children1(cu) : []
            // With a constant λ every history is mixed: the custom side has a distribution (its
            // longest seen suffix's) at every history, as in SRILM's static interpolation.
            let touched = constant || (cu >= 0 && side.isHistory1(cu))
            let baseBackoff = Int(u) < baseCount ? exp10(Double(base.unigramBackoff[Int(u)])) : 1
            var explicitBase = 0.0  // Σ_E P_base(w)
            var explicitMerged = 0.0  // Σ_E P_M(w), the merged unigrams
            if !touched {
                for entry in baseRange {
                    let w = base.bigramWord[entry]
                    bigramWord.append(w)
                    bigramLinear.append(exp10(Double(base.bigramProb[entry])))
                    bigramBaseEntry.append(Int32(entry))
                    bigramCustomNode.append(children.isEmpty ? -1 : side.child1(cu, customOf[Int(w)]))
                    explicitBase += baseUnigram(w)
                    explicitMerged += unigram[Int(w)]
                }
                // No n-gram of this history changed: keep the base's leftover mass.
                let target = baseBackoff * max(1 - explicitBase, 0)
                unigramBackoffLinear[Int(u)] = ratio(target, 1 - explicitMerged, fallback: baseBackoff)
            } else {
                mixedUnigramHistories += 1
                let l = u == sentenceStart ? lambda(custom: 1, base: 1) : backoffLambda(u)
                bigramLambdas.append(l)
                historyLambda[Int(u)] = l
                // The union of both sides' words after u, in id order.
                let customWords = children.map { mergedOf[Int(side.counts.levels[1].words[Int($0)])] }.sorted()
                var explicitCustomSide = 0.0  // Σ_E P̃c(w | u)
                var b = baseRange.lowerBound
                var c = 0
                while b < baseRange.upperBound || c < customWords.count {
                    let w: Int32
                    var baseEntry: Int32 = -1
                    if c >= customWords.count
                        || (b < baseRange.upperBound && base.bigramWord[b] <= customWords[c])
                    {
                        w = base.bigramWord[b]
                        baseEntry = Int32(b)
                        if c < customWords.count && customWords[c] == w { c += 1 }
                        b += 1
                    } else {
                        w = customWords[c]
                        c += 1
                    }
                    let pBase = baseEntry >= 0 ? exp10(Double(base.bigramProb[Int(baseEntry)])) : baseProb(w, u)
                    let pCustom = customProb(w, afterCustom: cu, base: u)
                    bigramWord.append(w)
                    bigramLinear.append(l * pCustom + (1 - l) * pBase)
                    bigramBaseEntry.append(baseEntry)
                    bigramCustomNode.append(side.child1(cu, customOf[Int(w)]))
                    explicitCustomSide += pCustom
                    explicitBase += baseUnigram(w)
                    explicitMerged += unigram[Int(w)]
                }
                // Leftover of each side: the base's through its own backoff (robust to its rounding).
                let leftoverBase =
                    Int(u) < baseCount ? baseBackoff * max(1 - explicitBase, 0) : max(1 - explicitBase, 0)
                let leftoverCustom = max(1 - explicitCustomSide, 0)
                let target = l * leftoverCustom + (1 - l) * leftoverBase
                unigramBackoffLinear[Int(u)] = ratio(target, 1 - explicitMerged, fallback: 1)
            }
            bigramStart[Int(u) + 1] = Int32(bigramWord.count)
        }

        /// P_M(w | v) from the merged bigram level.
        func mergedBigram(_ w: Int32, _ v: Int32) -> Double {
            if let entry = search(bigramWord, from: Int(bigramStart[Int(v)]), to: Int(bigramStart[Int(v) + 1]), for: w)
            {
                return bigramLinear[Int(entry)]
            }
            return unigramBackoffLinear[Int(v)] * unigram[Int(w)]
        }

        // Trigrams, two-word history by two-word history.
        var trigramStart = [Int32](repeating: 0, count: bigramWord.count + 1)
        var trigramWord: [Int32] = []
        var trigramLog: [Float] = []
        trigramWord.reserveCapacity(base.trigramWord.count + side.trigramNodes)
        trigramLog.reserveCapacity(base.trigramWord.count + side.trigramNodes)
        var bigramBackoff = [Float](repeating: 0, count: bigramWord.count)
        var lambdas: [Double] = []
        var inheritedHistories = 0
        for u in 0..<Int32(vocabulary) {
            for entry in Int(bigramStart[Int(u)])..<Int(bigramStart[Int(u) + 1]) {
                let v = bigramWord[entry]
                let baseEntry = bigramBaseEntry[entry]
                let baseRange =
                    baseEntry >= 0
                    ? Int(base.trigramStart[Int(baseEntry)])..<Int(base.trigramStart[Int(baseEntry) + 1]) : 0..<0
                let node = bigramCustomNode[entry]
                let touched = node >= 0 && side.isHistory2(node)
                let baseBackoff = baseEntry >= 0 ? exp10(Double(base.bigramBackoff[Int(baseEntry)])) : 1
                var explicitBase = 0.0  // Σ_E P_base(w | v)
                var explicitMerged = 0.0  // Σ_E P_M(w | v)
                // A two-word history the data does not list, ending in a word it does, takes that
                // word's weight: the base's trigrams under it are mixed as the backoff distribution is.
                let cv = customOf[Int(v)]
                let inherited = touched ? 0 : historyLambda[Int(v)]
                if !touched && inherited <= 1e-6 {
                    for t in baseRange {
                        let w = base.trigramWord[t]
                        trigramWord.append(w)
                        trigramLog.append(base.trigramProb[t])
                        explicitBase += baseProb(w, v)
                        explicitMerged += mergedBigram(w, v)
                    }
                    if baseRange.isEmpty {
                        bigramBackoff[entry] = Float(log10(baseBackoff))
                    } else {
                        let target = baseBackoff * max(1 - explicitBase, 0)
                        bigramBackoff[entry] = Float(log10(ratio(target, 1 - explicitMerged, fallback: baseBackoff)))
                    }
                } else {
                    let l: Double
                    if touched {
                        let cu = customOf[Int(u)]
                        let isStart = u == sentenceStart
                        let historyCustom = (isStart ? 1 : customUnigram(u)) * customProb(v, afterCustom: cu, base: u)
                        let historyBase = (isStart ? 1 : baseUnigram(u)) * baseProb(v, u)
                        l = lambda(custom: historyCustom, base: historyBase)
                        lambdas.append(l)
                    } else {
                        l = inherited
                        inheritedHistories += 1
                    }
                    let listed: Int32 = touched ? node : -1
                    let e = side.escape2(listed, suffix: cv)
                    let customWords =
                        touched
                        ? side.children2(node).map { mergedOf[Int(side.counts.levels[2].words[Int($0)])] }.sorted() : []
                    var explicitCustomSide = 0.0
                    var b = baseRange.lowerBound
                    var c = 0
                    while b < baseRange.upperBound || c < customWords.count {
                        let w: Int32
                        var pBase: Double
                        if c >= customWords.count
                            || (b < baseRange.upperBound && base.trigramWord[b] <= customWords[c])
                        {
                            w = base.trigramWord[b]
                            pBase = exp10(Double(base.trigramProb[b]))
                            if c < customWords.count && customWords[c] == w { c += 1 }
                            b += 1
                        } else {
                            w = customWords[c]
                            pBase = baseProb(w, u, v)
                            c += 1
                        }
                        let cw = customOf[Int(w)]
                        let wb = cw >= 0 ? side.wittenBell(cw, after: listed, suffix: cv) : 0
                        let pCustom = (1 - e) * wb + e * pBase
                        trigramWord.append(w)
                        trigramLog.append(logFloor(l * pCustom + (1 - l) * pBase))
                        explicitCustomSide += pCustom
                        explicitBase += baseProb(w, v)
                        explicitMerged += mergedBigram(w, v)
                    }
                    let leftoverBase = baseBackoff * max(1 - explicitBase, 0)
                    let leftoverCustom = max(1 - explicitCustomSide, 0)
                    let target = l * leftoverCustom + (1 - l) * leftoverBase
                    bigramBackoff[entry] = Float(log10(ratio(target, 1 - explicitMerged, fallback: 1)))
                }
                trigramStart[entry + 1] = Int32(trigramWord.count)
            }
        }

        lambdas.sort()
        bigramLambdas.sort()
        func spread(_ values: [Double]) -> [Double] {
            values.isEmpty ? [] : [values[0], values[values.count / 2], values[values.count - 1]]
        }
        self.tables = TrigramTables(
            words: words,
            unigramProb: unigram.enumerated().map { Int32($0.offset) == sentenceStart ? -99 : logFloor($0.element) },
            unigramBackoff: unigramBackoffLinear.map { Float(log10($0)) }, bigramStart: bigramStart,
            bigramWord: bigramWord, bigramProb: bigramLinear.map(logFloor), bigramBackoff: bigramBackoff,
            trigramStart: trigramStart, trigramWord: trigramWord, trigramProb: trigramLog)
        self.statistics = Statistics(
            counts: [words.count, bigramWord.count, trigramWord.count], newWords: words.count - baseCount,
            mixedHistories: [mixedUnigramHistories, lambdas.count, inheritedHistories],
            bigramLambda: spread(bigramLambdas), trigramLambda: spread(lambdas))
    }
}

/// log10 of a probability, with ARPA's -99 for a probability of 0 (a word one side lacks, at λ = 0 or 1).
private func logFloor(_ probability: Double) -> Float {
    probability > 0 ? Float(log10(probability)) : -99
}

/// target / denominator, guarded against a denominator that rounding left at or below zero.
private func ratio(_ target: Double, _ denominator: Double, fallback: Double) -> Double {
    guard denominator > 1e-12 else { return fallback }
    return max(target / denominator, 1e-30)
}

// MARK: - The custom side

/// Witten-Bell statistics of fractional counts, for the merge.
struct CustomSide {
    let counts: NGramCounts
    var wordCount: Int { counts.words.count }
    var bigramNodes: Int { counts.order > 1 ? counts.levels[1].words.count : 0 }
    var trigramNodes: Int { counts.order > 2 ? counts.levels[2].words.count : 0 }
    /// P_WB(w), interpolated with the uniform distribution over the data's words.
    let unigram: [Double]
    /// The unigram level's escape: the share of the custom side's unigram left to the base model.
    let escape0: Double
    /// Per one-word history: total count, distinct continuations, fragment escapes.
    let total1: [Double], types1: [Double], extra1: [Double]
    /// Per two-word history (bigram node): the same.
    let total2: [Double], types2: [Double], extra2: [Double]
    /// Children of each history, as node ids of the next level.
    let childStart1: [Int32], childNodes1: [Int32]
    let childStart2: [Int32], childNodes2: [Int32]

    init(counts: NGramCounts) {
        self.counts = counts
        let words = counts.words.count
        var total = 0.0
        var types = 0.0
        for (id, count) in counts.levels[0].counts.enumerated() where Int32(id) != counts.start {
            total += count
            types += min(1, count)
        }
        let uniform = 1 / Double(max(words - 1, 1))
        unigram = counts.levels[0].counts.enumerated().map { id, count in
            Int32(id) == counts.start ? 0 : (total + types > 0 ? (count + types * uniform) / (total + types) : uniform)
        }
        escape0 = total + types > 0 ? types / (total + types) : 1

        func statistics(level: Int, histories: Int) -> ([Double], [Double], [Double], [Int32], [Int32]) {
            var totals = [Double](repeating: 0, count: histories)
            var kinds = [Double](repeating: 0, count: histories)
            var extras = [Double](repeating: 0, count: histories)
            var starts = [Int32](repeating: 0, count: histories + 1)
            guard level < counts.order else { return (totals, kinds, extras, starts, []) }
            let table = counts.levels[level]
            for node in table.counts.indices {
                let parent = Int(table.parents[node])
                totals[parent] += table.counts[node]
                kinds[parent] += min(1, table.counts[node])
                starts[parent + 1] += 1
            }
            for history in 0..<histories { starts[history + 1] += starts[history] }
            var fill = starts
            var nodes = [Int32](repeating: 0, count: table.counts.count)
            for node in table.counts.indices {
                let parent = Int(table.parents[node])
                nodes[Int(fill[parent])] = Int32(node)
                fill[parent] += 1
            }
            for history in 0..<histories { extras[history] = counts.escape(level: level - 1, node: Int32(history)) }
            return (totals, kinds, extras, starts, nodes)
        }
        (total1, types1, extra1, childStart1, childNodes1) = statistics(level: 1, histories: words)
        let bigrams = counts.order > 1 ? counts.levels[1].words.count : 0
        (total2, types2, extra2, childStart2, childNodes2) = statistics(level: 2, histories: bigrams)
    }

    func isHistory1(_ u: Int32) -> Bool { total1[Int(u)] + extra1[Int(u)] > 0 }
    func isHistory2(_ node: Int32) -> Bool { total2[Int(node)] + extra2[Int(node)] > 0 }

    func children1(_ u: Int32) -> ArraySlice<Int32> {
        childNodes1[Int(childStart1[Int(u)])..<Int(childStart1[Int(u) + 1])]
    }
    func children2(_ node: Int32) -> ArraySlice<Int32> {
        node >= 0 && Int(node) < total2.count
            ? childNodes2[Int(childStart2[Int(node)])..<Int(childStart2[Int(node) + 1])] : []
    }

    /// The bigram node (u, w), or -1.
    func child1(_ u: Int32, _ w: Int32) -> Int32 {
        guard u >= 0, w >= 0, counts.order > 1 else { return -1 }
        return counts.levels[1].index[BackoffModel.key(parent: u, word: w)] ?? -1
    }

    /// The escape at a one-word history: its own if the data saw it, else the unigram level's.
    func escape1(_ u: Int32) -> Double {
        guard u >= 0, isHistory1(u) else { return escape0 }
        let index = Int(u)
        return (types1[index] + extra1[index]) / (total1[index] + types1[index] + extra1[index])
    }

    /// The escape at a two-word history (bigram node), else at its last word `suffix`.
    func escape2(_ node: Int32, suffix: Int32) -> Double {
        guard node >= 0, isHistory2(node) else { return escape1(suffix) }
        let index = Int(node)
        return (types2[index] + extra2[index]) / (total2[index] + types2[index] + extra2[index])
    }

    /// P_WB(w | u); custom ids.
    func wittenBell(_ w: Int32, after u: Int32) -> Double {
        let lower = unigram[Int(w)]
        guard u >= 0, total1[Int(u)] > 0 else { return lower }
        let node = child1(u, w)
        let count = node >= 0 ? counts.levels[1].counts[Int(node)] : 0
        return (count + types1[Int(u)] * lower) / (total1[Int(u)] + types1[Int(u)])
    }

    /// P_WB(w | u v) for the bigram node (u, v), with v = `suffix`; custom ids.
    func wittenBell(_ w: Int32, after node: Int32, suffix v: Int32) -> Double {
        let lower = wittenBell(w, after: v)
        guard node >= 0, counts.order > 2, total2[Int(node)] > 0 else { return lower }
        let child = counts.levels[2].index[BackoffModel.key(parent: node, word: w)]
        let count = child.map { counts.levels[2].counts[Int($0)] } ?? 0
        return (count + types2[Int(node)] * lower) / (total2[Int(node)] + types2[Int(node)])
    }
}
