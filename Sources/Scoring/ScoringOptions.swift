import Formats

/// What to do with a reference utterance that has no hypothesis.
///
/// The default, like NIST sclite, scores it against an empty hypothesis: a recognizer that drops
/// utterances must not look better for it.
public enum MissingHypothesisPolicy: String, Sendable, Codable, Hashable, CaseIterable {
    /// Leave it out of the rates and count it as unscored (with a warning).
    case skip
    /// Score it against an empty hypothesis: every reference word is a deletion (with a warning).
    case scoreAsEmpty
    /// Refuse to score: a missing hypothesis is an error naming the ids.
    case error
}

/// Everything that controls one scoring run.
public struct ScoringOptions: Sendable, Codable, Hashable {
    /// Alignment cost scheme.
    public var mode: AlignmentMode
    /// Applied to references, hypotheses, boosted words, terms and templates alike.
    public var normalizer: Normalizer
    /// Boosted vocabulary for B-WER/U-WER and the headline keyword figures; phrases are split into their words.
    /// Empty: no B-WER.
    public var boostedWords: [String]
    /// Terms (possibly several words), each scored by position on its own row. Empty: none.
    public var terms: [String]
    /// Take ``boostedWords`` as a run takes a variant's: beside a reference with per-utterance lists, each
    /// utterance's list gives its B-WER and headline keyword figures and the boosted words only their rows. Off,
    /// boosted words beside lists are refused (``ScoringError/conflictingBiasingLists(reference:)``), since a user
    /// who gives both most likely expects the words to count.
    public var boostedWordsBesideLists: Bool
    /// Templates for per-class slot errors. `nil`: no slot report.
    public var templates: SlotTemplates?
    /// What a reference utterance without a hypothesis counts as; all deletions by default.
    public var missingHypothesis: MissingHypothesisPolicy
    /// Format of the reference file; inferred when `nil`.
    public var referenceFormat: TranscriptFormat?
    /// Format of the hypothesis file; inferred when `nil`.
    public var hypothesisFormat: TranscriptFormat?
    /// Put REF/HYP/Eval lines in every ``UtteranceScore``. Costs memory on large sets.
    public var includeAlignedText: Bool
    /// How many of the worst utterances the report shows aligned.
    public var worstUtteranceCount: Int
    /// How many confusion pairs the report keeps (most frequent first).
    public var confusionPairLimit: Int
    /// Compute the character error rate.
    public var characterErrorRate: Bool
    /// Break WER (and B-WER) down by this label, with bootstrap intervals: `speaker`, or any string field of a
    /// JSON-lines reference (a Gambit manifest's `condition`, `split`…). `nil`: no breakdown.
    public var breakdownField: String?
    /// Resamples and seed of the breakdown's and the false alarms' intervals.
    public var bootstrap: BootstrapOptions

    public init(
        mode: AlignmentMode = .sclite,
        normalizer: Normalizer = .standard,
        boostedWords: [String] = [],
        terms: [String] = [],
        boostedWordsBesideLists: Bool = false,
        templates: SlotTemplates? = nil,
        missingHypothesis: MissingHypothesisPolicy = .scoreAsEmpty,
        referenceFormat: TranscriptFormat? = nil,
        hypothesisFormat: TranscriptFormat? = nil,
        includeAlignedText: Bool = false,
        worstUtteranceCount: Int = 10,
        confusionPairLimit: Int = 50,
        characterErrorRate: Bool = true,
        breakdownField: String? = nil,
        bootstrap: BootstrapOptions = .init()
    ) {
        self.mode = mode
        self.normalizer = normalizer
        self.boostedWords = boostedWords
        self.terms = terms
        self.boostedWordsBesideLists = boostedWordsBesideLists
        self.templates = templates
        self.missingHypothesis = missingHypothesis
        self.referenceFormat = referenceFormat
        self.hypothesisFormat = hypothesisFormat
        self.includeAlignedText = includeAlignedText
        self.worstUtteranceCount = worstUtteranceCount
        self.confusionPairLimit = confusionPairLimit
        self.characterErrorRate = characterErrorRate
        self.breakdownField = breakdownField
        self.bootstrap = bootstrap
    }
}

/// Utterances that could not be scored.
public struct UnscoredUtterances: Sendable, Codable, Hashable {
    /// Reference utterances without a hypothesis that were skipped.
    public var onlyInReference: Int
    /// Hypothesis utterances without a reference (never scored).
    public var onlyInHypothesis: Int
    /// Reference utterances without a hypothesis that were scored as empty (see ``MissingHypothesisPolicy``).
    public var scoredAsEmpty: Int

    public init(onlyInReference: Int = 0, onlyInHypothesis: Int = 0, scoredAsEmpty: Int = 0) {
        self.onlyInReference = onlyInReference
        self.onlyInHypothesis = onlyInHypothesis
        self.scoredAsEmpty = scoredAsEmpty
    }
}
