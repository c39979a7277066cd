import Foundation

/// Whisper's `EnglishTextNormalizer` (openai-whisper 20250625, `whisper/normalizers/english.py`), rule for rule: the
/// normalizer the Open ASR Leaderboard, OpenBench and most published Whisper-family evaluations score with, faults
/// included, so that a WER scored here is the WER they would print.
///
/// The rules are written here from its documented behaviour, working on Unicode scalars as CPython works on code
/// points (``PythonCharacters``), and WhisperNormalizerTests checks the output against the reference, string for
/// string. In order:
/// 1. Lower-case; delete `<…>`, `[…]` and `(…)` spans and the fillers `hmm mm mhm mmm uh um`.
/// 2. Expand contractions and titles (`won't` → `will not`, `dr` → `doctor`, `'s been` → `has been`, then any
///    `n't 're 's 'd 'll 't 've 'm`), so every `'s` becomes `is`, possessives included (`queen's` → `queen is`).
/// 3. Delete commas between digits, and periods not followed by a digit.
/// 4. Decompose (NFKD), drop accents, and turn every other mark, symbol and punctuation into a space, keeping
///    `. % $ ¢ € £`: `o'brien` becomes `o brien`.
/// 5. Numbers (``WhisperNumbers``): spelled numbers become digits (`o` and `oh` are zero, so `o brien` → `0 brien`),
///    currencies and percent attach to their number.
/// 6. British spellings become American (Whisper's table, ``spellingTableJSON``).
/// 7. Drop `. $ ¢ € £` not followed by a digit and `%` not after one; collapse whitespace to one space (a leading
///    or trailing space survives, as in the reference).
public struct WhisperNormalizer: Sendable {
    /// The release whose rules these are; results record it.
    public static let version = "openai-whisper 20250625"

    /// Which stages run, and whether the reference's faults are kept (``whisper``) or fixed (Gambit's `english`,
    /// ``EnglishNormalization``; docs/normalization.md lists each fault and its fix).
    struct Rules: Sendable, Hashable {
        var keepsFaults = true
        var contractions = true
        var numbers = true
        var spelling = true
        var fillers = true

        static let whisper = Rules()
    }

    let rules: Rules

    public init() { rules = .whisper }

    init(rules: Rules) { self.rules = rules }

    /// The reference's output for `text`, exactly.
    public func callAsFunction(_ text: String) -> String {
        String(String.UnicodeScalarView(normalize(Array(text.unicodeScalars))))
    }

    /// The words of `text` under these rules.
    public func words(_ text: String) -> [String] {
        PythonCharacters.split(normalize(Array(text.unicodeScalars))).map {
            String(String.UnicodeScalarView($0))
        }
    }

    typealias Scalars = [Unicode.Scalar]

    func normalize(_ input: Scalars) -> Scalars {
        let fixed = !rules.keepsFaults
        var s = PythonCharacters.lowercased(input)
        if fixed { s = s.map { $0 == "\u{2019}" ? "'" : $0 } }
        s = Self.removingBracketed(s)
        s = Self.removingParenthesized(s)
        if rules.fillers { s = Self.removingFillers(s, keepingHyphenated: fixed) }
        s = Self.joiningApostrophes(s, onlyContractions: fixed)
        if rules.contractions { s = Self.replacingContractionsAndTitles(s, fixed: fixed) }
        s = fixed ? Self.removingEveryDigitComma(s) : Self.removingDigitCommas(s)
        s = fixed ? Self.breakingAtPeriods(s) : Self.removingPeriods(s)
        s = Self.removingSymbolsAndDiacritics(s, fixed: fixed)
        if rules.numbers { s = WhisperNumbers.normalize(s, fixed: fixed) }
        if fixed { s = Self.droppingBreaks(s) }
        if rules.spelling { s = Self.americanSpelling(s) }
        s = Self.removingLoneCurrency(s)
        s = Self.removingLonePercent(s)
        return Self.collapsingSpaces(s)
    }

    /// `[<\[][^>\]]*[>\]]` → nothing: from `<` or `[` to the first `>` or `]`.
    static func removingBracketed(_ s: Scalars) -> Scalars {
        guard let first = s.firstIndex(where: { $0 == "<" || $0 == "[" }) else { return s }
        var out = Scalars(s[..<first])
        var index = first
        while index < s.count {
            if s[index] == "<" || s[index] == "[" {
                guard let close = s[(index + 1)...].firstIndex(where: { $0 == ">" || $0 == "]" }) else {
                    out.append(contentsOf: s[index...])
                    break
                }
                index = close + 1
            } else {
                out.append(s[index])
                index += 1
            }
        }
        return out
    }

