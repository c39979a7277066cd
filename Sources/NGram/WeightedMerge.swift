import Foundation

/// The set's own score in one static model: the weighted merge (`interpolation: weighted`).
///
/// PocketSphinx interpolates a set of models after the language weight lw: sphinxbase adds each
/// model's log weight to its lw-scaled score and log-adds the results, so a word scores
///
///     S(w | h) = w · Pc(w | h)^lw + (1 − w) · Pb(w | h)^lw
///
/// where each side takes its probability through its own backoff chain, and the custom side cuts the
/// history at the first word it lacks (a base word the data never used). A static model M scores
/// M(w | h)^lw, so M(w | h) = S(w | h)^(1/lw) reproduces the set. M is not a distribution (its
/// histories sum to more than 1), and need not be: a decoder only adds scores.
///
/// Where M equals the set, exactly (up to the binary format's quantisation):
/// - every n-gram either side lists, and every word the data lacks after any history: those carry
///   (1 − w)^(1/lw) times the base's probability, so M keeps the base's backoff weights;
/// - every data word after a history made of data words: these n-grams are listed (completed), because
///   there the two sides back off differently.
///
/// Where it cannot: a data word after a history the data never used. There the set scores the data
/// word by the custom model alone (its unigram, or its bigram when only the older word is new to it),
/// undiscounted by the base's backoff weight, while in M every word after that history shares one
/// backoff weight, which the base's words fix. At one-word histories such n-grams are listed where
/// backing off would be off by more than ``correctionTolerance`` (each data word's unigram is put
/// where it needs the fewest). At two-word histories they keep the base's backoff weight and their
/// error is measured (``WeightedStatistics/residual``): listing them all would add tens of millions of
/// trigrams, and listing those after a data word (300,000 for chess-full) left as many decodes unlike
/// the set's. The cost grows with the data's vocabulary: each data word may be listed after every word
/// of the base.
extension MergedModel {
    /// N-grams after one-word histories whose backed-off score would be more than this far from the
    /// set's (in nats, after the language weight) are listed.
    public static let correctionTolerance = 0.5

    /// Merges the custom model the set mix decodes with into `base`, reproducing the set's score.
    ///
    /// - Parameters:
    ///   - base: The base model's n-grams.
    ///   - custom: The custom side as the set mix writes it (`custom.arpa`).
    ///   - options: ``MergeOptions/weight`` is the set's w; ``MergeOptions/languageWeight`` the decoder's lw.
    ///   - correctionTolerance: See ``correctionTolerance``.
    public init(
        base: TrigramTables, weighting custom: BackoffModel, options: MergeOptions,
        correctionTolerance: Double = MergedModel.correctionTolerance
    ) {
        let builder = WeightedBuilder(base: base, custom: custom, options: options)
        let unigram = builder.unigrams(tolerance: correctionTolerance)
        let bigrams = builder.bigrams(unigram: unigram, tolerance: correctionTolerance)
        let trigrams = builder.trigrams(unigram: unigram, bigrams: bigrams)
        // In buffers of their own size: the tables are kept while the binary is written, and appending past a
        // reservation had doubled them.
        self.tables = TrigramTables(
            words: builder.words, unigramProb: unigram.prob, unigramBackoff: unigram.backoff,
            bigramStart: compacted(bigrams.start), bigramWord: compacted(bigrams.word),
            bigramProb: compacted(bigrams.prob), bigramBackoff: compacted(bigrams.backoff),
            trigramStart: compacted(trigrams.start), trigramWord: compacted(trigrams.word),
            trigramProb: compacted(trigrams.prob))
        self.statistics = Statistics(
            counts: tables.counts, newWords: builder.words.count - base.words.count, mixedHistories: [],
            bigramLambda: [], trigramLambda: [],
            weighted: WeightedStatistics(
                completedBigrams: bigrams.completed, correctedBigrams: bigrams.corrected,
                completedTrigrams: trigrams.completed, residual: trigrams.residual))
    }
}

