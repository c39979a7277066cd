import Foundation

/// A user's id or name as a message prints it, so that two different ones never print alike.
///
/// Control characters (a NUL, a line break) and invisible format characters (a zero-width space, a byte-order
/// mark) are escaped as `\u{0}`, `\n`, `\u{200B}`; and where two names that differ would still print the same
/// (`café` with a precomposed é and `café` with `e` and a combining accent), each is followed by its code points,
/// `(U+0063 U+0061 U+0066 U+0065 U+0301)`. Every message that names an utterance id, a corpus or a variant goes
/// through here.
public enum PrintedName {
    /// `name` with its control and invisible format characters escaped.
    ///
    /// - Parameter name: An id or name as the user wrote it.
    /// - Returns: The name as a terminal shows it without hiding or breaking anything.
    public static func escaped(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\\" where name.unicodeScalars.contains(where: needsEscape):
                // A backslash is doubled only where escapes appear, so that `\u{0}` cannot be read as written.
                out += "\\\\"
            case _ where needsEscape(scalar):
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `name` escaped, followed by its code points when it is not in Unicode NFC: a name in another normal form
    /// prints like its NFC twin, and only the code points tell them apart.
    public static func alone(_ name: String) -> String {
        let printed = escaped(name)
        return isNFC(name) ? printed : "\(printed) (\(codePoints(name)))"
    }

    /// `names` escaped, each followed by its code points where another of `names` or of `others` differs from it
    /// but prints the same, or where it is not in Unicode NFC.
    ///
    /// - Parameters:
    ///   - names: The names to print.
    ///   - others: Names printed beside them (the other file's ids in a message that lists both).
    /// - Returns: One printed name per name of `names`.
    public static func distinguished(_ names: [String], from others: [String] = []) -> [String] {
        let all = names + others
        return names.map { name in
            let printed = escaped(name)
            // `==` on Swift strings is canonical equivalence: NFC and NFD forms compare equal, so the scalars are
            // compared to tell them apart.
            let twin = all.contains { other in
                escaped(other) == printed && !other.unicodeScalars.elementsEqual(name.unicodeScalars)
            }
            return twin || !isNFC(name) ? "\(printed) (\(codePoints(name)))" : printed
        }
    }

    /// `U+0063 U+0061 U+0066 U+00E9`.
    public static func codePoints(_ name: String) -> String {
        name.unicodeScalars.map { "U+" + String(String($0.value, radix: 16, uppercase: true).leftPadded(to: 4)) }
            .joined(separator: " ")
    }

    /// A control character, or a format character that prints as nothing (zero-width space, joiners, a
    /// byte-order mark, bidirectional marks).
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    package static func isNFC(_ name: String) -> Bool {
        let composed = name.precomposedStringWithCanonicalMapping
        return composed.unicodeScalars.elementsEqual(name.unicodeScalars)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
