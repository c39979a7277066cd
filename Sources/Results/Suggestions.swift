import Foundation

/// What `gambit diagnose` suggests changing in a variant's training data, learned from the corpora (and splits)
/// the run decoded: pronunciations heard in the audio, and phrase counts from the weights that fix their errors.
/// `gambit lint --apply` merges them into a new training file.
public struct VariantSuggestions: Codable, Sendable, Equatable {
    /// Where the suggestions were learned: each corpus the diagnosis examined, with the split the run scored
    /// ("dev"; "all" for a corpus that names none).
    public var learnedOn: [String: String]
    public var pronunciations: [PronunciationSuggestion]
    public var counts: [CountSuggestion]
    /// Terms whose pronunciations were examined and none fit clearly better (word → why), so the reader sees they
    /// were looked at.
    public var examined: [String: String]

    public init(
        learnedOn: [String: String], pronunciations: [PronunciationSuggestion] = [], counts: [CountSuggestion] = [],
        examined: [String: String] = [:]
    ) {
        self.learnedOn = learnedOn
        self.pronunciations = pronunciations
        self.counts = counts
        self.examined = examined
    }

    public var isEmpty: Bool { pronunciations.isEmpty && counts.isEmpty }

    /// "1 pronunciation, 4 counts".
    public var tally: String {
        let (p, c) = (pronunciations.count, counts.count)
        return "\(p) \(p == 1 ? "pronunciation" : "pronunciations"), \(c) \(c == 1 ? "count" : "counts")"
    }

    /// "learned on chess (dev), carrier-chess (dev)".
    public var provenance: String {
        "learned on " + learnedOn.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
    }
}

/// A pronunciation that fits a term's audio clearly better than the ones the variant gives it.
public struct PronunciationSuggestion: Codable, Sendable, Equatable {
    /// Where a candidate came from.
    public enum Source: String, Codable, Sendable {
        /// The X-SAMPA the training data supplies.
        case supplied
        /// flite's guess from the spelling.
        case spelling
        /// The dictionary's pronunciations of the term's parts, joined (`albin_counter`, `stone` + `wall`).
        case dictionaryParts = "dictionary-parts"
        /// What a phone loop heard over one of the term's segments.
        case phoneLoop = "phone-loop"

        public var phrase: String {
            switch self {
            case .supplied: "the supplied X-SAMPA"
            case .spelling: "the spelling (flite)"
            case .dictionaryParts: "the dictionary's parts"
            case .phoneLoop: "a phone loop over its audio"
            }
        }
    }

    public var word: String
    /// The acoustic model's phones, and the same in X-SAMPA (what the training data takes).
    public var phones: [String]
    public var xsampa: String
    public var source: Source
    /// The pronunciations it was measured against (the variant's own; empty when the word had none).
    public var current: [[String]]
    /// Its forced-alignment path score minus the best current pronunciation's, averaged over the segments both
    /// align, in the engine's log units (larger is better; the same search settings for every candidate).
    public var margin: Double
    /// On how many of the term's segments it scores better than every current pronunciation, of how many aligned.
    public var better: Int
    public var segments: Int
    /// The term's errors the diagnosis put on pronunciation or acoustics (or unpronounceable).
    public var errors: Int

    public init(
        word: String, phones: [String], xsampa: String, source: Source, current: [[String]], margin: Double,
        better: Int, segments: Int, errors: Int
    ) {
        self.word = word
        self.phones = phones
        self.xsampa = xsampa
        self.source = source
        self.current = current
        self.margin = margin
        self.better = better
        self.segments = segments
        self.errors = errors
    }

    /// "fits 5 of 6 segments better than W IH N AW ER (margin 12.3 per segment; from a phone loop over its audio)".
    public var evidence: String {
        let against =
            current.isEmpty ? "no pronunciation" : current.map { $0.joined(separator: " ") }.joined(separator: " | ")
        return String(
            format: "fits %ld of %ld segments better than %@ (margin %.1f per segment; from %@)", better, segments,
            against, margin, source.phrase)
    }
}

/// A new count for a phrase (or a template) that holds a term, from the weight that fixes the term's errors.
public struct CountSuggestion: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case phrase, template
    }

    public var kind: Kind
    /// The phrase, or the template's text.
    public var text: String
    public var from: Int
    public var to: Int
    /// The term whose errors it fixes (missed: raise; inserted in anti-context speech: lower).
    public var word: String
    /// The weight rescoring found fixes them, against the variant's.
    public var fixingWeight: Double
    public var variantWeight: Double
    /// What that weight costs on the anti-context corpora, when measured ("anti-context WER +0.41 points").
    public var cost: String?

    public init(
        kind: Kind, text: String, from: Int, to: Int, word: String, fixingWeight: Double, variantWeight: Double,
        cost: String? = nil
    ) {
        self.kind = kind
        self.text = text
        self.from = from
        self.to = to
        self.word = word
        self.fixingWeight = fixingWeight
        self.variantWeight = variantWeight
        self.cost = cost
    }

    public var raises: Bool { to > from }

    /// "raise: weight 0.7 (not 0.5) fixes the misses of winawer (anti-context WER +0.00 points)".
    public var evidence: String {
        let what = raises ? "fixes the misses of \(word)" : "removes the insertions of \(word)"
        return "\(raises ? "raise" : "lower"): weight \(TermDiagnosis.weight(fixingWeight)) "
            + "(not \(TermDiagnosis.weight(variantWeight))) \(what)" + (cost.map { " (\($0))" } ?? "")
    }
}