/// What the weighted merge added beyond the two sides' own n-grams, and how far it stays from the set.
public struct WeightedStatistics: Sendable, Hashable, Codable {
    /// Data words listed after one-word histories of data words.
    public var completedBigrams: Int
    /// Data words listed after one-word histories the data never used, where backing off was off by
    /// more than the tolerance.
    public var correctedBigrams: Int
    /// Data words listed after two-word histories of data words.
    public var completedTrigrams: Int
    /// Over every data word after every two-word history outside the data that has a backoff weight:
    /// the share off by more than 0.5 nats, and the median and largest error, in nats after the
    /// language weight.
    public var residual: [Double]
}

/// `array` in a buffer of its size, when its capacity is more than a sixteenth larger.
private func compacted<Element>(_ array: [Element]) -> [Element] {
    guard array.capacity > array.count + array.count / 16 else { return array }
    return [Element](unsafeUninitializedCapacity: array.count) { buffer, initialized in
        initialized = buffer.initialize(from: array).1
    }
}

/// Natural log of e^a + e^b.
@inline(__always)
private func logAdd(_ a: Double, _ b: Double) -> Double {
    if a == -.infinity { return b }
    if b == -.infinity { return a }
    return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b))
}

private let ln10 = 2.302585092994046

/// The weighted merge's working state: ids of both sides and the set's score.
private struct WeightedBuilder {
    let base: TrigramTables
    let custom: BackoffModel
    let logWeight: Double  // ln w
    let logRest: Double  // ln (1 − w)
    let lw: Double
    /// log10 of (1 − w)^(1/lw): what every word the data lacks adds to the base's log10 probability.
    let restShift: Float
    let words: [String]
    let baseCount: Int
    /// The custom id of each merged word, or -1.
    let customOf: [Int32]
    /// Merged ids of the words the custom side predicts (not `<s>` nor `<unk>`), ascending.
    let predicted: [Int32]
    let sentenceStart: Int32

    init(base: TrigramTables, custom: BackoffModel, options: MergeOptions) {
        self.base = base
        self.custom = custom
        let w = MergeOptions.setWeight(options.weight)
        logWeight = log(w)
        logRest = log(1 - w)
        lw = max(options.languageWeight, 1e-3)
        restShift = w >= 1 ? -99 : Float(log10(1 - w) / lw)
        baseCount = base.words.count
        var words = base.words
        var customOf = [Int32](repeating: -1, count: words.count)
        for (cid, word) in custom.words.enumerated() where word != BackoffModel.unknownWord {
            if let id = base.id(of: word) {
                customOf[Int(id)] = Int32(cid)
            } else {
                words.append(word)
                customOf.append(Int32(cid))
            }
        }
        self.words = words
        self.customOf = customOf
        let start = Int32(words.firstIndex(of: BackoffModel.sentenceStart) ?? -1)
        sentenceStart = start
        predicted = customOf.indices.filter { customOf[$0] >= 0 && Int32($0) != start }.map { Int32($0) }
        var customTerm = [Double](repeating: -.infinity, count: words.count)
        var baseTerm = [Double](repeating: -.infinity, count: words.count)
        customUnigramTerm = []
        baseUnigramLog = []
        for w in predicted {
            customTerm[Int(w)] = logWeight + lw * customLog(w, -1, -1)
            baseTerm[Int(w)] = baseLog(w, -1, -1)
        }
        customUnigramTerm = customTerm
        baseUnigramLog = baseTerm
    }

    /// ln w + lw · ln P_custom(w) and ln P_base(w) of each data word, by merged id.
    private(set) var customUnigramTerm: [Double]
    private(set) var baseUnigramLog: [Double]

    func isCustom(_ word: Int32) -> Bool { word >= 0 && customOf[Int(word)] >= 0 }

