import Foundation
import Scoring

/// Why a customized decode got a boosted word wrong, from the engine's own evidence.
public enum ErrorCause: String, Codable, CodingKeyRepresentable, Sendable, CaseIterable {
    /// The word has no pronunciation in the decoder's dictionary: nothing can make it recognized.
    case unpronounceable
    /// The word was in the lattice where it was said (or, inserted, the language model put it there), but the
    /// best path went elsewhere: more weight or count (less, for an insertion) fixes it.
    case languageModel = "language-model"
    /// The word was not in the lattice, yet the reference aligns with the audio at least as well as the
    /// hypothesis: the search pruned it, and a wider beam, not more count, would keep it.
    case pruned
    /// The reference aligns with the audio worse than the hypothesis: the pronunciation does not match what
    /// was said, or the audio does not carry the word clearly.
    case acoustics
    /// The evidence could not be gathered: the reference has a word outside the dictionary, so it cannot be
    /// aligned, and the word was not in the lattice.
    case undetermined

    /// How a person reads the cause.
    public var phrase: String {
        switch self {
        case .unpronounceable: "unpronounceable"
        case .languageModel: "fixable by count or weight"
        case .pruned: "pruned by search"
        case .acoustics: "pronunciation or acoustics"
        case .undetermined: "undetermined"
        }
    }
}

/// One boosted-word error of a customized decode: a boosted reference word it missed, or a boosted word
/// it put where nobody said it.
public struct BoostedWordError: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case missed, inserted
    }

    public var word: String
    public var kind: Kind
    /// The word's place among the reference words (missed).
    public var referenceIndex: Int?
    /// What the hypothesis had in its place (missed: nil for a deletion), or what the reference had where the
    /// word was inserted (nil when nothing).
    public var competitor: String?

    public init(word: String, kind: Kind, referenceIndex: Int? = nil, competitor: String? = nil) {
        self.word = word
        self.kind = kind
        self.referenceIndex = referenceIndex
        self.competitor = competitor
    }

    /// The boosted-word errors of an aligned utterance: each boosted reference word aligned to anything
    /// but itself, and each boosted hypothesis word aligned to anything but itself.
    public static func errors(in alignment: [AlignedPair], boosted: Set<String>) -> [BoostedWordError] {
        var errors: [BoostedWordError] = []
        for pair in alignment {
            if let reference = pair.reference, boosted.contains(reference), pair.hypothesis != reference {
                errors.append(
                    BoostedWordError(
                        word: reference, kind: .missed, referenceIndex: pair.referenceIndex,
                        competitor: pair.hypothesis))
            }
            if let hypothesis = pair.hypothesis, boosted.contains(hypothesis), pair.reference != hypothesis {
                errors.append(
                    BoostedWordError(
                        word: hypothesis, kind: .inserted, referenceIndex: pair.referenceIndex,
                        competitor: pair.reference))
            }
        }
        return errors
    }
}

/// The cause of one boosted-word error, and the evidence for it.
public struct ErrorDiagnosis: Codable, Sendable, Equatable {
    public var error: BoostedWordError
    public var cause: ErrorCause
    /// Whether the word was in the decode's lattice near where the reference says it (anywhere, when the
    /// reference could not be aligned); nil for an unpronounceable word.
    public var inLattice: Bool?
    /// Whether the audio fits the reference at least as well as the hypothesis: both sentences offered to
    /// one forced-alignment search (a grammar of the two alternatives), which keeps the better fit. Nil when
    /// the reference has a word outside the dictionary. (Scores of two separate searches are not
    /// comparable: PocketSphinx normalises each frame by the best senone the search computed.)
    public var referenceFits: Bool?
    /// The weight at which rescoring the lattice fixes the error: the smallest above the variant's (missed)
    /// or the largest below it (inserted); nil when none of those tried does, or the mix cannot be rescored
    /// at another weight.
    public var fixingWeight: Double?
    /// Frames (10 ms) of the word in the reference's forced alignment.
    public var startFrame: Int?
    public var endFrame: Int?
    /// The word's best posterior probability among the lattice's nodes of it near where it was said (missed) or
    /// put (inserted), 0…1; nil when the lattice has none.
    public var posterior: Double?
    /// The competitor's (what the hypothesis had instead, or what the reference had where the word was
    /// inserted) best posterior there; nil for none, or a competitor the lattice lacks.
    public var competitorPosterior: Double?
    /// True when the word is unpronounceable because every pronunciation the training data gave it was
    /// flagged by lint (symbols X-SAMPA mapping does not support) and the dictionary's is a spelling guess.
    public var flaggedPronunciation: Bool?