    /// `\(([^)]+?)\)` → nothing: from `(` to the first `)`, with at least one character between.
    static func removingParenthesized(_ s: Scalars) -> Scalars {
        guard s.contains("(") else { return s }
        var out = Scalars()
        out.reserveCapacity(s.count)
        var index = 0
        while index < s.count {
            if s[index] == "(", index + 1 < s.count, s[index + 1] != ")",
                let close = s[(index + 2)...].firstIndex(of: ")")
            {
                index = close + 1
            } else {
                out.append(s[index])
                index += 1
            }
        }
        return out
    }

    static let fillers = Set(
        ["hmm", "mm", "mhm", "mmm", "uh", "um"].map { PythonCharacters.asciiKey(Array($0.unicodeScalars))! })

    /// `\b(hmm|mm|mhm|mmm|uh|um)\b` → nothing: a run of word characters that is one of the fillers.
    /// Fixed: a filler joined to a word by a hyphen (`uh-huh`) stays.
    static func removingFillers(_ s: Scalars, keepingHyphenated: Bool = false) -> Scalars {
        rewritingWords(s) { start, end in
            let hyphenated =
                keepingHyphenated && ((start > 0 && s[start - 1] == "-") || (end < s.count && s[end] == "-"))
            guard end - start <= 3, !hyphenated, let key = PythonCharacters.asciiKey(s[start..<end]),
                fillers.contains(key)
            else { return nil }
            return []
        }
    }

    /// `\s+'` → `'`. Fixed: only before a contraction's ending (`it 's`, `we 're`), not a quote (`rock 'n' roll`).
    static func joiningApostrophes(_ s: Scalars, onlyContractions: Bool = false) -> Scalars {
        guard s.contains("'") else { return s }
        var out = Scalars()
        out.reserveCapacity(s.count)
        var index = 0
        while index < s.count {
            guard PythonCharacters.isSpace(s[index]) else {
                out.append(s[index])
                index += 1
                continue
            }
            var end = index + 1
            while end < s.count, PythonCharacters.isSpace(s[end]) { end += 1 }
            let joins = end < s.count && s[end] == "'" && (!onlyContractions || isContractionEnding(s, after: end))
            if !joins { out.append(contentsOf: s[index..<end]) }
            index = end
        }
        return out
    }

    static let contractionEndings: Set<UInt64> = Set(
        ["s", "re", "ll", "ve", "d", "m", "t"].map { PythonCharacters.asciiKey(Array($0.unicodeScalars))! })

    /// Whether the word after the apostrophe at `index` is a contraction's ending.
    static func isContractionEnding(_ s: Scalars, after index: Int) -> Bool {
        var end = index + 1
        while end < s.count, PythonCharacters.isWord(s[end]) { end += 1 }
        guard let key = PythonCharacters.asciiKey(s[(index + 1)..<end]) else { return false }
        return contractionEndings.contains(key)
    }

    /// One of the reference's `replacers`: a literal, `\b` before it or not, always `\b` after it.
    struct Replacer: Sendable {
        let pattern: Scalars
        let wholeWordStart: Bool
        let replacement: Scalars

        init(_ pattern: String, _ replacement: String) {
            wholeWordStart = pattern.hasPrefix("\\b")
            self.pattern = Array((wholeWordStart ? String(pattern.dropFirst(2)) : pattern).unicodeScalars)
            self.replacement = Array(replacement.unicodeScalars)
        }

        func matches(_ s: Scalars, at index: Int) -> Bool {
            guard s[index] == pattern[0], index + pattern.count <= s.count else { return false }
            for offset in 1..<pattern.count where s[index + offset] != pattern[offset] { return false }
            if wholeWordStart && !PythonCharacters.isBoundary(s, at: index) { return false }
            return PythonCharacters.isBoundary(s, at: index + pattern.count)
        }

        func apply(to s: Scalars) -> Scalars {
            WhisperNormalizer.rewriting(s) { matches(s, at: $0) ? (pattern.count, replacement) : nil }
        }
    }

