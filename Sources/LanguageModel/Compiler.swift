import Crypto
import Formats
import Foundation
import Hashing
import NGram
import PocketSphinx
import TrainingData

/// How the customization reaches the decoder.
public enum LanguageModelMix: String, Sendable, Hashable, Codable, CaseIterable {
    /// One static trigram model per variant that contains the base model and the customization
    /// (``MergedModel``); the decoder loads it alone. The default, with the weighted interpolation: the
    /// set's own score built into one model, so the same accuracy as the set at the base model's
    /// decoding cost (docs/measured.md).
    case merged
    /// A small custom model, linearly interpolated with the base model at decode time with one
    /// constant weight (sphinxbase's `ngram_model_set`): `mix: set` or `--mix set`. Its weight can change
    /// without preparing again, which is how the sweep and the diagnosis try other weights of a weighted
    /// merge (its set twin, ``PreparedArtifact/hasSetTwin``).
    case set
}

/// How a phrase of the training data is framed when it is counted.
public enum PhraseFraming: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every phrase is a whole utterance: its `<s> w1` and `wn </s>` n-grams count fully, so the model
    /// expects an utterance to begin and end where the phrase does.
    case sentences
    /// A phrase may be part of what is said (Apple's `PhraseCount` holds "an exact phrase or part of
    /// a phrase"): its boundary n-grams count only for the ``PrepareOptions/boundaryShare``, and the
    /// rest is left to the base model, which predicts the words around it; inner n-grams count fully.
    case fragments
}

/// What `prepare` needs to know beyond the training data.
public struct PrepareOptions: Sendable, Hashable, Codable {
    /// How the customization is combined with the base model.
    public var mix: LanguageModelMix
    /// Merged mix only: π, the custom side's prior weight (Apple's `weight`). The set mix takes
    /// its weight at decode time instead.
    public var weight: Double
    /// Merged mix only: π₀, the custom side's share of the unigram level.
    public var unigramWeight: Double
    /// Merged mix only: s, the tempering of the history probabilities in λ(h).
    public var tempering: Double
    /// Merged mix only: the set's own weighting after the language weight (the default), a
    /// history-dependent λ(h), or SRILM's constant λ = ``weight``.
    public var interpolation: MergeOptions.Interpolation
    /// Weighted merge only: the decoder's language weight (`-lw`) the model is built for.
    public var languageWeight: Double
    /// How phrases are framed; nil is the mix's default (``defaultPhraseFraming(for:)``).
    public var phrases: PhraseFraming?
    /// With fragments: the share of a phrase's count for which it is a whole utterance (its `<s> w1`
    /// and `wn </s>` n-grams); the rest leaves the words around a fragment to the base model.
    public var boundaryShare: Double
    /// Merged mix only: keep the merged model's ARPA text (about 100 MB) beside the binary.
    public var keepMergedARPA: Bool
    /// N-gram order of the custom model.
    public var order: Int
    /// Add a spelling-based pronunciation beside every supplied one (on by default: people say rare
    /// words as they are spelled as often as the way they should be said).
    public var spellingAlternates: Bool
    /// Budget and expansion limits.
    public var limits: TrainingDataLimits
    /// How many of the base model's most probable words count as common: training-data words outside
    /// them are the boosted words that B-WER is measured on.
    public var commonWordCount: Int
    /// Share of the custom model's unigram level reserved for words outside the training data (see
    /// `NGramCounts.estimateWittenBell(backgroundMass:)`): limits boosting to the contexts the data
    /// shows, so that "maeve" does not replace "made" after "have been".
    public var backgroundMass: Double
    /// Predict a boosted word and the words that only ever go with it ("albin counter") as one token
    /// (see ``Compounds``), so that its boost needs the whole phrase.
    public var compounds: Bool
    /// The share of each sentence with a compound that is also counted word by word, so that a
    /// compound's words stay reachable (with a smaller boost) in phrasings the data did not show.
    public var compoundSplitShare: Double

