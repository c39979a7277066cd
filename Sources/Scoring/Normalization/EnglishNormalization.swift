import Formats

/// Gambit's English rules: Whisper's `EnglishTextNormalizer` (``WhisperNormalizer``) with its faults fixed.
///
/// It runs over the whole text (contractions expand to two words, numbers span several, punctuation ends a spoken
/// number), after ``Normalizer``'s recognizer tokens and `word(2)` markers are gone. Against Whisper's own
/// (docs/normalization.md lists each): an apostrophe inside a word stays and `'s` is not expanded (`o'brien`,
/// `queen's`, `it's`); `o` and `oh` are zero only beside another number; punctuation ends a number (`twenty five,
/// one hundred` is `25 100`); every comma between digits goes and only the first period of `..` does not; a `1`
/// is written `one` only standing alone (not in `1.5` or `$1`); `st` after a number is no saint; `point`, `0 zero`,
/// a leading `and a half` and a hyphenated `uh-huh` keep their words.
public struct EnglishNormalization: Sendable, Codable, Hashable {
    /// Expand contractions and titles: `won't` → `will not`, `we're` → `we are`, `dr` → `doctor`; a possessive
    /// or ambiguous `'s` is left alone.
    public var expandContractions: Bool
    /// Numbers as Whisper writes them: `twenty five` → `25`, `one hundred and five` → `105`, `twenty first` →
    /// `21st`, `five dollars` → `$5`, `fifty percent` → `50%`, `10mg` → `10 mg`.
    public var spelledNumbersToDigits: Bool
    /// Whisper's British → American spelling table (1,739 words): `colour` → `color`, `centre` → `center`.
    public var americanSpelling: Bool
    /// Remove the fillers Whisper removes: `hmm`, `mm`, `mhm`, `mmm`, `uh`, `um`.
    public var removeFillers: Bool
    /// Which English rules: 2, Whisper's with their faults fixed (``currentVersion``); 1, the word-by-word rules
    /// Gambit had before, which results written then hold (they lack the field). Results record it, so `gambit
    /// gate` notes a baseline scored under the older rules; rescoring always uses the current ones.
    public private(set) var version: Int

    /// The version of the English rules this Gambit applies.
    public static let currentVersion = 2

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
        self.version = Self.currentVersion
    }

    private enum CodingKeys: String, CodingKey {
        case expandContractions, spelledNumbersToDigits, americanSpelling, removeFillers, version
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        expandContractions = try c.decode(Bool.self, forKey: .expandContractions)
        spelledNumbersToDigits = try c.decode(Bool.self, forKey: .spelledNumbersToDigits)
        americanSpelling = try c.decode(Bool.self, forKey: .americanSpelling)
        removeFillers = try c.decode(Bool.self, forKey: .removeFillers)
        version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
    }

    /// A short description for ``Normalizer/summary``.
    public var summary: String {
        var rules: [String] = []
        if expandContractions { rules.append("contractions") }
        if spelledNumbersToDigits { rules.append("numbers") }
        if americanSpelling { rules.append("US spelling") }
        if removeFillers { rules.append("drop fillers") }
        let which = version == Self.currentVersion ? "Whisper's rules, faults fixed" : "rules \(version)"
        return "english (\(which): \(rules.joined(separator: ", ")))"
    }

    /// The rules of Whisper's normalizer that are on, with its faults fixed.
    var rules: WhisperNormalizer.Rules {
        WhisperNormalizer.Rules(
            keepsFaults: false, contractions: expandContractions, numbers: spelledNumbersToDigits,
            spelling: americanSpelling, fillers: removeFillers)
    }

    /// The words of `text` under these rules, each in Unicode NFC like every word Gambit compares.
    public func words(_ text: String) -> [String] {
        WhisperNormalizer(rules: rules).words(text).map { NormalForm.composed($0) }
    }

    /// Applies the enabled rules to a word sequence.
    /// - Parameter words: Words (or tokens) in order.
    /// - Returns: The rewritten words.
    public func apply(to words: [String]) -> [String] { self.words(words.joined(separator: " ")) }
}
