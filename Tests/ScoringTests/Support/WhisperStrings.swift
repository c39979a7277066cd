import Scoring

/// Seeded strings of the kinds Whisper's normalizer meets, to check the `whisper` mode against the reference:
/// transcripts as a Whisper-family recognizer writes them and as people write references, assembled from
/// fragments of every kind the normalizer has rules for, plus strings of random characters drawn from the ones
/// the rules look at.
enum WhisperStrings {
    /// `count` sentences of 2–12 fragments each.
    static func sentences(count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let fragments = (0..<Int.random(in: 2...12, using: &rng)).map { _ in fragment(&rng) }
            var text = ""
            for fragment in fragments {
                if !text.isEmpty { text += separators.randomElement(using: &rng)! }
                text += fragment
            }
            return text
        }
    }

    /// `count` strings of 1–30 characters drawn from those the rules treat specially.
    static func characterSoup(count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        let alphabet = Array(soupAlphabet)
        return (0..<count).map { _ in
            let pieces = (0..<Int.random(in: 1...14, using: &rng)).map { _ in
                Int.random(in: 0..<3, using: &rng) == 0
                    ? soupWords.randomElement(using: &rng)! : String(alphabet.randomElement(using: &rng)!)
            }
            return pieces.joined()
        }
    }

    /// `count` strings of code points from all of Unicode's planes in use, ASCII and the characters the rules
    /// look at mixed in: case, categories, decomposition and word boundaries as CPython sees them.
    static func randomScalars(count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        let ranges: [Range<UInt32>] = [0x01..<0x80, 0x80..<0x3000, 0x3000..<0x10000, 0x10000..<0x30000]
        let mixed = ["a", " ", "1", "s", " and ", "\u{3A3}", "'", "0", "$", "."]
        return (0..<count).map { _ in
            var text = ""
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                let value = UInt32.random(in: ranges.randomElement(using: &rng)!, using: &rng)
                if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
                if Bool.random(using: &rng) { text += mixed.randomElement(using: &rng)! }
            }
            return text
        }
    }

    static let separators = [" ", " ", " ", " ", ", ", ". ", "  ", "\t", " - ", "? ", "! ", "; ", "\u{A0}", "\n"]

    static func fragment(_ rng: inout SplitMix64) -> String {
        let kinds: [(inout SplitMix64) -> String] = [
            { rng in plainWords.randomElement(using: &rng)! },
            spelledNumber, digitNumber, ordinal, decimal, fraction, year, currency, percent, unit, time,
            { rng in titles.randomElement(using: &rng)! }, { rng in contractions.randomElement(using: &rng)! },
            britishSpelling, { rng in fillers.randomElement(using: &rng)! },
            { rng in noise.randomElement(using: &rng)! },
            { rng in punctuation.randomElement(using: &rng)! }, { rng in hyphenated.randomElement(using: &rng)! },
            { rng in symbols.randomElement(using: &rng)! }, { rng in accented.randomElement(using: &rng)! },
        ]
        let text = kinds.randomElement(using: &rng)!(&rng)
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return text.uppercased()
        case 1, 2: return text.prefix(1).uppercased() + text.dropFirst()
        default: return text
        }
    }

    // MARK: Numbers

    static let units = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let scales = [
        "hundred", "thousand", "million", "billion", "trillion", "quadrillion", "decillion", "hundreds",
        "thousands", "millions", "hundredth", "thousandth", "millionth",
    ]

    /// English words for `n` below a million, written the ways people say them.
    static func spell(_ n: Int, _ rng: inout SplitMix64) -> String {
        if n < 20 { return units[n] }
        if n < 100 {
            let rest = n % 10
            let joiner = Bool.random(using: &rng) ? " " : "-"
            return tens[n / 10 - 2] + (rest == 0 ? "" : joiner + units[rest])
        }
        if n < 1000 {
            let rest = n % 100
            let and = Bool.random(using: &rng) ? " and " : " "
            return units[n / 100] + " hundred" + (rest == 0 ? "" : and + spell(rest, &rng))
        }
        let rest = n % 1000
        return spell(n / 1000, &rng) + " thousand" + (rest == 0 ? "" : " " + spell(rest, &rng))
    }

    static func spelledNumber(_ rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return spell(Int.random(in: 0..<20, using: &rng), &rng)
        case 1: return spell(Int.random(in: 20..<100, using: &rng), &rng)
        case 2: return spell(Int.random(in: 100..<1000, using: &rng), &rng)
        case 3: return spell(Int.random(in: 1000..<1_000_000, using: &rng), &rng)
        case 4:
            // Digit by digit, as phone numbers and room numbers are read.
            let digits = ["one", "two", "three", "oh", "o", "zero", "five", "nine", "double", "triple"]
            return (0..<Int.random(in: 2...6, using: &rng)).map { _ in digits.randomElement(using: &rng)! }
                .joined(separator: " ")
        case 5: return spell(Int.random(in: 1..<100, using: &rng), &rng) + " " + scales.randomElement(using: &rng)!
        case 6:
            return spell(Int.random(in: 0..<20, using: &rng), &rng) + " point "
                + spell(Int.random(in: 0..<100, using: &rng), &rng)
        case 7: return spell(Int.random(in: 1..<20, using: &rng), &rng) + " and a half"
        case 8:
            return ["minus", "negative", "plus", "positive"].randomElement(using: &rng)! + " "
                + spell(
                    Int.random(in: 0..<100, using: &rng), &rng)
        case 9: return "a " + scales.randomElement(using: &rng)!
        case 10:
            return ["ones", "twos", "sixes", "tens", "twenties", "thirties", "nineties", "elevens"]
                .randomElement(using: &rng)!
        default:
            return spell(Int.random(in: 1..<10, using: &rng), &rng) + " " + scales.randomElement(using: &rng)! + " "
                + spell(Int.random(in: 0..<1000, using: &rng), &rng)
        }
    }

    static func digitNumber(_ rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return String(Int.random(in: 0..<10, using: &rng))
        case 1: return String(Int.random(in: 10..<1000, using: &rng))
        case 2:
            let n = Int.random(in: 1000..<100_000_000, using: &rng)
            return n.formatted(separator: ",")
        case 3: return "0" + String(Int.random(in: 0..<100, using: &rng))
        case 4: return ["1,2,3", "10,000,000", "1,000.50", "12,34", "3,", ",5", "1, 2"].randomElement(using: &rng)!
        case 5: return String(Int.random(in: 1..<10, using: &rng)) + " " + scales.randomElement(using: &rng)!
        case 6: return String(repeating: "9", count: Int.random(in: 15...40, using: &rng))
        default:
            return ["number 1", "1", "1s", "the 1 and only", "11", "21", "1.5", "0.1", "10"]
                .randomElement(using: &rng)!
        }
    }

    static func ordinal(_ rng: inout SplitMix64) -> String {
        let n = Int.random(in: 1..<200, using: &rng)
        let suffix =
            n % 10 == 1 && n % 100 != 11
            ? "st"
            : n % 10 == 2 && n % 100 != 12
                ? "nd"
                : n % 10 == 3 && n % 100 != 13 ? "rd" : "th"
        let words = [
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "nineth", "tenth",
            "eleventh", "twelfth", "thirteenth", "twentieth", "twenty first", "thirty second", "ninetieth",
            "hundredth", "zeroth", "one hundred and first", "twenty-third",
        ]
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return "\(n)\(suffix)"
        case 1: return "\(n) \(suffix)"
        case 2: return "\(n)\(suffix.uppercased())"
        default: return words.randomElement(using: &rng)!
        }
    }

    static func decimal(_ rng: inout SplitMix64) -> String {
        let whole = Int.random(in: 0..<1000, using: &rng)
        let places = String(Int.random(in: 0..<1000, using: &rng))
        return [
            "\(whole).\(places)", ".\(places)", "\(whole).", "\(whole).0", "\(whole).50", "0.\(places)",
            "\(whole).\(places).\(places)", "\(whole) point \(places)",
        ].randomElement(using: &rng)!
    }

    static func fraction(_ rng: inout SplitMix64) -> String {
        [
            "1/2", "3/4", "2/3", "½", "¾", "⅓", "one half", "a half", "three quarters", "one third", "two thirds",
            "1 1/2", "one and a half", "and a half", "ten and a half million", "a quarter", "5/8ths",
        ].randomElement(using: &rng)!
    }

    static func year(_ rng: inout SplitMix64) -> String {
        let year = Int.random(in: 1600..<2100, using: &rng)
        return [
            "\(year)", "in \(year)", "the \(year / 10 * 10)s", "'\(year % 100)s", "\(year)'s",
            "nineteen ninety nine", "twenty twenty", "two thousand and five", "the sixties", "the nineteen sixties",
            "\(year)-\(year + 1)", "AD \(year)", "\(year)BC",
        ].randomElement(using: &rng)!
    }

    static func currency(_ rng: inout SplitMix64) -> String {
        let n = Int.random(in: 0..<500, using: &rng)
        let cents = Int.random(in: 0..<100, using: &rng)
        return [
            "$\(n)", "$\(n).\(cents)", "$\(n).0\(cents % 10)", "£\(n)", "€\(n)", "¥\(n)", "\(n)$", "$0.\(cents)",
            "$\(n) million", "$\(n)m", "$\(n)k", "\(n) dollars", "\(n) dollars and \(cents) cents", "\(cents) cents",
            "a dollar", "one pound", "\(n) euros", "twenty dollars", "five pounds fifty", "$\(n) and ¢\(cents)",
            "\(n) cent", "$\(n),000", "US$\(n)", "$ \(n)", "¢\(cents)", "$0\(cents)", "$0 \(cents)",
        ].randomElement(using: &rng)!
    }

    static func percent(_ rng: inout SplitMix64) -> String {
        let n = Int.random(in: 0..<101, using: &rng)
        return [
            "\(n)%", "\(n) percent", "\(n) per cent", "\(n).5%", "%", "a%", "\(n)% of", "fifty percent", "per cent",
            "100 %", "per", "percent",
        ].randomElement(using: &rng)!
    }

    static func unit(_ rng: inout SplitMix64) -> String {
        let n = Int.random(in: 1..<1000, using: &rng)
        return [
            "\(n)mg", "\(n) mg", "\(n)km", "\(n)kg", "\(n)m", "\(n)GB", "\(n)mph", "\(n)ml", "\(n)°C", "\(n)°",
            "E5", "e4", "B12", "mp3", "4x4", "COVID-19", "A1", "Nf3", "Qxd5+", "O-O-O", "\(n)x", "x\(n)", "H2O",
            "CO2", "3D", "iPhone 15", "F-16", "\(n)s", "\(n)th", "\(n)am", "\(n)pm",
        ].randomElement(using: &rng)!
    }

    static func time(_ rng: inout SplitMix64) -> String {
        let hour = Int.random(in: 1..<13, using: &rng)
        let minute = Int.random(in: 0..<60, using: &rng)
        let mm = minute < 10 ? "0\(minute)" : "\(minute)"
        return [
            "\(hour):\(mm)", "\(hour):\(mm)pm", "\(hour):\(mm) p.m.", "\(hour) a.m.", "\(hour)AM", "\(hour) o'clock",
            "\(hour):\(mm):\(mm)", "half past \(hour)", "quarter to \(hour)", "noon", "\(hour)h\(mm)",
        ].randomElement(using: &rng)!
    }

    // MARK: Words

    static let plainWords = [
        "the", "play", "queen", "gambit", "albin", "counter", "and", "a", "half", "point", "o", "oh", "one", "ones",
        "per", "cent", "double", "triple", "minus", "dollars", "pounds", "it", "is", "s", "st", "nd", "i", "we",
        "saint", "doctor", "mister", "and a half",
    ]
    static let titles = [
        "Dr. Smith", "Dr Smith", "Mr. Jones", "Mr Jones", "Mrs. Brown", "St. Louis", "St Paul", "Prof. Xavier",
        "prof", "Capt. Hook", "Gov. Brown", "Ald. White", "Gen. Lee", "Sen. Warren", "Rep. Ocasio", "Pres. Lincoln",
        "Rev. King", "Hon. Judge", "Asst. Manager", "Assoc. Professor", "Lt. Dan", "Col. Mustard", "John Jr.",
        "Sr. Maria", "Esq.", "mrs", "mr.", "Dr.", "drs", "st.", "1st St.", "e.g.", "i.e.", "U.S.A.", "etc.", "vs.",
        "a.m.", "Ph.D.",
    ]
    static let contractions = [
        "won't", "can't", "let's", "ain't", "y'all", "wanna", "gotta", "gonna", "i'ma", "imma", "woulda", "coulda",
        "shoulda", "ma'am", "it's been", "she'd been", "he's gone", "we'd gone", "we'd done", "he's got", "don't",
        "they're", "it's", "I'd", "we'll", "I've", "I'm", "O'Brien", "O'Brien's", "rock 'n' roll", "'cause",
        "'twas", "don’t", "it ’s", "queen's", "the Queen's Gambit", "it 's", "can 't", "James'", "students'",
        "o'clock", "didn't", "isn't", "shan't", "wouldn't've", "y' all", "'s", "'", "''", "rock'n'roll",
        "d'Artagnan", "l'amour", "we're", "you'll", "they'd", "who's", "that's got", "there's been",
    ]
    static let spellingSamples = [
        "colour", "favourite", "centre", "theatre", "organise", "realised", "travelled", "cancelled", "grey",
        "programme", "catalogue", "cheque", "tyre", "aluminium", "defence", "licence", "analyse", "behaviour",
        "neighbours", "honour", "metres", "litres", "apologise", "labour", "mum", "colours", "jewellery",
        "manoeuvre", "paediatric", "oestrogen", "sceptical", "plough", "moustache", "pyjamas", "storey",
        "kerb", "sulphur", "whisky", "draught", "gaol", "practise", "licenced", "fulfil", "enrolment",
    ]
    static func britishSpelling(_ rng: inout SplitMix64) -> String {
        let word = spellingSamples.randomElement(using: &rng)!
        return Bool.random(using: &rng) ? word : word + ["s", "'s", "-like", ".", ""].randomElement(using: &rng)!
    }
    static let fillers = [
        "um", "uh", "hmm", "mm", "mhm", "mmm", "Um,", "Uh...", "uh-huh", "umm", "hmmm", "UM", "um-", "(um)",
        "mm-hmm", "er", "ah",
    ]
    static let noise = [
        "[laughter]", "<unk>", "(inaudible)", "[NOISE]", "()", "(a)", "[unclosed", "<a>b]", "((nested))",
        "<s>", "</s>", "[music] playing [music]", "(laughs", "unopened)", "[", "]", "<", ">", "( )",
        "[crosstalk]", "<|endoftext|>", "(1)", "[2]", "++NOISE++", "word(2)", "<sil>",
    ]
    static let punctuation = [
        ",", ".", "!", "?", ";", ":", "—", "–", "-", "...", "…", "\"", "“", "”", "‘", "’", "«", "»", "(", ")",
        "/", "\\", "..", ". .", ".5", "5.", "a.b", "_", "__init__", "*", "#", "@", "&", "¿", "¡", "·", "•",
    ]
    static let hyphenated = [
        "counter-gambit", "twenty-five", "well-known", "e-mail", "-", "--", "x-ray", "t-shirt", "self-esteem",
        "one-to-one", "nine-eleven", "twenty-first", "-5", "5-", "co-op", "re-enter", "mother-in-law",
    ]
    static let symbols = [
        "&", "@", "#", "+", "=", "*", "^", "~", "|", "©", "®", "™", "°", "±", "§", "→", "€", "£", "$", "¢", "%",
        "$$", "%%", "5$", "$.", "£.5", "€€5", "<3", "=)", ":)", "C++", "C#", "a+b", "1+1=2", "50/50", "24/7",
        "#1", "@home", "x²", "H₂O", "№5", "‰", "⅔", "∞", "♥", "★", "©2020",
    ]
    static let accented = [
        "café", "naïve", "Zürich", "Ærø", "Œuvre", "Straße", "Łódź", "Þór", "São Paulo", "Ångström", "cafe\u{301}",
        "İstanbul", "ΣΟΦΟΣ", "ΟΔΟΣ ΣΑΣ", "ıi", "Việt Nam", "한국어", "日本語", "٣٤٥", "١٢", "１２３", "ﬁne", "ǅ",
        "Ðe", "đ", "ø", "Ŀ", "ĳ", "Ǆ", "ʼn", "ﬀ", "Ⅻ", "①", "⑩", "℃", "Åsa", "Mötley Crüe", "Ναυσικᾶ", "Москва",
        "résumé", "coöperate", "piñata", "El Niño", "Nescafé", "Gödel", "Dvořák", "Saint-Saëns", "Œdipus",
        "े", "ā", "Ǻ", "ǻ", "ẞ", "ß",
    ]

    static let soupAlphabet =
        "aands tdhlfpmeor.,'’$¢€£%1234567890\u{300}\u{301}é() []<>-_/:;!?\t\n\u{A0}\u{1C}\u{85}\u{2028}ΣσİßÆ½²٣"
    static let soupWords = [
        "and", "a", "half", "point", "five", "one", "oh", "o", "double", "triple", "zero", "minus", "dollars",
        "cents", "cent", "per", "percent", "hundred", "thousand", "million", "first", "twenty", "tens", "ones",
        "s", "st", "nd", "th", "'s", "n't", "dr", "mr", "um", "hmm", "colour", "and a half", "$0", "1s", "1",
    ]
}

extension Int {
    /// `1234567` → `1,234,567`.
    fileprivate func formatted(separator: String) -> String {
        let digits = String(self)
        var groups: [String] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(String(digits[start..<end]), at: 0)
            end = start
        }
        return groups.joined(separator: separator)
    }
}
