/// A tuning sweep over preparation parameters, scored on a development split.
public struct SweepResults: Codable, Sendable, Equatable {
    /// The variant (training data) swept.
    public var variant: String
    /// The domain corpus scored.
    public var corpus: String
    /// The anti-context corpus scored, if any.
    public var antiContextCorpus: String?
    /// The split the points were scored on, e.g. `dev`.
    public var split: String
    /// How the custom model was combined with the base model: `set` or `merged` (absent in older files).
    public var mix: String?
    /// The mix of the models the points were scored with, when it is not ``mix``: `set` for a weighted merge,
    /// whose points are scored with its set twin (the same custom model interpolated at decode time, which the
    /// merge reproduces, so that a lattice can be rescored at any weight). Absent in older files.
    public var pointModel: String?
    /// How the points were scored: `rescore` (lattices from one decoding pass) or `decode` (each in
    /// full); absent in older files, which rescored.
    public var pointScoring: String?
    /// The engine arguments every decode of the sweep used (``EngineInfo/decoderArguments``); absent in older
    /// files, which used the engine's defaults.
    public var decoderArguments: [String]?
    public var points: [SweepPoint]
    public var recommendation: SweepRecommendation?
    /// Accuracy as distractor terms are added to the variant's data, fewest first; nil when not measured.
    public var scaling: [ScalingPoint]?

    /// The points on the recommendation's curve over the weight (same counts and budget), by weight;
    /// every point when there is no recommendation.
    public var curve: [SweepPoint] {
        let chosen = recommendation.flatMap { r in points.first { $0.parameters == r.parameters } }
        return points.filter { chosen.map($0.onSameCurve) ?? true }.sorted {
            $0.parameters.weight < $1.parameters.weight
        }
    }

    public init(
        variant: String, corpus: String, antiContextCorpus: String? = nil, split: String = "dev", mix: String? = nil,
        pointScoring: String? = nil, decoderArguments: [String]? = nil, points: [SweepPoint],
        recommendation: SweepRecommendation? = nil, scaling: [ScalingPoint]? = nil
    ) {
        self.mix = mix
        self.decoderArguments = decoderArguments
        self.pointScoring = pointScoring
        self.variant = variant
        self.corpus = corpus
        self.antiContextCorpus = antiContextCorpus
        self.split = split
        self.points = points
        self.recommendation = recommendation
        self.scaling = scaling
    }
}

/// One point of a scaling curve: the variant's data plus `distractors` terms nobody says in the audio,
/// fully decoded on the sweep's split. B-WER is over the data's own boosted words.
public struct ScalingPoint: Sendable, Equatable {
    public var distractors: Int
    /// Boosted terms in the prepared model, distractors included.
    public var boostedTerms: Int
    public var samplesUsed: Int
    /// The domain corpus's figures (``MetricSummary/init(_:)`` of its metrics).
    public var metrics: MetricSummary
    /// The anti-context corpora's figures, all together; nil without one.
    public var antiContext: MetricSummary?
    public var prepareSeconds: Double
    /// The engine's decode time of this point's utterances, summed (the same whether they were decoded in
    /// this sweep or read back from its journal, and whatever the number of workers).
    public var decodeSeconds: Double

    public init(
        distractors: Int, boostedTerms: Int, samplesUsed: Int, metrics: MetricSummary, antiContext: MetricSummary?,
        prepareSeconds: Double, decodeSeconds: Double
    ) {
        self.distractors = distractors
        self.boostedTerms = boostedTerms
        self.samplesUsed = samplesUsed
        self.metrics = metrics
        self.antiContext = antiContext
        self.prepareSeconds = prepareSeconds
        self.decodeSeconds = decodeSeconds
    }

    public var wordErrorRate: Double { metrics.wordErrorRate }
    /// B-WER; 0 over no boosted reference word, as the points have always read it.
    public var boostedWordErrorRate: Double { metrics.boostedWordErrorRate ?? 0 }
    public var unboostedWordErrorRate: Double { metrics.unboostedWordErrorRate ?? 0 }
    public var antiContextWordErrorRate: Double? { antiContext?.wordErrorRate }
}