    public init(
        order: Int = 3, spellingAlternates: Bool = true, limits: TrainingDataLimits = .default,
        commonWordCount: Int = 5_000, backgroundMass: Double = 0.9, compounds: Bool = true,
        compoundSplitShare: Double = 0.01, mix: LanguageModelMix = .merged, weight: Double = MergeOptions().weight,
        unigramWeight: Double = MergeOptions().unigramWeight, tempering: Double = MergeOptions().tempering,
        boundaryShare: Double = PrepareOptions.defaultBoundaryShare, keepMergedARPA: Bool = false,
        interpolation: MergeOptions.Interpolation = .weighted, phrases: PhraseFraming? = nil,
        languageWeight: Double = MergeOptions.defaultLanguageWeight
    ) {
        self.mix = mix
        self.languageWeight = languageWeight
        self.phrases = phrases
        self.interpolation = interpolation
        self.weight = weight
        self.unigramWeight = unigramWeight
        self.tempering = tempering
        self.boundaryShare = boundaryShare
        self.keepMergedARPA = keepMergedARPA
        self.order = order
        self.spellingAlternates = spellingAlternates
        self.limits = limits
        self.commonWordCount = commonWordCount
        self.backgroundMass = backgroundMass
        self.compounds = compounds
        self.compoundSplitShare = compoundSplitShare
    }
}

extension PrepareOptions {
    /// N-gram orders the engine reads back: sphinxbase's trie allocates for order 6 and up until it
    /// crashes (a segfault, or a calloc of gigabytes); orders below 1 are no model at all.
    public static let supportedOrders = 1...5

    /// A setting outside its range: the setting's name (as a suite spells it), its value and the range.
    public struct InvalidSetting: Error, Equatable, Sendable, CustomStringConvertible {
        /// The setting as a suite spells it (`boundaryShare`); the command line spells it in kebab case.
        public var setting: String
        public var value: String
        /// The allowed range, for the message: "0…1".
        public var allowed: String

        public init(setting: String, value: String, allowed: String) {
            self.setting = setting
            self.value = value
            self.allowed = allowed
        }

        /// The option that sets it on the command line: `--boundary-share`.
        public var option: String {
            PrepareOptions.settings.first { $0.name == setting }?.option ?? Setting.kebab(setting)
        }

        /// The settings a suite's variant may give (its keys in `variants:`); the others are command-line options
        /// only, and a message that sent the user to a suite key for them would send them to an error.
        public static let suiteKeys = Set(PrepareOptions.settings.filter(\.inSuite).map(\.name))

        public var description: String {
            let place =
                Self.suiteKeys.contains(setting) ? "the suite's `\(setting):`, or \(option)" : "set by \(option)"
            return "`\(setting)` is \(value); it must be within \(allowed) (\(place))"
        }
    }

    /// Checks every setting against its range, once, for the command line and the suite alike. Call
    /// it on the options as given, before ``normalized`` resets what a mix does not use.
    ///
    /// - Throws: ``InvalidSetting`` for the first setting out of range.
    public func validate() throws(InvalidSetting) {
        for setting in Self.settings {
            if let value = setting.outOfRange(self), let allowed = setting.allowed {
                throw InvalidSetting(setting: setting.name, value: value, allowed: allowed)
            }
        }
    }

    /// The default of ``boundaryShare`` for phrases framed as fragments.
    public static let defaultBoundaryShare = 0.5

    /// How a mix frames phrases unless told: the set and the weighted merge (which reproduces it) as
    /// sentences, the other merges as fragments.
    public static func defaultPhraseFraming(
        for mix: LanguageModelMix, interpolation: MergeOptions.Interpolation = .historyDependent
    ) -> PhraseFraming {
        mix == .merged && interpolation != .weighted ? .fragments : .sentences
    }

    /// Whether these options build a weighted merge, whose set twin (the same custom model interpolated at decode
    /// time, which the merge reproduces) can try other weights on a lattice (``PreparedArtifact/hasSetTwin``).
    public var hasSetTwin: Bool { mix == .merged && interpolation == .weighted }

