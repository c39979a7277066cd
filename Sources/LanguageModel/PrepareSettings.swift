import NGram

extension PrepareOptions {
    /// One prepare option: its name (a suite variant's key when ``inSuite``, and in kebab case the command line's
    /// option), what it takes, its range, which mixes use it and its help.
    ///
    /// The table ``settings`` drives validation and its messages (``validate()``), normalization (``normalized``
    /// resets what the mix does not use to its default, the default of ``PrepareOptions/init`` being the only
    /// one), a suite's variant keys (its schema, its reader and what a message says each must be), and the command
    /// line's help and defaults. The cache key is the normalized options themselves.
    ///
    /// A new option touches: ``PrepareOptions`` (the property and its default in the initialiser), one row here
    /// (`inSuite: true` makes it a suite key, read and checked from the row; a new enumeration also conforms to
    /// ``TextValue``), and the declaration of its option in the commands that take it (`gambit prepare`, which a
    /// test holds to the table), plus the compiler code that uses it.
    public struct Setting: Sendable {
        /// As a suite spells it (`boundaryShare`).
        public var name: String
        /// A suite's variant may give it (as a key of its `variants:` entry); otherwise it is a command-line option
        /// only.
        public var inSuite: Bool
        /// What it takes, as a message says it: `a number`, `set or merged`.
        public var accepts: String
        /// It takes one of a few names (`mix: set`), which a message lists.
        public var isChoice: Bool
        /// Its range, as a message says it (`0…1`); nil when any value it takes is allowed.
        public var allowed: String?
        /// What it does, for the command line's help.
        public var summary: String
        /// Its value in `options` when that is out of ``allowed``, as the message gives it; nil when in range.
        let outOfRange: @Sendable (_ options: PrepareOptions) -> String?
        /// Whether `options` use it; ``normalized`` sets one they do not use to its default.
        let isUsed: @Sendable (_ options: PrepareOptions) -> Bool
        /// Sets it in `options` to its value in `defaults`.
        let reset: @Sendable (_ options: inout PrepareOptions, _ defaults: PrepareOptions) -> Void
        /// Sets it in `options` from its text as a suite writes it; false when the text is not a value it takes.
        public let read: @Sendable (_ options: inout PrepareOptions, _ text: String) -> Bool

        /// The option that sets it on the command line: its name in kebab case (`--boundary-share`) unless the row
        /// says otherwise.
        public var option: String

        /// `--boundary-share` for `boundaryShare`.
        static func kebab(_ name: String) -> String {
            "--"
                + name.reduce(into: "") { text, character in
                    text += character.isUppercase ? "-\(character.lowercased())" : String(character)
                }
        }

        /// The command line's help: what it does and its range (`Merged: …, within 0…1.`).
        public var help: String { summary + (allowed.map { ", within \($0)" } ?? "") + "." }

        init<Value: TextValue>(
            _ name: String, _ path: WritableKeyPath<PrepareOptions, Value> & Sendable, inSuite: Bool = false,
            option: String? = nil, accepts: String, within allowed: String? = nil,
            contains: @escaping @Sendable (Value) -> Bool = { _ in true },
            usedWhen isUsed: @escaping @Sendable (PrepareOptions) -> Bool = { _ in true }, summary: String
        ) {
            self.name = name
            self.inSuite = inSuite
            self.option = option ?? Self.kebab(name)
            self.isChoice = Value.isChoice
            self.accepts = accepts
            self.allowed = allowed
            self.summary = summary
            self.outOfRange = { options in contains(options[keyPath: path]) ? nil : "\(options[keyPath: path])" }
            self.isUsed = isUsed
            self.reset = { options, defaults in options[keyPath: path] = defaults[keyPath: path] }
            self.read = { options, text in
                guard let value = Value(suiteText: text) else { return false }
                options[keyPath: path] = value
                return true
            }
        }
    }

    /// The range of a share: `0…1`.
    static let shareRange = "0…1"
    static func isShare(_ value: Double) -> Bool { (0...1).contains(value) }

