/// How reference and hypothesis words are aligned.
public enum AlignmentMode: String, Sendable, Codable, Hashable, CaseIterable {
    /// NIST sclite's weights (correct 0, insertion 3, deletion 3, substitution 4) and tie rule, so the
    /// per-utterance substitution/deletion/insertion split matches sclite exactly.
    case sclite
    /// Unit costs: the total error count is the true minimum (Levenshtein) edit distance.
    case minimal

    var costs: EditCosts {
        switch self {
        case .sclite: EditCosts(substitution: 4, insertion: 3, deletion: 3)
        case .minimal: EditCosts(substitution: 1, insertion: 1, deletion: 1)
        }
    }
}

struct EditCosts: Sendable, Hashable {
    var substitution: Int32
    var insertion: Int32
    var deletion: Int32
}

/// One step of an alignment.
public enum EditOperation: String, Sendable, Codable, Hashable, CaseIterable {
    case correct
    case substitution
    /// A reference word with no hypothesis word.
    case deletion
    /// A hypothesis word with no reference word.
    case insertion
}

/// One aligned position: a reference word, a hypothesis word, or both.
public struct AlignedPair: Sendable, Codable, Hashable {
    public var operation: EditOperation
    /// Index of the reference word, `nil` for an insertion.
    public var referenceIndex: Int?
    /// Index of the hypothesis word, `nil` for a deletion.
    public var hypothesisIndex: Int?
    /// The reference word, `nil` for an insertion.
    public var reference: String?
    /// The hypothesis word, `nil` for a deletion.
    public var hypothesis: String?

    public init(
        operation: EditOperation,
        referenceIndex: Int?,
        hypothesisIndex: Int?,
        reference: String?,
        hypothesis: String?
    ) {
        self.operation = operation
        self.referenceIndex = referenceIndex
        self.hypothesisIndex = hypothesisIndex
        self.reference = reference
        self.hypothesis = hypothesis
    }
}

/// Counts of alignment outcomes.
public struct ErrorCounts: Sendable, Codable, Hashable {
    /// Reference words (N = correct + substitutions + deletions).
    public var referenceWords: Int
    public var correct: Int
    public var substitutions: Int
    public var deletions: Int
    public var insertions: Int

    public init(
        referenceWords: Int = 0, correct: Int = 0, substitutions: Int = 0, deletions: Int = 0, insertions: Int = 0
    ) {
        self.referenceWords = referenceWords
        self.correct = correct
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
    }

    /// Substitutions + deletions + insertions.
    public var errors: Int { substitutions + deletions + insertions }
    /// Hypothesis words (correct + substitutions + insertions).
    public var hypothesisWords: Int { correct + substitutions + insertions }

    /// Adds another set of counts.
    public static func + (lhs: ErrorCounts, rhs: ErrorCounts) -> ErrorCounts {
        ErrorCounts(
            referenceWords: lhs.referenceWords + rhs.referenceWords,
            correct: lhs.correct + rhs.correct,
            substitutions: lhs.substitutions + rhs.substitutions,
            deletions: lhs.deletions + rhs.deletions,
            insertions: lhs.insertions + rhs.insertions
        )
    }

    /// Adds another set of counts in place.
    public static func += (lhs: inout ErrorCounts, rhs: ErrorCounts) { lhs = lhs + rhs }

    mutating func record(_ operation: EditOperation) {
        switch operation {
        case .correct:
            correct += 1
            referenceWords += 1
        case .substitution:
            substitutions += 1
            referenceWords += 1
        case .deletion:
            deletions += 1
            referenceWords += 1
        case .insertion: insertions += 1
        }
    }
}

/// The alignment of one reference against one hypothesis.
public struct Alignment: Sendable, Codable, Hashable {
    /// Aligned positions in order.
    public var pairs: [AlignedPair]
    /// Counts over ``pairs``.
    public var counts: ErrorCounts

    public init(pairs: [AlignedPair]) {
        self.pairs = pairs
        var counts = ErrorCounts()
        for pair in pairs { counts.record(pair.operation) }
        self.counts = counts
    }

    /// REF/HYP/Eval lines in the style of sclite's `pra` output: errors in upper case, stars in gaps.
    public var text: AlignedText { AlignedText(pairs) }
}

/// Three display lines for one aligned utterance, columns padded to equal width.
public struct AlignedText: Sendable, Codable, Hashable {
    /// The reference line, `***` where the hypothesis has an insertion.
    public var reference: String
    /// The hypothesis line, `***` where the reference word was deleted.
    public var hypothesis: String
    /// `S`, `D`, `I` under each error, blank under correct words.
    public var evaluation: String

    /// Lays out aligned pairs.
    /// - Parameter pairs: The pairs of an ``Alignment``.
    public init(_ pairs: [AlignedPair]) {
        var reference: [String] = []
        var hypothesis: [String] = []
        var evaluation: [String] = []
        for pair in pairs {
            var ref: String
            var hyp: String
            let mark: String
            switch pair.operation {
            case .correct:
                ref = pair.reference ?? ""
                hyp = pair.hypothesis ?? ""
                mark = ""
            case .substitution:
                ref = (pair.reference ?? "").uppercased()
                hyp = (pair.hypothesis ?? "").uppercased()
                mark = "S"
            case .deletion:
                ref = (pair.reference ?? "").uppercased()
                hyp = String(repeating: "*", count: max(1, ref.count))
                mark = "D"
            case .insertion:
                hyp = (pair.hypothesis ?? "").uppercased()
                ref = String(repeating: "*", count: max(1, hyp.count))
                mark = "I"
            }
            let width = max(ref.count, hyp.count, mark.count)
            ref = ref.padding(to: width)
            hyp = hyp.padding(to: width)
            reference.append(ref)
            hypothesis.append(hyp)
            evaluation.append(mark.padding(to: width))
        }
        self.reference = reference.joined(separator: " ")
        self.hypothesis = hypothesis.joined(separator: " ")
        self.evaluation = evaluation.joined(separator: " ")
        while self.evaluation.last == " " { self.evaluation.removeLast() }
    }
}

extension String {
    func padding(to width: Int) -> String {
        let count = self.count
        return count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
