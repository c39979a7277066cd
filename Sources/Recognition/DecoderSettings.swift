/// How PocketSphinx searches: the engine settings that change hypotheses, recorded with every run.
///
/// A suite gives them in its `decoder:` block and `gambit decode` as options; a setting left out keeps the
/// engine's own default, so the default value gives the same command line, hypotheses and cache keys as before
/// these settings existed. Silence always stays in the feature stream (`-remove_silence no`) so that word times
/// are real audio time.
public struct DecoderSettings: Sendable, Hashable, Codable {
    /// Beam of the first (tree) pass, `-beam`: hypotheses scoring below this fraction of the best are pruned.
    /// Smaller keeps more (slower, fewer search errors). PocketSphinx's default 1e-48; at most 1e-15, since
    /// the engine crashes on some audio with beams of 1e-10 and wider.
    public var beam: Double?
    /// Beam for word exits, `-wbeam`. PocketSphinx's default 7e-29.
    public var wordBeam: Double?
    /// Language weight of the first pass, `-lw`: how much the language model counts against the acoustics.
    /// PocketSphinx's default 6.5. The later passes have their own weights, which decide the final hypothesis
    /// when those passes are on: ``secondPassLanguageWeight`` and ``bestPathLanguageWeight``.
    public var languageWeight: Double?
    /// Language weight of the second pass, `-fwdflatlw`. PocketSphinx's default 8.5.
    public var secondPassLanguageWeight: Double?
    /// Language weight of the best path through the lattice, `-bestpathlw`: with the best path on, the weight the
    /// final hypothesis is chosen under. PocketSphinx's default 9.5.
    public var bestPathLanguageWeight: Double?
    /// Word insertion penalty, `-wip`: below 1 favours fewer, longer words. PocketSphinx's default 0.65.
    public var wordInsertionPenalty: Double?
    /// The second (flat-lexicon) pass, `-fwdflat`. On by default; off is faster and usually less accurate.
    public var secondPass: Bool?
    /// The final best path through the word lattice, `-bestpath`. On by default. Off, the engine gives no word
    /// posteriors: every word's confidence reads 1.
    public var bestPath: Bool?

    public init(
        beam: Double? = nil, wordBeam: Double? = nil, languageWeight: Double? = nil,
        wordInsertionPenalty: Double? = nil, secondPass: Bool? = nil, bestPath: Bool? = nil,
        secondPassLanguageWeight: Double? = nil, bestPathLanguageWeight: Double? = nil
    ) {
        self.beam = beam
        self.wordBeam = wordBeam
        self.languageWeight = languageWeight
        self.wordInsertionPenalty = wordInsertionPenalty
        self.secondPass = secondPass
        self.bestPath = bestPath
        self.secondPassLanguageWeight = secondPassLanguageWeight
        self.bestPathLanguageWeight = bestPathLanguageWeight
    }

    /// The engine's defaults (with silence kept in the feature stream).
    public static let standard = DecoderSettings()

    /// One setting: its name in a suite's `decoder:` block, the engine flag, and the values it takes.
    public struct Setting: Sendable {
        public var name: String
        public var flag: String
        /// What the setting takes, for messages and help (`a number in (0, 1]`).
        public var accepts: String
        /// PocketSphinx's default as it prints it.
        public var engineDefault: String
        let numeric: ClosedRange<Double>?
        let excludesLowerBound: Bool
    }

    /// Every setting, in the order a suite's `decoder:` block documents them.
    public static let settings: [Setting] = [
        // PocketSphinx 5prealpha dies of a division by zero (SIGFPE) on some recordings with a first-pass beam
        // of 1e-10 or wider (measured on Debian's test recordings: 1 of 12 files; none at 1e-12), so the
        // narrowest beam allowed keeps a margin below that.
        Setting(
            name: "beam", flag: "-beam", accepts: "a number in (0, 1e-15], e.g. 1e-60 (wider beams crash the engine)",
            engineDefault: "1e-48", numeric: 0...1e-15, excludesLowerBound: true),
        Setting(
            name: "wordBeam", flag: "-wbeam", accepts: "a number in (0, 1], e.g. 1e-40", engineDefault: "7e-29",
            numeric: 0...1, excludesLowerBound: true),
        Setting(
            name: "languageWeight", flag: "-lw", accepts: "a number in (0, 100]", engineDefault: "6.5",
            numeric: 0...100, excludesLowerBound: true),
        Setting(
            name: "secondPassLanguageWeight", flag: "-fwdflatlw", accepts: "a number in (0, 100]",
            engineDefault: "8.5", numeric: 0...100, excludesLowerBound: true),
        Setting(
            name: "bestPathLanguageWeight", flag: "-bestpathlw", accepts: "a number in (0, 100]",
            engineDefault: "9.5", numeric: 0...100, excludesLowerBound: true),
        Setting(
            name: "wordInsertionPenalty", flag: "-wip", accepts: "a number in (0, 100]", engineDefault: "0.65",
            numeric: 0...100, excludesLowerBound: true),
        Setting(
            name: "secondPass", flag: "-fwdflat", accepts: "true or false", engineDefault: "yes", numeric: nil,
            excludesLowerBound: false),
        Setting(
            name: "bestPath", flag: "-bestpath", accepts: "true or false", engineDefault: "yes", numeric: nil,
            excludesLowerBound: false),
    ]

