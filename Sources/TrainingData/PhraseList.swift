import Foundation

/// A variant's phrase list, as Gambit hands it to a recognizer that takes a list instead of a language model
/// (Apple's contextual strings, a Whisper prompt, a cloud phrase set): the terms the variant boosts, ranked by how
/// often the training data says them, cut at the recognizer's limit.
public enum PhraseList {
    /// One term with its count in the training data.
    public struct Term: Sendable, Equatable {
        public var text: String
        /// The sample counts of the phrases that say it, summed (a template's shared count split over its
        /// expansions, as the compiler splits it), times how often each says it.
        public var count: Double

        public init(text: String, count: Double) {
            self.text = text
            self.count = count
        }
    }

    /// `terms` ranked by their counts in `data`'s weighted sentences, most said first; equal counts in the order
    /// of the terms' text, so the ranking is the same every time.
    ///
    /// A term is counted wherever its tokens occur in a row in a sentence. A term no sentence says (a custom
    /// pronunciation's grapheme alone) counts 0 and comes last.
    public static func ranked(
        _ terms: [String], in data: CustomLanguageModelData, limits: TrainingDataLimits = .default
    )
        throws -> [Term]
    {
        let sentences = try data.weightedSentences(limits: limits)
        let tokenized = terms.map { WordTokenizer.tokenize($0) }
        var counts = [Double](repeating: 0, count: terms.count)
        // Terms by their first token, so a sentence is read once.
        var byFirst: [String: [Int]] = [:]
        for (index, tokens) in tokenized.enumerated() where !tokens.isEmpty {
            byFirst[tokens[0], default: []].append(index)
        }
        for sentence in sentences where !sentence.tokens.isEmpty {
            let tokens = sentence.tokens
            for start in tokens.indices {
                for index in byFirst[tokens[start]] ?? [] {
                    let term = tokenized[index]
                    if start + term.count <= tokens.count, Array(tokens[start..<start + term.count]) == term {
                        counts[index] += sentence.count
                    }
                }
            }
        }
        return zip(terms, counts).map { Term(text: $0, count: $1) }
            .sorted { ($0.count, $1.text) > ($1.count, $0.text) }
    }

    /// The first terms of `ranked` that fit in `limit`, each counted as one entry or, when `countingWords`, as its
    /// words: the list stops at the first term that would pass the limit, so it is always a prefix of the ranking.
    public static func cut(_ ranked: [String], limit: Int, countingWords: Bool) -> [String] {
        var used = 0
        var kept: [String] = []
        for term in ranked {
            let size = countingWords ? max(1, WordTokenizer.tokenize(term).count) : 1
            if used + size > limit { break }
            used += size
            kept.append(term)
        }
        return kept
    }

    /// `count` distractors from `pool`, none of them in `excluded`, in a fixed pseudo-random order that depends on
    /// `seed` (a variant's name for its global list, an utterance's id for its own list), so every run and every
    /// machine draws the same; fewer when the pool holds fewer.
    public static func distractors(_ count: Int, from pool: [String], excluding excluded: Set<String>, seed: String)
        -> [String]
    {
        guard count > 0 else { return [] }
        var seen = Set<String>()
        let candidates = pool.filter { !excluded.contains($0) && seen.insert($0).inserted }
        return candidates.map { (order(seed + "\u{1F}" + $0), $0) }.sorted { $0 < $1 }.prefix(count).map(\.1)
    }

    /// `terms` with `distractors` among them: in the terms' order when there is no distractor, else all of them in
    /// a fixed pseudo-random order drawn with `seed`, as an app's inventory holds them, so that a recognizer that
    /// keeps only the start of a long list loses terms and distractors alike.
    public static func mixed(_ terms: [String], _ distractors: [String], seed: String) -> [String] {
        guard !distractors.isEmpty else { return terms }
        return (terms + distractors).map { (order(seed + "\u{1E}" + $0), $0) }.sorted { $0 < $1 }.map(\.1)
    }

    /// The terms of `terms` a reference says (their tokens in a row among the reference's): an utterance's own
    /// list, as the field's local lists are made (each clip's keywords from its transcript).
    public static func said(_ terms: [String], in reference: String) -> [String] {
        let tokens = WordTokenizer.tokenize(reference)
        return terms.filter { term in
            let wanted = WordTokenizer.tokenize(term)
            guard !wanted.isEmpty, wanted.count <= tokens.count else { return false }
            return (0...(tokens.count - wanted.count)).contains { Array(tokens[$0..<$0 + wanted.count]) == wanted }
        }
    }

    /// A stable 64-bit FNV-1a hash, the sort key of a draw.
    static func order(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