extension ScalingPoint: Codable {
    private enum CodingKeys: String, CodingKey {
        case distractors, boostedTerms, samplesUsed, metrics, antiContext, prepareSeconds, decodeSeconds
    }

    /// Reads a point, and one written before points held their metrics (its rates as fields of its own).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let (metrics, antiContext) = try LegacyPointRates.metrics(from: decoder, new: c, key: .metrics)
        self.init(
            distractors: try c.decode(Int.self, forKey: .distractors),
            boostedTerms: try c.decode(Int.self, forKey: .boostedTerms),
            samplesUsed: try c.decode(Int.self, forKey: .samplesUsed), metrics: metrics,
            antiContext: try c.decodeIfPresent(MetricSummary.self, forKey: .antiContext) ?? antiContext,
            prepareSeconds: try c.decode(Double.self, forKey: .prepareSeconds),
            decodeSeconds: try c.decode(Double.self, forKey: .decodeSeconds))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distractors, forKey: .distractors)
        try c.encode(boostedTerms, forKey: .boostedTerms)
        try c.encode(samplesUsed, forKey: .samplesUsed)
        try c.encode(metrics, forKey: .metrics)
        try c.encodeIfPresent(antiContext, forKey: .antiContext)
        try c.encode(prepareSeconds, forKey: .prepareSeconds)
        try c.encode(decodeSeconds, forKey: .decodeSeconds)
    }
}

/// The rates a sweep or scaling point of an older file held as fields of its own, read into the metrics a point
/// holds now.
enum LegacyPointRates {
    private enum Keys: String, CodingKey {
        case wordErrorRate, boostedWordErrorRate, unboostedWordErrorRate, antiContextWordErrorRate
        case falseAlarmsPerHour, antiContextFalseAlarmsPerHour
    }

    static func metrics<K: CodingKey>(
        from decoder: any Decoder, new: KeyedDecodingContainer<K>, key: K
    ) throws -> (MetricSummary, MetricSummary?) {
        if let metrics = try new.decodeIfPresent(MetricSummary.self, forKey: key) { return (metrics, nil) }
        let old = try decoder.container(keyedBy: Keys.self)
        let metrics = MetricSummary(
            wordErrorRate: try old.decode(Double.self, forKey: .wordErrorRate), sentenceErrorRate: 0,
            boostedWordErrorRate: try old.decodeIfPresent(Double.self, forKey: .boostedWordErrorRate),
            unboostedWordErrorRate: try old.decodeIfPresent(Double.self, forKey: .unboostedWordErrorRate),
            falseAlarmsPerHour: try old.decodeIfPresent(Double.self, forKey: .falseAlarmsPerHour))
        let antiContext = try old.decodeIfPresent(Double.self, forKey: .antiContextWordErrorRate).map {
            MetricSummary(
                wordErrorRate: $0, sentenceErrorRate: 0,
                falseAlarmsPerHour: try old.decodeIfPresent(Double.self, forKey: .antiContextFalseAlarmsPerHour))
        }
        return (metrics, antiContext)
    }
}

/// Preparation parameters of one sweep point.
public struct SweepParameters: Codable, Sendable, Equatable, Hashable {
    /// Interpolation weight of the custom model.
    public var weight: Double
    /// Sample budget, `nil` for unlimited.
    public var budget: Int?
    /// Count scaling per training-data group (group name → factor).
    public var countScaling: [String: Double]

    public init(weight: Double, budget: Int? = nil, countScaling: [String: Double] = [:]) {
        self.weight = weight
        self.budget = budget
        self.countScaling = countScaling
    }
}

