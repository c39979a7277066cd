/// English-specific normalization in the spirit of Whisper's `EnglishTextNormalizer`.
///
/// It runs after the generic stages of ``Normalizer`` (so words are already lower-cased and free of punctuation
/// when those stages are on) and works on the word sequence, because contractions expand to two words and spelled
/// numbers span several.
public struct EnglishNormalization: Sendable, Codable, Hashable {
    /// Expand contractions: `won't` → `will not`, `don't` → `do not`, `we're` → `we are`. A possessive or
    /// ambiguous `'s` is left alone, as Whisper does.
    public var expandContractions: Bool
    /// Spelled cardinal numbers become digits: `twenty five` → `25`, `one hundred and five` → `105`.
    public var spelledNumbersToDigits: Bool
    /// A small British → American spelling map: `colour` → `color`, `centre` → `center`.
    public var americanSpelling: Bool
    /// Remove the fillers Whisper removes: `hmm`, `mm`, `mhm`, `mmm`, `uh`, `um`.
    public var removeFillers: Bool

    /// Creates the English rules; every rule is on by default.
    public init(
        expandContractions: Bool = true,
        spelledNumbersToDigits: Bool = true,
        americanSpelling: Bool = true,
        removeFillers: Bool = true
    ) {
        self.expandContractions = expandContractions
        self.spelledNumbersToDigits = spelledNumbersToDigits
        self.americanSpelling = americanSpelling
        self.removeFillers = removeFillers
    }

    /// A short description for ``Normalizer/summary``.
    public var summary: String {
        var rules: [String] = []
        if expandContractions { rules.append("contractions") }
        if spelledNumbersToDigits { rules.append("numbers") }
        if americanSpelling { rules.append("US spelling") }
        if removeFillers { rules.append("drop fillers") }
        return "english (\(rules.joined(separator: ", ")))"
    }

    /// Applies the enabled rules to a word sequence.
    /// - Parameter words: Words after the generic normalization stages.
    /// - Returns: The rewritten words.
    public func apply(to words: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(words.count)
        for word in words {
            let lower = word.lowercased()
            if removeFillers && Self.fillers.contains(lower) { continue }
            if expandContractions, let expansion = Self.expandContraction(lower) {
                result.append(contentsOf: expansion)
                continue
            }
            if americanSpelling, let american = Self.britishToAmerican[lower] {
                result.append(american)
                continue
            }
            result.append(word)
        }
        if spelledNumbersToDigits { result = Self.convertSpelledNumbers(result) }
        return result
    }

    static let fillers: Set<String> = ["hmm", "mm", "mhm", "mmm", "uh", "um"]

    static let wholeContractions: [String: [String]] = [
        "won't": ["will", "not"], "can't": ["can", "not"], "shan't": ["shall", "not"],
        "let's": ["let", "us"], "y'all": ["you", "all"], "ma'am": ["madam"],
    ]

    static let suffixContractions: [(suffix: String, expansion: String)] = [
        ("n't", "not"), ("'re", "are"), ("'ll", "will"), ("'ve", "have"), ("'m", "am"), ("'d", "would"),
    ]

    static func expandContraction(_ word: String) -> [String]? {
        guard word.contains("'") else { return nil }
        if let whole = wholeContractions[word] { return whole }
        for (suffix, expansion) in suffixContractions where word.hasSuffix(suffix) && word.count > suffix.count {
            return [String(word.dropLast(suffix.count)), expansion]
        }
        return nil
    }