    /// Whether the custom side is the set's own (background mass and all): the set, and the weighted merge.
    public var usesSetCustomModel: Bool { mix == .set || interpolation == .weighted }

    /// The framing in effect.
    public var phraseFraming: PhraseFraming {
        phrases ?? Self.defaultPhraseFraming(for: mix, interpolation: interpolation)
    }

    /// The share of a phrase's count given to its boundary n-grams: 1 for sentences.
    public var effectiveBoundaryShare: Double { phraseFraming == .fragments ? boundaryShare : 1 }

    /// The merge settings these options give.
    public var mergeOptions: MergeOptions {
        MergeOptions(
            weight: weight, unigramWeight: unigramWeight, tempering: tempering, interpolation: interpolation,
            languageWeight: languageWeight)
    }

    /// The options with every setting the chosen mix ignores set to its default, so that two options
    /// that build the same artifact also name the same cache entry.
    public var normalized: PrepareOptions {
        var options = self
        for setting in Self.settings where !setting.isUsed(self) { setting.reset(&options, Self.defaults) }
        let framing = phraseFraming
        options.phrases = framing == Self.defaultPhraseFraming(for: mix, interpolation: interpolation) ? nil : framing
        // −0 is 0: one artifact, one cache key, and a weight recorded as 0.
        if options.weight == 0 { options.weight = 0 }
        return options
    }
}

/// The base model's files that the compiler reads.
public struct BaseModelFiles: Sendable, Hashable {
    public var languageModel: URL
    public var dictionary: URL
    /// The acoustic model's fingerprint, recorded in the artifact and checked when it is loaded.
    public var acousticModelFingerprint: String
    public var locale: String

    public init(languageModel: URL, dictionary: URL, acousticModelFingerprint: String, locale: String) {
        self.languageModel = languageModel
        self.dictionary = dictionary
        self.acousticModelFingerprint = acousticModelFingerprint
        self.locale = locale
    }
}

/// Compiles training data into a custom language model and vocabulary, as Apple's
/// `prepareCustomLanguageModel` does, but transparently: each step is timed, every new word's
/// pronunciation is accounted for, and the result is cached by content.
public final class LanguageModelCompiler {
    private let base: BaseModelFiles
    private var dictionaryCache: PronunciationDictionary?
    private var commonWordsCache: [String]?

    public init(base: BaseModelFiles) {
        self.base = base
    }

    /// The base model's n-grams, read once per process (see ``BaseModelStore``).
    public func baseNGrams() throws(LanguageModelError) -> BaseModelStore.Load {
        try BaseModelStore.load(languageModel: base.languageModel)
    }

    /// The base pronunciation dictionary, read once.
    public func dictionary() throws(LanguageModelError) -> PronunciationDictionary {
        if let dictionaryCache { return dictionaryCache }
        let dictionary: PronunciationDictionary
        do {
            dictionary = try PronunciationDictionary(contentsOf: base.dictionary)
        } catch {
            throw .unreadable(path: base.dictionary.path, reason: "cannot read the pronunciation dictionary")
        }
        dictionaryCache = dictionary
        return dictionary
    }

    /// The base language model's words, most probable first, read once.
    public func commonWords() throws(LanguageModelError) -> [String] {
        if let commonWordsCache { return commonWordsCache }
        let words = try SphinxLanguageModel(contentsOf: base.languageModel).wordsByUnigramProbability()
        commonWordsCache = words
        return words
    }