/// One point of a sweep.
public struct SweepPoint: Sendable, Equatable {
    public var parameters: SweepParameters
    public var samplesUsed: Int
    /// The domain corpus's figures (``MetricSummary/init(_:)`` of its metrics), its WER from lattice rescoring
    /// unless ``decodedWER`` is set.
    public var metrics: MetricSummary
    /// The anti-context corpora's figures, all together; nil without one.
    public var antiContext: MetricSummary?
    public var prepareSeconds: Double
    /// WER estimated by rescoring baseline lattices.
    public var rescoredWER: Double?
    /// WER of a full decode, for points confirmed by decoding.
    public var decodedWER: Double?
    /// No other point is at least as good in B-WER, U-WER and anti-context WER and better in one.
    public var paretoOptimal: Bool
    /// The anti-context check of each anti-context corpus at this point, judged as the run judges it
    /// (absent in older files).
    public var antiContextChecks: [SweepAntiContextCheck]?

    public init(
        parameters: SweepParameters, samplesUsed: Int, metrics: MetricSummary, antiContext: MetricSummary? = nil,
        prepareSeconds: Double = 0, rescoredWER: Double? = nil, decodedWER: Double? = nil,
        paretoOptimal: Bool = false, antiContextChecks: [SweepAntiContextCheck]? = nil
    ) {
        self.parameters = parameters
        self.samplesUsed = samplesUsed
        self.metrics = metrics
        self.antiContext = antiContext
        self.prepareSeconds = prepareSeconds
        self.rescoredWER = rescoredWER
        self.decodedWER = decodedWER
        self.paretoOptimal = paretoOptimal
        self.antiContextChecks = antiContextChecks
    }

    /// WER on the domain corpus (from lattice rescoring unless ``decodedWER`` is set).
    public var wordErrorRate: Double { metrics.wordErrorRate }
    /// B-WER; 0 over no boosted reference word, as the points have always read it.
    public var boostedWordErrorRate: Double { metrics.boostedWordErrorRate ?? 0 }
    public var unboostedWordErrorRate: Double { metrics.unboostedWordErrorRate ?? 0 }
    /// WER on the anti-context corpora.
    public var antiContextWordErrorRate: Double? { antiContext?.wordErrorRate }
    /// Boosted words heard where the reference does not have them, per hour of audio, on the domain corpus and
    /// on the anti-context corpora (nil without boosted words or audio).
    public var falseAlarmsPerHour: Double? { metrics.falseAlarmsPerHour }
    public var antiContextFalseAlarmsPerHour: Double? { antiContext?.falseAlarmsPerHour }

    /// Confirmed by a full decode.
    public var confirmed: Bool { decodedWER != nil }

    /// Every anti-context check passes at this point (warnings included); true when there are none.
    public var passesAntiContextChecks: Bool { (antiContextChecks ?? []).allSatisfy(\.passed) }

    /// The largest rise in WER over the anti-context corpora (a fraction; 0 when there are none).
    public var worstAntiContextDelta: Double { (antiContextChecks ?? []).map(\.delta).max() ?? 0 }

    /// The same training data, budget and count scaling: points on one curve over the weight.
    public func onSameCurve(as other: SweepPoint) -> Bool {
        parameters.budget == other.parameters.budget && parameters.countScaling == other.parameters.countScaling
    }
}

extension SweepPoint: Codable {
    private enum CodingKeys: String, CodingKey {
        case parameters, samplesUsed, metrics, antiContext, prepareSeconds, rescoredWER, decodedWER, paretoOptimal
        case antiContextChecks
    }

