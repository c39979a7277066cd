/// A system's WER and B-WER per value of one label (speaker, voice, condition, or any string field of a manifest
/// entry), each with a 95% bootstrap interval.
public struct Breakdown: Sendable, Codable, Hashable {
    /// The label the utterances were grouped by, e.g. `speaker`.
    public var field: String
    /// One entry per label value, sorted by value.
    public var groups: [GroupRates]
    /// Scored utterances that have no value for the label; they are in no group.
    public var unlabelled: Int

    public init(field: String, groups: [GroupRates], unlabelled: Int) {
        self.field = field
        self.groups = groups
        self.unlabelled = unlabelled
    }

    /// Groups per-utterance counts by label and measures each group.
    ///
    /// B-WER is measured when `boosted` is given (one entry per utterance, as the other arrays); a group whose
    /// utterances hold no boosted reference word has no B-WER ("no data"), never 0%.
    /// - Parameters:
    ///   - field: The label's name.
    ///   - labels: Each utterance's label; nil for none.
    ///   - errors: Word errors per utterance.
    ///   - referenceWords: Reference words per utterance.
    ///   - boosted: Errors on boosted words and boosted reference words per utterance, when there are boosted words.
    ///   - bootstrap: Resamples and seed. Each group draws from its own generator, seeded from `bootstrap.seed` and
    ///     the label, so a group's interval does not depend on which other groups exist.
    public init(
        field: String, labels: [String?], errors: [Int], referenceWords: [Int],
        boosted: (errors: [Int], referenceWords: [Int])? = nil, bootstrap: BootstrapOptions = .init()
    ) {
        var members: [String: [Int]] = [:]
        var unlabelled = 0
        for (index, label) in labels.enumerated() {
            if let label { members[label, default: []].append(index) } else { unlabelled += 1 }
        }
        let groups = members.keys.sorted().map { label -> GroupRates in
            let indices = members[label]!
            let seed = Self.seed(base: bootstrap.seed, field: field, label: label)
            let words = RateSample(errors: indices.map { errors[$0] }, words: indices.map { referenceWords[$0] })
            let boostedWords = boosted.map { boosted in
                RateSample(
                    errors: indices.map { boosted.errors[$0] }, words: indices.map { boosted.referenceWords[$0] })
            }
            return GroupRates(
                label: label, utterances: indices.count, referenceWords: words.totalWords, errors: words.totalErrors,
                wordErrorRate: words.rate, wordErrorRateInterval: words.interval(bootstrap, seed: seed),
                boostedReferenceWords: boostedWords?.totalWords, boostedErrors: boostedWords?.totalErrors,
                boostedWordErrorRate: boostedWords?.rate,
                boostedWordErrorRateInterval: boostedWords?.interval(bootstrap, seed: Self.boostedSeed(seed))
            )
        }
        self.init(field: field, groups: groups, unlabelled: unlabelled)
    }

    /// The seed of a group's WER interval: the run's seed mixed with the label, so a group's interval does not
    /// depend on the other groups. A report that masks labels must re-derive it from the masked label, since the
    /// seed of a private label would let a reader test guesses of it.
    public static func seed(base: UInt64, field: String, label: String) -> UInt64 {
        base ^ stableHash(field + "\u{0}" + label)
    }

    /// The seed of a group's B-WER interval, from its WER interval's seed.
    public static func boostedSeed(_ seed: UInt64) -> UInt64 { seed ^ 0xB00 }

