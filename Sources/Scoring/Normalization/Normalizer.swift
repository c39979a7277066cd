import Formats
import Foundation

/// A text normalization pipeline applied identically to references and hypotheses before alignment.
///
/// The stages run in this order, each controlled by one option:
/// 1. Split on whitespace.
/// 2. ``dropRecognizerTokens``: drop `<s>`, `</s>`, `<sil>`, `<unk>` and any token written as `<…>`, `[…]`
///    (e.g. `[NOISE]`) or `++…++` (e.g. `++NOISE++`).
/// 3. ``stripAlternateMarkers``: `word(2)` becomes `word` (PocketSphinx alternate pronunciations).
/// 4. ``lowercase``: Unicode case folding to lower case.
/// 5. ``hyphens``: `counter-gambit` becomes `counter gambit` (``HyphenHandling/split``), `countergambit`
///    (``HyphenHandling/join``) or stays as it is (``HyphenHandling/keep``).
/// 6. ``stripPunctuation``: delete punctuation and symbols; an apostrophe survives only between two letters or
///    digits (`don't` stays, `'quoted'` loses both), and `’` is read as `'`. Punctuation is deleted, not turned
///    into a word break, so `u.s.a.` becomes `usa`.
/// 7. ``english``: optional English rules, Whisper's with their faults fixed (``EnglishNormalization``); they
///    replace stages 4–6, working on the whole text.
/// 8. ``termForms``: a term's declared surface forms (`albin's`, `nimzoindian`) become the term (`albin`,
///    `nimzo indian`), longest form first, so they count as the term in every rate.
///
/// ``whisper`` (``Normalizer/whisper``, `--normalize whisper`, `normalize: whisper`) replaces stages 1–7 with
/// Whisper's own `EnglishTextNormalizer` (``WhisperNormalizer``), run over the whole text: the field's normalizer,
/// under which a WER is comparable with the Open ASR Leaderboard's and most published Whisper-family figures. Term
/// forms still apply after it.
///
/// ``rulesVersion`` numbers the stages' rules; results record it with the options, so that two runs scored
/// under different rules are not compared silently.
///
/// A privacy mask of Gambit's reports (`‹contact-2›`, ``isPrivacyMask(_:)``) passes every stage whole.
///
/// Before any of these, and whatever the options (``verbatim`` included), every token is put in Unicode
/// Normalization Form C (``NormalForm/composed(_:)``), so `café` written with a precomposed `é` (U+00E9) and with `e` plus a
/// combining accent (U+0065 U+0301) are the same word. Words are compared by their bytes once interned, and this is
/// the one place every reference, hypothesis, boosted word, term and template value passes through.
///
/// Use the same normalizer for every system you compare: the rates are only comparable under one pipeline,
/// which is why reports embed ``summary``.
public struct Normalizer: Sendable, Codable, Hashable {
    /// What to do with a hyphen inside a word.
    public enum HyphenHandling: String, Sendable, Codable, Hashable, CaseIterable {
        /// `counter-gambit` → `counter gambit`.
        case split
        /// `counter-gambit` → `countergambit`.
        case join
        /// `counter-gambit` stays one word.
        case keep
    }

    /// Lower-case every token.
    public var lowercase: Bool
    /// Delete punctuation and symbols, keeping word-internal apostrophes.
    public var stripPunctuation: Bool
    /// Drop sentence markers, silence and bracketed noise tokens.
    public var dropRecognizerTokens: Bool
    /// Turn `word(2)` into `word`.
    public var stripAlternateMarkers: Bool
    /// How hyphenated words are handled.
    public var hyphens: HyphenHandling
    /// Optional English-specific rules; `nil` leaves words as they are.
    public var english: EnglishNormalization?
    /// Declared surface forms of terms, each replaced by its term; `nil` for none (see ``withTermForms(_:)``).
    public private(set) var termForms: TermForms?
    /// The release of Whisper's `EnglishTextNormalizer` whose rules replace every other stage
    /// (``WhisperNormalizer/version``), or `nil` for Gambit's own stages. Results record it, so the gate notes a
    /// run scored under other rules.
    public private(set) var whisper: String?

