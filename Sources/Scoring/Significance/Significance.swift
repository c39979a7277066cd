import Foundation

/// The matched-pair sentence-segment word error test (MAPSSWE), computed as NIST `sc_stats` does.
public struct MatchedPairsResult: Sendable, Codable, Hashable {
    /// Segments with at least one error in either system.
    public var segments: Int
    /// Correct words (in both systems) that bound a segment; `sc_stats` uses 2.
    public var minimumGoodWords: Int
    /// Reference words in the segments (each segment counts the mean of the two systems, rounded down).
    public var segmentReferenceWords: Int
    public var segmentErrorsA: Int
    public var segmentErrorsB: Int
    /// Mean of (errors of A − errors of B) per segment.
    public var meanDifference: Double
    /// Standard deviation of the differences (divisor n − 1).
    public var standardDeviation: Double
    /// Z = mean / (sd / √n); 0 when every difference is equal.
    public var z: Double
    /// Two-tailed p-value under the normal distribution.
    public var pValue: Double
    /// |Z| > 1.96, as `sc_stats` decides at the 95% level, over at least ``Significance/minimumUtterances``
    /// utterances (`sc_stats` judges any number; see ``tooFewUtterances``).
    public var significant: Bool
    /// How many utterances were compared, when fewer than ``Significance/minimumUtterances``: the change is not
    /// judged, whatever Z is. Nil otherwise, and in results written before Gambit judged it.
    public var tooFewUtterances: Int?
}

/// McNemar's test on sentence errors, computed as `sc_stats` does (exact two-tailed binomial test on the utterances
/// that exactly one system got wrong).
public struct McNemarResult: Sendable, Codable, Hashable {
    public var bothCorrect: Int
    /// Utterances only system A got right.
    public var onlyACorrect: Int
    /// Utterances only system B got right.
    public var onlyBCorrect: Int
    public var bothWrong: Int
    /// 2 · P(X ≤ min(b, c)) for X ~ Binomial(b + c, ½); 1 when b = c.
    public var pValue: Double
    /// p < 0.05, over at least ``Significance/minimumUtterances`` utterances.
    public var significant: Bool
    /// How many utterances were compared, when fewer than ``Significance/minimumUtterances``; nil otherwise.
    public var tooFewUtterances: Int?
}

/// A paired bootstrap confidence interval for the difference of an error rate between two systems.
public struct BootstrapInterval: Sendable, Codable, Hashable {
    /// Which rate, e.g. `WER` or `B-WER`.
    public var metric: String
    /// Rate of B minus rate of A on the full set.
    public var observedDelta: Double
    /// 2.5th percentile of the resampled deltas.
    public var lower: Double
    /// 97.5th percentile of the resampled deltas.
    public var upper: Double
    public var resamples: Int
    public var seed: UInt64
    /// Two-sided bootstrap p-value: twice the smaller share of resampled deltas on either side of 0, at most 1.
    public var pValue: Double
    /// The interval excludes 0, and at least ``Significance/minimumUtterances`` utterances were resampled.
    public var significant: Bool
    /// How many utterances were resampled, when fewer than ``Significance/minimumUtterances``: the interval is
    /// descriptive only (over one utterance it is a single point) and the change is not judged. Nil otherwise.
    public var tooFewUtterances: Int?
}

extension BootstrapInterval {
    /// The interval in another unit (a rate per second as a rate per hour, say); the test is unchanged.
    public func scaled(by factor: Double) -> BootstrapInterval {
        var scaled = self
        scaled.observedDelta *= factor
        (scaled.lower, scaled.upper) = factor >= 0 ? (lower * factor, upper * factor) : (upper * factor, lower * factor)
        return scaled
    }
}

extension BootstrapInterval {
    /// "significant", "not significant" or "too few utterances to judge (…)".
    public var verdict: String { Significance.verdict(significant: significant, tooFewUtterances: tooFewUtterances) }
}

