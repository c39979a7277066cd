import Foundation

/// Limits that keep training data within what the estimator and the device can use.
public struct TrainingDataLimits: Sendable, Hashable, Codable {
    /// The most samples (phrase counts plus template counts) the data may have in total.
    public var sampleBudget: Int
    /// The most phrases a single template may expand to.
    public var maxTemplateExpansions: Int

    /// Creates limits.
    public init(sampleBudget: Int = 1_000_000, maxTemplateExpansions: Int = 1_000_000) {
        self.sampleBudget = sampleBudget
        self.maxTemplateExpansions = maxTemplateExpansions
    }

    /// One million samples and one million expansions per template.
    public static let `default` = TrainingDataLimits()
}

/// Training data for a custom language model, built like Apple's `SFCustomLanguageModelData`.
///
/// ```swift
/// let data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "com.example.chess",
///                                    version: "1.0") {
///     PhraseCount(phrase: "Play the Albin counter gambit", count: 10)
///     PhraseCountsFromTemplates(classes: ["piece": ["pawn", "queen"], "rank": ["1", "2"]]) {
///         TemplatePhraseCountGenerator.Template("<piece> to <rank>", count: 10_000)
///     }
///     CustomPronunciation(grapheme: "Winawer", phonemes: ["w I n aU @r"])
/// }
/// ```
///
/// Two values are equal when they export to the same file.
public struct CustomLanguageModelData: Sendable, Equatable {
    /// The locale the data is for; only en-US has a phone set and acoustic model.
    public var locale: Locale
    /// A reverse-DNS identifier for the model.
    public var identifier: String
    /// The data's version.
    public var version: String
    /// Whether the data is personal (contacts, call history); reports mask its text.
    public var isPrivate: Bool
    /// Phrases and counts, in insertion order.
    public private(set) var phraseCounts: [PhraseCount] = []
    /// Template groups, in insertion order.
    public private(set) var templateGroups: [PhraseCountsFromTemplates] = []
    /// Custom pronunciations, in insertion order.
    public private(set) var pronunciations: [CustomPronunciation] = []

    /// Creates data from a result builder.
    /// - Parameters:
    ///   - locale: The locale of the data.
    ///   - identifier: A reverse-DNS identifier.
    ///   - version: The data's version.
    ///   - isPrivate: Whether the data is personal and must be masked in reports.
    ///   - content: Phrase counts, template groups and custom pronunciations.
    public init(
        locale: Locale, identifier: String, version: String, isPrivate: Bool = false,
        @DataInsertableBuilder content: () -> [any DataInsertable] = { [] }
    ) {
        self.locale = locale
        self.identifier = identifier
        self.version = version
        self.isPrivate = isPrivate
        for element in content() {
            element.insert(into: &self)
        }
    }

    /// Adds a phrase gathered at run time.
    public mutating func insert(phraseCount: PhraseCount) {
        phraseCounts.append(phraseCount)
    }

    /// Adds a phrase gathered at run time.
    public mutating func insert(phrase: String, count: Int, fileID: String = #fileID, line: Int = #line) {
        insert(phraseCount: PhraseCount(phrase: phrase, count: count, fileID: fileID, line: line))
    }

    /// Adds a group of templates over classes.
    public mutating func insert(templates: PhraseCountsFromTemplates) {
        templateGroups.append(templates)
    }

    /// Adds one template over its own classes, e.g. names gathered at run time.
    /// - Parameters:
    ///   - template: The template text, with classes referenced as `<name>`.
    ///   - count: Total samples shared evenly by all expansions.
    ///   - classes: Class name → values.
    public mutating func insert(
        template: String, count: Int, classes: [String: [String]], fileID: String = #fileID, line: Int = #line
    ) {
        let location = SourceLocation(file: fileID, line: line)
        insert(
            templates: PhraseCountsFromTemplates(
                classes: classes,
                templates: [TemplatePhraseCountGenerator.Template(template, count: count, location: location)],
                location: location))
    }

    /// Adds a custom pronunciation.
    public mutating func insert(term: CustomPronunciation) {
        pronunciations.append(term)
    }

    /// Adds any builder element.
    public mutating func insert(_ element: any DataInsertable) {
        element.insert(into: &self)
    }

