extension WhisperNumbers {
    /// A number being read: an integer (``int``, ASCII digits without leading zeros), or digits written out as
    /// they come (``text``: `101`, `5.`, `1.50`), as `EnglishNumberNormalizer.process_words` keeps an `int` or a
    /// `str`. The two differ in what comes next: `twenty` after the integer 100 makes 120; after the text `1`
    /// it makes `120` too, but after the text `5.` it makes `5.20`.
    enum Value {
        case int(String)
        case text(String)

        var string: String {
            switch self {
            case .int(let digits): digits
            case .text(let text): text
            }
        }

        var isText: Bool { if case .text = self { true } else { false } }
    }

    /// `process_words`: the words, left to right, with one number being read at a time.
    struct WordProcessor {
        /// Gambit's `english`: the reference's faults fixed (``WhisperNumbers/normalize(_:fixed:)``).
        var fixed = false
        var out: [String] = []
        var prefix: String? = nil
        var value: Value? = nil

        /// `output(result)`: the result with the pending prefix; the number is done.
        mutating func output(_ result: String) {
            out.append((prefix ?? "") + result)
            value = nil
            prefix = nil
        }

        /// `if value is not None: yield output(value)`.
        mutating func flush() { if let value { output(value.string) } }

        /// `str(value or "")`: an empty start for nothing and for the integer 0.
        var valueOrEmpty: String {
            switch value {
            case .none: ""
            case .int("0"): fixed ? "0" : ""
            case .some(let value): value.string
            }
        }

        /// A word that is a number or part of one: beside it, `o` and `oh` are zero (fixed).
        static func isNumeric(_ word: String?) -> Bool {
            guard let word else { return false }
            return zeros.contains(word) || ones[word] != nil || tens[word] != nil || multipliers[word] != nil
                || onesSuffixed[word] != nil || tensSuffixed[word] != nil || multipliersSuffixed[word] != nil
                || isArabic(word)
        }

        mutating func run(_ words: [String]) {
            var skip = false
            for index in words.indices {
                if skip {
                    skip = false
                    continue
                }
                let previous = index > 0 ? words[index - 1] : nil
                let next = index + 1 < words.count ? words[index + 1] : nil
                skip = step(previous, words[index], next)
            }
            flush()
        }

        /// One word; true when it used the next word too.
        mutating func step(_ previous: String?, _ current: String, _ next: String?) -> Bool {
            let first = current.unicodeScalars.first!
            let hasPrefix = prefixes.contains(first)
            let bare = hasPrefix ? String(String.UnicodeScalarView(current.unicodeScalars.dropFirst())) : current
            if isArabic(bare) {
                arabic(current, bare: bare, prefix: hasPrefix ? String(first) : nil)
            } else if !words.contains(current)
                || (fixed && current != "zero" && zeros.contains(current) && !Self.isNumeric(previous)
                    && !Self.isNumeric(next))
            {
                flush()
                output(current)
            } else if zeros.contains(current) {
                value = .text(valueOrEmpty + "0")
            } else if let number = ones[current] {
                one(number, after: previous)
            } else if let (number, suffix) = onesSuffixed[current] {
                oneSuffixed(number, suffix, after: previous)
            } else if let number = tens[current] {
                ten(number)
            } else if let (number, suffix) = tensSuffixed[current] {
                tenSuffixed(number, suffix)
            } else if let power = multipliers[current] {
                multiplier(power)
            } else if let (power, suffix) = multipliersSuffixed[current] {
                multiplierSuffixed(power, suffix)
            } else if let sign = precedingPrefixers[current] {
                flush()
                if isWord(next) || next.map(isArabic) == true { prefix = sign } else { output(current) }
            } else if let symbol = followingPrefixers[current] {
                if let value {
                    prefix = symbol
                    output(value.string)
                } else {
                    output(current)
                }
            } else if current == "per" || current == "percent" {
                return suffixer(current, next)
            } else {
                return special(previous, current, next)
            }
            return false
        }

        mutating func arabic(_ current: String, bare: String, prefix sign: String?) {
            if let value {
                if case .text(let text) = value, text.unicodeScalars.last == "." {
                    self.value = .text(text + current)
                    return
                }
                output(value.string)
            }
            if let sign { prefix = sign }
            value = wholeFraction(bare).map(Value.int) ?? .text(bare)
        }