    /// Prepares the data into `output`, or returns the cached artifact when the same input was
    /// prepared there before.
    ///
    /// - Parameters:
    ///   - data: The training data.
    ///   - output: The artifact folder (created if needed).
    ///   - options: Compiler options.
    ///   - ignoreCache: Rebuild even when a matching artifact exists.
    /// - Returns: The checked artifact and whether it came from the cache.
    /// - Throws: ``LanguageModelError`` for invalid data or unwritable output.
    public func prepare(
        _ data: CustomLanguageModelData, output: URL, options: PrepareOptions = PrepareOptions(),
        ignoreCache: Bool = false
    ) throws(LanguageModelError) -> (artifact: PreparedArtifact, cached: Bool) {
        var timings = PreparedModel.Timings()
        var clock = Stopwatch()
        let options = try Self.checked(options)
        let exported = try validatedExport(of: data, options: options)
        let inputFingerprint = Self.inputFingerprint(exported: exported, options: options, base: base)
        if !ignoreCache, let cached = try? PreparedArtifact(folder: output),
            cached.manifest.inputFingerprint == inputFingerprint
        {
            return (cached, true)
        }
        timings.validate = clock.lap()

        let sentences = try Self.weightedSentences(of: data, options: options)
        let (boostedWords, boostedTerms) = try boosted(data, options: options)
        let compounds =
            options.compounds
            ? Compounds.find(in: sentences, startingWith: Set(boostedWords)) : Compounds(phrases: [])
        let counts = Self.countNGrams(sentences, compounds: compounds, options: options)
        timings.count = clock.lap()

        // The custom side on its own (what the set mix decodes with; for the merged mix, the
        // readable record of what the data says, and the canary's source of phrases).
        let model = counts.estimateWittenBell(backgroundMass: options.usesSetCustomModel ? options.backgroundMass : 0)
        timings.estimate = clock.lap()

        // Every word needs a pronunciation before anything is written: a word the recognizer cannot
        // pronounce can never be recognised, and a run would only show it as a silent miss.
        let dictionary = try dictionary()
        let vocabulary = try Self.vocabulary(
            of: data, model: model, compounds: compounds, dictionary: dictionary, options: options)
        timings.vocabulary = clock.lap()

        let arpa = output.appendingPathComponent(PreparedModel.arpaName)
        let binary = output.appendingPathComponent(PreparedModel.binaryName)
        let vocabularyURL = output.appendingPathComponent(PreparedModel.vocabularyName)
        try Self.writeCustomModel(model, to: arpa, in: output)
        timings.writeARPA = clock.lap()

        let merge = try compileBinary(
            model: model, counts: counts, arpa: arpa, binary: binary, output: output, options: options,
            timings: &timings, clock: &clock)

        try atomicWrite(Data(vocabulary.dictionaryText(base: dictionary).utf8), to: vocabularyURL)
        timings.vocabulary += clock.lap()

        let templates = Self.templateSlots(of: data)
        let manifest = PreparedModel(
            compilerVersion: PreparedModel.compilerVersion, identifier: data.identifier, version: data.version,
            locale: data.localeIdentifier, isPrivate: data.isPrivate, inputFingerprint: inputFingerprint,
            fingerprint: try PreparedArtifact.fingerprint(languageModel: binary, vocabulary: vocabularyURL),
            acousticModelFingerprint: base.acousticModelFingerprint, order: options.order,
            ngramCounts: merge.statistics?.counts ?? model.counts, samples: data.totalSamples,
            sampleBudget: options.limits.sampleBudget,
            sentences: sentences.sentenceCount, vocabulary: vocabulary, timings: timings, boostedWords: boostedWords,
            boostedTerms: boostedTerms, templates: templates,
            compounds: compounds.phrases.map { $0.joined(separator: " ") }, mix: options.mix,
            merge: options.mix == .merged ? options.mergeOptions : nil,
            boundaryShare: options.phraseFraming == .fragments ? options.boundaryShare : nil,
            mergeStatistics: merge.statistics,
            baseModelFingerprint: merge.baseFingerprint)
        try Self.writeManifest(manifest, in: output)
        return (try PreparedArtifact(folder: output), false)
    }

