public import Scoring

/// `gambit sweep --lists`: how long a recognizer's phrase list should be, and how many unrelated terms it tolerates.
/// Every point is the variant's global list cut at one length, with some distractors drawn in, decoded in full on
/// the dev split of the variant's domain corpus and of the anti-context corpora, and compared with the
/// recognizer's own baseline there; the recommended length is then judged once on the test split.
public struct ListSweepResults: Codable, Sendable, Equatable {
    public var recognizer: String
    public var variant: String
    /// The domain corpus the points are scored on.
    public var corpus: String
    /// The split the points are decoded on (`dev`).
    public var split: String
    /// `phrases` or `words`: what a length counts.
    public var unit: String
    /// The variant's terms before any cut.
    public var termsAvailable: Int
    /// Where the distractors came from.
    public var distractorSource: String
    /// Every point, shortest list first, then fewest distractors.
    public var points: [ListSweepPoint]
    public var recommendation: ListSweepRecommendation?

    public init(
        recognizer: String, variant: String, corpus: String, split: String, unit: String, termsAvailable: Int,
        distractorSource: String, points: [ListSweepPoint], recommendation: ListSweepRecommendation? = nil
    ) {
        self.recognizer = recognizer
        self.variant = variant
        self.corpus = corpus
        self.split = split
        self.unit = unit
        self.termsAvailable = termsAvailable
        self.distractorSource = distractorSource
        self.points = points
        self.recommendation = recommendation
    }
}

/// One list length with one number of distractors, on the dev split.
public struct ListSweepPoint: Codable, Sendable, Equatable {
    /// The length asked for (the lever's limit).
    public var length: Int
    public var distractors: Int
    /// The variant's terms the list held (fewer than ``length`` when the variant has fewer).
    public var terms: Int
    /// Keyword recall, precision and F1 of the boosted words on the domain corpus (scored by position); nil when
    /// nothing was said or heard.
    public var recall: Double?
    public var precision: Double?
    public var f1: Double?
    /// The domain corpus against the recognizer's baseline: both systems' rates and the paired intervals.
    public var domain: Comparison
    /// Each anti-context corpus against the baseline, with whether its check passes (a significant WER rise
    /// above the tolerance fails, as in a run).
    public var antiContext: [ListSweepAntiContext]

    public init(
        length: Int, distractors: Int, terms: Int, recall: Double?, precision: Double?, f1: Double?,
        domain: Comparison, antiContext: [ListSweepAntiContext]
    ) {
        self.length = length
        self.distractors = distractors
        self.terms = terms
        self.recall = recall
        self.precision = precision
        self.f1 = f1
        self.domain = domain
        self.antiContext = antiContext
    }

    /// Every anti-context check passes (warnings included).
    public var passesAntiContext: Bool { antiContext.allSatisfy(\.passed) }

    /// False alarms per hour over the anti-context corpora's audio together; nil without such audio.
    public var antiContextFalseAlarmsPerHour: Double? {
        let hours = antiContext.map(\.audioHours).reduce(0, +)
        guard hours > 0 else { return nil }
        return Double(antiContext.map(\.falseAlarms).reduce(0, +)) / hours
    }
}

/// One anti-context corpus at one point.
public struct ListSweepAntiContext: Codable, Sendable, Equatable {
    public var corpus: String
    public var wordErrorRate: Double
    public var baselineWordErrorRate: Double
    /// Paired bootstrap interval of ΔWER.
    public var deltaWER: BootstrapInterval
    /// Boosted words heard where nobody said them, and the corpus's audio in hours.
    public var falseAlarms: Int
    public var audioHours: Double
    /// The run's anti-context check passed (or only warned).
    public var passed: Bool

    public init(
        corpus: String, wordErrorRate: Double, baselineWordErrorRate: Double, deltaWER: BootstrapInterval,
        falseAlarms: Int, audioHours: Double, passed: Bool
    ) {
        self.corpus = corpus
        self.wordErrorRate = wordErrorRate
        self.baselineWordErrorRate = baselineWordErrorRate
        self.deltaWER = deltaWER
        self.falseAlarms = falseAlarms
        self.audioHours = audioHours
        self.passed = passed
    }
}

/// The length chosen on dev, and what it does on test.
public struct ListSweepRecommendation: Codable, Sendable, Equatable {
    public var length: Int
    /// Why this length, in a sentence.
    public var reason: String
    /// The split it was judged on (`test`).
    public var testSplit: String
    /// The domain corpus's test split: the list (without distractors) against the recognizer's baseline.
    public var test: Comparison
    /// Each anti-context corpus's test split.
    public var testAntiContext: [ListSweepAntiContext]

    public init(
        length: Int, reason: String, testSplit: String, test: Comparison, testAntiContext: [ListSweepAntiContext]
    ) {
        self.length = length
        self.reason = reason
        self.testSplit = testSplit
        self.test = test
        self.testAntiContext = testAntiContext
    }

    /// The points without distractors (what a team controls: the list's length), and the one to recommend among
    /// them: the best dev keyword F1 among those whose every anti-context check passes, the shortest on a tie
    /// within 0.005; when none passes, the one with the fewest anti-context false alarms per hour.
    public static func choose(_ points: [ListSweepPoint]) -> (point: ListSweepPoint, reason: String)? {
        let plain = points.filter { $0.distractors == 0 }.sorted { $0.length < $1.length }
        guard !plain.isEmpty else { return nil }
        let passing = plain.filter(\.passesAntiContext)
        guard !passing.isEmpty else {
            let least = plain.min { ($0.antiContextFalseAlarmsPerHour ?? 0) < ($1.antiContextFalseAlarmsPerHour ?? 0) }!
            return (
                least,
                "no length passes every anti-context check on dev; the one with the fewest false alarms on "
                    + "anti-context speech"
            )
        }
        let best = passing.compactMap(\.f1).max() ?? 0
        let chosen = passing.first { ($0.f1 ?? 0) >= best - 0.005 } ?? passing[0]
        let f1 = chosen.f1.map { String(format: "%.3f", $0) } ?? "no data"
        return (
            chosen,
            "the shortest list within 0.005 of the best dev keyword F1 (\(f1)) whose anti-context checks pass"
        )
    }
}