    /// The version of the stages' rules: raised whenever a stage would give other words for the same text and
    /// options. 2: term forms. (The English rules have their own version, ``EnglishNormalization/version``, and
    /// Whisper's are versioned by their release, ``whisper``.)
    public static let rulesVersion = 2

    /// Creates a normalizer.
    /// - Parameters:
    ///   - lowercase: Lower-case every token.
    ///   - stripPunctuation: Delete punctuation, keeping word-internal apostrophes.
    ///   - dropRecognizerTokens: Drop `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++NOISE++` and similar.
    ///   - stripAlternateMarkers: Turn `word(2)` into `word`.
    ///   - hyphens: How hyphenated words are handled.
    ///   - english: Optional English rules.
    public init(
        lowercase: Bool = true,
        stripPunctuation: Bool = true,
        dropRecognizerTokens: Bool = true,
        stripAlternateMarkers: Bool = true,
        hyphens: HyphenHandling = .split,
        english: EnglishNormalization? = nil
    ) {
        self.lowercase = lowercase
        self.stripPunctuation = stripPunctuation
        self.dropRecognizerTokens = dropRecognizerTokens
        self.stripAlternateMarkers = stripAlternateMarkers
        self.hyphens = hyphens
        self.english = english
    }

    /// The default pipeline: every generic stage on, no English rules.
    public static let standard = Normalizer()

    /// The default pipeline plus every English rule.
    public static let standardEnglish = Normalizer(english: EnglishNormalization())

    /// Whisper's `EnglishTextNormalizer` (openai-whisper 20250625), exactly, faults included
    /// (docs/normalization.md lists them).
    public static let whisper: Normalizer = {
        var normalizer = Normalizer.standard
        normalizer.whisper = WhisperNormalizer.version
        return normalizer
    }()

    /// The normalizers a suite's `normalize:` and `gambit score --normalize` name.
    public static let named: [(name: String, normalizer: Normalizer)] = [
        ("standard", .standard), ("english", .standardEnglish), ("whisper", .whisper), ("verbatim", .verbatim),
    ]

    /// Whether a transcript is normalized whole rather than token by token: its rules span words.
    public var normalizesWholeText: Bool { english != nil || termForms != nil || whisper != nil }

    /// No normalization beyond Unicode NFC: tokens are split on whitespace and compared as written, as sclite does.
    public static let verbatim = Normalizer(
        lowercase: false,
        stripPunctuation: false,
        dropRecognizerTokens: false,
        stripAlternateMarkers: false,
        hyphens: .keep,
        english: nil
    )

