import Crypto
import Foundation
import NGram
import TrainingData

/// What `prepare` needs to know beyond the training data.
public struct PrepareOptions: Sendable, Hashable, Codable {
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
        compoundSplitShare: Double = 0.01
    ) {
        self.order = order
        self.spellingAlternates = spellingAlternates
        self.limits = limits
        self.commonWordCount = commonWordCount
        self.backgroundMass = backgroundMass
        self.compounds = compounds
        self.compoundSplitShare = compoundSplitShare
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

    /// The base pronunciation dictionary, read once.
    public func dictionary() throws(LanguageModelError) -> PronunciationDictionary {
        if let dictionaryCache { return dictionaryCache }
        let dictionary = try PronunciationDictionary(contentsOf: base.dictionary)
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

        let exported: Data
        do {
            try data.validate(limits: options.limits, requestedLocale: Locale(identifier: base.locale))
            exported = try data.exportData()
        } catch {
            throw .invalidTrainingData("\(error)")
        }
        let inputFingerprint = Self.inputFingerprint(exported: exported, options: options, base: base)
        if !ignoreCache, let cached = try? PreparedArtifact(folder: output),
            cached.manifest.inputFingerprint == inputFingerprint
        {
            return (cached, true)
        }
        timings.validate = clock.lap()

        var counts = NGramCounts(order: options.order)
        let sentences: WeightedSentences
        do {
            sentences = try data.weightedSentences(limits: options.limits)
        } catch {
            throw .invalidTrainingData("\(error)")
        }
        let (boostedWords, boostedTerms) = try boosted(data, options: options)
        let compounds =
            options.compounds
            ? Compounds.find(in: sentences, startingWith: Set(boostedWords)) : Compounds(phrases: [])
        let split = min(max(options.compoundSplitShare, 0), 1)
        for sentence in sentences {
            let joined = compounds.join(sentence.tokens)
            if joined.count == sentence.tokens.count {
                counts.add(joined, count: sentence.count)
            } else {
                counts.add(joined, count: sentence.count * (1 - split))
                counts.add(sentence.tokens, count: sentence.count * split)
            }
        }
        timings.count = clock.lap()

        let model = counts.estimateWittenBell(backgroundMass: options.backgroundMass)
        timings.estimate = clock.lap()

        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        } catch {
            throw .writeFailed(path: output.path, reason: "\(error)")
        }
        let arpa = output.appendingPathComponent(PreparedModel.arpaName)
        let binary = output.appendingPathComponent(PreparedModel.binaryName)
        let vocabularyURL = output.appendingPathComponent(PreparedModel.vocabularyName)
        // A stale manifest must never vouch for half-written files.
        try? FileManager.default.removeItem(at: output.appendingPathComponent(PreparedModel.manifestName))
        try atomicWrite(Data(model.arpaBytes()), to: arpa)
        timings.writeARPA = clock.lap()

        let temporaryBinary = output.appendingPathComponent(".\(PreparedModel.binaryName).partial")
        try SphinxLanguageModel(contentsOf: arpa).writeBinary(to: temporaryBinary)
        try replace(binary, with: temporaryBinary)
        timings.compileBinary = clock.lap()

        let dictionary = try dictionary()
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
        vocabulary.addCompounds(compounds, dictionary: dictionary)
        try atomicWrite(Data(vocabulary.dictionaryText(base: dictionary).utf8), to: vocabularyURL)
        timings.vocabulary = clock.lap()

        let templates: [TemplateSlots] = data.templateGroups.flatMap { group in
            group.templates.map { template in
                TemplateSlots(
                    tokens: template.body.split(separator: " ").map { String($0).lowercased() },
                    classes: group.classes.mapValues { $0.map { WordTokenizer.tokenize($0).joined(separator: " ") } })
            }
        }
        let manifest = PreparedModel(
            compilerVersion: PreparedModel.compilerVersion, identifier: data.identifier, version: data.version,
            locale: data.localeIdentifier, isPrivate: data.isPrivate, inputFingerprint: inputFingerprint,
            fingerprint: try PreparedArtifact.fingerprint(languageModel: binary, vocabulary: vocabularyURL),
            acousticModelFingerprint: base.acousticModelFingerprint, order: options.order,
            ngramCounts: model.counts, samples: data.totalSamples, sampleBudget: options.limits.sampleBudget,
            sentences: sentences.sentenceCount, vocabulary: vocabulary, timings: timings, boostedWords: boostedWords,
            boostedTerms: boostedTerms, templates: templates,
            compounds: compounds.phrases.map { $0.joined(separator: " ") })
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
        return (try PreparedArtifact(folder: output), false)
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
        return hex(hasher.finalize())
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

private func replace(_ destination: URL, with source: URL) throws(LanguageModelError) {
    // rename(2) replaces the destination atomically.
    guard rename(source.path, destination.path) == 0 else {
        throw .writeFailed(path: destination.path, reason: String(cString: strerror(errno)))
    }
}