extension MatchedPairsResult {
    /// "significant", "not significant" or "too few utterances to judge (…)".
    public var verdict: String { Significance.verdict(significant: significant, tooFewUtterances: tooFewUtterances) }
}

extension McNemarResult {
    /// "significant", "not significant" or "too few utterances to judge (…)".
    public var verdict: String { Significance.verdict(significant: significant, tooFewUtterances: tooFewUtterances) }
}

/// Settings for the paired bootstrap.
public struct BootstrapOptions: Sendable, Codable, Hashable {
    public var resamples: Int
    public var seed: UInt64

    public init(resamples: Int = 1000, seed: UInt64 = 0x6A6D_6269_7473) {
        self.resamples = resamples
        self.seed = seed
    }
}

/// Significance tests between two systems scored on the same utterances.
public enum Significance {
    /// The fewest paired utterances over which Gambit calls a change significant. Below it every test says
    /// "too few utterances to judge" and never "significant": with n utterances that all changed the same way, an
    /// exact sign test has p = 2 · 2⁻ⁿ, which cannot reach 0.05 below 6; the percentile bootstrap over a handful of
    /// utterances is far too narrow (over one utterance every resample is that utterance, so its interval is a
    /// point and any change "excludes 0"); and MAPSSWE's normal approximation over the segments of a few
    /// utterances claims Z > 1.96 from two or three segments. 10 leaves a margin over the sign test's 6.
    public static let minimumUtterances = 10

    /// Whether `utterances` paired utterances are too few to judge a change (``minimumUtterances``).
    public static func tooFew(_ utterances: Int) -> Bool { utterances < minimumUtterances }

    /// "too few utterances to judge (4 compared; at least 10 needed)": how every report words an unjudged change.
    public static func tooFewPhrase(_ utterances: Int) -> String {
        "too few utterances to judge (\(utterances) compared; at least \(minimumUtterances) needed)"
    }

    /// The marker the results carry: the count when it is too few, else nil.
    static func marker(_ utterances: Int) -> Int? { tooFew(utterances) ? utterances : nil }

    /// How a report words a test's outcome: "significant", "not significant" or ``tooFewPhrase(_:)``.
    public static func verdict(significant: Bool, tooFewUtterances: Int?) -> String {
        if let tooFewUtterances { return tooFewPhrase(tooFewUtterances) }
        return significant ? "significant" : "not significant"
    }

    /// MAPSSWE between two systems, segmenting utterances exactly as `sc_stats` (`mtchprs.c`, `test_comp_sents`)
    /// does: a segment ends once `minimumGoodWords` consecutive reference words are correct in both systems.
    /// - Parameters:
    ///   - systemA: For each utterance, system A's alignment operations in order.
    ///   - systemB: System B's operations for the same utterances, same order.
    ///   - minimumGoodWords: Correct boundary words; `sc_stats` defaults to 2.
    public static func matchedPairs(
        _ systemA: [[EditOperation]], _ systemB: [[EditOperation]], minimumGoodWords: Int = 2
    ) -> MatchedPairsResult {
        var segments = SegmentList()
        for (a, b) in zip(systemA, systemB) {
            segments.compare(a[...], b[...], minimumGood: max(1, minimumGoodWords))
        }
        var result = segments.result(minimumGoodWords: max(1, minimumGoodWords))
        let utterances = min(systemA.count, systemB.count)
        if tooFew(utterances) {
            result.significant = false
            result.tooFewUtterances = utterances
        }
        return result
    }