    /// Every prepare option; those with a range in the order ``validate()`` checks them.
    public static let settings: [Setting] = [
        Setting(
            "order", \.order, accepts: "a whole number",
            within: "\(supportedOrders.lowerBound)…\(supportedOrders.upperBound) (the orders the engine reads)",
            contains: { supportedOrders.contains($0) }, summary: "N-gram order"),
        Setting(
            "budget", \.limits.sampleBudget, accepts: "a whole number", within: "1…\(Int.max) samples",
            contains: { $0 > 0 }, summary: "Training-data budget in samples"),
        Setting(
            "weight", \.weight, inSuite: true, accepts: "a number", within: shareRange, contains: isShare,
            usedWhen: { $0.mix == .merged },
            summary: "The custom side's weight (Apple's weight; 0: the base model alone): the set's w, built into a "
                + "merged model"),
        Setting(
            "unigramWeight", \.unigramWeight, accepts: "a number", within: shareRange, contains: isShare,
            usedWhen: { $0.mix == .merged && $0.interpolation == .historyDependent },
            summary: "Merged: the custom side's share π₀ of the unigram level"),
        Setting(
            "boundaryShare", \.boundaryShare, inSuite: true, accepts: "a number", within: shareRange,
            contains: isShare, usedWhen: { $0.phraseFraming == .fragments },
            summary: "Fragments: share of a phrase's count that counts it as a whole utterance"),
        Setting(
            "backgroundMass", \.backgroundMass, inSuite: true, accepts: "a number", within: shareRange,
            contains: isShare, usedWhen: { $0.usesSetCustomModel },
            summary: "Set: share of the custom unigram mass kept for words outside the training data"),
        Setting(
            "compoundSplitShare", \.compoundSplitShare, accepts: "a number", within: shareRange, contains: isShare,
            summary: "Share of each sentence with a compound also counted word by word"),
        Setting(
            "languageWeight", \.languageWeight, accepts: "a number", within: "(0, 100]",
            contains: { $0 > 0 && $0 <= 100 }, usedWhen: { $0.mix == .merged && $0.interpolation == .weighted },
            summary: "Weighted merge: the decoder's language weight (-lw) the model is built for; the engine's "
                + "\(MergeOptions.defaultLanguageWeight) by default"),
        Setting(
            "tempering", \.tempering, accepts: "a number", within: "0…∞ (finite)",
            contains: { $0 >= 0 && $0.isFinite },
            usedWhen: { $0.mix == .merged && $0.interpolation == .historyDependent },
            summary: "Merged: tempering s of the history probabilities that set each history's weight"),
        Setting(
            "commonWordCount", \.commonWordCount, accepts: "a whole number", within: "0 or more",
            contains: { $0 >= 0 }, summary: "How many of the base model's most probable words count as common"),
        Setting(
            "mix", \.mix, inSuite: true, accepts: "set or merged",
            summary: "How the customization meets the base model: merged (one model with the base model in it; the "
                + "default) or set (a small model interpolated at decode time)"),
        Setting(
            "interpolation", \.interpolation, inSuite: true, accepts: "history, constant or weighted",
            usedWhen: { $0.mix == .merged },
            summary: "Merged: weighted (the set's own score, w · Pc^lw + (1 − w) · Pb^lw, in one model; the "
                + "default), history (λ from how well each side explains the history) or constant (SRILM's static "
                + "λ = weight)"),
        // Its default depends on the mix: ``normalized`` writes nil for the mix's own framing.
        Setting(
            "phrases", \.phrases, inSuite: true, accepts: "fragments or sentences",
            summary: "How phrases are framed: fragments (part of what is said) or sentences (whole utterances)"),
        Setting(
            "compounds", \.compounds, inSuite: true, accepts: "true or false",
            summary: "Predict fixed expressions that start with a boosted word as one token"),
        Setting(
            "spellingAlternates", \.spellingAlternates, accepts: "true or false",
            summary: "Add a spelling-based pronunciation beside each supplied one"),
        Setting(
            "keepMergedARPA", \.keepMergedARPA, option: "--keep-arpa", accepts: "true or false",
            usedWhen: { $0.mix == .merged },
            summary: "Merged: keep the merged model's ARPA text (about 100 MB) beside the binary"),
    ]

    /// The row named `name`.
    public static func setting(_ name: String) -> Setting {
        guard let setting = settings.first(where: { $0.name == name }) else {
            preconditionFailure("no prepare option '\(name)' in PrepareOptions.settings")
        }
        return setting
    }

    /// The options with the defaults of ``init(order:spellingAlternates:limits:commonWordCount:backgroundMass:compounds:compoundSplitShare:mix:weight:unigramWeight:tempering:boundaryShare:keepMergedARPA:interpolation:phrases:languageWeight:)``:
    /// where the command line and a suite read a default from.
    public static let defaults = PrepareOptions()
}

/// A prepare option's type, read from the text a suite writes.
public protocol TextValue: Sendable {
    /// The value `text` writes, or nil.
    init?(suiteText text: String)
    /// A choice of a few names (an enumeration).
    static var isChoice: Bool { get }
}

extension TextValue {
    public static var isChoice: Bool { false }
}

extension Double: TextValue {
    /// −0 is 0: one artifact, one cache key, and a value recorded as 0.
    public init?(suiteText text: String) {
        guard let value = Double(text) else { return nil }
        self = value == 0 ? 0 : value
    }
}

extension Int: TextValue {
    public init?(suiteText text: String) { self.init(text) }
}

extension Bool: TextValue {
    public init?(suiteText text: String) { self.init(text) }
}

extension Optional: TextValue where Wrapped: TextValue {
    public static var isChoice: Bool { Wrapped.isChoice }

    public init?(suiteText text: String) {
        guard let value = Wrapped(suiteText: text) else { return nil }
        self = .some(value)
    }
}

extension TextValue where Self: RawRepresentable, RawValue == String {
    public init?(suiteText text: String) { self.init(rawValue: text) }
    public static var isChoice: Bool { true }
}

extension LanguageModelMix: TextValue {}
extension PhraseFraming: TextValue {}
extension MergeOptions.Interpolation: TextValue {}