    /// The X-SAMPA symbols accepted in custom pronunciations for `locale` (empty if unsupported).
    public static func supportedPhonemes(locale: Locale) -> [String] {
        XSAMPA.supportedSymbols(locale: locale)
    }

    /// The locale as a BCP 47 tag, e.g. "en-US" for `Locale(identifier: "en_US")`.
    public var localeIdentifier: String { LocaleName(locale).description }

    /// The total number of samples: phrase counts plus template counts.
    public var totalSamples: Int {
        let counts = phraseCounts.map(\.count) + templateGroups.flatMap { $0.templates.map(\.count) }
        // Saturates instead of wrapping: two huge counts must not add up to a small total that
        // slips under the budget.
        return counts.reduce(0) { $0.saturatingAdding(max($1, 0)) }
    }

    public static func == (lhs: CustomLanguageModelData, rhs: CustomLanguageModelData) -> Bool {
        lhs.exportedForm == rhs.exportedForm
    }
}

// MARK: - Validation

extension CustomLanguageModelData {
    /// Every problem with the data, in the order of the data; empty when it is usable.
    /// - Parameters:
    ///   - limits: The sample budget and template expansion limit.
    ///   - requestedLocale: The locale the data will be used with, if known.
    /// - Returns: The problems, each with a location when one is known.
    public func problems(limits: TrainingDataLimits = .default, requestedLocale: Locale? = nil)
        -> [TrainingDataError]
    {
        var problems: [TrainingDataError] = []
        let dataLocale = LocaleName(locale)
        if let requestedLocale, LocaleName(requestedLocale) != dataLocale {
            problems.append(
                TrainingDataError(
                    .localeMismatch(data: dataLocale.description, requested: LocaleName(requestedLocale).description)))
        } else if !dataLocale.isUSEnglish {
            problems.append(TrainingDataError(.unsupportedLocale(dataLocale.description)))
        }
        for phrase in phraseCounts {
            if phrase.count <= 0 {
                problems.append(
                    TrainingDataError(
                        .nonPositiveCount(what: "phrase \"\(phrase.phrase)\"", count: phrase.count), at: phrase.location
                    ))
            }
            if let reference = WordTokenizer.classReference(in: phrase.phrase) {
                problems.append(
                    TrainingDataError(
                        .classReferenceInPhrase(text: phrase.phrase, reference: reference), at: phrase.location))
            } else if let token = WordTokenizer.reservedToken(in: phrase.phrase) {
                problems.append(
                    TrainingDataError(
                        .reservedToken(what: "phrase", text: phrase.phrase, token: token), at: phrase.location))
            } else if WordTokenizer.tokenize(phrase.phrase).isEmpty {
                problems.append(
                    TrainingDataError(.emptyPhrase(what: "phrase", text: phrase.phrase), at: phrase.location))
            }
        }
        for group in templateGroups {
            if group.templates.isEmpty {
                problems.append(
                    TrainingDataError(.emptyTemplateGroup(classes: group.classes.keys.sorted()), at: group.location))
            }
            for (name, values) in group.classes.sorted(by: { $0.key < $1.key }) {
                for value in values {
                    guard let token = WordTokenizer.reservedToken(in: value) else { continue }
                    problems.append(
                        TrainingDataError(
                            .reservedToken(what: "value of class <\(name)>", text: value, token: token),
                            at: group.location))
                }
            }
            for template in group.templates {
                if template.count <= 0 {
                    problems.append(
                        TrainingDataError(
                            .nonPositiveCount(what: "template \"\(template.body)\"", count: template.count),
                            at: template.location ?? group.location))
                }
                do {
                    _ = try CompiledTemplate(template, classes: group.classes, limits: limits)
                } catch let error as TrainingDataError {
                    problems.append(error)
                } catch {
                    problems.append(
                        TrainingDataError(.malformedTemplate(template: template.body, problem: "\(error)")))
                }
            }
        }
        for pronunciation in pronunciations {
            problems += pronunciation.problems()
        }
        let total = totalSamples
        if total > limits.sampleBudget {
            problems.append(TrainingDataError(.budgetExceeded(total: total, budget: limits.sampleBudget)))
        }
        return problems
    }