    /// McNemar's test on sentence errors.
    /// - Parameters:
    ///   - errorsA: Whether system A made any error, per utterance.
    ///   - errorsB: The same for system B, same order.
    public static func mcNemar(errorsA: [Bool], errorsB: [Bool]) -> McNemarResult {
        var table = (bothCorrect: 0, onlyA: 0, onlyB: 0, bothWrong: 0)
        for (a, b) in zip(errorsA, errorsB) {
            switch (a, b) {
            case (false, false): table.bothCorrect += 1
            case (false, true): table.onlyA += 1
            case (true, false): table.onlyB += 1
            case (true, true): table.bothWrong += 1
            }
        }
        let discordant = table.onlyA + table.onlyB
        var p = 1.0
        if table.onlyA != table.onlyB {
            p = min(1, 2 * binomialCumulative(min(table.onlyA, table.onlyB), discordant))
        }
        let utterances = min(errorsA.count, errorsB.count)
        return McNemarResult(
            bothCorrect: table.bothCorrect, onlyACorrect: table.onlyA, onlyBCorrect: table.onlyB,
            bothWrong: table.bothWrong, pValue: p, significant: p < 0.05 && !tooFew(utterances),
            tooFewUtterances: marker(utterances))
    }

    /// A paired bootstrap over utterances of Δ = rate(B) − rate(A), where rate = Σ errors / Σ reference words.
    /// - Parameters:
    ///   - metric: A label for the interval.
    ///   - errorsA: Errors of system A per utterance.
    ///   - errorsB: Errors of system B per utterance, same order.
    ///   - referenceWords: Reference words per utterance (the denominator).
    ///   - options: Number of resamples and seed; the same seed gives the same interval.
    public static func pairedBootstrap(
        metric: String, errorsA: [Int], errorsB: [Int], referenceWords: [Int], options: BootstrapOptions = .init()
    ) -> BootstrapInterval {
        let n = min(errorsA.count, errorsB.count, referenceWords.count)
        let observed =
            Rates.ratio(errorsB.prefix(n).reduce(0, +), referenceWords.prefix(n).reduce(0, +))
            - Rates.ratio(errorsA.prefix(n).reduce(0, +), referenceWords.prefix(n).reduce(0, +))
        guard n > 0, options.resamples > 0 else {
            return BootstrapInterval(
                metric: metric, observedDelta: observed, lower: observed, upper: observed, resamples: 0,
                seed: options.seed, pValue: 1, significant: false, tooFewUtterances: marker(n))
        }
        var generator = SplitMix64(seed: options.seed)
        var deltas: [Double] = []
        deltas.reserveCapacity(options.resamples)
        for _ in 0..<options.resamples {
            var a = 0
            var b = 0
            var words = 0
            for _ in 0..<n {
                let index = Int(generator.next(below: UInt64(n)))
                a += errorsA[index]
                b += errorsB[index]
                words += referenceWords[index]
            }
            deltas.append(Rates.ratio(b, words) - Rates.ratio(a, words))
        }
        deltas.sort()
        let lower = deltas[Int((0.025 * Double(deltas.count - 1)).rounded(.down))]
        let upper = deltas[Int((0.975 * Double(deltas.count - 1)).rounded(.up))]
        let below = deltas.filter { $0 <= 0 }.count
        let above = deltas.filter { $0 >= 0 }.count
        let p = min(1, 2 * Double(min(below, above)) / Double(deltas.count))
        return BootstrapInterval(
            metric: metric, observedDelta: observed, lower: lower, upper: upper, resamples: options.resamples,
            seed: options.seed, pValue: p, significant: (lower > 0 || upper < 0) && !tooFew(n),
            tooFewUtterances: marker(n))
    }