    /// Reads a point, and one written before points held their metrics (its rates as fields of its own).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let (metrics, antiContext) = try LegacyPointRates.metrics(from: decoder, new: c, key: .metrics)
        self.init(
            parameters: try c.decode(SweepParameters.self, forKey: .parameters),
            samplesUsed: try c.decode(Int.self, forKey: .samplesUsed), metrics: metrics,
            antiContext: try c.decodeIfPresent(MetricSummary.self, forKey: .antiContext) ?? antiContext,
            prepareSeconds: try c.decode(Double.self, forKey: .prepareSeconds),
            rescoredWER: try c.decodeIfPresent(Double.self, forKey: .rescoredWER),
            decodedWER: try c.decodeIfPresent(Double.self, forKey: .decodedWER),
            paretoOptimal: try c.decode(Bool.self, forKey: .paretoOptimal),
            antiContextChecks: try c.decodeIfPresent([SweepAntiContextCheck].self, forKey: .antiContextChecks))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(parameters, forKey: .parameters)
        try c.encode(samplesUsed, forKey: .samplesUsed)
        try c.encode(metrics, forKey: .metrics)
        try c.encodeIfPresent(antiContext, forKey: .antiContext)
        try c.encode(prepareSeconds, forKey: .prepareSeconds)
        try c.encodeIfPresent(rescoredWER, forKey: .rescoredWER)
        try c.encodeIfPresent(decodedWER, forKey: .decodedWER)
        try c.encode(paretoOptimal, forKey: .paretoOptimal)
        try c.encodeIfPresent(antiContextChecks, forKey: .antiContextChecks)
    }
}

/// One anti-context corpus at one sweep point, against the baseline on the same utterances.
public struct SweepAntiContextCheck: Codable, Sendable, Equatable {
    public var corpus: String
    public var baselineWordErrorRate: Double
    public var wordErrorRate: Double
    /// Paired bootstrap 95% interval of the change in WER (customized − baseline), as fractions.
    public var deltaLower: Double
    public var deltaUpper: Double
    /// MAPSSWE p-value of the change.
    public var pValue: Double
    /// Significant by the gate's rule (interval excludes 0, or p < 0.05).
    public var significant: Bool
    /// Passes by the run's anti-context rule: not both above the tolerance and significant.
    public var passed: Bool
    /// Above the tolerance but not significant.
    public var warning: Bool
    /// The utterances compared, when too few to judge the change (``Significance/minimumUtterances``); nil
    /// otherwise.
    public var tooFewUtterances: Int?

    public init(
        corpus: String, baselineWordErrorRate: Double, wordErrorRate: Double, deltaLower: Double, deltaUpper: Double,
        pValue: Double, significant: Bool, passed: Bool, warning: Bool, tooFewUtterances: Int? = nil
    ) {
        self.corpus = corpus
        self.baselineWordErrorRate = baselineWordErrorRate
        self.wordErrorRate = wordErrorRate
        self.deltaLower = deltaLower
        self.deltaUpper = deltaUpper
        self.pValue = pValue
        self.significant = significant
        self.passed = passed
        self.warning = warning
        self.tooFewUtterances = tooFewUtterances
    }

    /// Change in WER, as a fraction.
    public var delta: Double { wordErrorRate - baselineWordErrorRate }
}

/// The parameters a sweep recommends, and how they did on held-out data.
public struct SweepRecommendation: Codable, Sendable, Equatable {
    public var parameters: SweepParameters
    /// Why these parameters, in words.
    public var reason: String
    /// The held-out split, e.g. `test`.
    public var testSplit: String
    /// Scores of the recommended parameters on ``testSplit``.
    public var test: MetricSummary
    /// The baseline on ``testSplit``.
    public var testBaseline: MetricSummary
    /// Anti-context WER on the test split, with the recommended parameters.
    public var testAntiContextWER: Double?
    /// Anti-context WER of the baseline on the test split, for comparison (absent in older files).
    public var testAntiContextBaselineWER: Double?
    /// The model the test split was decoded with, when it is not the points' (a weighted merge built for the
    /// recommended weight after its set twin scored the points); nil otherwise and in older files.
    public var testModel: String?

    public init(
        parameters: SweepParameters, reason: String, testSplit: String = "test", test: MetricSummary,
        testBaseline: MetricSummary, testAntiContextWER: Double? = nil, testAntiContextBaselineWER: Double? = nil
    ) {
        self.parameters = parameters
        self.reason = reason
        self.testSplit = testSplit
        self.test = test
        self.testBaseline = testBaseline
        self.testAntiContextWER = testAntiContextWER
        self.testAntiContextBaselineWER = testAntiContextBaselineWER
    }
}