    /// A setting that is out of range or unknown, with the setting's name and what it takes.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The setting's name in a `decoder:` block.
        public var setting: String
        public var message: String
        public var description: String { message }
    }

    /// Sets one setting from its text (as a suite or a command line writes it).
    ///
    /// - Throws: ``Problem`` for an unknown name (with the nearest known one) or a value out of range.
    public mutating func set(_ name: String, to text: String) throws(Problem) {
        guard let setting = Self.settings.first(where: { $0.name == name }) else {
            throw Problem(
                setting: name,
                message: "unknown decoder setting '\(name)'; the settings are "
                    + Self.settings.map(\.name).joined(separator: ", "))
        }
        if let range = setting.numeric {
            guard let value = Double(text), value.isFinite, range.contains(value),
                !(setting.excludesLowerBound && value == range.lowerBound)
            else {
                throw Problem(
                    setting: name, message: "decoder setting '\(name)' must be \(setting.accepts), not '\(text)'")
            }
            switch name {
            case "beam": beam = value
            case "wordBeam": wordBeam = value
            case "languageWeight": languageWeight = value
            case "secondPassLanguageWeight": secondPassLanguageWeight = value
            case "bestPathLanguageWeight": bestPathLanguageWeight = value
            default: wordInsertionPenalty = value
            }
        } else {
            guard let value = Bool(text) else {
                throw Problem(
                    setting: name, message: "decoder setting '\(name)' must be \(setting.accepts), not '\(text)'")
            }
            if name == "secondPass" { secondPass = value } else { bestPath = value }
        }
    }

    /// Checks every value set (those built in code rather than read through ``set(_:to:)``).
    public func validate() throws(Problem) {
        var copy = Self.standard
        for (name, text) in values { try copy.set(name, to: text) }
    }

    /// The settings given, by name, as text: what ``set(_:to:)`` reads back.
    public var values: [(name: String, text: String)] {
        var out: [(String, String)] = []
        if let beam { out.append(("beam", Self.format(beam))) }
        if let wordBeam { out.append(("wordBeam", Self.format(wordBeam))) }
        if let languageWeight { out.append(("languageWeight", Self.format(languageWeight))) }
        if let secondPassLanguageWeight {
            out.append(("secondPassLanguageWeight", Self.format(secondPassLanguageWeight)))
        }
        if let bestPathLanguageWeight { out.append(("bestPathLanguageWeight", Self.format(bestPathLanguageWeight))) }
        if let wordInsertionPenalty { out.append(("wordInsertionPenalty", Self.format(wordInsertionPenalty))) }
        if let secondPass { out.append(("secondPass", "\(secondPass)")) }
        if let bestPath { out.append(("bestPath", "\(bestPath)")) }
        return out
    }

    /// The engine arguments, sorted by flag, as they would be typed: what the decoder is started with, what
    /// report.json records and what every cached result's key holds.
    ///
    /// A setting given at the engine's default is left out: it decodes the same, so it keeps the same key.
    public var commandLine: [String] {
        var arguments = ["-remove_silence": "no"]
        for (name, text) in values {
            let setting = Self.settings.first { $0.name == name }!
            let engineText = text == "true" ? "yes" : text == "false" ? "no" : text
            let isDefault =
                setting.numeric == nil
                ? engineText == setting.engineDefault : Double(text) == Double(setting.engineDefault)
            if !isDefault { arguments[setting.flag] = engineText }
        }
        return arguments.keys.sorted().flatMap { [$0, arguments[$0]!] }
    }

    /// A number as the engine reads it back exactly (`1e-40`, `6.5`).
    static func format(_ value: Double) -> String {
        "\(value)"
    }
}