    /// A one-line description of the pipeline for reports, e.g.
    /// `lowercase, strip punctuation, drop <s> </s> <sil> [noise], strip (N) alternates, split hyphens`.
    public var summary: String {
        if let whisper {
            let forms = termForms.map { ", \($0.declared.count) term form" + ($0.declared.count == 1 ? "" : "s") }
            return "whisper (\(whisper))" + (forms ?? "")
        }
        var parts: [String] = []
        if lowercase { parts.append("lowercase") }
        if stripPunctuation { parts.append("strip punctuation") }
        if dropRecognizerTokens { parts.append("drop <s> </s> <sil> [noise]") }
        if stripAlternateMarkers { parts.append("strip (N) alternates") }
        switch hyphens {
        case .split: parts.append("split hyphens")
        case .join: parts.append("join hyphens")
        case .keep: parts.append("keep hyphens")
        }
        if let english { parts.append(english.summary) }
        if let termForms {
            parts.append("\(termForms.declared.count) term form" + (termForms.declared.count == 1 ? "" : "s"))
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// Normalizes one transcript into its words.
    /// - Parameter text: A reference or hypothesis transcript.
    /// - Returns: The normalized words in order.
    public func normalize(_ text: String) -> [String] {
        var words: [String] = []
        if whisper != nil {
            words = Self.whisperWords(text)
        } else if let english {
            words = englishWords(text, english)
        } else {
            for raw in text.split(whereSeparator: { $0.isWhitespace }) {
                normalizeToken(Substring(raw), into: &words)
            }
        }
        if let termForms { words = termForms.apply(to: words) }
        return words
    }

    /// The English rules' words for `text`, after recognizer tokens and `word(2)` markers are gone; a privacy mask
    /// stays whole between the stretches normalized around it.
    func englishWords(_ text: String, _ english: EnglishNormalization) -> [String] {
        var words: [String] = []
        var stretch: [Substring] = []
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            if Self.isPrivacyMask(token) {
                words += english.words(stretch.joined(separator: " ")) + [String(token)]
                stretch = []
            } else if !(dropRecognizerTokens && Self.isRecognizerToken(token.utf8)) {
                stretch.append(stripAlternateMarkers ? Substring(Self.strippingAlternateMarker(String(token))) : token)
            }
        }
        return words + english.words(stretch.joined(separator: " "))
    }

    /// Whisper's words for `text`; a privacy mask stays whole between the stretches normalized around it.
    static func whisperWords(_ text: String) -> [String] {
        let rules = WhisperNormalizer()
        guard text.unicodeScalars.contains("\u{2039}") else { return rules.words(text) }
        var words: [String] = []
        var stretch: [Substring] = []
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            guard isPrivacyMask(token) else {
                stretch.append(token)
                continue
            }
            words += rules.words(stretch.joined(separator: " "))
            stretch = []
            words.append(String(token))
        }
        return words + rules.words(stretch.joined(separator: " "))
    }

    /// This normalizer, with `forms` (surface form → term, as written) replacing what it had: each side is
    /// normalized by this pipeline's other stages, and a form that normalizes to nothing or to its own term is
    /// left out. Empty `forms` gives no term forms at all.
    public func withTermForms(_ forms: [String: String]) -> Normalizer {
        var plain = self
        plain.termForms = nil
        var copy = plain
        copy.termForms = forms.isEmpty ? nil : TermForms(declared: forms, normalizer: plain)
        return copy
    }

    /// Normalizes a single whitespace-free token, appending the zero or more words it becomes.
    func normalizeToken(_ raw: Substring, into words: inout [String]) {
        if Self.isPrivacyMask(raw) {
            words.append(String(raw))
            return
        }
        if dropRecognizerTokens && Self.isRecognizerToken(raw.utf8) { return }
        var token = NormalForm.composed(String(raw))
        if stripAlternateMarkers { token = Self.strippingAlternateMarker(token) }
        if lowercase { token = token.lowercased() }
        var pieces: [String]
        switch hyphens {
        case .split: pieces = token.split(separator: "-").map(String.init)
        case .join: pieces = [token.replacingAll("-", with: "")]
        case .keep: pieces = [token]
        }
        if stripPunctuation { pieces = pieces.map(Self.strippingPunctuation) }
        // Lower-casing can leave a letter and a combining mark that compose (e.g. from a title-case digraph), so
        // compose again; it costs nothing for text below U+0300.
        for piece in pieces where !piece.isEmpty { words.append(NormalForm.composed(piece)) }
    }

    /// Whether a token is the mask Gambit's reports write in place of a private word, `‹label-n›` (`‹contact-2›`).
    ///
    /// A mask passes every stage whole: split at its hyphen and stripped of its brackets it would become two
    /// other words (`contact`, `2`), so a report's masked transcripts, lists and boosted words would no longer
    /// match its masked alignments, and rescoring them would not give the run's figures.
    /// The mask of the `number`-th private word under `label`, `‹label-number›`: the one place the format is
    /// written, so the masks reports print are the tokens ``isPrivacyMask(_:)`` keeps whole.
    public static func privacyMask(label: String, number: Int) -> String {
        "\(privacyMaskOpening)\(label)-\(number)\(privacyMaskClosing)"
    }

