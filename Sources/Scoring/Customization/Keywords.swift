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
        var referenceWords: [(word: String, pair: Int)] = []
        var hypothesisWords: [(word: String, pair: Int)] = []
        for (index, pair) in pairs.enumerated() {
            if let word = pair.reference { referenceWords.append((word, index)) }
            if let word = pair.hypothesis { hypothesisWords.append((word, index)) }
        }
        return terms.map { term in
            let said = occurrences(of: term, in: referenceWords)
            let heard = occurrences(of: term, in: hypothesisWords)
            let hits = heard.filter { range in
                said.contains(range) && pairs[range].allSatisfy { $0.operation == .correct }
            }
            return KeywordCounts(
                term: term.joined(separator: " "), said: said.count, heard: heard.count, hits: hits.count)
        }
    }

    /// ``count(_:terms:)`` for one-word terms, by word: each word of `words` the utterance said or heard.
    public static func countWords(_ pairs: [AlignedPair], words: Set<String>) -> [String: KeywordCounts] {
        var counts: [String: KeywordCounts] = [:]
        for pair in pairs {
            if let word = pair.reference, words.contains(word) {
                counts[word, default: KeywordCounts(term: word)].said += 1
            }
            if let word = pair.hypothesis, words.contains(word) {
                counts[word, default: KeywordCounts(term: word)].heard += 1
                if pair.operation == .correct { counts[word]!.hits += 1 }
            }
        }
        return counts
    }

    /// The pair ranges of `term`'s occurrences in `words`, leftmost first, none overlapping another.
    static func occurrences(of term: [String], in words: [(word: String, pair: Int)]) -> [ClosedRange<Int>] {
        guard !term.isEmpty, words.count >= term.count else { return [] }
        var found: [ClosedRange<Int>] = []
        var position = 0
        while position + term.count <= words.count {
            if words[position].word == term[0]
                && zip(words[position..<position + term.count], term).allSatisfy({ $0.word == $1 })
            {
                found.append(words[position].pair...words[position + term.count - 1].pair)
                position += term.count
            } else {
                position += 1
            }
        }
        return found
    }
}
