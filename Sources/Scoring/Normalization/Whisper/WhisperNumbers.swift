/// Whisper's `EnglishNumberNormalizer`: spelled numbers become digits (`twenty five` → `25`, `one oh one` → `101`,
/// `three and a half` → `3.5`), ordinals and plurals keep their suffix (`twenty first` → `21st`, `sixties` →
/// `60s`), a currency word after a number becomes its symbol before it (`five dollars` → `$5`, `two pounds and
/// fifty pence`… only `$ € £ ¢`), `percent` and `per cent` become `%`, and the digit `1` is written `one`.
///
/// Its numbers are unbounded, as Python's are (`decillion` is 10³³, and a digit string of any length is a number),
/// so values are kept as decimal strings; every multiplier is a power of ten, which keeps the arithmetic to
/// additions.
enum WhisperNumbers {
    typealias Scalars = [Unicode.Scalar]

    /// - Parameter fixed: Gambit's `english`: `o` and `oh` are zero only beside another number, `point` before
    ///   a number word that is no digit stays, `0 zero` is `00`, `and a half` at the start stays, and only a `1`
    ///   standing alone is written `one` (not the one in `1.5` or `$1`).
    static func normalize(_ s: Scalars, fixed: Bool = false) -> Scalars {
        let words = PythonCharacters.split(preprocess(s, fixed: fixed)).map { String(String.UnicodeScalarView($0)) }
        var processor = WordProcessor(fixed: fixed)
        processor.run(words)
        let joined = Array(processor.out.joined(separator: " ").unicodeScalars)
        return fixed ? oneAsWholeWord(extractingCents(combiningCents(joined))) : postprocess(joined)
    }

    /// Fixed: `\b1(s?)\b` only where the `1` is a word of its own.
    static func oneAsWholeWord(_ s: Scalars) -> Scalars {
        guard s.contains("1") else { return s }
        var out = Scalars()
        out.reserveCapacity(s.count + 8)
        for (number, word) in PythonCharacters.split(s).enumerated() {
            if number > 0 { out.append(" ") }
            if word.elementsEqual(["1"]) {
                out.append(contentsOf: "one".unicodeScalars)
            } else if word.elementsEqual(["1", "s"]) {
                out.append(contentsOf: "ones".unicodeScalars)
            } else {
                out.append(contentsOf: word)
            }
        }
        return out
    }

    // MARK: Vocabulary