    /// The brackets of a privacy mask: single guillemets, which no recognizer writes.
    public static let privacyMaskOpening: Character = "\u{2039}"
    static let privacyMaskClosing: Character = "\u{203A}"

    static func isPrivacyMask(_ token: Substring) -> Bool {
        guard token.first == privacyMaskOpening, token.last == privacyMaskClosing else { return false }
        let inner = token.dropFirst().dropLast()
        guard let dash = inner.lastIndex(of: "-"), dash > inner.startIndex else { return false }
        let number = inner[inner.index(after: dash)...]
        return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
            && !inner.contains(privacyMaskOpening) && !inner.contains(privacyMaskClosing)
    }

    /// Whether a token is a recognizer marker rather than a word.
    static func isRecognizerToken<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        guard let first = bytes.first, bytes.count >= 2 else { return false }
        let last = bytes[bytes.index(bytes.startIndex, offsetBy: bytes.count - 1)]
        switch first {
        case UInt8(ascii: "<"): return last == UInt8(ascii: ">")
        case UInt8(ascii: "["): return last == UInt8(ascii: "]")
        case UInt8(ascii: "+"):
            return bytes.count >= 4 && last == UInt8(ascii: "+")
                && bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "+")
                && bytes[bytes.index(bytes.startIndex, offsetBy: bytes.count - 2)] == UInt8(ascii: "+")
        default: return false
        }
    }

    /// `word(2)` → `word`; anything else is returned unchanged.
    static func strippingAlternateMarker(_ token: String) -> String {
        let utf8 = Array(token.utf8)
        guard let cut = alternateMarkerStart(utf8[...]) else { return token }
        return String(decoding: utf8[..<cut], as: UTF8.self)
    }

    /// The index where a trailing `(digits)` starts, if the token has one after at least one other byte.
    static func alternateMarkerStart(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 4, bytes.last == UInt8(ascii: ")") else { return nil }
        var index = bytes.endIndex - 2
        while index > bytes.startIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            index -= 1
        }
        guard bytes[index] == UInt8(ascii: "("), index < bytes.endIndex - 2, index > bytes.startIndex else {
            return nil
        }
        return index
    }

    /// Deletes punctuation and symbols, keeping apostrophes that sit between two letters or digits.
    static func strippingPunctuation(_ token: String) -> String {
        let characters = Array(token)
        var result = ""
        result.reserveCapacity(token.utf8.count)
        for (index, character) in characters.enumerated() {
            if character == "'" || character == "\u{2019}" {
                let before = index > 0 && isWordCharacter(characters[index - 1])
                let after = index + 1 < characters.count && isWordCharacter(characters[index + 1])
                if before && after { result.append("'") }
            } else if isWordCharacter(character) || character == "-" {
                // A hyphen only reaches here when hyphens are kept.
                result.append(character)
            }
        }
        return result
    }

    static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
            || character.unicodeScalars.allSatisfy { scalar in
                // Combining marks belong to the letter before them (e.g. decomposed accents).
                scalar.properties.generalCategory == .nonspacingMark
                    || scalar.properties.generalCategory == .spacingMark
            }
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

/// A term's declared surface forms, each replaced by its term's words (``Normalizer/termForms``).
public struct TermForms: Sendable, Hashable {
    /// Surface form → term, as declared.
    public let declared: [String: String]
    /// The forms' and terms' normalized words, the longest form first (ties in the forms' word order).
    let rules: [(form: [String], term: [String])]

    init(declared: [String: String], normalizer: Normalizer) {
        self.declared = declared
        let rules = declared.map { (form: normalizer.normalize($0.key), term: normalizer.normalize($0.value)) }
        self.rules = rules.filter { !$0.form.isEmpty && $0.form != $0.term }.sorted { a, b in
            a.form.count != b.form.count
                ? a.form.count > b.form.count : a.form.lexicographicallyPrecedes(b.form)
        }
    }