    static let britishToAmerican: [String: String] = [
        "colour": "color", "colours": "colors", "favourite": "favorite", "favourites": "favorites",
        "honour": "honor", "labour": "labor", "neighbour": "neighbor", "neighbours": "neighbors",
        "behaviour": "behavior", "humour": "humor", "flavour": "flavor", "centre": "center", "centres": "centers",
        "theatre": "theater", "metre": "meter", "metres": "meters", "litre": "liter", "fibre": "fiber",
        "organise": "organize", "organised": "organized", "realise": "realize", "realised": "realized",
        "recognise": "recognize", "recognised": "recognized", "apologise": "apologize", "analyse": "analyze",
        "analysed": "analyzed", "defence": "defense", "offence": "offense", "licence": "license",
        "travelled": "traveled", "travelling": "traveling", "cancelled": "canceled", "grey": "gray",
        "programme": "program", "programmes": "programs", "catalogue": "catalog", "dialogue": "dialog",
        "cheque": "check", "tyre": "tire", "tyres": "tires", "aluminium": "aluminum", "mum": "mom",
    ]

    private enum NumberWord {
        case unit(Int)  // zero … nine
        case teen(Int)  // ten … nineteen
        case tens(Int)  // twenty … ninety
        case hundred
        case scale(Int)  // thousand, million, billion
    }

    private static let numberWords: [String: NumberWord] = {
        var table: [String: NumberWord] = [:]
        let units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
        for (value, word) in units.enumerated() { table[word] = .unit(value) }
        let teens = [
            "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
            "nineteen",
        ]
        for (offset, word) in teens.enumerated() { table[word] = .teen(10 + offset) }
        let tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        for (offset, word) in tens.enumerated() { table[word] = .tens(20 + 10 * offset) }
        table["hundred"] = .hundred
        table["thousand"] = .scale(1_000)
        table["million"] = .scale(1_000_000)
        table["billion"] = .scale(1_000_000_000)
        return table
    }()

    private enum Last { case none, unit, teen, tens, hundred, scale }

    /// Greedy left-to-right conversion of spelled cardinals; a word that cannot continue the current number ends
    /// it, so `one two` stays two numbers (`1 2`) rather than being summed.
    static func convertSpelledNumbers(_ words: [String]) -> [String] {
        var output: [String] = []
        output.reserveCapacity(words.count)
        var index = 0
        while index < words.count {
            guard numberWords[words[index].lowercased()] != nil else {
                output.append(words[index])
                index += 1
                continue
            }
            var total = 0
            var current = 0
            var last = Last.none
            var smallestScale = Int.max
            var cursor = index
            scan: while cursor < words.count {
                let word = words[cursor].lowercased()
                if word == "and", last == .hundred || last == .scale, cursor + 1 < words.count,
                    let next = numberWords[words[cursor + 1].lowercased()]
                {
                    switch next {
                    case .unit(let value) where value > 0:
                        cursor += 1
                        continue scan
                    case .teen, .tens:
                        cursor += 1
                        continue scan
                    default: break scan
                    }
                }
                guard let kind = numberWords[word] else { break }
                switch (kind, last) {
                case (.unit(0), .none):
                    last = .unit
                    cursor += 1
                    break scan
                case (.unit(0), _): break scan
                case (.unit(let value), .none), (.unit(let value), .tens), (.unit(let value), .hundred),
                    (.unit(let value), .scale):
                    current += value
                    last = .unit
                case (.teen(let value), .none), (.teen(let value), .hundred), (.teen(let value), .scale):
                    current += value
                    last = .teen
                case (.tens(let value), .none), (.tens(let value), .hundred), (.tens(let value), .scale):
                    current += value
                    last = .tens
                case (.hundred, .unit), (.hundred, .teen), (.hundred, .tens):
                    guard current < 100 else { break scan }
                    current *= 100
                    last = .hundred
                case (.scale(let scale), .unit), (.scale(let scale), .teen), (.scale(let scale), .tens),
                    (.scale(let scale), .hundred):
                    guard scale < smallestScale else { break scan }
                    smallestScale = scale
                    total += current * scale
                    current = 0
                    last = .scale
                default: break scan
                }
                cursor += 1
            }
            if cursor == index {
                // A scale word with nothing before it ("hundred") is not a number on its own.
                output.append(words[index])
                index += 1
            } else {
                output.append(String(total + current))
                index = cursor
            }
        }
        return output
    }
}