        /// The text value with its last digit (a tens word's 0) replaced, or `digits` appended.
        func joined(_ value: Value, _ number: Int, after previous: String?) -> String {
            if let previous, tens[previous] != nil, number < 10 {
                return String(String.UnicodeScalarView(value.string.unicodeScalars.dropLast())) + String(number)
            }
            return value.string + String(number)
        }

        /// The value a ones word (1–19) makes of `value`: its text or a new integer.
        func adding(_ number: Int, to value: Value, after previous: String?) -> Value {
            if value.isText || previous.map({ ones[$0] != nil }) == true {
                return .text(joined(value, number, after: previous))
            }
            let modulus = number < 10 ? 10 : 100
            return remainder(value.string, modulus) == 0
                ? .int(sum(value.string, String(number))) : .text(value.string + String(number))
        }

        mutating func one(_ number: Int, after previous: String?) {
            guard let value else {
                self.value = .int(String(number))
                return
            }
            self.value = adding(number, to: value, after: previous)
        }

        mutating func oneSuffixed(_ number: Int, _ suffix: String, after previous: String?) {
            guard let value else {
                output(String(number) + suffix)
                return
            }
            output(adding(number, to: value, after: previous).string + suffix)
        }

        func addingTens(_ number: Int, to value: Value) -> Value {
            if value.isText || remainder(value.string, 100) != 0 { return .text(value.string + String(number)) }
            return .int(sum(value.string, String(number)))
        }

        mutating func ten(_ number: Int) {
            guard let value else {
                self.value = .int(String(number))
                return
            }
            self.value = addingTens(number, to: value)
        }

        mutating func tenSuffixed(_ number: Int, _ suffix: String) {
            guard let value else {
                output(String(number) + suffix)
                return
            }
            output(addingTens(number, to: value).string + suffix)
        }

        mutating func multiplier(_ power: Int) {
            guard let value else {
                self.value = .int(WhisperNumbers.power(power))
                return
            }
            guard value.isText || value.string == "0" else {
                self.value = .int(multiplied(value.string, power: power))
                return
            }
            if let product = scaledFraction(value.string, power: power) {
                self.value = .int(product)
            } else {
                output(value.string)
                self.value = .int(WhisperNumbers.power(power))
            }
        }

        mutating func multiplierSuffixed(_ power: Int, _ suffix: String) {
            switch value {
            case .none:
                output(WhisperNumbers.power(power) + suffix)
            case .text(let text):
                if let product = scaledFraction(text, power: power) {
                    output(product + suffix)
                } else {
                    output(text)
                    output(WhisperNumbers.power(power) + suffix)
                }
            case .int(let digits):
                output(multiplied(digits, power: power) + suffix)
            }
        }

        mutating func suffixer(_ current: String, _ next: String?) -> Bool {
            guard let value else {
                output(current)
                return false
            }
            if current == "percent" {
                output(value.string + "%")
            } else if next == "cent" {
                output(value.string + "%")
                return true
            } else {
                output(value.string)
                output(current)
            }
            return false
        }

        /// `and`, `double`, `triple`, `point`: numeric only before a word that can be.
        mutating func special(_ previous: String?, _ current: String, _ next: String?) -> Bool {
            if !isWord(next) && next.map(isArabic) != true {
                flush()
                output(current)
            } else if current == "and" {
                // Ignored after a multiplier: `hundred and five`.
                if previous.map({ multipliers[$0] != nil }) != true {
                    flush()
                    output(current)
                }
            } else if current == "double" || current == "triple" {
                guard let next, ones[next] != nil || zeros.contains(next) else {
                    flush()
                    output(current)
                    return false
                }
                let digit = String(ones[next] ?? 0)
                value = .text(valueOrEmpty + String(repeating: digit, count: current == "double" ? 2 : 3))
                return true
            } else if let next, decimals.contains(next) || isArabic(next) {
                // `point`, before a digit word; before any other number word it is dropped (kept, fixed).
                value = .text(valueOrEmpty + ".")
            } else if fixed {
                flush()
                output(current)
            }
            return false
        }
    }
}
