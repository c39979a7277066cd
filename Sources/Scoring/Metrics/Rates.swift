/// Error rates over a set of utterances.
///
/// - WER = (S + D + I) / N
/// - CER = character edit distance / reference characters (unit costs over Unicode scalars, spaces between words
///   included, in both alignment modes)
/// - SER = utterances with at least one word error / utterances
/// - MER = (S + D + I) / (C + S + D + I)
/// - WIL = 1 − C² / (N · H), where H = C + S + I is the number of hypothesis words
///
/// A rate whose denominator is zero is reported as 0 when its numerator is 0 too, and as 1 otherwise
/// (e.g. words recognized where the reference is empty).
public struct Rates: Sendable, Codable, Hashable {
    public var counts: ErrorCounts
    public var utterances: Int
    public var utterancesWithErrors: Int
    public var referenceCharacters: Int
    public var characterErrors: Int
    public var wordErrorRate: Double
    public var characterErrorRate: Double
    public var sentenceErrorRate: Double
    public var matchErrorRate: Double
    public var wordInformationLost: Double

    public init(
        counts: ErrorCounts, utterances: Int, utterancesWithErrors: Int, referenceCharacters: Int,
        characterErrors: Int
    ) {
        self.counts = counts
        self.utterances = utterances
        self.utterancesWithErrors = utterancesWithErrors
        self.referenceCharacters = referenceCharacters
        self.characterErrors = characterErrors
        wordErrorRate = Self.ratio(counts.errors, counts.referenceWords)
        characterErrorRate = Self.ratio(characterErrors, referenceCharacters)
        sentenceErrorRate = Self.ratio(utterancesWithErrors, utterances)
        matchErrorRate = Self.ratio(counts.errors, counts.correct + counts.errors)
        let n = Double(counts.referenceWords)
        let h = Double(counts.hypothesisWords)
        let c = Double(counts.correct)
        if n == 0 && h == 0 {
            wordInformationLost = 0
        } else if n == 0 || h == 0 {
            wordInformationLost = 1
        } else {
            wordInformationLost = 1 - (c / n) * (c / h)
        }
    }

    /// `numerator / denominator`, or nil ("no data") when the denominator is zero: the one rule for
    /// a rate over an empty set, which is never 0% or 100%.
    public static func measured(_ numerator: Int, over denominator: Int) -> Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    static func ratio(_ numerator: Int, _ denominator: Int) -> Double {
        if denominator == 0 { return numerator == 0 ? 0 : 1 }
        return Double(numerator) / Double(denominator)
    }
}

/// Scores of one utterance.
public struct UtteranceScore: Sendable, Codable, Hashable {
    public var id: String
    public var speaker: String?
    public var counts: ErrorCounts
    public var referenceCharacters: Int
    public var characterErrors: Int
    /// Errors on boosted words (see ``BoostedWordErrorRates``), when boosted words were given.
    public var boostedErrors: Int?
    /// Reference words in the boosted set, when boosted words were given.
    public var boostedReferenceWords: Int?
    /// The alignment as display lines, when ``ScoringOptions/includeAlignedText`` is on.
    public var aligned: AlignedText?

    /// The utterance's word error rate.
    public var wordErrorRate: Double { Rates.ratio(counts.errors, counts.referenceWords) }
}

/// Rates of one speaker.
public struct SpeakerRates: Sendable, Codable, Hashable {
    public var speaker: String
    public var rates: Rates
}

/// A reference word recognized as another word, and how often.
public struct ConfusionPair: Sendable, Codable, Hashable {
    public var reference: String
    public var hypothesis: String
    public var count: Int
}

/// One utterance shown in full: its scores and its alignment.
public struct AlignedUtterance: Sendable, Codable, Hashable {
    public var id: String
    public var counts: ErrorCounts
    public var wordErrorRate: Double
    public var aligned: AlignedText
}