    /// FNV-1a over the UTF-8 bytes: the same on every run and platform, unlike `Hasher`.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}

/// One group of a ``Breakdown``.
public struct GroupRates: Sendable, Codable, Hashable {
    /// The label's value, e.g. `flite:slt`.
    public var label: String
    public var utterances: Int
    public var referenceWords: Int
    /// Substitutions, deletions and insertions.
    public var errors: Int
    /// nil ("no data") when the group has no reference word.
    public var wordErrorRate: Double?
    /// nil when the rate is no data or the group has a single utterance.
    public var wordErrorRateInterval: RateInterval?
    /// Boosted reference words, when the system has boosted words.
    public var boostedReferenceWords: Int?
    public var boostedErrors: Int?
    /// nil ("no data") without boosted words or when no reference word of the group is boosted.
    public var boostedWordErrorRate: Double?
    public var boostedWordErrorRateInterval: RateInterval?
}

/// A 95% percentile bootstrap interval of one system's error rate: utterances are drawn with replacement and the
/// rate is Σ errors / Σ reference words of each draw.
public struct RateInterval: Sendable, Codable, Hashable {
    /// 2.5th percentile of the resampled rates.
    public var lower: Double
    /// 97.5th percentile of the resampled rates.
    public var upper: Double
    /// Resamples with at least one reference word; a draw of utterances without any measures nothing and is left
    /// out.
    public var resamples: Int
    public var seed: UInt64

    /// The interval in another unit (a rate per millisecond as a rate per hour, say); `factor` is positive.
    public func scaled(by factor: Double) -> RateInterval {
        var scaled = self
        scaled.lower *= factor
        scaled.upper *= factor
        return scaled
    }
}

/// Per-utterance errors and reference words of one group, for a rate and its interval.
struct RateSample {
    var errors: [Int]
    var words: [Int]

    var totalErrors: Int { errors.reduce(0, +) }
    var totalWords: Int { words.reduce(0, +) }
    var rate: Double? { Rates.measured(totalErrors, over: totalWords) }

    /// nil when the rate itself is no data, no resample is asked for, or the group has one utterance (every draw
    /// would be that utterance: an interval of no width that says nothing about the spread).
    func interval(_ options: BootstrapOptions, seed: UInt64) -> RateInterval? {
        guard rate != nil, options.resamples > 0, words.count > 1 else { return nil }
        var generator = SplitMix64(seed: seed)
        let n = UInt64(words.count)
        var rates: [Double] = []
        rates.reserveCapacity(options.resamples)
        for _ in 0..<options.resamples {
            var e = 0
            var w = 0
            for _ in 0..<words.count {
                let index = Int(generator.next(below: n))
                e += errors[index]
                w += words[index]
            }
            if let rate = Rates.measured(e, over: w) { rates.append(rate) }
        }
        guard !rates.isEmpty else { return nil }
        rates.sort()
        return RateInterval(
            lower: rates[Int((0.025 * Double(rates.count - 1)).rounded(.down))],
            upper: rates[Int((0.975 * Double(rates.count - 1)).rounded(.up))], resamples: rates.count, seed: seed)
    }
}

extension Breakdown {
    /// A plain-text table: one row per group, each rate with its interval; "no data" where a rate is over nothing.
    public var text: String {
        func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
        func rate(_ value: Double?, _ interval: RateInterval?) -> String {
            guard let value else { return "no data" }
            return percent(value) + (interval.map { " [\(percent($0.lower)), \(percent($0.upper))]" } ?? "")
        }
        let hasBoosted = groups.contains { $0.boostedReferenceWords != nil }
        let width = max(field.count, groups.map(\.label.count).max() ?? 0, 5)
        func row(_ cells: [String]) -> String {
            "| " + cells[0] + String(repeating: " ", count: max(0, width - cells[0].count)) + " | "
                + cells.dropFirst().enumerated().map { index, cell in
                    let widths = [6, 7, 26, 26]
                    return String(repeating: " ", count: max(0, widths[index] - cell.count)) + cell
                }.joined(separator: " | ") + " |"
        }
        var lines = [
            "By \(field), 95% bootstrap intervals:",
            row([field, "Utts", "Words", "WER"] + (hasBoosted ? ["B-WER"] : [])),
        ]
        for group in groups {
            lines.append(
                row(
                    [
                        group.label, "\(group.utterances)", "\(group.referenceWords)",
                        rate(group.wordErrorRate, group.wordErrorRateInterval),
                    ]
                        + (hasBoosted ? [rate(group.boostedWordErrorRate, group.boostedWordErrorRateInterval)] : [])))
        }
        if unlabelled > 0 { lines.append("\(unlabelled) scored utterance(s) have no \(field) and are in no row.") }
        return lines.joined(separator: "\n")
    }
}