    /// A missed, pronounceable word the lattice lacks, whose reference fits the audio at least as well as the
    /// hypothesis (or could not be offered): decoding again with wide beams, then at a heavier weight, tells
    /// whether the search or the weight lost it. One that fits worse is the pronunciation's or the audio's.
    public var needsExperiment: Bool {
        error.kind == .missed && inLattice == false && cause != .unpronounceable && referenceFits != false
    }

    public init(
        error: BoostedWordError, cause: ErrorCause, inLattice: Bool? = nil, referenceFits: Bool? = nil,
        fixingWeight: Double? = nil, startFrame: Int? = nil, endFrame: Int? = nil, posterior: Double? = nil,
        competitorPosterior: Double? = nil, flaggedPronunciation: Bool? = nil
    ) {
        self.error = error
        self.cause = cause
        self.inLattice = inLattice
        self.referenceFits = referenceFits
        self.fixingWeight = fixingWeight
        self.startFrame = startFrame
        self.endFrame = endFrame
        self.posterior = posterior
        self.competitorPosterior = competitorPosterior
        self.flaggedPronunciation = flaggedPronunciation
    }
}

/// `gambit diagnose`: why each boosted-word error of a run's customized decodes happened, per variant.
public struct DiagnosisReport: Codable, Sendable, Equatable {
    public var suite: String
    public var variants: [VariantDiagnosis]

    public init(suite: String, variants: [VariantDiagnosis]) {
        self.suite = suite
        self.variants = variants
    }
}

/// One variant's boosted-word errors and their causes.
public struct VariantDiagnosis: Codable, Sendable, Equatable {
    public var variant: String
    /// The variant's weight, which rescoring compares against.
    public var weight: Double
    public var utterances: [UtteranceDiagnosis]
    public var terms: [TermDiagnosis]
    /// The customized decode time of the utterances examined (from the run), and the diagnosis's own time.
    public var decodeSeconds: Double
    public var diagnoseSeconds: Double
    /// What the fixing weights cost on the variant's anti-context corpora; nil when no weight fixes anything,
    /// the run has no anti-context corpus, or the model is a history or constant merge (its weight is built in).
    public var antiContext: AntiContextCost?
    /// Utterances that could not be examined ("corpus/id: why"): unreadable audio, a failed decode.
    public var failures: [String]?
    /// Of the utterances examined, how many were read from the lattices the run kept and how many were decoded
    /// again (no kept lattice); nil in a diagnosis that did not record it.
    public var latticesRead: Int?
    public var decodedAgain: Int?
    /// What to change in the training data, learned on the corpora (and splits) diagnosed; nil in a diagnosis that
    /// made none.
    public var suggestions: VariantSuggestions?
    /// The mix the weights were tried with, when it is not the variant's own: `set` for a weighted merge, whose set
    /// twin (the same custom model interpolated at decode time) scores as the merge does and can change weight on
    /// a lattice. Nil otherwise and in older diagnoses.
    public var weightsTriedWith: String?

    public init(
        variant: String, weight: Double, utterances: [UtteranceDiagnosis], terms: [TermDiagnosis],
        decodeSeconds: Double, diagnoseSeconds: Double, antiContext: AntiContextCost? = nil, failures: [String]? = nil
    ) {
        self.antiContext = antiContext
        self.failures = failures
        self.variant = variant
        self.weight = weight
        self.utterances = utterances
        self.terms = terms
        self.decodeSeconds = decodeSeconds
        self.diagnoseSeconds = diagnoseSeconds
    }

    public var diagnoses: [ErrorDiagnosis] { utterances.flatMap(\.diagnoses) }

    /// The fixing weights of its terms: where the anti-context cost is measured.
    public var fixingWeights: [Double] {
        Set(terms.flatMap { [$0.raiseWeightTo, $0.lowerWeightTo].compactMap { $0 } }).sorted()
    }

