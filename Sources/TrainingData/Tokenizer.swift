import Foundation

/// Splits text into the lowercase words a language model sees.
///
/// The rules, applied the same way to phrases, templates, class values and graphemes:
/// - letters are lowercased;
/// - an apostrophe (`'` or `’`) between two letters or digits stays, as `'` ("don't", "o'brien");
/// - a `.` or `,` between two digits stays, so numbers stay as written ("3.5", "1,000", "1" stays "1");
/// - hyphens, other punctuation and whitespace separate words ("counter-gambit" → "counter", "gambit").
///
/// Numbers are not spelled out here: the dictionary layer has to spell digits ("1" → "one") or give
/// them pronunciations, since the acoustic model's dictionary has no entry for "1".
public enum WordTokenizer {
    /// The words of `text`, lowercased, in order.
    public static func tokenize(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if isWordCharacter(character) {
                current.append(contentsOf: character.lowercased())
                continue
            }
            let previous = index > 0 ? characters[index - 1] : nil
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "'" || character == "’" {
                if let previous, let next, isWordCharacter(previous), isWordCharacter(next), !current.isEmpty {
                    current.append("'")
                    continue
                }
            } else if character == "." || character == "," {
                if let previous, let next, previous.isNumber, next.isNumber, !current.isEmpty {
                    current.append(character)
                    continue
                }
            }
            if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The first decoder marker in `text`, if any: a sentence or unknown-word tag (`<s>`, `</s>`,
    /// `<unk>`, `<sil>`), a bracketed filler (`[noise]`, `[laughter]`) or a Sphinx filler
    /// (`++breath++`). Tokenized, each would pass for an ordinary word.
    public static func reservedToken(in text: String) -> String? {
        guard let match = text.firstMatch(of: #/<\/?[^<>\s]*>|\[[^\[\]]*\]|\+\+[^+\s]+\+\+/#) else { return nil }
        return String(match.output)
    }

    /// The first `<…>` in `text` that reads as a class reference (`<piece>`, `< piece >`), not a decoder
    /// marker (see ``reservedToken(in:)``). Outside a template it would be trained as the bare word.
    public static func classReference(in text: String) -> String? {
        for match in text.matches(of: #/<([^<>]*)>/#) {
            let name = String(match.output.1).trimmingCharacters(in: .whitespaces)
            guard name.contains(where: isWordCharacter), !markerNames.contains(name.lowercased()) else { continue }
            return String(match.output.0)
        }
        return nil
    }

    /// The names inside the angle-bracket markers a decoder writes (`<s>`, `</s>`, `<unk>`, `<sil>`).
    static let markerNames: Set<String> = ["s", "/s", "unk", "sil"]

    static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }
}