    /// Paired bootstrap 95% interval of the change in a percentile of a duration (p95 of final latency, say) between
    /// two runs of the same utterances: utterances are resampled with replacement, keeping each one's pair, and the
    /// percentile of B minus that of A taken over each resample. Significant when the interval excludes 0 over at
    /// least ``minimumUtterances`` utterances.
    /// - Parameters:
    ///   - valuesA: Each utterance's value in A; `valuesB` the same utterances' in B, same order.
    ///   - quantile: The percentile as a fraction (0.95).
    public static func pairedQuantileBootstrap(
        metric: String, valuesA: [Double], valuesB: [Double], quantile q: Double, options: BootstrapOptions = .init()
    ) -> BootstrapInterval {
        let n = min(valuesA.count, valuesB.count)
        let observed = n == 0 ? 0 : quantile(q, valuesB.prefix(n).sorted()) - quantile(q, valuesA.prefix(n).sorted())
        guard n > 0, options.resamples > 0 else {
            return BootstrapInterval(
                metric: metric, observedDelta: observed, lower: observed, upper: observed, resamples: 0,
                seed: options.seed, pValue: 1, significant: false, tooFewUtterances: marker(n))
        }
        var generator = SplitMix64(seed: options.seed)
        var deltas: [Double] = []
        deltas.reserveCapacity(options.resamples)
        var a = [Double](repeating: 0, count: n)
        var b = a
        for _ in 0..<options.resamples {
            for i in 0..<n {
                let index = Int(generator.next(below: UInt64(n)))
                (a[i], b[i]) = (valuesA[index], valuesB[index])
            }
            a.sort()
            b.sort()
            deltas.append(quantile(q, b) - quantile(q, a))
        }
        deltas.sort()
        let lower = quantile(0.025, deltas)
        let upper = quantile(0.975, deltas)
        let below = deltas.filter { $0 <= 0 }.count
        let above = deltas.filter { $0 >= 0 }.count
        let p = min(1, 2 * Double(min(below, above)) / Double(deltas.count))
        return BootstrapInterval(
            metric: metric, observedDelta: observed, lower: lower, upper: upper, resamples: options.resamples,
            seed: options.seed, pValue: p, significant: (lower > 0 || upper < 0) && !tooFew(n),
            tooFewUtterances: marker(n))
    }

    /// The `q` quantile of sorted values, interpolating linearly between order statistics (numpy's default, R's
    /// type 7): what every latency percentile is.
    public static func quantile(_ q: Double, _ sorted: [Double]) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// A bootstrap 95% interval of one system's rate Σ counts / Σ exposure (false alarms per millisecond of
    /// audio, say), resampling utterances as ``RateInterval`` says; nil when the rate is over nothing or there is
    /// one utterance.
    /// - Parameters:
    ///   - counts: Events per utterance.
    ///   - exposure: Each utterance's share of the denominator, same order.
    public static func bootstrapRate(counts: [Int], exposure: [Int], options: BootstrapOptions = .init())
        -> RateInterval?
    {
        RateSample(errors: counts, words: exposure).interval(options, seed: options.seed)
    }

    /// P(X ≤ k) for X ~ Binomial(n, ½), summed in log space so large n does not overflow (`sc_stats` multiplies
    /// factorials directly and overflows beyond n ≈ 170).
    static func binomialCumulative(_ k: Int, _ n: Int) -> Double {
        guard k >= 0 else { return 0 }
        guard k < n else { return 1 }
        let logHalfN = Double(n) * log(0.5)
        var sum = 0.0
        for r in 0...k {
            sum += exp(lgamma(Double(n + 1)) - lgamma(Double(r + 1)) - lgamma(Double(n - r + 1)) + logHalfN)
        }
        return min(1, sum)
    }
}

/// Segments of the MAPSSWE test, built the way `sc_stats`'s `test_comp_sents` walks two alignments.
struct SegmentList {
    var referenceWords: [Int] = []
    var errorsA: [Int] = []
    var errorsB: [Int] = []