    /// The reference's `replacers`: those with an apostrophe before the first whole word moved ahead of the seven
    /// whole words they follow there (`i'ma` before `wanna`), which changes nothing, since none of them writes a
    /// word that another replaces.
    static let replacers: [Replacer] = [
        // Common contractions.
        Replacer("\\bwon't", "will not"), Replacer("\\bcan't", "can not"), Replacer("\\blet's", "let us"),
        Replacer("\\bain't", "aint"), Replacer("\\by'all", "you all"), Replacer("\\bi'ma", "i am going to"),
        Replacer("\\bma'am", "madam"),
        Replacer("\\bwanna", "want to"), Replacer("\\bgotta", "got to"), Replacer("\\bgonna", "going to"),
        Replacer("\\bimma", "i am going to"), Replacer("\\bwoulda", "would have"),
        Replacer("\\bcoulda", "could have"), Replacer("\\bshoulda", "should have"),
        // Titles and abbreviations; each keeps the space after it.
        Replacer("\\bmr", "mister "), Replacer("\\bmrs", "missus "), Replacer("\\bst", "saint "),
        Replacer("\\bdr", "doctor "), Replacer("\\bprof", "professor "), Replacer("\\bcapt", "captain "),
        Replacer("\\bgov", "governor "), Replacer("\\bald", "alderman "), Replacer("\\bgen", "general "),
        Replacer("\\bsen", "senator "), Replacer("\\brep", "representative "), Replacer("\\bpres", "president "),
        Replacer("\\brev", "reverend "), Replacer("\\bhon", "honorable "), Replacer("\\basst", "assistant "),
        Replacer("\\bassoc", "associate "), Replacer("\\blt", "lieutenant "), Replacer("\\bcol", "colonel "),
        Replacer("\\bjr", "junior "), Replacer("\\bsr", "senior "), Replacer("\\besq", "esquire "),
        // Perfect tenses.
        Replacer("'d been", " had been"), Replacer("'s been", " has been"), Replacer("'d gone", " had gone"),
        Replacer("'s gone", " has gone"), Replacer("'d done", " had done"), Replacer("'s got", " has got"),
        // General contractions.
        Replacer("n't", " not"), Replacer("'re", " are"), Replacer("'s", " is"), Replacer("'d", " would"),
        Replacer("'ll", " will"), Replacer("'t", " not"), Replacer("'ve", " have"), Replacer("'m", " am"),
    ]

    /// The reference's `replacers`, applied in its order, with the same result done in fewer passes: those with an
    /// apostrophe only where the text has one (no replacement writes one), and the 28 that are one whole word
    /// (`wanna`, `dr`) in a single pass over the text's words, since no replacement writes a word that another
    /// of them, or one with an apostrophe, would replace.
    ///
    /// Fixed: `'s` is left alone (a possessive, or `is` or `has`: no rule can tell), and `st` after a number
    /// (`21 st`) is no saint.
    static func replacingContractionsAndTitles(_ s: Scalars, fixed: Bool = false) -> Scalars {
        let apostrophe = s.contains("'")
        var s = s
        if apostrophe { for replacer in replacers[..<wholeWords.lowerBound] { s = replacer.apply(to: s) } }
        s = replacingWholeWords(s, fixed: fixed)
        guard apostrophe else { return s }
        for replacer in replacers[wholeWords.upperBound...] where !(fixed && replacer.pattern == ["'", "s"]) {
            s = replacer.apply(to: s)
        }
        return s
    }

    /// Where the whole-word replacers sit in ``replacers``.
    static let wholeWords = 7..<35

    /// The whole-word replacers, by their word.
    static let wholeWordReplacements: [UInt64: Scalars] = Dictionary(
        uniqueKeysWithValues: replacers[wholeWords].map { (PythonCharacters.asciiKey($0.pattern)!, $0.replacement) })

    /// Every whole-word replacer at once: a run of word characters that is one of their words.
    static func replacingWholeWords(_ s: Scalars, fixed: Bool = false) -> Scalars {
        rewritingWords(s) { start, end in
            guard let key = PythonCharacters.asciiKey(s[start..<end]), let replacement = wholeWordReplacements[key],
                !(fixed && key == saintKey && followsDigit(s, start))
            else { return nil }
            return replacement
        }
    }