    /// ln S(w | u)/lw for a data word w after a history u the data never used and whose bigram with
    /// w the base does not list: the custom side scores its unigram, the base backs off.
    func backedOff(_ w: Int32, backoffLog: Double) -> Double {
        logAdd(customUnigramTerm[Int(w)], logRest + lw * (backoffLog + baseUnigramLog[Int(w)])) / lw
    }

    /// ln P_base(w | t u) through the base's chain; a history word the base lacks cuts the history.
    func baseLog(_ w: Int32, _ t: Int32, _ u: Int32) -> Double {
        guard Int(w) < baseCount else { return -.infinity }
        let u = u >= 0 && Int(u) < baseCount ? u : -1
        let t = t >= 0 && Int(t) < baseCount && u >= 0 ? t : -1
        let value = base.logProb(w, after: t, u)
        return value <= -99 ? -.infinity : value * ln10
    }

    /// ln P_custom(w | t u) through the custom chain; the history is cut at the first word (from the
    /// most recent) the custom side lacks, as sphinxbase's set maps it.
    func customLog(_ w: Int32, _ t: Int32, _ u: Int32) -> Double {
        let cw = customOf[Int(w)]
        guard cw >= 0 else { return -.infinity }
        var context: [Int32] = []
        if isCustom(u) {
            if isCustom(t) { context.append(customOf[Int(t)]) }
            context.append(customOf[Int(u)])
        }
        let value = custom.logProb(word: cw, context: context[...])
        return value <= -99 ? -.infinity : value * ln10
    }

    /// ln S(w | t u) / lw: the set's score as a static model's natural-log probability.
    func target(_ w: Int32, _ t: Int32, _ u: Int32) -> Double {
        logAdd(logWeight + lw * customLog(w, t, u), logRest + lw * baseLog(w, t, u)) / lw
    }

    // MARK: Unigrams

    struct Unigrams {
        var prob: [Float]
        var backoff: [Float]
    }

    /// Base words at (1 − w)^(1/lw) times their base probability; data words at the value that makes
    /// them back off, after one-word histories the data never used, to the set's score for the most
    /// histories.
    func unigrams(tolerance: Double) -> Unigrams {
        var prob = [Float](repeating: -99, count: words.count)
        var backoff = [Float](repeating: 0, count: words.count)
        for id in 0..<baseCount {
            backoff[id] = base.unigramBackoff[id]
            let value = base.unigramProb[id]
            prob[id] = value <= -99 ? -99 : value + restShift
        }
        // After a history u the data never used, a data word w backs off to bo(u) · M(w), while the
        // set scores it ln S(w | u)/lw. Each such u wants ln M(w) = ln S(w | u)/lw − ln bo(u); M(w) is
        // put where most of them are within the tolerance, so that the fewest need listing.
        let window = tolerance / lw
        var wanted: [Double] = []
        wanted.reserveCapacity(baseCount)
        // ln S(w | u)/lw − ln bo(u) falls as bo(u) rises (its derivative is the base side's share of S, less 1), so
        // walking the histories by falling backoff weight lists what each w wants in ascending order, without a sort
        // per word (checked: a tie broken the other way by rounding is sorted).
        let histories = (0..<Int32(baseCount)).filter { !isCustom($0) }.sorted {
            base.unigramBackoff[Int($0)] > base.unigramBackoff[Int($1)]
        }
        var listed = [Bool](repeating: false, count: baseCount)
        let before = baseBigramHistories()
        for w in predicted {
            wanted.removeAll(keepingCapacity: true)
            for u in before[w, default: []] { listed[Int(u)] = true }
            for u in histories where !listed[Int(u)] {
                let backoffLog = Double(base.unigramBackoff[Int(u)]) * ln10
                wanted.append(backedOff(w, backoffLog: backoffLog) - backoffLog)
            }
            for u in before[w, default: []] { listed[Int(u)] = false }
            if !wanted.indices.dropFirst().allSatisfy({ wanted[$0 - 1] <= wanted[$0] }) { wanted.sort() }
            var best = (count: 0, value: target(w, -1, -1))
            var low = 0
            for high in wanted.indices {
                while wanted[high] - wanted[low] > 2 * window { low += 1 }
                if high - low + 1 > best.count { best = (high - low + 1, (wanted[high] + wanted[low]) / 2) }
            }
            prob[Int(w)] = best.value == -.infinity ? -99 : Float(best.value / ln10)
        }
        if sentenceStart >= 0 { prob[Int(sentenceStart)] = -99 }
        return Unigrams(prob: prob, backoff: backoff)
    }

