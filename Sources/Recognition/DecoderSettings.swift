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
    /// Phone beam, `-pbeam` (PocketSphinx's default 1e-48), and scoring every senone in every frame,
    /// `-compallsen` (default no): set only by Gambit's own searches (``phoneLoop``,
    /// ``pronunciationAlignment``), never by a suite, so they are not in ``settings``.
    var phoneBeam: Double?
    var computeAllSenones: Bool?
    /// Drop silence and keep the voice-activity detector's state (`-remove_silence yes`): set only for a streamed
    /// decode (``SpeechRecognizer/stream(_:)``), whose end-of-speech detection needs it; batch decodes keep
    /// silence so that word times are audio time.
    var detectsSpeech: Bool?

    /// What report.json and a settings file hold: the suite's settings, never the internal ones.
    private enum CodingKeys: String, CodingKey {
        case beam, wordBeam, languageWeight, secondPassLanguageWeight, bestPathLanguageWeight, wordInsertionPenalty
        case secondPass, bestPath
    }

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

    /// The first pass's language weight these settings decode with: the one set, else the engine's default (the
    /// `languageWeight` row of ``settings``).
    public var effectiveLanguageWeight: Double {
        languageWeight ?? Self.settings.first { $0.flag == "-lw" }.flatMap { Double($0.engineDefault) }!
    }

    /// `settings` with beams far wider than the engine's defaults (1e-48 and 7e-29): what the search keeps when
    /// pruning is not what decides. Diagnosis's forced alignments and its wide-beam experiment.
    public static func wide(_ settings: DecoderSettings) -> DecoderSettings {
        var wide = settings
        wide.beam = 1e-80
        wide.wordBeam = 1e-60
        return wide
    }

    /// PocketSphinx's tutorial settings for phone recognition: a light language weight, beams of 1e-20.
    public static let phoneLoop: DecoderSettings = {
        var settings = standard
        settings.languageWeight = 2
        settings.beam = 1e-20
        settings.phoneBeam = 1e-20
        return settings
    }()

    /// Forced alignment that compares pronunciations: wide beams, and every senone scored in every frame (the
    /// engine normalises a frame's scores by its best computed senone, which would otherwise depend on what is
    /// aligned).
    public static let pronunciationAlignment: DecoderSettings = {
        var settings = wide(standard)
        settings.computeAllSenones = true
        return settings
    }()

    /// One setting: its name in a suite's `decoder:` block, the engine flag, the values it takes and the property
    /// it sets. Reading, checking, listing and the command line all go through this one table.
    public struct Setting: Sendable {
        public var name: String
        public var flag: String
        /// What the setting takes, for messages and help (`a number in (0, 100]`).
        public var accepts: String
        /// PocketSphinx's default as it prints it.
        public var engineDefault: String
        let property: Property

        enum Property: Sendable {
            /// A number in `(0, upperBound]`.
            case number(WritableKeyPath<DecoderSettings, Double?> & Sendable, upperBound: Double)
            case flag(WritableKeyPath<DecoderSettings, Bool?> & Sendable)
        }

        /// The value set, as ``set(_:to:)`` reads it; nil when the setting is left to the engine.
        func text(in settings: DecoderSettings) -> String? {
            switch property {
            case .number(let path, _): settings[keyPath: path].map { "\($0)" }
            case .flag(let path): settings[keyPath: path].map { "\($0)" }
            }
        }

        /// The value as the engine's command line writes it, nil when unset or at the engine's default (it then
        /// decodes the same, so it keeps the same key).
        func engineText(in settings: DecoderSettings) -> String? {
            switch property {
            case .number(let path, _):
                guard let value = settings[keyPath: path], value != Double(engineDefault) else { return nil }
                return "\(value)"
            case .flag(let path):
                guard let value = settings[keyPath: path] else { return nil }
                let text = value ? "yes" : "no"
                return text == engineDefault ? nil : text
            }
        }
    }

    /// Every setting, in the order a suite's `decoder:` block documents them.
    public static let settings: [Setting] = [
        // PocketSphinx 5prealpha dies of a division by zero (SIGFPE) on some recordings with a first-pass beam
        // of 1e-10 or wider (measured on Debian's test recordings: 1 of 12 files; none at 1e-12), so the
        // narrowest beam allowed keeps a margin below that.
        Setting(
            name: "beam", flag: "-beam", accepts: "a number in (0, 1e-15], e.g. 1e-60 (wider beams crash the engine)",
            engineDefault: "1e-48", property: .number(\.beam, upperBound: 1e-15)),
        Setting(
            name: "wordBeam", flag: "-wbeam", accepts: "a number in (0, 1], e.g. 1e-40", engineDefault: "7e-29",
            property: .number(\.wordBeam, upperBound: 1)),
        Setting(
            name: "languageWeight", flag: "-lw", accepts: "a number in (0, 100]", engineDefault: "6.5",
            property: .number(\.languageWeight, upperBound: 100)),
        Setting(
            name: "secondPassLanguageWeight", flag: "-fwdflatlw", accepts: "a number in (0, 100]",
            engineDefault: "8.5", property: .number(\.secondPassLanguageWeight, upperBound: 100)),
        Setting(
            name: "bestPathLanguageWeight", flag: "-bestpathlw", accepts: "a number in (0, 100]",
            engineDefault: "9.5", property: .number(\.bestPathLanguageWeight, upperBound: 100)),
        Setting(
            name: "wordInsertionPenalty", flag: "-wip", accepts: "a number in (0, 100]", engineDefault: "0.65",
            property: .number(\.wordInsertionPenalty, upperBound: 100)),
        Setting(
            name: "secondPass", flag: "-fwdflat", accepts: "true or false", engineDefault: "yes",
            property: .flag(\.secondPass)),
        Setting(
            name: "bestPath", flag: "-bestpath", accepts: "true or false", engineDefault: "yes",
            property: .flag(\.bestPath)),
    ]

    /// Named settings: a suite's `decoder: {profile: lowLatency}`, `gambit run --decoder-profile` and `gambit decode
    /// --profile`. A profile sets some settings; anything given beside it is set over it. One row per profile.
    public struct Profile: Sendable {
        public var name: String
        /// What it does and when to use it, for help and docs.
        public var summary: String
        public var settings: DecoderSettings
    }

    /// The shipped profiles.
    ///
    /// `lowLatency` drops the flat-lexicon pass PocketSphinx runs over the whole utterance when the audio ends: it is
    /// most of the time from the end of the audio to the final hypothesis. It keeps the best path through the first
    /// pass's lattice, which is what the accuracy needs: on the dev splits of the three domain corpora, dropping the
    /// flat-lexicon pass alone cost at most 1.2 points of B-WER, dropping the best path too up to 9. `lowestLatency`
    /// drops both, for a final about half as late again. docs/latency.md gives what each costs on test.
    public static let profiles: [Profile] = [
        Profile(
            name: "default",
            summary: "PocketSphinx's own settings: the tree pass, then the flat-lexicon pass and the best path when "
                + "the audio ends (most accurate; the final takes longest)",
            settings: .standard),
        Profile(
            name: "lowLatency",
            summary: "the tree pass and the best path through its lattice, without the flat-lexicon pass over the "
                + "whole utterance when the audio ends (the final comes sooner; words may be a little less accurate)",
            settings: {
                var settings = Self.standard
                settings.secondPass = false
                return settings
            }()),
        Profile(
            name: "lowestLatency",
            summary: "the tree pass alone: neither the flat-lexicon pass nor the best path when the audio ends (the "
                + "final comes soonest; less accurate than lowLatency)",
            settings: {
                var settings = Self.standard
                settings.secondPass = false
                settings.bestPath = false
                return settings
            }()),
    ]

    /// These settings with profile `name`'s set over them.
    ///
    /// - Throws: ``Problem`` naming the profiles when there is none called `name`.
    public func applying(profile name: String) throws(Problem) -> DecoderSettings {
        guard let profile = Self.profiles.first(where: { $0.name == name }) else {
            throw Problem(
                setting: "profile",
                message: "unknown decoder profile '\(name)'; the profiles are "
                    + Self.profiles.map(\.name).joined(separator: ", "))
        }
        var settings = self
        for (setting, text) in profile.settings.values { try settings.set(setting, to: text) }
        return settings
    }

    /// Settings only Gambit's own searches use (see ``phoneBeam``): on the command line, never in a suite.
    static let internalSettings: [Setting] = [
        Setting(
            name: "phoneBeam", flag: "-pbeam", accepts: "a number in (0, 1]", engineDefault: "1e-48",
            property: .number(\.phoneBeam, upperBound: 1)),
        Setting(
            name: "computeAllSenones", flag: "-compallsen", accepts: "true or false", engineDefault: "no",
            property: .flag(\.computeAllSenones)),
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
        let refused = Problem(
            setting: name, message: "decoder setting '\(name)' must be \(setting.accepts), not '\(text)'")
        switch setting.property {
        case .number(let path, let upperBound):
            guard let value = Double(text), value.isFinite, value > 0, value <= upperBound else { throw refused }
            self[keyPath: path] = value
        case .flag(let path):
            guard let value = Bool(text) else { throw refused }
            self[keyPath: path] = value
        }
    }

    /// Checks every value set (those built in code rather than read through ``set(_:to:)``).
    public func validate() throws(Problem) {
        var copy = Self.standard
        for (name, text) in values { try copy.set(name, to: text) }
    }

    /// The settings given, by name, as text: what ``set(_:to:)`` reads back.
    public var values: [(name: String, text: String)] {
        Self.settings.compactMap { setting in setting.text(in: self).map { (setting.name, $0) } }
    }

    /// The engine arguments, sorted by flag, as they would be typed: what the decoder is started with, what
    /// report.json records and what every cached result's key holds.
    ///
    /// A setting given at the engine's default is left out: it decodes the same, so it keeps the same key.
    public var commandLine: [String] {
        var arguments = ["-remove_silence": detectsSpeech == true ? "yes" : "no"]
        for setting in Self.settings + Self.internalSettings {
            if let text = setting.engineText(in: self) { arguments[setting.flag] = text }
        }
        return arguments.keys.sorted().flatMap { [$0, arguments[$0]!] }
    }
}