    /// Walks both systems' operations over the same reference words. States: `b` (no error since the last segment),
    /// `e` (inside an error region), `g` (counting correct words after an error).
    mutating func compare(_ a: ArraySlice<EditOperation>, _ b: ArraySlice<EditOperation>, minimumGood: Int) {
        let s1 = Array(a)
        let s2 = Array(b)
        var i1 = 0
        var i2 = 0
        var endOfGood1 = 0
        var endOfGood2 = 0
        var state: Character = "b"
        var good = 0
        while i1 < s1.count {
            while i1 < s1.count && s1[i1] == .insertion {
                i1 += 1
                state = "e"
            }
            while i2 < s2.count && s2[i2] == .insertion {
                i2 += 1
                state = "e"
            }
            let bothCorrect = i1 < s1.count && s1[i1] == .correct && i2 < s2.count && s2[i2] == .correct
            switch state {
            case "b":
                if bothCorrect {
                    endOfGood1 = i1
                    endOfGood2 = i2
                } else {
                    state = "e"
                }
            case "e":
                if bothCorrect {
                    good = 1
                    if good == minimumGood {
                        count(s1, s2, endOfGood1 - (minimumGood - 1), endOfGood2 - (minimumGood - 1), i1, i2)
                        endOfGood1 = i1
                        endOfGood2 = i2
                        state = "b"
                    } else {
                        state = "g"
                    }
                }
            default:
                if bothCorrect {
                    good += 1
                    if good == minimumGood {
                        count(s1, s2, endOfGood1 - (minimumGood - 1), endOfGood2 - (minimumGood - 1), i1, i2)
                        endOfGood1 = i1
                        endOfGood2 = i2
                        state = "b"
                    }
                } else {
                    state = "e"
                }
            }
            if i1 < s1.count { i1 += 1 }
            if i2 < s2.count { i2 += 1 }
        }
        if state != "b" {
            count(s1, s2, endOfGood1 - (minimumGood - 1), endOfGood2 - (minimumGood - 1), i1 - 1, i2 - 1)
        }
    }

    private mutating func count(
        _ s1: [EditOperation], _ s2: [EditOperation], _ begin1: Int, _ begin2: Int, _ end1: Int, _ end2: Int
    ) {
        func tally(_ s: [EditOperation], _ from: Int, _ to: Int) -> (errors: Int, reference: Int) {
            var errors = 0
            var reference = 0
            var index = max(0, from)
            while index <= to && index < s.count {
                if s[index] != .correct { errors += 1 }
                if s[index] != .insertion { reference += 1 }
                index += 1
            }
            return (errors, reference)
        }
        let first = tally(s1, begin1, end1)
        let second = tally(s2, begin2, end2)
        // sc_stats drops segments without errors (it warns that this should not happen).
        guard first.errors != 0 || second.errors != 0 else { return }
        referenceWords.append((first.reference + second.reference) / 2)
        errorsA.append(first.errors)
        errorsB.append(second.errors)
    }

    func result(minimumGoodWords: Int) -> MatchedPairsResult {
        let n = errorsA.count
        var mean = 0.0
        var variance = 0.0
        var z = 0.0
        if n > 0 {
            var sum = 0.0
            for index in 0..<n { sum += Double(errorsA[index] - errorsB[index]) }
            mean = sum / Double(n)
            var squares = 0.0
            for index in 0..<n {
                let d = Double(errorsA[index] - errorsB[index]) - mean
                squares += d * d
            }
            if squares != 0 {
                variance = squares / Double(n - 1)
                z = mean / (variance.squareRoot() / Double(n).squareRoot())
            }
        }
        let p = erfc(abs(z) / 2.0.squareRoot())
        return MatchedPairsResult(
            segments: n, minimumGoodWords: minimumGoodWords, segmentReferenceWords: referenceWords.reduce(0, +),
            segmentErrorsA: errorsA.reduce(0, +), segmentErrorsB: errorsB.reduce(0, +), meanDifference: mean,
            standardDeviation: variance.squareRoot(), z: z, pValue: p, significant: abs(z) > 1.96)
    }
}

/// A small, fast, seedable generator (SplitMix64) so bootstrap intervals are reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<bound` (Lemire's multiply-shift; the tiny bias is irrelevant for resampling).
    public mutating func next(below bound: UInt64) -> UInt64 {
        bound.multipliedFullWidth(by: next()).high
    }
}
