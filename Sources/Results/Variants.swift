public import Scoring

/// One custom language-model variant: a training-data file prepared into a model.
public struct VariantInfo: Codable, Sendable, Equatable {
    public var name: String
    /// The training-data file (e.g. an exported Speech-framework `SFCustomLanguageModelData` JSON).
    public var trainingDataFile: String
    /// Interpolation weight of the custom model against the general one.
    public var weight: Double
    /// The training data is private (e.g. a contact list): reports mask its terms (see
    /// ``RunResults/redactingPrivateTerms()``).
    public var isPrivate: Bool
    /// Phrase samples generated from the training data.
    public var samplesUsed: Int
    /// The sample budget, when one was set.
    public var sampleBudget: Int?
    /// Content hash of the prepared artifact (language model + vocabulary).
    public var artifactFingerprint: String
    public var prepareSeconds: PrepareTimings
    /// Boosted words: the vocabulary B-WER is computed on (single words; phrases are split).
    public var boostedWords: [String]
    /// Terms of several words, each scored by position as a whole (keyword recall/precision/F1).
    public var multiWordTerms: [String]
    /// Templates and their class values, for slot errors; `nil` when the training data has none.
    public var templates: SlotTemplates?

    public init(
        name: String, trainingDataFile: String, weight: Double = 1, isPrivate: Bool = false, samplesUsed: Int = 0,
        sampleBudget: Int? = nil, artifactFingerprint: String = "", prepareSeconds: PrepareTimings = .init(),
        boostedWords: [String] = [], multiWordTerms: [String] = [], templates: SlotTemplates? = nil
    ) {
        self.name = name
        self.trainingDataFile = trainingDataFile
        self.weight = weight
        self.isPrivate = isPrivate
        self.samplesUsed = samplesUsed
        self.sampleBudget = sampleBudget
        self.artifactFingerprint = artifactFingerprint
        self.prepareSeconds = prepareSeconds
        self.boostedWords = boostedWords
        self.multiWordTerms = multiWordTerms
        self.templates = templates
    }

    /// The terms scored by position: the multi-word terms, then the boosted words, without duplicates.
    public var scoredTerms: [String] {
        var seen = Set<String>()
        return (multiWordTerms + boostedWords).filter { seen.insert($0).inserted }
    }
}

/// Seconds spent preparing a variant, per step.
public struct PrepareTimings: Codable, Sendable, Equatable {
    /// Expanding templates and classes into phrase samples.
    public var expand: Double
    /// Estimating the n-gram model.
    public var estimate: Double
    /// Writing the ARPA file and dictionary.
    public var write: Double
    /// Compiling the binary model.
    public var compileBinary: Double

    public init(expand: Double = 0, estimate: Double = 0, write: Double = 0, compileBinary: Double = 0) {
        self.expand = expand
        self.estimate = estimate
        self.write = write
        self.compileBinary = compileBinary
    }

    /// The sum of all steps.
    public var total: Double { expand + estimate + write + compileBinary }
}

/// What a corpus is for.
public enum CorpusRole: String, Codable, Sendable, Equatable, CaseIterable {
    /// Speech the custom phrases are for: customization should help here.
    case domain
    /// Unrelated speech: customization must not hurt here.
    case antiContext
}

/// One corpus (test set) of the suite.
public struct CorpusInfo: Codable, Sendable, Equatable {
    public var name: String
    public var role: CorpusRole
    /// The split decoded, e.g. `test` or `dev`.
    public var split: String
    /// Utterances decoded (in a shard: the shard's utterances).
    public var utteranceCount: Int
    /// Total audio duration decoded, seconds.
    public var audioSeconds: Double

    public init(name: String, role: CorpusRole, split: String = "test", utteranceCount: Int, audioSeconds: Double) {
        self.name = name
        self.role = role
        self.split = split
        self.utteranceCount = utteranceCount
        self.audioSeconds = audioSeconds
    }
}
