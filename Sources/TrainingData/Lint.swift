import Foundation

/// A word the language model uses that the recognizer's dictionary lacks, and how it was resolved.
///
/// ``LintReport`` leaves ``LintReport/oov`` empty; the language model stage, which knows the
/// dictionary, fills it in.
public struct OOVWord: Codable, Sendable, Hashable {
    /// How the word got a pronunciation.
    public enum Resolution: String, Codable, Sendable, Hashable {
        /// From a ``CustomPronunciation``.
        case customPronunciation
        /// Generated from the spelling (grapheme to phoneme).
        case generated
        /// None: the recognizer will drop the word.
        case unresolved
    }

    /// The word, lowercased as the language model has it.
    public var word: String
    /// How it was resolved.
    public var resolution: Resolution
    /// The pronunciations given to it, as CMU phones.
    public var pronunciations: [[String]]
    /// What produced the pronunciations (e.g. "flite"), if generated.
    public var source: String?

    /// Creates an OOV record.
    public init(word: String, resolution: Resolution, pronunciations: [[String]] = [], source: String? = nil) {
        self.word = word
        self.resolution = resolution
        self.pronunciations = pronunciations
        self.source = source
    }
}

/// What the training data amounts to: counts, budget, vocabulary and problems, for people and CI.
public struct LintReport: Codable, Sendable, Equatable {
    /// Budget use.
    public struct Budget: Codable, Sendable, Equatable {
        /// The sample budget.
        public var budget: Int
        /// Samples used by phrases and templates.
        public var used: Int
        /// `budget - used`; negative when over.
        public var remaining: Int
        /// `used / budget`.
        public var share: Double
    }

    /// One phrase.
    public struct Phrase: Codable, Sendable, Equatable {
        /// The phrase as written.
        public var phrase: String
        /// Its words as the language model sees them.
        public var tokens: [String]
        /// Its count.
        public var count: Int
        /// The count of its word sequence summed over all phrases (duplicates add up).
        public var effectiveCount: Int
        /// `count / budget`.
        public var shareOfBudget: Double
        /// Where it was defined.
        public var location: SourceLocation?
    }

    /// One expansion of a template and the samples it gets.
    public struct Expansion: Codable, Sendable, Equatable {
        /// The expansion's text.
        public var text: String
        /// Its words.
        public var tokens: [String]
        /// The samples it gets.
        public var count: Double
    }

    /// One template.
    public struct Template: Codable, Sendable, Equatable {
        /// The template text.
        public var template: String
        /// Its total count.
        public var count: Int
        /// How many phrases it expands to.
        public var expansions: Int
        /// `count / expansions`.
        public var countPerExpansion: Double
        /// `count / budget`.
        public var shareOfBudget: Double
        /// All expansions when there are few, else an evenly spaced sample.
        public var sampleExpansions: [Expansion]
        /// Whether ``sampleExpansions`` lists every expansion.
        public var sampleIsComplete: Bool
        /// Where it was defined.
        public var location: SourceLocation?
    }

    /// One custom pronunciation and its CMU phones.
    public struct Pronunciation: Codable, Sendable, Equatable {
        /// The grapheme as written.
        public var grapheme: String
        /// The dictionary word (lowercased).
        public var word: String
        /// The X-SAMPA text.
        public var xsampa: String
        /// The CMU phones; empty if the pronunciation has unsupported symbols.
        public var phones: [String]
        /// Where it was defined.
        public var location: SourceLocation?
    }

    /// An unsupported X-SAMPA symbol and where it came from.
    public struct PronunciationProblem: Codable, Sendable, Equatable {
        /// The grapheme whose pronunciation has the problem.
        public var grapheme: String
        /// The X-SAMPA text.
        public var pronunciation: String
        /// The unsupported symbols.
        public var unsupportedSymbols: [String]
        /// Where it was defined.
        public var location: SourceLocation?
    }

    /// The data's identifier.
    public var identifier: String
    /// The data's version.
    public var version: String
    /// The data's locale as a BCP 47 tag.
    public var locale: String
    /// Whether the data is personal; see ``redacted()``.
    public var isPrivate: Bool
    /// The limits the data was checked against.
    public var limits: TrainingDataLimits
    /// Budget use.
    public var budget: Budget
    /// Every phrase, in order.
    public var phrases: [Phrase]
    /// Every template that compiles, in order (the others are in ``problems``).
    public var templates: [Template]
    /// Every distinct word the language model will contain, sorted.
    public var vocabulary: [String]
    /// The number of distinct words (kept when the report is redacted).
    public var vocabularySize: Int
    /// Words to boost: phrase words, class values' words and custom pronunciation words, sorted.
    public var boostedTerms: [String]
    /// Every custom pronunciation, one entry per X-SAMPA string.
    public var pronunciations: [Pronunciation]
    /// Pronunciations with unsupported symbols.
    public var pronunciationProblems: [PronunciationProblem]
    /// Every validation problem, as its full message with location.
    public var problems: [String]
    /// Every warning (``CustomLanguageModelData/warnings()``), as its full message with location: the data is
    /// usable, but probably not what its author meant.
    public var warnings: [String]
    /// Out-of-vocabulary words; filled by the language model stage.
    public var oov: [OOVWord]