    /// The first chain or cycle among declared forms, or nil: a form whose term is another form
    /// (`albin: alvin, alvin: albin`), or a form that is itself another form's term. Forms are replaced once,
    /// never the replacement again, so such a pair does not count `albin` as `alvin`: in a cycle the two swap, and
    /// cancel out; in a chain (`a: b, b: c`) `a` becomes `b` and `b` becomes `c`, so `a` never meets `c`. A form
    /// must name its final term.
    ///
    /// - Parameters:
    ///   - forms: Each form and its term, in the order declared.
    ///   - normalizer: The normalizer the forms' words are compared under.
    /// - Returns: The indices into `forms` along the chain, from its first form; a cycle ends with its first index
    ///   again.
    public static func chain(in forms: [(form: String, term: String)], normalizer: Normalizer = .standard) -> [Int]? {
        let words = forms.map { (form: normalizer.normalize($0.form), term: normalizer.normalize($0.term)) }
        // A form that names its own term changes nothing, and is no link.
        let links = words.indices.filter { words[$0].form != words[$0].term }
        var formIndex: [[String]: Int] = [:]
        for index in links where formIndex[words[index].form] == nil { formIndex[words[index].form] = index }
        func next(_ index: Int) -> Int? { formIndex[words[index].term].flatMap { $0 == index ? nil : $0 } }
        let terms = Set(links.map { words[$0].term })
        // A chain is spelt from a form that is no term; a cycle, where every form is one, from its first form.
        let starts = links.filter { !terms.contains(words[$0].form) } + links
        for start in starts where next(start) != nil {
            var path = [start]
            while let following = next(path.last!) {
                path.append(following)
                if path.dropLast().contains(following) { break }
            }
            return path
        }
        return nil
    }

    public static func == (a: TermForms, b: TermForms) -> Bool { a.declared == b.declared }
    public func hash(into hasher: inout Hasher) { hasher.combine(declared) }

    /// `words` with every form replaced by its term, left to right, the longest form first where two start
    /// at one word.
    func apply(to words: [String]) -> [String] {
        guard !rules.isEmpty else { return words }
        var out: [String] = []
        out.reserveCapacity(words.count)
        var position = 0
        while position < words.count {
            if let rule = rules.first(where: { words[position...].starts(with: $0.form) }) {
                out += rule.term
                position += rule.form.count
            } else {
                out.append(words[position])
                position += 1
            }
        }
        return out
    }
}

extension Normalizer {
    private enum CodingKeys: String, CodingKey {
        case lowercase, stripPunctuation, dropRecognizerTokens, stripAlternateMarkers, hyphens, english, termForms
        case whisper
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            lowercase: try c.decode(Bool.self, forKey: .lowercase),
            stripPunctuation: try c.decode(Bool.self, forKey: .stripPunctuation),
            dropRecognizerTokens: try c.decode(Bool.self, forKey: .dropRecognizerTokens),
            stripAlternateMarkers: try c.decode(Bool.self, forKey: .stripAlternateMarkers),
            hyphens: try c.decode(HyphenHandling.self, forKey: .hyphens),
            english: try c.decodeIfPresent(EnglishNormalization.self, forKey: .english))
        whisper = try c.decodeIfPresent(String.self, forKey: .whisper)
        if let forms = try c.decodeIfPresent([String: String].self, forKey: .termForms) {
            self = withTermForms(forms)
        }
    }

    /// The options, the term forms as declared (left out when there are none) and Whisper's release when its rules
    /// are the ones (left out when they are not).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lowercase, forKey: .lowercase)
        try c.encode(stripPunctuation, forKey: .stripPunctuation)
        try c.encode(dropRecognizerTokens, forKey: .dropRecognizerTokens)
        try c.encode(stripAlternateMarkers, forKey: .stripAlternateMarkers)
        try c.encode(hyphens, forKey: .hyphens)
        try c.encodeIfPresent(english, forKey: .english)
        try c.encodeIfPresent(termForms?.declared, forKey: .termForms)
        try c.encodeIfPresent(whisper, forKey: .whisper)
    }
}