    /// For each data word the base knows, the histories u whose bigram "u w" the base lists.
    func baseBigramHistories() -> [Int32: [Int32]] {
        var before: [Int32: [Int32]] = [:]
        for u in 0..<baseCount {
            for entry in Int(base.bigramStart[u])..<Int(base.bigramStart[u + 1]) {
                let w = base.bigramWord[entry]
                if customOf[Int(w)] >= 0 { before[w, default: []].append(Int32(u)) }
            }
        }
        return before
    }

    // MARK: Bigrams

    struct Bigrams {
        var start: [Int32]
        var word: [Int32]
        var prob: [Float]
        var backoff: [Float]
        /// The base's entry of each merged bigram, or -1.
        var baseEntry: [Int32]
        var completed = 0
        var corrected = 0
    }

    func bigrams(unigram: Unigrams, tolerance: Double) -> Bigrams {
        var result = Bigrams(start: [0], word: [], prob: [], backoff: [], baseEntry: [])
        let capacity = base.bigramWord.count + predicted.count * predicted.count
        result.word.reserveCapacity(capacity)
        result.prob.reserveCapacity(capacity)
        result.backoff.reserveCapacity(capacity)
        result.baseEntry.reserveCapacity(capacity)
        for u in 0..<Int32(words.count) {
            let range = Int(u) < baseCount ? Int(base.bigramStart[Int(u)])..<Int(base.bigramStart[Int(u) + 1]) : 0..<0
            // The data words to list after u beyond the base's: all of them after a data word (the
            // sides back off differently there), else those whose backed-off score is off.
            var extra: [Int32] = []
            let historyIsCustom = isCustom(u)
            let backoffLog = Double(unigram.backoff[Int(u)]) * ln10
            // The data words the base does not list after u: a walk of both ascending lists.
            var listed = range.lowerBound
            for w in predicted {
                while listed < range.upperBound && base.bigramWord[listed] < w { listed += 1 }
                if listed < range.upperBound && base.bigramWord[listed] == w { continue }
                if historyIsCustom {
                    extra.append(w)
                    result.completed += 1
                } else if abs(
                    lw * (backoffLog + Double(unigram.prob[Int(w)]) * ln10 - backedOff(w, backoffLog: backoffLog)))
                    > tolerance
                {
                    extra.append(w)
                    result.corrected += 1
                }
            }
            var next = 0
            func append(_ w: Int32, baseEntry: Int) {
                result.word.append(w)
                result.baseEntry.append(Int32(baseEntry))
                if baseEntry >= 0 {
                    result.backoff.append(base.bigramBackoff[baseEntry])
                    if !isCustom(w) {
                        let value = base.bigramProb[baseEntry]
                        result.prob.append(value <= -99 ? -99 : value + restShift)
                        return
                    }
                } else {
                    result.backoff.append(0)
                }
                let value = target(w, -1, u)
                result.prob.append(value == -.infinity ? -99 : Float(value / ln10))
            }
            for entry in range {
                let w = base.bigramWord[entry]
                while next < extra.count && extra[next] < w {
                    append(extra[next], baseEntry: -1)
                    next += 1
                }
                append(w, baseEntry: entry)
            }
            while next < extra.count {
                append(extra[next], baseEntry: -1)
                next += 1
            }
            result.start.append(Int32(result.word.count))
        }
        return result
    }

