import NGram
import TrainingData

/// Fixed expressions that the custom model predicts as one token.
///
/// A boosted word that the data always follows with the same words, words said nowhere else ("albin"
/// in "albin counter gambit"), is only worth boosting together with them. Predicted alone, its boost
/// outlives the phrase: "play the album thriller" becomes "play the albin thriller", because an n-gram
/// model pays for "albin" before it hears "thriller". As one token with the phrase's pronunciation,
/// the boost is earned only when the whole phrase is heard (multi-word units, as in Saon and
/// Padmanabhan, 2001).
public struct Compounds: Sendable, Hashable {
    /// Joins the words of a compound into its token: "albin_counter".
    public static let separator = "_"

    /// Each compound's words, in a stable order.
    public private(set) var phrases: [[String]]
    private var byFirstWord: [String: [[String]]] = [:]

    public init(phrases: [[String]]) {
        self.phrases = phrases.filter { $0.count > 1 }.sorted { $0.joined(separator: " ") < $1.joined(separator: " ") }
        for phrase in self.phrases { byFirstWord[phrase[0], default: []].append(phrase) }
        for key in byFirstWord.keys { byFirstWord[key]!.sort { $0.count > $1.count } }
    }

    /// The token that stands for `words`.
    public static func token(_ words: [String]) -> String { words.joined(separator: separator) }

    /// Finds the fixed expressions that start with a boosted word. The word grows by its most frequent
    /// next word while the two predict each other: the next word follows the expression in at least
    /// `share` of the expression's weight, and that word comes after the expression's last word in at
    /// least `share` of its own weight. "albin" grows into "albin counter" ("counter" is said nowhere
    /// else) but not into "albin counter gambit" ("gambit" also ends "benko gambit"); "grunfeld" does
    /// not take "defense", which follows many openings. Never across the sentence end, at most
    /// `maximumLength` words.
    public static func find(
        in sentences: WeightedSentences, startingWith boosted: Set<String>, share: Double = 0.9,
        maximumLength: Int = 4
    ) -> Compounds {
        guard maximumLength > 1, !boosted.isEmpty else { return Compounds(phrases: []) }
        let end = BackoffModel.sentenceEnd
        var totals: [[String]: Double] = [:]
        var next: [[String]: [String: Double]] = [:]
        var wordTotals: [String: Double] = [:]
        var pairs: [String: [String: Double]] = [:]
        for sentence in sentences {
            let tokens = sentence.tokens
            for (index, token) in tokens.enumerated() {
                wordTotals[token, default: 0] += sentence.count
                if index > 0 { pairs[token, default: [:]][tokens[index - 1], default: 0] += sentence.count }
            }
            for start in tokens.indices where boosted.contains(tokens[start]) {
                for length in 1..<maximumLength where start + length <= tokens.count {
                    let prefix = Array(tokens[start..<(start + length)])
                    let following = start + length < tokens.count ? tokens[start + length] : end
                    totals[prefix, default: 0] += sentence.count
                    next[prefix, default: [:]][following, default: 0] += sentence.count
                }
            }
        }
        func mostFrequent(_ counts: [String: Double]) -> (String, Double)? {
            counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }.map { ($0.key, $0.value) }
        }
        var phrases: [[String]] = []
        for word in boosted.sorted() {
            var phrase = [word]
            while phrase.count < maximumLength, let total = totals[phrase], total > 0,
                let (following, count) = next[phrase].flatMap(mostFrequent), following != end,
                count / total >= share,
                let seen = wordTotals[following], (pairs[following]?[phrase.last!] ?? 0) / seen >= share
            {
                phrase.append(following)
            }
            if phrase.count > 1 { phrases.append(phrase) }
        }
        return Compounds(phrases: phrases)
    }

    /// `tokens` with every compound replaced by its token, longest match first, left to right.
    public func join(_ tokens: [String]) -> [String] {
        guard !byFirstWord.isEmpty else { return tokens }
        var result: [String] = []
        result.reserveCapacity(tokens.count)
        var index = 0
        while index < tokens.count {
            if let candidates = byFirstWord[tokens[index]],
                let match = candidates.first(where: {
                    index + $0.count <= tokens.count && Array(tokens[index..<(index + $0.count)]) == $0
                })
            {
                result.append(Self.token(match))
                index += match.count
            } else {
                result.append(tokens[index])
                index += 1
            }
        }
        return result
    }

    /// Pronunciations of a compound: each combination of its words' pronunciations, in order, at
    /// most `limit` of them.
    static func pronunciations(of phrase: [String], parts: (String) -> [[String]], limit: Int = 8) -> [[String]] {
        var combinations: [[String]] = [[]]
        for word in phrase {
            let options = parts(word)
            guard !options.isEmpty else { return [] }
            combinations = combinations.flatMap { prefix in options.map { prefix + $0 } }
            if combinations.count > limit { combinations = Array(combinations.prefix(limit)) }
        }
        return combinations
    }
}
