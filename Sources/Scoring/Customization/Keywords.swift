/// One term scored by position, as contextual-biasing benchmarks score a keyword: an occurrence the hypothesis
/// has is a hit only where the word alignment puts it on an occurrence of the same term in the reference, every
/// word of it correct. A term said once and heard elsewhere in the utterance is a miss and a false alarm, not a
/// hit (counting occurrences per utterance, a method Gambit no longer uses, would call it one).
public struct KeywordCounts: Sendable, Hashable {
    public var term: String
    /// Occurrences in the references.
    public var said: Int
    /// Occurrences in the hypotheses.
    public var heard: Int
    /// Occurrences heard where one was said.
    public var hits: Int

    public init(term: String, said: Int = 0, heard: Int = 0, hits: Int = 0) {
        self.term = term
        self.said = said
        self.heard = heard
        self.hits = hits
    }

    /// Occurrences said and not heard there.
    public var misses: Int { said - hits }
    /// Occurrences heard where the reference does not have the term.
    public var falseAlarms: Int { heard - hits }
    /// hits / said; nil when the term was never said.
    public var recall: Double? { said == 0 ? nil : Double(hits) / Double(said) }
    /// hits / heard; nil when the term was never heard.
    public var precision: Double? { heard == 0 ? nil : Double(hits) / Double(heard) }
    /// The harmonic mean of precision and recall; nil when either is.
    public var f1: Double? {
        guard let precision, let recall else { return nil }
        return precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall)
    }

    public static func += (total: inout KeywordCounts, other: KeywordCounts) {
        total.said += other.said
        total.heard += other.heard
        total.hits += other.hits
    }
}

extension KeywordCounts: Codable {
    private enum CodingKeys: String, CodingKey {
        case term, said, heard, hits, misses, falseAlarms, recall, precision, f1
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        term = try container.decode(String.self, forKey: .term)
        said = try container.decode(Int.self, forKey: .said)
        heard = try container.decode(Int.self, forKey: .heard)
        hits = try container.decode(Int.self, forKey: .hits)
    }

    /// The counts, and what follows from them for a reader of the JSON (rates left out when there is no data).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(term, forKey: .term)
        try container.encode(said, forKey: .said)
        try container.encode(heard, forKey: .heard)
        try container.encode(hits, forKey: .hits)
        try container.encode(misses, forKey: .misses)
        try container.encode(falseAlarms, forKey: .falseAlarms)
        try container.encodeIfPresent(recall, forKey: .recall)
        try container.encodeIfPresent(precision, forKey: .precision)
        try container.encodeIfPresent(f1, forKey: .f1)
    }
}

/// Positional keyword scoring over word alignments.
public enum KeywordScoring {
    /// Each term's occurrences in one aligned utterance, in the order of `terms`.
    ///
    /// Algorithm: each term is looked for on its own (so a word term inside a phrase term counts for both), in
    /// the reference words and in the hypothesis words, leftmost first and without overlapping itself. An
    /// occurrence is the range of alignment pairs its words sit on. A hypothesis occurrence is a hit when the
    /// reference has an occurrence of the same term on the same range and every pair of the range is correct:
    /// the words were heard where they were said. A term heard where something else was said, or said and heard
    /// at different places, is a false alarm and a miss.
    /// - Parameters:
    ///   - pairs: The utterance's alignment (normalized words).
    ///   - terms: Terms as normalized words (`["albin", "counter", "gambit"]`).
    public static func count(_ pairs: [AlignedPair], terms: [[String]]) -> [KeywordCounts] {
        var rows = terms.map { KeywordCounts(term: $0.joined(separator: " ")) }
        KeywordCounter(terms: terms).add(pairs, to: &rows) { _ in }
        return rows
    }