    // MARK: Trigrams

    struct Trigrams {
        var start: [Int32]
        var word: [Int32]
        var prob: [Float]
        var completed = 0
        var residual: [Double] = []
    }

    func trigrams(unigram: Unigrams, bigrams: Bigrams) -> Trigrams {
        var result = Trigrams(start: [0], word: [], prob: [])
        result.start.reserveCapacity(bigrams.word.count + 1)
        result.word.reserveCapacity(base.trigramWord.count)
        result.prob.reserveCapacity(base.trigramWord.count)
        /// ln M(w | u) from the merged bigram level.
        func mergedBigram(_ w: Int32, _ u: Int32) -> Double {
            if let entry = search(
                bigrams.word, from: Int(bigrams.start[Int(u)]), to: Int(bigrams.start[Int(u) + 1]), for: w)
            {
                return Double(bigrams.prob[Int(entry)]) * ln10
            }
            return Double(unigram.backoff[Int(u)] + unigram.prob[Int(w)]) * ln10
        }
        var errors: [Double] = []
        var residualCandidates = 0
        var sampled = 0
        for t in 0..<Int32(words.count) {
            for entry in Int(bigrams.start[Int(t)])..<Int(bigrams.start[Int(t) + 1]) {
                let u = bigrams.word[entry]
                let baseEntry = Int(bigrams.baseEntry[entry])
                let range =
                    baseEntry >= 0
                    ? Int(base.trigramStart[baseEntry])..<Int(base.trigramStart[baseEntry + 1]) : 0..<0
                let backoffLog = Double(bigrams.backoff[entry]) * ln10
                var extra: [Int32] = []
                if isCustom(t) && isCustom(u) {
                    // Both sides may back off differently here: list every data word that is off.
                    for w in predicted where baseEntry < 0 || base.trigram(under: Int32(baseEntry), w) == nil {
                        if abs(lw * (backoffLog + mergedBigram(w, u) - target(w, t, u))) > 1e-3 {
                            extra.append(w)
                        }
                    }
                    result.completed += extra.count
                } else if backoffLog != 0 {
                    // Measured on every 256th such history: there are millions, and every 16th had cost a fifth of
                    // the prepare (17 million scores for chess-full) for a statistic that moves by hundredths.
                    sampled += 1
                    if sampled % 256 == 0 {
                        for w in predicted where base.trigram(under: Int32(baseEntry), w) == nil {
                            let error = abs(lw * (backoffLog + mergedBigram(w, u) - target(w, t, u)))
                            residualCandidates += 1
                            errors.append(error)
                        }
                    }
                }
                var next = 0
                func append(_ w: Int32, baseEntry: Int) {
                    result.word.append(w)
                    if baseEntry >= 0, !isCustom(w) {
                        let value = base.trigramProb[baseEntry]
                        result.prob.append(value <= -99 ? -99 : value + restShift)
                    } else {
                        let value = target(w, t, u)
                        result.prob.append(value == -.infinity ? -99 : Float(value / ln10))
                    }
                }
                for index in range {
                    let w = base.trigramWord[index]
                    while next < extra.count && extra[next] < w {
                        append(extra[next], baseEntry: -1)
                        next += 1
                    }
                    append(w, baseEntry: index)
                }
                while next < extra.count {
                    append(extra[next], baseEntry: -1)
                    next += 1
                }
                result.start.append(Int32(result.word.count))
            }
        }
        errors.sort()
        let over = errors.count { $0 > 0.5 }
        result.residual = [
            residualCandidates > 0 ? Double(over) / Double(residualCandidates) : 0,
            errors.isEmpty ? 0 : errors[errors.count / 2], errors.last ?? 0,
        ]
        return result
    }
}
