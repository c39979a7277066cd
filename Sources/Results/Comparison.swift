public import Scoring

/// One variant against the baseline on one corpus: the deltas, their intervals and the significance tests.
///
/// Δ is customized − baseline, so negative is better. The B-WER and U-WER of both systems are computed over this
/// variant's boosted words.
public struct Comparison: Codable, Sendable, Equatable {
    public var corpus: String
    public var variant: String
    /// The external recognizer both systems are of (its baseline against it customized with ``variant``); nil
    /// for PocketSphinx.
    public var recognizer: String?
    /// The phrase list of a list system (``SystemResults/list``); nil for every other customization.
    public var list: PhraseListUse?
    public var baseline: MetricSummary
    public var customized: MetricSummary
    /// The oracle system of this corpus, when one was decoded.
    public var oracle: MetricSummary?
    /// Utterances paired in the tests (every utterance of the corpus, failures included).
    public var pairedUtterances: Int
    /// Paired bootstrap 95% interval of ΔWER.
    public var deltaWER: BootstrapInterval
    /// Paired bootstrap 95% interval of ΔB-WER, when the variant has boosted words.
    public var deltaBoostedWER: BootstrapInterval?
    /// Paired bootstrap 95% interval of ΔU-WER, when the variant has boosted words.
    public var deltaUnboostedWER: BootstrapInterval?
    /// Paired bootstrap 95% interval of the change in false alarms per hour (boosted words heard where the
    /// reference does not have them), when the variant has boosted words or the corpus biasing lists.
    public var deltaFalseAlarmsPerHour: BootstrapInterval?
    /// MAPSSWE (system A = baseline, B = customized).
    public var matchedPairs: MatchedPairsResult
    /// McNemar on sentence errors (A = baseline, B = customized).
    public var mcNemar: McNemarResult
    /// (baseline − customized) / (baseline − oracle) WER: the share of the achievable gain captured; `nil` without an
    /// oracle or when the oracle is no better than the baseline.
    public var oracleGainCaptured: Double?
    /// The WER change is significant: the ΔWER interval excludes 0 or MAPSSWE has p < 0.05, over at least
    /// ``Significance/minimumUtterances`` paired utterances.
    public var significant: Bool

    /// `chess-full`, `chess-full @ whisper`, `chess-full/global @ whisper`: how reports and checks name it.
    public var label: String { Self.label(variant, recognizer: recognizer, list: list?.name) }

    /// How reports and checks name a customization: the variant, its phrase list's name, its recognizer.
    public static func label(_ variant: String, recognizer: String?, list: String? = nil) -> String {
        variant + (list.map { "/\($0)" } ?? "") + (recognizer.map { " @ \($0)" } ?? "")
    }

    /// The paired utterances, when they are too few to judge the change (``Significance/minimumUtterances``).
    public var tooFewUtterances: Int? { Significance.tooFew(pairedUtterances) ? pairedUtterances : nil }

    /// "significant", "not significant" or "too few utterances to judge (…)".
    public var verdict: String { Significance.verdict(significant: significant, tooFewUtterances: tooFewUtterances) }

    public init(
        corpus: String, variant: String, baseline: MetricSummary, customized: MetricSummary,
        oracle: MetricSummary? = nil, pairedUtterances: Int, deltaWER: BootstrapInterval,
        deltaBoostedWER: BootstrapInterval? = nil, deltaUnboostedWER: BootstrapInterval? = nil,
        deltaFalseAlarmsPerHour: BootstrapInterval? = nil, matchedPairs: MatchedPairsResult, mcNemar: McNemarResult,
        oracleGainCaptured: Double? = nil,
        significant: Bool, recognizer: String? = nil
    ) {
        self.corpus = corpus
        self.variant = variant
        self.recognizer = recognizer
        self.baseline = baseline
        self.customized = customized
        self.oracle = oracle
        self.pairedUtterances = pairedUtterances
        self.deltaWER = deltaWER
        self.deltaBoostedWER = deltaBoostedWER
        self.deltaUnboostedWER = deltaUnboostedWER
        self.deltaFalseAlarmsPerHour = deltaFalseAlarmsPerHour
        self.matchedPairs = matchedPairs
        self.mcNemar = mcNemar
        self.oracleGainCaptured = oracleGainCaptured
        self.significant = significant
    }
}

/// The headline numbers of one system, as compared.
public struct MetricSummary: Codable, Sendable, Equatable {
    public var wordErrorRate: Double
    public var sentenceErrorRate: Double
    /// Over the compared variant's boosted words.
    public var boostedWordErrorRate: Double?
    public var unboostedWordErrorRate: Double?
    /// Keyword F1 by position over the variant's boosted words (``KeywordMetrics/overall``).
    public var keywordF1: Double?
    /// False alarms per hour of audio over the variant's boosted words.
    public var falseAlarmsPerHour: Double?
    /// The false alarms themselves.
    public var falseAlarms: Int?