    /// The options checked against their ranges and then normalized; the merged mix also refuses an order
    /// above 3, since it builds a trigram model like the base model.
    private static func checked(_ options: PrepareOptions) throws(LanguageModelError) -> PrepareOptions {
        do {
            try options.validate()
        } catch {
            throw .invalidSetting(error)
        }
        let options = options.normalized
        if options.mix == .merged, options.order > 3 {
            throw .conflictingSettings(
                "the merged mix builds a trigram model like the base model; order \(options.order) needs --mix set")
        }
        return options
    }

    /// The data's exported bytes, after checking it against the limits and the base model's locale; the bytes
    /// feed the input fingerprint that names the cache entry.
    private func validatedExport(
        of data: CustomLanguageModelData, options: PrepareOptions
    ) throws(LanguageModelError) -> Data {
        do {
            try data.validate(limits: options.limits, requestedLocale: Locale(identifier: base.locale))
            return try data.exportData()
        } catch let problem as TrainingDataError {
            throw .invalidTrainingData(problem)
        } catch {
            throw .unexportable(reason: "\(error)")
        }
    }

    /// The data's sentences with their counts, expanded within the options' limits.
    private static func weightedSentences(
        of data: CustomLanguageModelData, options: PrepareOptions
    ) throws(LanguageModelError) -> WeightedSentences {
        do {
            return try data.weightedSentences(limits: options.limits)
        } catch let problem as TrainingDataError {
            throw .invalidTrainingData(problem)
        } catch {
            // Expansion throws only the data's problems; anything else is said as it came.
            throw .unexportable(reason: "\(error)")
        }
    }

    /// The n-gram counts of the sentences. A sentence that contains a compound counts with the compound as
    /// one token and, for the compound split share of its count, word by word as well.
    private static func countNGrams(
        _ sentences: WeightedSentences, compounds: Compounds, options: PrepareOptions
    ) -> NGramCounts {
        var counts = NGramCounts(order: options.order)
        let split = min(max(options.compoundSplitShare, 0), 1)
        // Sentences frame every phrase as a whole utterance; fragments leave part of each phrase's
        // count to the words around it, which the base model predicts.
        let boundary = options.effectiveBoundaryShare
        for sentence in sentences {
            let joined = compounds.join(sentence.tokens)
            if joined.count == sentence.tokens.count {
                counts.add(joined, count: sentence.count, boundaryShare: boundary)
            } else {
                counts.add(joined, count: sentence.count * (1 - split), boundaryShare: boundary)
                counts.add(sentence.tokens, count: sentence.count * split, boundaryShare: boundary)
            }
        }
        return counts
    }

    /// The pronunciations of the model's words and of the compounds: the data's own, the base dictionary's and
    /// spelled ones. Throws for the first word of the data left without one.
    private static func vocabulary(
        of data: CustomLanguageModelData, model: BackoffModel, compounds: Compounds,
        dictionary: PronunciationDictionary, options: PrepareOptions
    ) throws(LanguageModelError) -> Vocabulary {
        var supplied: [String: [[String]]] = [:]
        for pronunciation in data.pronunciations {
            let phones = pronunciation.cmuPhones.filter { !$0.isEmpty }
            supplied[pronunciation.word, default: []] += phones
        }
        let tokens = Set(compounds.phrases.map(Compounds.token))
        let words = model.vocabulary.filter { !$0.hasPrefix("<") && !tokens.contains($0) } + compounds.phrases.joined()
        var vocabulary = Vocabulary.build(
            words: words, pronunciations: supplied, dictionary: dictionary,
            spellingAlternates: options.spellingAlternates)
        if let problem = vocabulary.unpronounceableProblems(in: data).first {
            throw .invalidTrainingData(problem)
        }
        vocabulary.addCompounds(compounds, dictionary: dictionary)
        return vocabulary
    }

