public import Scoring

/// What a customized system changed against the baseline on the same utterances, word by word: the
/// errors it made where the baseline was right ("made → maeve"), and the words it fixed.
///
/// Errors are read from each system's alignment with the reference. A run of adjacent errors is one
/// change, so a word heard as two reads "homeless → call us". A change is new when it touches a
/// reference word the baseline recognised, or when the baseline did not make the same error in that
/// utterance ("made → maeve the" where the baseline heard "made → maeve").
public struct WordChanges: Sendable, Equatable {
    /// One change: the reference words and what the customized system heard instead.
    public struct Change: Sendable, Equatable, CustomStringConvertible {
        public var utterance: String
        /// Reference words of the change; empty for an insertion.
        public var reference: [String]
        /// Hypothesis words; empty for a deletion.
        public var hypothesis: [String]

        /// `made → maeve`, `homeless → call us`, `∅ → the`, `for → ∅`.
        public var description: String {
            let side = { (words: [String]) in words.isEmpty ? "∅" : words.joined(separator: " ") }
            return "\(side(reference)) → \(side(hypothesis))"
        }
    }

    /// New errors, in utterance order.
    public var worse: [Change]
    /// Reference words the baseline got wrong and the customized system got right.
    public var fixedWords: Int

    /// Compares the utterances both systems decoded, matched by id.
    public init(baseline: SystemResults, customized: SystemResults) {
        let before = Dictionary(baseline.utterances.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        worse = []
        fixedWords = 0
        for utterance in customized.utterances {
            guard let old = before[utterance.id], old.failure == nil, utterance.failure == nil else { continue }
            let wasRight = Set(old.alignment.filter { $0.operation == .correct }.compactMap(\.referenceIndex))
            let isRight = Set(utterance.alignment.filter { $0.operation == .correct }.compactMap(\.referenceIndex))
            fixedWords += isRight.subtracting(wasRight).count
            // The baseline's own errors in this utterance: a change the customized system shares
            // with it is not new.
            var shared = Self.errorSpans(old.alignment).map(Self.words)
            for span in Self.errorSpans(utterance.alignment) {
                let words = Self.words(span)
                let touchesRightWord = span.contains { $0.referenceIndex.map(wasRight.contains) ?? false }
                var isNew = true
                if !touchesRightWord, let index = shared.firstIndex(where: { $0 == words }) {
                    shared.remove(at: index)
                    isNew = false
                }
                guard isNew else { continue }
                worse.append(
                    Change(
                        utterance: utterance.id, reference: span.compactMap(\.reference),
                        hypothesis: span.compactMap(\.hypothesis)))
            }
        }
    }

    static func words(_ span: [AlignedPair]) -> [[String]] {
        [span.compactMap(\.reference), span.compactMap(\.hypothesis)]
    }

    /// Maximal runs of adjacent non-correct pairs.
    static func errorSpans(_ alignment: [AlignedPair]) -> [[AlignedPair]] {
        var spans: [[AlignedPair]] = []
        var current: [AlignedPair] = []
        for pair in alignment {
            if pair.operation == .correct {
                if !current.isEmpty { spans.append(current) }
                current = []
            } else {
                current.append(pair)
            }
        }
        if !current.isEmpty { spans.append(current) }
        return spans
    }

    /// `made → maeve, for → four`, at most `limit` changes and then how many more.
    public func summary(limit: Int = 8) -> String {
        let shown = worse.prefix(limit).map(\.description)
        return shown.joined(separator: ", ") + (worse.count > limit ? " and \(worse.count - limit) more" : "")
    }
}