    public init(
        wordErrorRate: Double, sentenceErrorRate: Double, boostedWordErrorRate: Double? = nil,
        unboostedWordErrorRate: Double? = nil, keywordF1: Double? = nil,
        falseAlarmsPerHour: Double? = nil, falseAlarms: Int? = nil
    ) {
        self.wordErrorRate = wordErrorRate
        self.sentenceErrorRate = sentenceErrorRate
        self.boostedWordErrorRate = boostedWordErrorRate
        self.unboostedWordErrorRate = unboostedWordErrorRate
        self.keywordF1 = keywordF1
        self.falseAlarmsPerHour = falseAlarmsPerHour
        self.falseAlarms = falseAlarms
    }

    /// The headline numbers of a system's metrics.
    public init(_ metrics: SystemMetrics) {
        self.init(
            wordErrorRate: metrics.rates.wordErrorRate, sentenceErrorRate: metrics.rates.sentenceErrorRate,
            boostedWordErrorRate: metrics.boosted?.boostedWordErrorRate,
            unboostedWordErrorRate: metrics.boosted?.unboostedWordErrorRate, keywordF1: metrics.keywords?.overall.f1,
            falseAlarmsPerHour: metrics.keywords?.falseAlarmsPerHour, falseAlarms: metrics.keywords?.overall.falseAlarms
        )
    }
}

/// What a check is about. Open-ended: the known kinds are constants, and any other string decodes too.
public struct CheckKind: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    /// Recognition ran on-device: the network was denied and nothing reached it.
    public static let onDevice = CheckKind(rawValue: "onDevice")
    /// A canary utterance only the custom model can get right was recognized (customization was really applied).
    public static let canary = CheckKind(rawValue: "canary")
    /// WER on an anti-context corpus did not rise beyond its limit.
    public static let antiContext = CheckKind(rawValue: "antiContext")
    /// WER of a system within its limit.
    public static let werGate = CheckKind(rawValue: "werGate")
    /// B-WER improved by at least the required amount.
    public static let boostedGain = CheckKind(rawValue: "boostedGain")
    /// A latency percentile or real-time factor within its limit.
    public static let latency = CheckKind(rawValue: "latency")
    /// No utterance failed or crashed.
    public static let failures = CheckKind(rawValue: "failures")
    /// An external recognizer's customization changed its hypotheses, and it did not say it ignored it.
    public static let customizationEffect = CheckKind(rawValue: "customizationEffect")
    /// Private training data went to a recognizer off the device, as the suite allowed (a warning, never silent).
    public static let privacy = CheckKind(rawValue: "privacy")
}

/// One named pass/fail check.
public struct Check: Codable, Sendable, Equatable {
    /// Unique within a run, e.g. `chess/chess-full WER gate`.
    public var name: String
    public var kind: CheckKind
    public var passed: Bool
    /// The measured value, in the unit of ``threshold``.
    public var measured: Double?
    public var threshold: Double?
    /// Unit of ``measured`` and ``threshold``: `fraction` (rates), `seconds`, `count`, or empty.
    public var unit: String
    public var corpus: String?
    public var variant: String?
    /// What was checked and what was found, with the numbers.
    public var message: String
    /// True when the check does not apply to this run (e.g. the canary of a variant that no mode
    /// decoded with); absent otherwise. A skipped check does not fail the run and is not counted as
    /// passed.
    public var skipped: Bool?
    /// True when the check passed with a warning: something moved the wrong way, but not enough to
    /// fail it (an anti-context increase above the tolerance that is not significant); the message
    /// says what. Absent otherwise.
    public var warning: Bool?

    /// The check does not apply to this run; see ``skipped``.
    public var isSkipped: Bool { skipped == true }

    /// The check passed with a warning; see ``warning``.
    public var isWarning: Bool { warning == true && passed && !isSkipped }

    /// A check that does not apply to this run, with the reason in `message`.
    public static func skipped(
        name: String, kind: CheckKind, corpus: String? = nil, variant: String? = nil, message: String
    ) -> Check {
        var check = Check(name: name, kind: kind, passed: true, corpus: corpus, variant: variant, message: message)
        check.skipped = true
        return check
    }

    public init(
        name: String, kind: CheckKind, passed: Bool, measured: Double? = nil, threshold: Double? = nil,
        unit: String = "", corpus: String? = nil, variant: String? = nil, message: String
    ) {
        self.name = name
        self.kind = kind
        self.passed = passed
        self.measured = measured
        self.threshold = threshold
        self.unit = unit
        self.corpus = corpus
        self.variant = variant
        self.message = message
    }
}
