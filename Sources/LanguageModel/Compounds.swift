import TrainingData

/// Fixed expressions that the custom model predicts as one token.
///
/// A boosted word that the data always follows with the same words ("albin" in "albin counter
/// gambit") is only worth boosting together with them. Predicted alone, its boost outlives the phrase:
/// "play the album thriller" becomes "play the albin thriller", because an n-gram model pays for "albin"
/// before it sees "thriller". As one token with the phrase's pronunciation, the boost is earned only
/// when the whole phrase is heard (the multi-word units of Saon and Padmanabhan, 2001).
public struct Compounds: Sendable, Hashable, Codable {
    /// Joins the words of a compound into its token: "albin_counter_gambit".
    public static let separator = "_"

    /// Each compound's words, in a stable order.
    public private(set) var phrases: [[String]]
    private var byFirstWord: [String: [[String]]] = [:]

    private enum CodingKeys: String, CodingKey { case phrases }

    public init(phrases: [[String]]) {
        self.phrases = phrases.filter { $0.count > 1 }.sorted { $0.joined(separator: " ") < $1.joined(separator: " ") }
        for phrase in self.phrases { byFirstWord[phrase[0], default: []].append(phrase) }
        for key in byFirstWord.keys { byFirstWord[key]!.sort { $0.count > $1.count } }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(phrases: try container.decode([[String]].self, forKey: .phrases))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(phrases, forKey: .phrases)
    }

    /// The token that stands for `words`.
    public static func token(_ words: [String]) -> String { words.joined(separator: separator) }

    /// Finds the fixed expressions that start with a boosted word: the word grows by its most frequent
    /// next word for as long as that word follows it in at least `share` of the data's weight (never
    /// across the sentence end), up to `maximumLength` words.
    public static func find(
        in sentences: WeightedSentences, startingWith boosted: Set<String>, share: Double = 0.9,
        maximumLength: Int = 4
    ) -> Compounds {
        guard maximumLength > 1, !boosted.isEmpty else { return Compounds(phrases: []) }
        let end = "</s>"
        var totals: [[String]: Double] = [:]
        var next: [[String]: [String: Double]] = [:]
        for sentence in sentences {
            let tokens = sentence.tokens
            for start in tokens.indices where boosted.contains(tokens[start]) {
                for length in 1..<maximumLength where start + length <= tokens.count {
                    let prefix = Array(tokens[start..<(start + length)])
                    let following = start + length < tokens.count ? tokens[start + length] : end
                    totals[prefix, default: 0] += sentence.count
                    next[prefix, default: [:]][following, default: 0] += sentence.count
                }
            }
        }
        var phrases: [[String]] = []
        for word in boosted.sorted() {
            var phrase = [word]
            while phrase.count < maximumLength, let total = totals[phrase], total > 0,
                let (following, count) = next[phrase]?.max(by: {
                    $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key
                }),
                following != end, count / total >= share
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