    /// Creates the artifact folder and writes the custom model's ARPA text to `arpa`, after removing the old
    /// manifest so that it never vouches for the files being rewritten.
    private static func writeCustomModel(
        _ model: BackoffModel, to arpa: URL, in output: URL
    ) throws(LanguageModelError) {
        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        } catch {
            throw .writeFailed(path: output.path, reason: "\(error)")
        }
        // A stale manifest must never vouch for half-written files.
        try? FileManager.default.removeItem(at: output.appendingPathComponent(PreparedModel.manifestName))
        try atomicWrite(Data(model.arpaBytes()), to: arpa)
    }

    /// Compiles the binary model the decoder loads, through a temporary file renamed onto `binary`: the custom
    /// model alone for the set mix, the merged model for the merged mix. Returns what the merge recorded (nil
    /// for the set mix) and adds the compile time to `timings`.
    private func compileBinary(
        model: BackoffModel, counts: NGramCounts, arpa: URL, binary: URL, output: URL, options: PrepareOptions,
        timings: inout PreparedModel.Timings, clock: inout Stopwatch
    ) throws(LanguageModelError) -> (statistics: MergedModel.Statistics?, baseFingerprint: String?) {
        let temporaryBinary = output.appendingPathComponent(".\(PreparedModel.binaryName).partial")
        var merge: (statistics: MergedModel.Statistics?, baseFingerprint: String?) = (nil, nil)
        defer { try? FileManager.default.removeItem(at: temporaryBinary) }
        switch options.mix {
        case .set:
            try SphinxLanguageModel(contentsOf: arpa).writeBinary(to: temporaryBinary)
        case .merged:
            merge = try compileMerged(
                model: model, counts: counts, to: temporaryBinary, output: output, options: options,
                timings: &timings, clock: &clock)
        }
        try replace(binary, with: temporaryBinary)
        timings.compileBinary += clock.lap()
        return merge
    }

    /// Merges the base model with the custom side and writes the merged binary to `temporaryBinary`; keeps the
    /// merged ARPA text when the options ask for it and removes a stale one otherwise.
    private func compileMerged(
        model: BackoffModel, counts: NGramCounts, to temporaryBinary: URL, output: URL, options: PrepareOptions,
        timings: inout PreparedModel.Timings, clock: inout Stopwatch
    ) throws(LanguageModelError) -> (statistics: MergedModel.Statistics?, baseFingerprint: String?) {
        let load = try baseNGrams()
        timings.readBase = load.seconds
        _ = clock.lap()
        let merged =
            options.interpolation == .weighted
            ? MergedModel(base: load.ngrams, weighting: model, options: options.mergeOptions)
            : MergedModel(base: load.ngrams, custom: counts, options: options.mergeOptions)
        timings.merge = clock.lap()
        try write(merged.tables.sphinxBinary(), to: temporaryBinary)
        timings.compileBinary = clock.lap()
        let keptARPA = output.appendingPathComponent(PreparedModel.mergedARPAName)
        if options.keepMergedARPA {
            try Self.writeMergedARPA(merged.tables, to: keptARPA, in: output)
            timings.writeARPA += clock.lap()
        } else {
            try? FileManager.default.removeItem(at: keptARPA)
        }
        return (merged.statistics, load.fingerprint)
    }

    /// Writes the merged model's ARPA text to `keptARPA` through a partial file and a rename, so that a reader
    /// never sees half of it.
    private static func writeMergedARPA(
        _ tables: TrigramTables, to keptARPA: URL, in output: URL
    ) throws(LanguageModelError) {
        let partial = output.appendingPathComponent(".\(PreparedModel.mergedARPAName).partial")
        defer { try? FileManager.default.removeItem(at: partial) }
        do {
            try tables.writeARPA(to: partial)
        } catch {
            throw LanguageModelError.writeFailed(path: keptARPA.path, reason: "\(error)")
        }
        try replace(keptARPA, with: partial)
    }

    /// Writes the manifest as sorted, pretty-printed JSON, last of all, so that it vouches only for complete files.
    private static func writeManifest(_ manifest: PreparedModel, in output: URL) throws(LanguageModelError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try atomicWrite(
                try encoder.encode(manifest), to: output.appendingPathComponent(PreparedModel.manifestName))
        } catch let error as LanguageModelError {
            throw error
        } catch {
            throw .writeFailed(path: output.path, reason: "\(error)")
        }
    }

    /// Each template's tokens and the values of the classes of its group, as a prepared model's manifest
    /// records them (``PreparedModel/templates``).
    public static func templateSlots(of data: CustomLanguageModelData) -> [TemplateSlots] {
        data.templateGroups.flatMap { group in
            group.templates.map { template in
                TemplateSlots(
                    tokens: template.body.split(separator: " ").map { String($0).lowercased() },
                    classes: group.classes.mapValues { $0.map { WordTokenizer.tokenize($0).joined(separator: " ") } })
            }
        }
    }

    /// The words and terms the data boosts: its words outside the base model's common words (Le et
    /// al. 2021's rare words), every custom-pronunciation grapheme, and, as multi-word terms, each
    /// phrase's runs of such words and each rare class value.
    public func boosted(_ data: CustomLanguageModelData, options: PrepareOptions) throws(LanguageModelError) -> (
        words: [String], terms: [String]
    ) {
        let common = Set(try commonWords().prefix(options.commonWordCount))
        var words = Set<String>()
        var terms = Set<String>()
        func isRare(_ word: String) -> Bool { !common.contains(word) && NumberSpeller.words(word) == nil }
        for pronunciation in data.pronunciations {
            let tokens = WordTokenizer.tokenize(pronunciation.grapheme)
            words.formUnion(tokens)
            terms.insert(tokens.joined(separator: " "))
        }
        for phrase in data.phraseCounts {
            var run: [String] = []
            for token in WordTokenizer.tokenize(phrase.phrase) + [""] {
                if !token.isEmpty, isRare(token) {
                    run.append(token)
                    words.insert(token)
                } else if !run.isEmpty {
                    terms.insert(run.joined(separator: " "))
                    run = []
                }
            }
        }
        for group in data.templateGroups {
            for value in group.classes.values.joined() {
                let tokens = WordTokenizer.tokenize(value)
                let rare = tokens.filter(isRare)
                words.formUnion(rare)
                if !rare.isEmpty { terms.insert(tokens.joined(separator: " ")) }
            }
        }
        terms.remove("")
        return (words.sorted(), terms.sorted())
    }

    static func inputFingerprint(exported: Data, options: PrepareOptions, base: BaseModelFiles) -> String {
        var hasher = SHA256()
        hasher.update(data: exported)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        hasher.update(data: (try? encoder.encode(options)) ?? Data())
        hasher.update(data: Data("\(PreparedModel.compilerVersion)|\(base.acousticModelFingerprint)".utf8))
        return ContentHash.hex(hasher.finalize())
    }
}