    /// ``count(_:terms:)`` for one-word terms, by word: each word of `words` the utterance said or heard.
    public static func countWords(_ pairs: [AlignedPair], words: Set<String>) -> [String: KeywordCounts] {
        var counts: [String: KeywordCounts] = [:]
        forEachWord(of: WordSet(words), in: pairs) { word in
            counts[word, default: KeywordCounts(term: word)].said += 1
        } heard: { word, hit in
            counts[word, default: KeywordCounts(term: word)].heard += 1
            if hit { counts[word]!.hits += 1 }
        }
        return counts
    }

    /// The one definition of a one-word term's occurrences: each reference word of `words` is said, each
    /// hypothesis word of `words` heard, and heard where it was said (a hit) when its pair is correct.
    @inline(__always)
    static func forEachWord(
        of words: WordSet, in pairs: [AlignedPair], said: (String) -> Void, heard: (String, _ hit: Bool) -> Void
    ) {
        for pair in pairs {
            if let word = pair.reference, words.contains(word) { said(word) }
            if let word = pair.hypothesis, words.contains(word) { heard(word, pair.operation == .correct) }
        }
    }
}

/// Terms compiled once to be counted in many utterances (``KeywordScoring/count(_:terms:)``): each utterance's
/// words are read once, and only the terms that start with the word at hand are tried there.
struct KeywordCounter {
    let terms: [[String]]
    private var byFirst: [String: [Int]] = [:]

    init(terms: [[String]]) {
        self.terms = terms
        for (index, term) in terms.enumerated() where !term.isEmpty {
            byFirst[term[0], default: []].append(index)
        }
    }

    /// Adds one aligned utterance's occurrences of each term to `rows` (in the order of ``terms``), calling
    /// `alarmed` once with each term heard there where it was not said.
    ///
    /// Each term is looked for on its own (so a word term inside a phrase term counts for both), in the reference
    /// words and in the hypothesis words, leftmost first and without overlapping itself. An occurrence is the
    /// range of alignment pairs its words sit on; one heard is a hit when the reference has an occurrence of the
    /// same term on the same range and every pair of the range is correct.
    func add(_ pairs: [AlignedPair], to rows: inout [KeywordCounts], alarmed: (Int) -> Void) {
        guard !byFirst.isEmpty else { return }
        var referenceWords: [(word: String, pair: Int)] = []
        var hypothesisWords: [(word: String, pair: Int)] = []
        for (index, pair) in pairs.enumerated() {
            if let word = pair.reference { referenceWords.append((word, index)) }
            if let word = pair.hypothesis { hypothesisWords.append((word, index)) }
        }
        let said = occurrences(in: referenceWords)
        for occurrence in said { rows[occurrence.term].said += 1 }
        var alarmedTerms: [Int] = []
        for occurrence in occurrences(in: hypothesisWords) {
            rows[occurrence.term].heard += 1
            let hit =
                said.contains { $0.term == occurrence.term && $0.range == occurrence.range }
                && pairs[occurrence.range].allSatisfy { $0.operation == .correct }
            if hit {
                rows[occurrence.term].hits += 1
            } else if !alarmedTerms.contains(occurrence.term) {
                alarmedTerms.append(occurrence.term)
            }
        }
        for term in alarmedTerms.sorted() { alarmed(term) }
    }

    /// Every term's occurrences in `words`, each term's leftmost first and none overlapping another of its own.
    private func occurrences(in words: [(word: String, pair: Int)]) -> [(term: Int, range: ClosedRange<Int>)] {
        var found: [(term: Int, range: ClosedRange<Int>)] = []
        var nextFree: [Int: Int] = [:]
        for position in words.indices {
            guard let candidates = byFirst[words[position].word] else { continue }
            for index in candidates where position >= nextFree[index, default: 0] {
                let term = terms[index]
                let end = position + term.count
                guard end <= words.count,
                    term.count == 1 || zip(words[position + 1..<end], term.dropFirst()).allSatisfy({ $0.word == $1 })
                else { continue }
                found.append((index, words[position].pair...words[end - 1].pair))
                nextFree[index] = end
            }
        }
        return found
    }
}
