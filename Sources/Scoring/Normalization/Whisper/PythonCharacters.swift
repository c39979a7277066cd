import Foundation

/// Characters as CPython 3.11 sees them, which Whisper's normalizer is written for: its `re` module's `\w`, `\s`,
/// `\d` and `\b` on `str` patterns, `str.lower()`, `str.split()` and `unicodedata.category`, all over Unicode 14.0.
///
/// Swift's tables are newer (Unicode 16); a scalar assigned after 14.0 is treated as CPython 3.11 treats it, as
/// unassigned: no word character, no case, category `Cn`.
enum PythonCharacters {
    typealias Scalars = [Unicode.Scalar]

    /// Assigned in Unicode 14.0 or earlier.
    static func isKnown(_ scalar: Unicode.Scalar) -> Bool {
        guard let age = scalar.properties.age else { return false }
        return age.major < 14 || (age.major == 14 && age.minor == 0)
    }

    /// `\w`: `str.isalnum()` (a letter, or any character with a numeric value) or `_`.
    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A)
                || (value >= 0x30 && value <= 0x39) || value == 0x5F
        }
        guard isKnown(scalar) else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return scalar.properties.numericType != nil
        }
    }

    /// `\s` and `str.isspace()`: bidirectional class WS, B or S, or category Zs.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default: return false
        }
    }

    /// `\d`: a decimal digit of any script (category Nd).
    static func isDecimal(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value >= 0x30 && scalar.value <= 0x39 }
        return isKnown(scalar) && scalar.properties.generalCategory == .decimalNumber
    }

    /// `[0-9]`.
    static func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x30 && scalar.value <= 0x39 }

    /// `\b` at `index`: a word character on one side only.
    static func isBoundary(_ text: Scalars, at index: Int) -> Bool {
        let before = index > 0 && isWord(text[index - 1])
        let after = index < text.count && isWord(text[index])
        return before != after
    }

    /// `str.lower()`: each scalar's full lower-case mapping, and capital sigma as final `ς` where it ends a word.
    static func lowercased(_ text: Scalars) -> Scalars {
        guard !text.allSatisfy({ $0.value < 0x41 || ($0.value > 0x5A && $0.value < 0x80) }) else { return text }
        var out: Scalars = []
        out.reserveCapacity(text.count)
        for (index, scalar) in text.enumerated() {
            let value = scalar.value
            if value < 0x80 {
                out.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value + 0x20)! : scalar)
            } else if value == 0x3A3 {
                out.append(isFinalSigma(text, at: index) ? "\u{3C2}" : "\u{3C3}")
            } else if isKnown(scalar) {
                out.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return out
    }

    /// CPython's Final_Sigma test: a cased letter before (past case-ignorable ones) and none after.
    private static func isFinalSigma(_ text: Scalars, at index: Int) -> Bool {
        var before = index - 1
        while before >= 0, isCaseIgnorable(text[before]) { before -= 1 }
        guard before >= 0, isCased(text[before]) else { return false }
        var after = index + 1
        while after < text.count, isCaseIgnorable(text[after]) { after += 1 }
        return after == text.count || !isCased(text[after])
    }

    /// Cased, as in Unicode 14.0, where `ʕ` (U+0295) was still a lower-case letter.
    static func isCased(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x295 || (isKnown(scalar) && scalar.properties.isCased)
    }

    /// Case-ignorable, as in Unicode 14.0, where Ahom's medial ra (U+1171E) was a nonspacing mark.
    static func isCaseIgnorable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x1171E || (isKnown(scalar) && scalar.properties.isCaseIgnorable)
    }

    /// The first letter of `unicodedata.category`, and whether it is `Mn`.
    enum Category { case mark, nonspacingMark, symbol, punctuation, other }

    static func category(_ scalar: Unicode.Scalar) -> Category {
        let value = scalar.value
        if value < 0x80 {
            if isWord(scalar) && value != 0x5F { return .other }
            if value <= 0x20 || value == 0x7F { return .other }
            switch scalar {
            case "$", "+", "<", "=", ">", "^", "`", "|", "~": return .symbol
            default: return .punctuation
            }
        }
        guard isKnown(scalar) else { return .other }
        // Ahom's medial ra was a nonspacing mark until Unicode 15 made it a spacing one.
        if value == 0x1171E { return .nonspacingMark }
        switch scalar.properties.generalCategory {
        case .nonspacingMark: return .nonspacingMark
        case .spacingMark, .enclosingMark: return .mark
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol: return .symbol
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return .punctuation
        default: return .other
        }
    }

    /// `unicodedata.normalize("NFKD", …)`: scalars assigned after 14.0 stay as they are, as CPython 3.11 leaves
    /// them, and so does text below U+0080.
    static func compatibilityDecomposed(_ text: Scalars) -> Scalars {
        guard text.contains(where: { $0.value >= 0x80 }) else { return text }
        var out = Scalars()
        out.reserveCapacity(text.count + 8)
        var start = 0
        func decompose(upTo end: Int) {
            guard start < end else { return }
            let part = String(String.UnicodeScalarView(text[start..<end]))
            out.append(contentsOf: part.decomposedStringWithCompatibilityMapping.unicodeScalars)
        }
        for index in text.indices where text[index].value >= 0x80 && !isKnown(text[index]) {
            decompose(upTo: index)
            out.append(text[index])
            start = index + 1
        }
        decompose(upTo: text.count)
        return out
    }

    /// A word of at most eight ASCII scalars packed into one integer, to look it up without making a `String`;
    /// nil for a longer word or one with any other scalar.
    static func asciiKey<C: Collection>(_ word: C) -> UInt64? where C.Element == Unicode.Scalar {
        guard word.count <= 8 else { return nil }
        var key: UInt64 = 0
        for scalar in word {
            guard scalar.value < 0x80 else { return nil }
            key = key << 8 | UInt64(scalar.value)
        }
        return key
    }

    /// `str.split()`: the runs between whitespace.
    static func split(_ text: Scalars) -> [ArraySlice<Unicode.Scalar>] {
        var words: [ArraySlice<Unicode.Scalar>] = []
        var start: Int? = nil
        for index in text.indices {
            if isSpace(text[index]) {
                if let first = start { words.append(text[first..<index]) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        if let first = start { words.append(text[first...]) }
        return words
    }
}