    /// `s` with runs of word characters (``PythonCharacters/isWord(_:)``) rewritten: `replace(start, end)` gives
    /// what the run from `start` to `end` becomes, or nil to keep it. `s` itself when no run changed.
    static func rewritingWords(_ s: Scalars, _ replace: (Int, Int) -> Scalars?) -> Scalars {
        var out = Scalars()
        out.reserveCapacity(s.count + 16)
        var index = 0
        var changed = false
        while index < s.count {
            guard PythonCharacters.isWord(s[index]) else {
                out.append(s[index])
                index += 1
                continue
            }
            var end = index + 1
            while end < s.count, PythonCharacters.isWord(s[end]) { end += 1 }
            if let replacement = replace(index, end) {
                out.append(contentsOf: replacement)
                changed = true
            } else {
                out.append(contentsOf: s[index..<end])
            }
            index = end
        }
        return changed ? out : s
    }

    static let saintKey = PythonCharacters.asciiKey(["s", "t"])!

    /// Whether the last character before `index` that is not a space is a digit.
    static func followsDigit(_ s: Scalars, _ index: Int) -> Bool {
        var before = index - 1
        while before >= 0, PythonCharacters.isSpace(s[before]) { before -= 1 }
        return before >= 0 && PythonCharacters.isDecimal(s[before])
    }

    /// Fixed: every comma between two digits goes, so `1,2,3` is `123` like `1,000,000` is `1000000`.
    static func removingEveryDigitComma(_ s: Scalars) -> Scalars {
        guard s.contains(",") else { return s }
        return s.indices.compactMap { index in
            let isDigitComma =
                s[index] == "," && index > 0 && index + 1 < s.count && PythonCharacters.isDecimal(s[index - 1])
                && PythonCharacters.isDecimal(s[index + 1])
            return isDigitComma ? nil : s[index]
        }
    }

    /// Fixed: every period not before a digit ends a number (a break, ``droppingBreaks(_:)``), and takes no
    /// other character with it.
    static func breakingAtPeriods(_ s: Scalars) -> Scalars {
        guard s.contains(".") else { return s }
        var out = Scalars()
        out.reserveCapacity(s.count + 8)
        for index in s.indices {
            if s[index] == ".", index + 1 == s.count || !PythonCharacters.isASCIIDigit(s[index + 1]) {
                out.append(contentsOf: breakToken)
            } else {
                out.append(s[index])
            }
        }
        return out
    }

    /// A break between numbers: punctuation that ends a spoken number (`twenty five, one hundred` is two
    /// numbers), a word of its own until the numbers are read, then dropped.
    static let breakToken: Scalars = [" ", ",", " "]
    static let breakingPunctuation: Set<Unicode.Scalar> = [",", ";", ":", "!", "?", "\u{2014}", "\u{2026}"]

    /// The breaks taken out again, leaving the words single-spaced.
    static func droppingBreaks(_ s: Scalars) -> Scalars {
        guard s.contains(",") else { return s }
        let words = PythonCharacters.split(s).filter { !$0.elementsEqual([","]) }
        return Array(words.map(Array.init).joined(separator: [" "]))
    }

    /// `(\d),(\d)` → `\1\2`, matches not overlapping: `1,2,3` becomes `12,3`.
    static func removingDigitCommas(_ s: Scalars) -> Scalars {
        guard s.contains(",") else { return s }
        return rewriting(s) { index in
            guard index + 2 < s.count, s[index + 1] == ",", PythonCharacters.isDecimal(s[index]),
                PythonCharacters.isDecimal(s[index + 2])
            else { return nil }
            return (3, [s[index], s[index + 2]])
        }
    }

    /// `\.([^0-9]|$)` → ` \1`: a period not before an ASCII digit becomes a space, taking the next character
    /// with it, so of `..` only the first goes.
    static func removingPeriods(_ s: Scalars) -> Scalars {
        guard s.contains(".") else { return s }
        return rewriting(s) { index in
            guard s[index] == "." else { return nil }
            if index + 1 == s.count { return (1, [" "]) }
            return PythonCharacters.isASCIIDigit(s[index + 1]) ? nil : (2, [" ", s[index + 1]])
        }
    }

    /// Letters NFKD does not take apart, and what the reference writes for them.
    static let additionalDiacritics: [Unicode.Scalar: String] = [
        "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "ẞ": "SS", "đ": "d", "Đ": "D",
        "ð": "d", "Ð": "D", "þ": "th", "Þ": "th", "ł": "l", "Ł": "L",
    ]

    static let keptSymbols: Set<Unicode.Scalar> = [".", "%", "$", "¢", "€", "£"]