    /// The report with every text from the data replaced by `‹private›`; counts and sizes stay.
    public func redacted() -> LintReport {
        let mask = "‹private›"
        var copy = self
        copy.phrases = phrases.map {
            var phrase = $0
            phrase.phrase = mask
            phrase.tokens = []
            return phrase
        }
        copy.templates = templates.map {
            var template = $0
            template.template = mask
            template.sampleExpansions = template.sampleExpansions.map {
                Expansion(text: mask, tokens: [], count: $0.count)
            }
            return template
        }
        copy.vocabulary = []
        copy.boostedTerms = []
        copy.pronunciations = pronunciations.map {
            Pronunciation(grapheme: mask, word: mask, xsampa: $0.xsampa, phones: $0.phones, location: $0.location)
        }
        copy.pronunciationProblems = pronunciationProblems.map {
            PronunciationProblem(
                grapheme: mask, pronunciation: $0.pronunciation, unsupportedSymbols: $0.unsupportedSymbols,
                location: $0.location)
        }
        copy.oov = oov.map { OOVWord(word: mask, resolution: $0.resolution, source: $0.source) }
        copy.problems = problems.map { _ in "\(mask) problem (details hidden: the data is private)" }
        copy.warnings = warnings.map { _ in "\(mask) warning (details hidden: the data is private)" }
        return copy
    }
}

extension CustomLanguageModelData {
    /// Lints the data: never throws, reports every problem and every warning.
    /// - Parameters:
    ///   - limits: The budget and expansion limit.
    ///   - requestedLocale: The locale the data will be used with, if known.
    ///   - maxSampleExpansions: How many expansions of a large template to list.
    /// - Returns: The report; ``LintReport/oov`` is left empty for the language model stage.
    public func lint(
        limits: TrainingDataLimits = .default, requestedLocale: Locale? = nil, maxSampleExpansions: Int = 20
    ) -> LintReport {
        let budget = max(limits.sampleBudget, 1)
        var vocabulary = Set<String>()
        var boosted = Set<String>()
        var sequenceCounts: [[String]: Int] = [:]
        let phraseTokens = phraseCounts.map { WordTokenizer.tokenize($0.phrase) }
        for (phrase, tokens) in zip(phraseCounts, phraseTokens) {
            sequenceCounts[tokens] = sequenceCounts[tokens, default: 0].saturatingAdding(phrase.count)
            vocabulary.formUnion(tokens)
            boosted.formUnion(tokens)
        }
        let phrases = zip(phraseCounts, phraseTokens).map { phrase, tokens in
            LintReport.Phrase(
                phrase: phrase.phrase, tokens: tokens, count: phrase.count,
                effectiveCount: sequenceCounts[tokens] ?? phrase.count,
                shareOfBudget: Double(phrase.count) / Double(budget), location: phrase.location)
        }
        var templates: [LintReport.Template] = []
        for group in templateGroups {
            for values in group.classes.values {
                for value in values { boosted.formUnion(WordTokenizer.tokenize(value)) }
            }
            for template in group.templates {
                guard let compiled = try? CompiledTemplate(template, classes: group.classes, limits: limits) else {
                    continue
                }
                vocabulary.formUnion(compiled.vocabulary)
                let complete = compiled.expansionCount <= maxSampleExpansions
                let indices: [Int] =
                    complete
                    ? Array(0..<compiled.expansionCount)
                    : (0..<maxSampleExpansions).map { $0 * compiled.expansionCount / maxSampleExpansions }
                templates.append(
                    LintReport.Template(
                        template: template.body, count: template.count, expansions: compiled.expansionCount,
                        countPerExpansion: compiled.countPerExpansion,
                        shareOfBudget: Double(template.count) / Double(budget),
                        sampleExpansions: indices.map {
                            LintReport.Expansion(
                                text: compiled.text(at: $0), tokens: compiled.tokens(at: $0),
                                count: compiled.countPerExpansion)
                        },
                        sampleIsComplete: complete, location: template.location ?? group.location))
            }
        }
        var pronunciationEntries: [LintReport.Pronunciation] = []
        var pronunciationProblems: [LintReport.PronunciationProblem] = []
        for term in pronunciations {
            boosted.formUnion(WordTokenizer.tokenize(term.grapheme))
            for xsampa in term.phonemes {
                let parse = XSAMPA.parse(xsampa)
                pronunciationEntries.append(
                    LintReport.Pronunciation(
                        grapheme: term.grapheme, word: term.word, xsampa: xsampa,
                        phones: parse.unsupported.isEmpty ? parse.phones : [], location: term.location))
                if !parse.unsupported.isEmpty {
                    pronunciationProblems.append(
                        LintReport.PronunciationProblem(
                            grapheme: term.grapheme, pronunciation: xsampa, unsupportedSymbols: parse.unsupported,
                            location: term.location))
                }
            }
        }
        let used = totalSamples
        return LintReport(
            identifier: identifier, version: version, locale: localeIdentifier, isPrivate: isPrivate, limits: limits,
            budget: LintReport.Budget(
                budget: limits.sampleBudget, used: used, remaining: limits.sampleBudget - used,
                share: Double(used) / Double(budget)),
            phrases: phrases, templates: templates, vocabulary: vocabulary.sorted(), vocabularySize: vocabulary.count,
            boostedTerms: boosted.sorted(), pronunciations: pronunciationEntries,
            pronunciationProblems: pronunciationProblems,
            problems: problems(limits: limits, requestedLocale: requestedLocale).map(\.description),
            warnings: warnings().map(\.description), oov: [])
    }
}