/// Elapsed time between laps, in seconds.
public struct Stopwatch {
    private var last = DispatchTime.now().uptimeNanoseconds

    public init() {}

    public mutating func lap() -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        defer { last = now }
        return Double(now - last) / 1e9
    }
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
func atomicWrite(_ data: Data, to url: URL) throws(LanguageModelError) {
    do {
        try data.write(to: url, options: .atomic)
    } catch {
        throw .writeFailed(path: url.path, reason: "\(error)")
    }
}

/// Writes `bytes` to `url` as they are, without a `Data` copy of them (a merged model is 30–45 MB); the caller writes
/// to a partial file and renames it.
private func write(_ bytes: [UInt8], to url: URL) throws(LanguageModelError) {
    guard let file = fopen(url.path, "wb") else {
        throw .writeFailed(path: url.path, reason: String(cString: strerror(errno)))
    }
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    let failure = written == bytes.count ? nil : String(cString: strerror(errno))
    guard fclose(file) == 0, failure == nil else {
        throw .writeFailed(path: url.path, reason: failure ?? String(cString: strerror(errno)))
    }
}

private func replace(_ destination: URL, with source: URL) throws(LanguageModelError) {
    // rename(2) replaces the destination atomically.
    guard rename(source.path, destination.path) == 0 else {
        throw .writeFailed(path: destination.path, reason: String(cString: strerror(errno)))
    }
}