    /// `remove_symbols_and_diacritics(s, keep=".%$¢€£")`: NFKD, then nonspacing marks dropped, the letters above
    /// spelt out, and any other mark, symbol or punctuation a space.
    ///
    /// Fixed: an apostrophe between two word characters stays (`o'brien`, `queen's`), and punctuation that ends a
    /// spoken number becomes a break.
    static func removingSymbolsAndDiacritics(_ s: Scalars, fixed: Bool = false) -> Scalars {
        let decomposed = PythonCharacters.compatibilityDecomposed(s)
        var out = Scalars()
        out.reserveCapacity(decomposed.count)
        for (index, scalar) in decomposed.enumerated() {
            if fixed, scalar == "'", index > 0, index + 1 < decomposed.count,
                PythonCharacters.isWord(decomposed[index - 1]), PythonCharacters.isWord(decomposed[index + 1])
            {
                out.append(scalar)
            } else if fixed, breakingPunctuation.contains(scalar) {
                out.append(contentsOf: breakToken)
            } else if keptSymbols.contains(scalar) {
                out.append(scalar)
            } else if let spelt = additionalDiacritics[scalar] {
                out.append(contentsOf: spelt.unicodeScalars)
            } else {
                switch PythonCharacters.category(scalar) {
                case .nonspacingMark: break
                case .mark, .symbol, .punctuation: out.append(" ")
                case .other: out.append(scalar)
                }
            }
        }
        return out
    }

    /// The spelling table, parsed once.
    static let spellings: [String: String] = {
        guard let table = try? JSONDecoder().decode([String: String].self, from: Data(spellingTableJSON.utf8)) else {
            preconditionFailure("Whisper's spelling table does not parse")
        }
        return table
    }()

    /// `" ".join(mapping.get(word, word) for word in s.split())`.
    static func americanSpelling(_ s: Scalars) -> Scalars {
        var out = Scalars()
        out.reserveCapacity(s.count)
        for (number, word) in PythonCharacters.split(s).enumerated() {
            if number > 0 { out.append(" ") }
            if (3...20).contains(word.count), let american = spellings[String(String.UnicodeScalarView(word))] {
                out.append(contentsOf: american.unicodeScalars)
            } else {
                out.append(contentsOf: word)
            }
        }
        return out
    }

    static let currencyAndPeriod: Set<Unicode.Scalar> = [".", "$", "¢", "€", "£"]

    /// `[.$¢€£]([^0-9])` → ` \1`, matches not overlapping.
    static func removingLoneCurrency(_ s: Scalars) -> Scalars {
        rewriting(s) { index in
            guard index + 1 < s.count, currencyAndPeriod.contains(s[index]),
                !PythonCharacters.isASCIIDigit(s[index + 1])
            else { return nil }
            return (2, [" ", s[index + 1]])
        }
    }

    /// `([^0-9])%` → `\1 `, matches not overlapping.
    static func removingLonePercent(_ s: Scalars) -> Scalars {
        guard s.contains("%") else { return s }
        return rewriting(s) { index in
            guard index + 1 < s.count, s[index + 1] == "%", !PythonCharacters.isASCIIDigit(s[index]) else {
                return nil
            }
            return (2, [s[index], " "])
        }
    }

    /// `s` with every match replaced, left to right and not overlapping, as `re.sub` does: `match(index)` gives how
    /// many scalars a match at `index` takes and what it writes, or nil for no match there. `s` itself when nothing
    /// matched.
    static func rewriting(_ s: Scalars, _ match: (Int) -> (length: Int, replacement: Scalars)?) -> Scalars {
        var out = Scalars()
        out.reserveCapacity(s.count + 8)
        var index = 0
        var changed = false
        while index < s.count {
            if let (length, replacement) = match(index) {
                out.append(contentsOf: replacement)
                index += length
                changed = true
            } else {
                out.append(s[index])
                index += 1
            }
        }
        return changed ? out : s
    }

    /// `\s+` → one space.
    static func collapsingSpaces(_ s: Scalars) -> Scalars {
        var out = Scalars()
        out.reserveCapacity(s.count)
        var inSpace = false
        for scalar in s {
            if PythonCharacters.isSpace(scalar) {
                if !inSpace { out.append(" ") }
                inSpace = true
            } else {
                out.append(scalar)
                inSpace = false
            }
        }
        return out
    }
}