    /// "1 utterance examined", "12 utterances examined".
    public var examined: String {
        "\(utterances.count) \(utterances.count == 1 ? "utterance" : "utterances") examined"
    }

    /// How many errors each cause explains.
    public var byCause: [ErrorCause: Int] {
        diagnoses.reduce(into: [:]) { $0[$1.cause, default: 0] += 1 }
    }

    /// "of 31 boosted-word errors, 12 are fixable by count or weight, 9 are pronunciation or acoustics, …"
    public var sentence: String {
        let all = diagnoses.count
        guard all > 0 else { return "no boosted-word errors" }
        let counts = byCause
        let parts = ErrorCause.allCases.compactMap { cause -> String? in
            guard let count = counts[cause], count > 0 else { return nil }
            return "\(count) \(count == 1 ? "is" : "are") \(cause.phrase)"
        }
        return "of \(all) boosted-word \(all == 1 ? "error" : "errors"), " + parts.joined(separator: ", ")
    }

    /// The errors grouped by word: occurrences in the reference, misses and insertions by cause, and the
    /// smallest change that fixes its language-model errors.
    public static func terms(_ utterances: [UtteranceDiagnosis], occurrences: [String: Int], weight: Double)
        -> [TermDiagnosis]
    {
        var terms: [String: TermDiagnosis] = [:]
        for diagnosis in utterances.flatMap(\.diagnoses) {
            let word = diagnosis.error.word
            var term = terms[word] ?? TermDiagnosis(word: word, occurrences: occurrences[word] ?? 0)
            switch diagnosis.error.kind {
            case .missed: term.missed[diagnosis.cause, default: 0] += 1
            case .inserted: term.inserted[diagnosis.cause, default: 0] += 1
            }
            if diagnosis.cause == .languageModel, let fix = diagnosis.fixingWeight {
                switch diagnosis.error.kind {
                case .missed: term.raiseWeightTo = max(term.raiseWeightTo ?? 0, fix)
                case .inserted: term.lowerWeightTo = min(term.lowerWeightTo ?? 1, fix)
                }
            }
            terms[word] = term
        }
        return terms.values.sorted { ($0.errors, $1.word) > ($1.errors, $0.word) }
    }
}

/// What rescoring the variant's anti-context lattices at each fixing weight does to their errors, against
/// rescoring them at the variant's own weight (the same lattices, so the difference is the weight's alone).
public struct AntiContextCost: Codable, Sendable, Equatable {
    public struct AtWeight: Codable, Sendable, Equatable {
        public var weight: Double
        /// Word errors over all the anti-context utterances.
        public var errors: Int
        /// Boosted words the best paths put where the references do not say them.
        public var boostedInsertions: Int

        public init(weight: Double, errors: Int, boostedInsertions: Int) {
            self.weight = weight
            self.errors = errors
            self.boostedInsertions = boostedInsertions
        }
    }

    public var corpora: [String]
    public var utterances: Int
    public var referenceWords: Int
    /// At the variant's own weight: the reference point.
    public var own: AtWeight
    /// At each fixing weight, ascending.
    public var weights: [AtWeight]
    /// The customized decode time of these utterances in the run, and the time it took to measure the cost.
    public var decodeSeconds: Double
    public var seconds: Double

    public init(
        corpora: [String], utterances: Int, referenceWords: Int, own: AtWeight, weights: [AtWeight],
        decodeSeconds: Double, seconds: Double
    ) {
        self.seconds = seconds
        self.corpora = corpora
        self.utterances = utterances
        self.referenceWords = referenceWords
        self.own = own
        self.weights = weights
        self.decodeSeconds = decodeSeconds
    }

    /// "anti-context WER +0.41 points, 2 boosted insertions" at `weight`; nil when it was not measured there.
    public func phrase(at weight: Double) -> String? {
        guard let at = weights.first(where: { $0.weight == weight }), referenceWords > 0 else { return nil }
        let points = Double(at.errors - own.errors) / Double(referenceWords) * 100
        let insertions = at.boostedInsertions - own.boostedInsertions
        return String(format: "anti-context WER %@%.2f points", points < 0 ? "" : "+", points)
            + (insertions == 0 ? "" : ", \(insertions > 0 ? "+" : "")\(insertions) boosted insertions")
    }
}