    static let zeros: Set<String> = ["o", "oh", "zero"]
    static let onesNames = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let ones: [String: Int] = Dictionary(
        uniqueKeysWithValues: onesNames.enumerated().map { ($1, $0 + 1) })
    static let onesSuffixed: [String: (value: Int, suffix: String)] = {
        var table: [String: (value: Int, suffix: String)] = [:]
        for (name, value) in ones { table[name == "six" ? "sixes" : name + "s"] = (value, "s") }
        let irregular: [(String, Int, String)] = [
            ("zeroth", 0, "th"), ("first", 1, "st"), ("second", 2, "nd"), ("third", 3, "rd"), ("fifth", 5, "th"),
            ("twelfth", 12, "th"),
        ]
        for (name, value, suffix) in irregular { table[name] = (value, suffix) }
        for (name, value) in ones where value > 3 && value != 5 && value != 12 {
            table[name + (name.hasSuffix("t") ? "h" : "th")] = (value, "th")
        }
        return table
    }()
    static let tens: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]
    static let tensSuffixed: [String: (value: Int, suffix: String)] = {
        var table: [String: (value: Int, suffix: String)] = [:]
        for (name, value) in tens {
            table[name.replacingAll("y", with: "ies")] = (value, "s")
            table[name.replacingAll("y", with: "ieth")] = (value, "th")
        }
        return table
    }()
    /// Each multiplier's power of ten.
    static let multipliers: [String: Int] = [
        "hundred": 2, "thousand": 3, "million": 6, "billion": 9, "trillion": 12, "quadrillion": 15,
        "quintillion": 18, "sextillion": 21, "septillion": 24, "octillion": 27, "nonillion": 30, "decillion": 33,
    ]
    static let multipliersSuffixed: [String: (power: Int, suffix: String)] = {
        var table: [String: (power: Int, suffix: String)] = [:]
        for (name, power) in multipliers {
            table[name + "s"] = (power, "s")
            table[name + "th"] = (power, "th")
        }
        return table
    }()
    static let decimals = Set(ones.keys).union(tens.keys).union(zeros)
    static let precedingPrefixers = ["minus": "-", "negative": "-", "plus": "+", "positive": "+"]
    static let followingPrefixers = [
        "pound": "£", "pounds": "£", "euro": "€", "euros": "€", "dollar": "$", "dollars": "$", "cent": "¢",
        "cents": "¢",
    ]
    static let prefixes: Set<Unicode.Scalar> = ["-", "+", "£", "€", "$", "¢"]
    static let specials: Set<String> = ["and", "double", "triple", "point"]
    static let words: Set<String> = zeros.union(ones.keys).union(onesSuffixed.keys).union(tens.keys)
        .union(tensSuffixed.keys).union(multipliers.keys).union(multipliersSuffixed.keys)
        .union(precedingPrefixers.keys).union(followingPrefixers.keys).union(["per", "percent"]).union(specials)

    static func isWord(_ word: String?) -> Bool { word.map { words.contains($0) } ?? false }

    // MARK: Digit strings

    /// `^\d+(\.\d+)?$`, with any script's decimal digits.
    static func isArabic(_ word: String) -> Bool {
        var digits = 0
        var period = false
        var decimals = 0
        for scalar in word.unicodeScalars {
            if PythonCharacters.isDecimal(scalar) {
                if period { decimals += 1 } else { digits += 1 }
            } else if scalar == ".", digits > 0, !period {
                period = true
            } else {
                return false
            }
        }
        return digits > 0 && (!period || decimals > 0)
    }

    /// `Fraction(s)` for the strings a value can be (digits of any script around at most one period), as its
    /// whole and decimal digits in ASCII; nil where Python raises.
    static func fraction(_ s: String) -> (whole: String, decimals: String)? {
        let scalars = Array(s.unicodeScalars)
        var index = 0
        var whole = ""
        while index < scalars.count, let digit = digitValue(scalars[index]) {
            whole.append(Character(Unicode.Scalar(UInt8(48 + digit))))
            index += 1
        }
        var decimals = ""
        if index < scalars.count, scalars[index] == "." {
            index += 1
            while index < scalars.count, let digit = digitValue(scalars[index]) {
                decimals.append(Character(Unicode.Scalar(UInt8(48 + digit))))
                index += 1
            }
        }
        guard index == scalars.count, !whole.isEmpty || !decimals.isEmpty else { return nil }
        return (whole, decimals)
    }

    static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        guard PythonCharacters.isDecimal(scalar), let value = scalar.properties.numericValue else { return nil }
        return Int(value)
    }

    /// Digits without leading zeros; `0` for none.
    static func canonical<S: StringProtocol>(_ digits: S) -> String {
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    /// The integer `Fraction(s) × 10^power`, or nil if `s` is no number or the product is not whole.
    static func scaledFraction(_ s: String, power: Int) -> String? {
        guard let (whole, decimals) = fraction(s) else { return nil }
        let significant = decimals.reversed().drop { $0 == "0" }.reversed()
        guard significant.count <= power else { return nil }
        return canonical(whole + String(significant) + String(repeating: "0", count: power - significant.count))
    }

    /// The integer, if `s` is a whole `Fraction`.
    static func wholeFraction(_ s: String) -> String? { scaledFraction(s, power: 0) }

    static func power(_ exponent: Int) -> String { "1" + String(repeating: "0", count: exponent) }

    /// `value % modulus` for a modulus of 10, 100 or 1000.
    static func remainder(_ value: String, _ modulus: Int) -> Int {
        let places = modulus == 10 ? 1 : modulus == 100 ? 2 : 3
        return Int(value.suffix(places))!
    }

    /// The sum of two non-negative decimal integers.
    static func sum(_ a: String, _ b: String) -> String {
        let x = Array(a.utf8.reversed())
        let y = Array(b.utf8.reversed())
        var digits: [UInt8] = []
        var carry = 0
        for index in 0..<max(x.count, y.count) {
            let total =
                (index < x.count ? Int(x[index]) - 48 : 0) + (index < y.count ? Int(y[index]) - 48 : 0) + carry
            digits.append(UInt8(48 + total % 10))
            carry = total / 10
        }
        if carry > 0 { digits.append(UInt8(48 + carry)) }
        return canonical(String(decoding: digits.reversed(), as: UTF8.self))
    }

    /// `value // 1000 * 1000 + value % 1000 * 10^power`.
    static func multiplied(_ value: String, power: Int) -> String {
        let before = value.count > 3 ? String(value.dropLast(3)) + "000" : "0"
        let residual = remainder(value, 1000)
        return sum(before, residual == 0 ? "0" : String(residual) + String(repeating: "0", count: power))
    }

    // MARK: Before and after

    /// `<number> and a half` → `<number> point five`; a space between letters and digits (`10mg` → `10 mg`),
    /// taken back before a suffix (`21 st` → `21st`).
    static func preprocess(_ s: Scalars, fixed: Bool = false) -> Scalars {
        var segments: [ArraySlice<Unicode.Scalar>] = []
        var start = 0
        var index = 0
        while index < s.count {
            if let end = andAHalf(s, at: index) {
                segments.append(s[start..<index])
                start = end
                index = end
            } else {
                index += 1
            }
        }
        segments.append(s[start...])
        var joined = Scalars()
        joined.reserveCapacity(s.count + 8)
        var first = true
        for (number, segment) in segments.enumerated() {
            let blank = segment.allSatisfy(PythonCharacters.isSpace)
            // The reference drops a blank segment and the `and a half` after it; fixed, the words stay.
            guard !blank || (fixed && number < segments.count - 1) else { continue }
            if !first { joined.append(" ") }
            first = false
            joined.append(contentsOf: segment)
            guard number < segments.count - 1 else { continue }
            let last = blank ? "" : String(String.UnicodeScalarView(PythonCharacters.split(Array(segment)).last!))
            let half = decimals.contains(last) || multipliers[last] != nil ? "point five" : "and a half"
            joined.append(" ")
            joined.append(contentsOf: half.unicodeScalars)
        }
        return joiningSuffixes(spacingLettersAndDigits(joined))
    }

    /// The end of `\band\s+a\s+half\b` starting at `index`, if it does.
    static func andAHalf(_ s: Scalars, at index: Int) -> Int? {
        guard s[index] == "a", PythonCharacters.isBoundary(s, at: index) else { return nil }
        var position = index
        func take(_ literal: String) -> Bool {
            for scalar in literal.unicodeScalars {
                guard position < s.count, s[position] == scalar else { return false }
                position += 1
            }
            return true
        }
        func spaces() -> Bool {
            let from = position
            while position < s.count, PythonCharacters.isSpace(s[position]) { position += 1 }
            return position > from
        }
        guard take("and"), spaces(), take("a"), spaces(), take("half"), PythonCharacters.isBoundary(s, at: position)
        else { return nil }
        return position
    }

    static func isLowerASCII(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x61 && scalar.value <= 0x7A }

    /// `([a-z])([0-9])` → `\1 \2`, then `([0-9])([a-z])` → `\1 \2`.
    static func spacingLettersAndDigits(_ s: Scalars) -> Scalars {
        func spaced(_ s: Scalars, _ left: (Unicode.Scalar) -> Bool, _ right: (Unicode.Scalar) -> Bool) -> Scalars {
            var out = Scalars()
            out.reserveCapacity(s.count + 4)
            var index = 0
            while index < s.count {
                out.append(s[index])
                if index + 1 < s.count, left(s[index]), right(s[index + 1]) {
                    out.append(" ")
                    out.append(s[index + 1])
                    index += 2
                } else {
                    index += 1
                }
            }
            return out
        }
        let digit = PythonCharacters.isASCIIDigit
        return spaced(spaced(s, isLowerASCII, digit), digit, isLowerASCII)
    }

    static let suffixes: [Scalars] = ["st", "nd", "rd", "th", "s"].map { Array($0.unicodeScalars) }

    /// `([0-9])\s+(st|nd|rd|th|s)\b` → `\1\2`.
    static func joiningSuffixes(_ s: Scalars) -> Scalars {
        var out = Scalars()
        out.reserveCapacity(s.count)
        var index = 0
        while index < s.count {
            out.append(s[index])
            guard PythonCharacters.isASCIIDigit(s[index]) else {
                index += 1
                continue
            }
            var after = index + 1
            while after < s.count, PythonCharacters.isSpace(s[after]) { after += 1 }
            let suffix =
                after > index + 1
                ? suffixes.first { suffix in
                    after + suffix.count <= s.count && s[after..<(after + suffix.count)].elementsEqual(suffix)
                        && PythonCharacters.isBoundary(s, at: after + suffix.count)
                } : nil
            if let suffix {
                out.append(contentsOf: suffix)
                index = after + suffix.count
            } else {
                index += 1
            }
        }
        return out
    }

    static let currencies: Set<Unicode.Scalar> = ["€", "£", "$"]

    /// `$2 and ¢7` → `$2.07`, `$0.5` → `¢5`, and a lone `1` or `1s` → `one`, `ones`.
    static func postprocess(_ s: Scalars) -> Scalars {
        oneAsWord(extractingCents(combiningCents(s)))
    }

    /// The end of `[0-9]{1,2}\b` at `index`, and the digits' value.
    static func cents(_ s: Scalars, at index: Int) -> (end: Int, value: Int)? {
        var end = index
        while end < s.count, end < index + 2, PythonCharacters.isASCIIDigit(s[end]) { end += 1 }
        guard end > index, PythonCharacters.isBoundary(s, at: end) else { return nil }
        return (end, Int(String(String.UnicodeScalarView(s[index..<end])))!)
    }

    /// `([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b` → `{currency}{integer}.{cents:02d}`.
    static func combiningCents(_ s: Scalars) -> Scalars {
        guard s.contains("¢") else { return s }
        var out = Scalars()
        var index = 0
        while index < s.count {
            guard currencies.contains(s[index]) else {
                out.append(s[index])
                index += 1
                continue
            }
            var position = index + 1
            while position < s.count, PythonCharacters.isASCIIDigit(s[position]) { position += 1 }
            let integer = s[(index + 1)..<position]
            if !integer.isEmpty, position < s.count, s[position] == " " {
                position += 1
                let and: Scalars = ["a", "n", "d", " "]
                if s[position...].starts(with: and), s.count > position + 4, s[position + 4] == "¢" { position += 4 }
                if position < s.count, s[position] == "¢", let cents = cents(s, at: position + 1) {
                    out.append(s[index])
                    out.append(contentsOf: integer)
                    out.append(".")
                    out.append(contentsOf: (cents.value < 10 ? "0\(cents.value)" : "\(cents.value)").unicodeScalars)
                    index = cents.end
                    continue
                }
            }
            out.append(s[index])
            index += 1
        }
        return out
    }

    /// `[€£$]0.([0-9]{1,2})\b` → `¢{int}` (the `.` there is any character).
    static func extractingCents(_ s: Scalars) -> Scalars {
        guard s.contains("0") else { return s }
        return WhisperNormalizer.rewriting(s) { index in
            guard currencies.contains(s[index]), index + 2 < s.count, s[index + 1] == "0", s[index + 2] != "\n",
                let cents = cents(s, at: index + 3)
            else { return nil }
            return (cents.end - index, ["¢"] + String(cents.value).unicodeScalars)
        }
    }

    /// `\b1(s?)\b` → `one\1`.
    static func oneAsWord(_ s: Scalars) -> Scalars {
        guard s.contains("1") else { return s }
        return WhisperNormalizer.rewriting(s) { index in
            guard s[index] == "1", PythonCharacters.isBoundary(s, at: index) else { return nil }
            if index + 1 < s.count, s[index + 1] == "s", PythonCharacters.isBoundary(s, at: index + 2) {
                return (2, Array("ones".unicodeScalars))
            }
            return PythonCharacters.isBoundary(s, at: index + 1) ? (1, Array("one".unicodeScalars)) : nil
        }
    }
}