    /// What the data probably did not mean to say, in the order of the data: a class no template of its group
    /// uses (its values are never trained), and a phrase that says the same words as an earlier one (the
    /// counts add up). The data can be used as it is; `gambit lint` prints these as warnings.
    public func warnings() -> [TrainingDataError] {
        var warnings: [TrainingDataError] = []
        let tokens = phraseCounts.map { WordTokenizer.tokenize($0.phrase) }
        var totals: [[String]: Int] = [:]
        for (phrase, words) in zip(phraseCounts, tokens) where !words.isEmpty {
            totals[words] = totals[words, default: 0].saturatingAdding(max(phrase.count, 0))
        }
        var first: [[String]: PhraseCount] = [:]
        for (phrase, words) in zip(phraseCounts, tokens) where !words.isEmpty {
            guard let earlier = first[words] else {
                first[words] = phrase
                continue
            }
            warnings.append(
                TrainingDataError(
                    .duplicatePhrase(
                        text: phrase.phrase, first: earlier.phrase, firstLocation: earlier.location,
                        total: totals[words] ?? phrase.count),
                    at: phrase.location))
        }
        for group in templateGroups where !group.templates.isEmpty {
            let used = Set(group.templates.flatMap(\.classReferences))
            for (name, values) in group.classes.sorted(by: { $0.key < $1.key }) where !used.contains(name) {
                warnings.append(TrainingDataError(.unusedClass(name: name, values: values), at: group.location))
            }
        }
        return warnings
    }

    /// Checks the data and throws its first problem.
    /// - Throws: ``TrainingDataError`` describing the first problem found.
    public func validate(limits: TrainingDataLimits = .default, requestedLocale: Locale? = nil) throws {
        if let first = problems(limits: limits, requestedLocale: requestedLocale).first {
            throw first
        }
    }
}

extension CustomLanguageModelData {
    /// The first phrase, template, class value or grapheme that uses `word`, in the data's order.
    public func firstUse(of word: String) -> (what: String, text: String, location: SourceLocation?)? {
        for phrase in phraseCounts where WordTokenizer.tokenize(phrase.phrase).contains(word) {
            return ("phrase", phrase.phrase, phrase.location)
        }
        for group in templateGroups {
            for template in group.templates {
                let literal = template.body.replacing(#/<[^<>]*>/#, with: " ")
                if WordTokenizer.tokenize(literal).contains(word) {
                    return ("template", template.body, template.location ?? group.location)
                }
            }
            for (name, values) in group.classes.sorted(by: { $0.key < $1.key }) {
                for value in values where WordTokenizer.tokenize(value).contains(word) {
                    return ("value of class <\(name)>", value, group.location)
                }
            }
        }
        for pronunciation in pronunciations where pronunciation.word == word {
            return ("grapheme", pronunciation.grapheme, pronunciation.location)
        }
        return nil
    }
}

extension CustomPronunciation {
    /// The word the language model and dictionary see for this grapheme (lowercased, tokenized).
    public var word: String { WordTokenizer.tokenize(grapheme).joined(separator: " ") }

    /// The CMU phones of each pronunciation, in order.
    public var cmuPhones: [[String]] { phonemes.map { XSAMPA.parse($0).phones } }

    func problems() -> [TrainingDataError] {
        var problems: [TrainingDataError] = []
        let words = WordTokenizer.tokenize(grapheme)
        if let token = WordTokenizer.reservedToken(in: grapheme) {
            problems.append(
                TrainingDataError(.reservedToken(what: "grapheme", text: grapheme, token: token), at: location))
        } else if words.isEmpty {
            problems.append(TrainingDataError(.emptyPhrase(what: "grapheme", text: grapheme), at: location))
        } else if words.count > 1 {
            problems.append(TrainingDataError(.multiWordGrapheme(grapheme: grapheme, words: words), at: location))
        }
        if phonemes.isEmpty {
            problems.append(TrainingDataError(.emptyPronunciation(grapheme: grapheme), at: location))
        }
        for pronunciation in phonemes {
            let parse = XSAMPA.parse(pronunciation)
            if !parse.unsupported.isEmpty {
                problems.append(
                    TrainingDataError(
                        .unsupportedPhonemes(
                            grapheme: grapheme, pronunciation: pronunciation, symbols: parse.unsupported),
                        at: location))
            } else if parse.phones.isEmpty {
                problems.append(TrainingDataError(.emptyPronunciation(grapheme: grapheme), at: location))
            }
        }
        return problems
    }
}

extension Int {
    /// `self + other`, or the nearest representable value when the sum overflows.
    func saturatingAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