/// One utterance's boosted-word errors, beside its reference and hypothesis.
public struct UtteranceDiagnosis: Codable, Sendable, Equatable {
    public var corpus: String
    public var id: String
    public var reference: String
    public var hypothesis: String
    public var diagnoses: [ErrorDiagnosis]

    public init(corpus: String, id: String, reference: String, hypothesis: String, diagnoses: [ErrorDiagnosis]) {
        self.corpus = corpus
        self.id = id
        self.reference = reference
        self.hypothesis = hypothesis
        self.diagnoses = diagnoses
    }
}

/// One boosted word's errors by cause.
public struct TermDiagnosis: Codable, Sendable, Equatable {
    public var word: String
    /// Times the reference says it, in the corpora examined.
    public var occurrences: Int
    public var missed: [ErrorCause: Int] = [:]
    public var inserted: [ErrorCause: Int] = [:]
    /// The weight at which rescoring fixes every miss the language model explains (nil: none does).
    public var raiseWeightTo: Double?
    /// The weight at which rescoring removes every insertion the language model explains.
    public var lowerWeightTo: Double?

    public init(word: String, occurrences: Int) {
        self.word = word
        self.occurrences = occurrences
    }

    public var errors: Int { missed.values.reduce(0, +) + inserted.values.reduce(0, +) }
}

extension TermDiagnosis {
    /// The causes of its errors, e.g. "2 missed: fixable by count or weight; 1 inserted: pronunciation or
    /// acoustics".
    public var causes: String {
        var parts: [String] = []
        for cause in ErrorCause.allCases {
            if let missed = missed[cause] { parts.append("\(missed) missed: \(cause.phrase)") }
            if let inserted = inserted[cause] { parts.append("\(inserted) inserted: \(cause.phrase)") }
        }
        return parts.joined(separator: "; ")
    }

    /// The smallest weight changes that fix its language-model errors, with what each costs on the anti-context
    /// corpora, e.g. "weight 0.7 fixes its misses (anti-context WER +0.41 points)"; nil when none does.
    public func smallestFix(cost: AntiContextCost? = nil) -> String? {
        var parts: [String] = []
        for (weight, what) in [(raiseWeightTo, "fixes its misses"), (lowerWeightTo, "removes its insertions")] {
            guard let weight else { continue }
            parts.append("weight \(Self.weight(weight)) \(what)" + (cost?.phrase(at: weight).map { " (\($0))" } ?? ""))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// A weight as written in a suite: 0.7, 0.05, 1e-06.
    public static func weight(_ value: Double) -> String { String(format: "%g", value) }
}

extension ErrorDiagnosis {
    /// The error as a person reads it: "albin → album", "albin deleted", "+albin (for alvin)".
    public var label: String {
        switch error.kind {
        case .missed: error.competitor.map { "\(error.word) → \($0)" } ?? "\(error.word) deleted"
        case .inserted: "+\(error.word)" + (error.competitor.map { " (for \($0))" } ?? "")
        }
    }

    /// The evidence behind the cause, e.g. "in the lattice (posterior 0.04; album 0.95); weight 0.7 fixes it".
    public var evidence: String {
        var parts: [String] = []
        if flaggedPronunciation == true {
            parts.append("its only pronunciations are ones lint flagged")
        } else if cause == .unpronounceable {
            parts.append("no pronunciation in the dictionary")
        }
        if let inLattice {
            var lattice = inLattice ? "in the lattice" : "not in the lattice"
            let scores = [
                posterior.map { "posterior " + Self.probability($0) },
                competitorPosterior.flatMap { p in error.competitor.map { "\($0) " + Self.probability(p) } },
            ].compactMap { $0 }
            if !scores.isEmpty { lattice += " (" + scores.joined(separator: "; ") + ")" }
            parts.append(lattice)
        }
        if let referenceFits, error.kind == .missed {
            parts.append(
                referenceFits
                    ? "the reference fits the audio at least as well as the hypothesis"
                    : "the hypothesis fits the audio better than the reference")
        }
        if let fixingWeight, cause == .languageModel {
            parts.append("weight \(TermDiagnosis.weight(fixingWeight)) fixes it")
        }
        return parts.joined(separator: "; ")
    }

    static func probability(_ value: Double) -> String {
        value < 0.005 && value > 0 ? "<0.01" : String(format: "%.2f", value)
    }
}
