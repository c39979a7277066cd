import Foundation

/// US English X-SAMPA, as `SFCustomLanguageModelData.CustomPronunciation` takes it, and its mapping
/// onto the 39 phones of the CMU en-US acoustic model.
///
/// Apple silently drops symbols it does not support; Gambit reports them instead, because a
/// pronunciation that lost a phone decodes as a different word.
public enum XSAMPA {
    /// A pronunciation split into X-SAMPA symbols.
    public struct Parse: Sendable, Hashable, Codable {
        /// The supported symbols in order, stress and length marks included.
        public var symbols: [String]
        /// Runs of characters that are not supported symbols, in order of appearance.
        public var unsupported: [String]
        /// The CMU phones of `symbols` (stress and length marks dropped); meaningful when
        /// `unsupported` is empty.
        public var phones: [String]
    }

    /// X-SAMPA symbols for US English and the CMU phones each stands for.
    ///
    /// Ambiguous symbols take the reading that matches cmudict most often: `@` is AH, `@r` is ER and
    /// the flap `4` is T.
    public static let usEnglishPhones: [String: [String]] = [
        // Vowels and diphthongs.
        "i": ["IY"], "I": ["IH"], "eI": ["EY"], "e": ["EY"], "E": ["EH"], "{": ["AE"], "A": ["AA"],
        "Q": ["AA"], "O": ["AO"], "oU": ["OW"], "@U": ["OW"], "o": ["OW"], "U": ["UH"], "u": ["UW"],
        "V": ["AH"], "@": ["AH"], "3`": ["ER"], "@`": ["ER"], "@r": ["ER"], "r=": ["ER"], "aI": ["AY"],
        "aU": ["AW"], "OI": ["OY"],
        // Syllabic consonants.
        "l=": ["AH", "L"], "n=": ["AH", "N"], "m=": ["AH", "M"],
        // Consonants.
        "p": ["P"], "b": ["B"], "t": ["T"], "d": ["D"], "k": ["K"], "g": ["G"], "f": ["F"], "v": ["V"],
        "s": ["S"], "z": ["Z"], "m": ["M"], "n": ["N"], "l": ["L"], "r": ["R"], "w": ["W"], "j": ["Y"],
        "h": ["HH"], "tS": ["CH"], "dZ": ["JH"], "T": ["TH"], "D": ["DH"], "S": ["SH"], "Z": ["ZH"],
        "N": ["NG"], "5": ["L"], "r\\": ["R"], "4": ["T"],
    ]

    /// Marks accepted and dropped when mapping to phones: primary stress `"`, secondary stress `%`,
    /// length `:` and syllable boundary `.`.
    public static let modifiers: Set<String> = ["\"", "%", ":", "."]

    /// The 39 phones of the CMU en-US acoustic model (without SIL and noise phones).
    public static let cmuPhones: [String] = [
        "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY",
        "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y",
        "Z", "ZH",
    ]

    /// The X-SAMPA symbol written for each CMU phone: the reading ``parse(_:)`` maps back to that phone (`@` for
    /// AH, `@r` for ER, as Apple's WWDC23 example writes Winawer).
    public static let symbolOfPhone: [String: String] = [
        "AA": "A", "AE": "{", "AH": "@", "AO": "O", "AW": "aU", "AY": "aI", "EH": "E", "ER": "@r", "EY": "eI",
        "IH": "I", "IY": "i", "OW": "oU", "OY": "OI", "UH": "U", "UW": "u", "B": "b", "CH": "tS", "D": "d",
        "DH": "D", "F": "f", "G": "g", "HH": "h", "JH": "dZ", "K": "k", "L": "l", "M": "m", "N": "n", "NG": "N",
        "P": "p", "R": "r", "S": "s", "SH": "S", "T": "t", "TH": "T", "V": "v", "W": "w", "Y": "j", "Z": "z",
        "ZH": "Z",
    ]

    /// CMU phones written as X-SAMPA, symbols separated by spaces (`W IH N AW ER` → `w I n aU @r`); nil when a
    /// phone is not one of ``cmuPhones``.
    public static func render(_ phones: [String]) -> String? {
        let symbols = phones.map { symbolOfPhone[$0] }
        guard !symbols.isEmpty, symbols.allSatisfy({ $0 != nil }) else { return nil }
        return symbols.map { $0! }.joined(separator: " ")
    }

    /// The X-SAMPA symbols supported for `locale`, sorted; empty for locales without a phone set.
    public static func supportedSymbols(locale: Locale) -> [String] {
        guard LocaleName(locale).isUSEnglish else { return [] }
        return (Array(usEnglishPhones.keys) + Array(modifiers)).sorted()
    }

    /// Splits an X-SAMPA string into symbols and maps them to CMU phones.
    ///
    /// Symbols are normally separated by spaces; within each space-separated chunk the longest
    /// supported symbol wins at each position, so unspaced input such as `wInaU@r` works too.
    /// - Parameter pronunciation: The X-SAMPA text.
    /// - Returns: The symbols, the unsupported runs and the phones.
    public static func parse(_ pronunciation: String) -> Parse {
        let all = Set(usEnglishPhones.keys).union(modifiers)
        let longest = all.map(\.count).max() ?? 1
        var result = Parse(symbols: [], unsupported: [], phones: [])
        for chunk in pronunciation.split(whereSeparator: \.isWhitespace) {
            let characters = Array(chunk)
            var index = 0
            var unknownRun = ""
            while index < characters.count {
                var matched: String?
                var length = min(longest, characters.count - index)
                while length > 0 {
                    let candidate = String(characters[index..<index + length])
                    if all.contains(candidate) {
                        matched = candidate
                        break
                    }
                    length -= 1
                }
                if let matched {
                    if !unknownRun.isEmpty {
                        result.unsupported.append(unknownRun)
                        unknownRun = ""
                    }
                    result.symbols.append(matched)
                    result.phones += usEnglishPhones[matched] ?? []
                    index += length
                } else {
                    unknownRun.append(characters[index])
                    index += 1
                }
            }
            if !unknownRun.isEmpty { result.unsupported.append(unknownRun) }
        }
        return result
    }
}

/// A locale reduced to what matters here: language and region, spelled the BCP 47 way ("en-US").
struct LocaleName: Hashable, CustomStringConvertible {
    var language: String
    var region: String?

    init(_ locale: Locale) {
        self.init(identifier: locale.identifier)
    }

    init(identifier: String) {
        let parts = identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        language = parts.first?.lowercased() ?? ""
        region = parts.dropFirst().first { $0.count == 2 || $0.allSatisfy(\.isNumber) }?.uppercased()
    }

    var isUSEnglish: Bool { language == "en" && region == "US" }

    var description: String { region.map { "\(language)-\($0)" } ?? language }
}
