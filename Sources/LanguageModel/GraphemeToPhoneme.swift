internal import CFliteG2P
import Foundation

/// Spelling-based pronunciations from flite's CMU lexicon and letter-to-sound rules.
///
/// People say rare words the way they are spelled as often as the way they "should" be said, so a
/// spelling-based pronunciation goes beside every supplied one, and stands in for words nobody
/// supplied. flite's phones are CMU ARPAbet like the acoustic model's, with stress digits and a few
/// extra symbols that are mapped here.
public enum GraphemeToPhoneme {
    private static let lock = NSLock()

    /// The phones flite gives a word (uppercase, no stress), or nil when it gives none.
    ///
    /// The corresponding C function is `lex_lookup` (through `gambit_flite_pronounce`).
    public static func pronounce(_ word: String) -> [String]? {
        let letters = asciiLetters(word)
        guard !letters.isEmpty else { return nil }
        var buffer = [CChar](repeating: 0, count: 1024)
        let count: Int32 = lock.withLock { gambit_flite_pronounce(letters, &buffer, buffer.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let phones = text.split(separator: " ").compactMap { mapPhone(String($0)) }
        return phones.isEmpty ? nil : phones
    }

    /// True when the word is in flite's lexicon (so its pronunciation is a lexicon entry, not a guess).
    public static func isInLexicon(_ word: String) -> Bool {
        let letters = asciiLetters(word)
        guard !letters.isEmpty else { return false }
        return lock.withLock { gambit_flite_in_lexicon(letters) == 1 }
    }

    /// The word as the lowercase ASCII letters (and apostrophes) flite's rules read. flite reads bytes and skips
    /// any outside ASCII, so "zoë" was pronounced as "zo" and "müller" as "mller": accents are dropped instead
    /// ("zoë" → "zoe", "josé" → "jose", "björk" → "bjork"), and letters with no plain form are written out
    /// ("straße" → "strasse", "æsir" → "aesir", "łódź" → "lodz"). Letters of other scripts have no Latin
    /// spelling here and are left out, so a word of them gets no pronunciation and is reported.
    static func asciiLetters(_ word: String) -> String {
        let folded = word.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var letters = ""
        for character in folded {
            if character.isASCII {
                if character.isLetter || character == "'" { letters.append(character) }
            } else if let spelled = spelledOut[character] {
                letters += spelled
            } else if character == "’" {
                letters.append("'")
            }
        }
        return letters
    }

    /// Latin letters that no accent folding reaches, as English spelling writes them.
    private static let spelledOut: [Character: String] = [
        "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "ł": "l", "ı": "i", "ħ": "h",
        "ŋ": "ng",
    ]

    private static func mapPhone(_ phone: String) -> String? {
        let bare = phone.filter { !$0.isNumber }.uppercased()
        switch bare {
        case "PAU", "": return nil
        case "AX": return "AH"
        case "AXR": return "ER"
        default: return bare
        }
    }
}
