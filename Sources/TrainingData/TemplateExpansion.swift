import Foundation

/// A template parsed against its classes, ready to expand one phrase at a time.
///
/// Expansions are enumerated like an odometer over the class references, last reference fastest;
/// nothing is materialized, so a template of a million expansions costs one phrase of memory.
public struct CompiledTemplate: Sendable {
    enum Segment: Sendable {
        case literal(text: String, tokens: [String])
        case slot(name: String, values: [String], tokens: [[String]])
    }

    /// The template as given.
    public let template: TemplatePhraseCountGenerator.Template
    /// How many phrases the template expands to.
    public let expansionCount: Int
    /// The samples each expansion gets: the template's count divided evenly.
    public var countPerExpansion: Double { Double(template.count) / Double(expansionCount) }

    let segments: [Segment]
    /// True when a class reference is glued to a word (`<piece>s`); such expansions are tokenized as
    /// whole strings, which is slower but exact.
    let needsWholeTokenization: Bool

    /// Parses `template` against `classes`.
    ///
    /// Algorithm: scan the body left to right. Text outside brackets accumulates into a literal segment, tokenized once
    /// when a reference or the end closes it. At `<` the name runs to the next `>`; it must be non-empty, with no space
    /// next to a bracket, and name a class that has values, each with a word; it becomes a slot segment holding the
    /// values and their tokens. A word character or `>` just before the `<`, or a word character or `<` just after the
    /// `>`, glues the reference to its neighbour, so expansions are tokenized whole. The expansion count is the product
    /// of the slots' value counts, refused on overflow or above the limit; the first expansion (each slot at its first
    /// value) needs a word.
    /// - Throws: ``TrainingDataError`` for an unknown or empty class, a malformed reference (unclosed, empty, or
    ///   with spaces inside its brackets), a phrase with no words, or more expansions than
    ///   `limits.maxTemplateExpansions`.
    public init(
        _ template: TemplatePhraseCountGenerator.Template, classes: [String: [String]],
        limits: TrainingDataLimits = .default
    ) throws {
        self.template = template
        let location = template.location
        var segments: [Segment] = []
        var glued = false
        let characters = Array(template.body)
        var literal = ""
        var index = 0
        func flushLiteral() {
            if !literal.isEmpty {
                segments.append(.literal(text: literal, tokens: WordTokenizer.tokenize(literal)))
                literal = ""
            }
        }
        while index < characters.count {
            let character = characters[index]
            guard character == "<" else {
                literal.append(character)
                index += 1
                continue
            }
            guard let close = characters[(index + 1)...].firstIndex(of: ">") else {
                throw TrainingDataError(
                    .malformedTemplate(template: template.body, problem: "'<' at offset \(index) is never closed"),
                    at: location)
            }
            let inside = String(characters[(index + 1)..<close])
            let name = inside.trimmingCharacters(in: .whitespaces)
            if name.isEmpty {
                throw TrainingDataError(
                    .malformedTemplate(template: template.body, problem: "empty class reference <>"), at: location)
            }
            // `< piece >` is refused, not read as <piece>: spaced brackets are as likely literal text, and the
            // file should say which it means.
            if name != inside {
                throw TrainingDataError(
                    .malformedTemplate(
                        template: template.body,
                        problem: "\"<\(inside)>\" has spaces inside its brackets (write <\(name)>)"),
                    at: location)
            }
            guard let values = classes[name] else {
                throw TrainingDataError(
                    .unknownClass(name: name, template: template.body, known: classes.keys.sorted()), at: location)
            }
            if values.isEmpty {
                throw TrainingDataError(.emptyClass(name: name), at: location)
            }
            let tokens = values.map(WordTokenizer.tokenize)
            if let empty = zip(values, tokens).first(where: { $0.1.isEmpty }) {
                throw TrainingDataError(.emptyPhrase(what: "value of class <\(name)>", text: empty.0), at: location)
            }
            let before = index > 0 ? characters[index - 1] : nil
            let after = close + 1 < characters.count ? characters[close + 1] : nil
            if let before, WordTokenizer.isWordCharacter(before) || before == ">" { glued = true }
            if let after, WordTokenizer.isWordCharacter(after) || after == "<" { glued = true }
            flushLiteral()
            segments.append(.slot(name: name, values: values, tokens: tokens))
            index = close + 1
        }
        flushLiteral()
        self.segments = segments
        self.needsWholeTokenization = glued

        var expansions = 1
        var overflow = false
        for case .slot(_, let values, _) in segments {
            let product = expansions.multipliedReportingOverflow(by: values.count)
            if product.overflow {
                overflow = true
                break
            }
            expansions = product.partialValue
        }
        if overflow || expansions > limits.maxTemplateExpansions {
            throw TrainingDataError(
                .expansionTooLarge(
                    template: template.body, expansions: overflow ? nil : expansions,
                    limit: limits.maxTemplateExpansions),
                at: location)
        }
        self.expansionCount = expansions
        let probe = Self.tokens(segments: segments, choices: [Int](repeating: 0, count: segments.count), whole: glued)
        if probe.isEmpty {
            throw TrainingDataError(.emptyPhrase(what: "template", text: template.body), at: location)
        }
    }

    /// The class choice for each segment of expansion number `index` (0-based, odometer order).
    func choices(at index: Int) -> [Int] {
        var choices = [Int](repeating: 0, count: segments.count)
        var remainder = index
        for position in segments.indices.reversed() {
            if case .slot(_, let values, _) = segments[position] {
                choices[position] = remainder % values.count
                remainder /= values.count
            }
        }
        return choices
    }

    /// The text of expansion number `index`, with class values substituted as written.
    public func text(at index: Int) -> String {
        Self.text(segments: segments, choices: choices(at: index))
    }

    /// The tokens of expansion number `index`.
    public func tokens(at index: Int) -> [String] {
        Self.tokens(segments: segments, choices: choices(at: index), whole: needsWholeTokenization)
    }

    static func text(segments: [Segment], choices: [Int]) -> String {
        var text = ""
        for (segment, choice) in zip(segments, choices) {
            switch segment {
            case .literal(let literal, _): text += literal
            case .slot(_, let values, _): text += values[choice]
            }
        }
        return text
    }

    static func tokens(segments: [Segment], choices: [Int], whole: Bool) -> [String] {
        if whole {
            return WordTokenizer.tokenize(text(segments: segments, choices: choices))
        }
        var tokens: [String] = []
        for (segment, choice) in zip(segments, choices) {
            switch segment {
            case .literal(_, let words): tokens += words
            case .slot(_, _, let values): tokens += values[choice]
            }
        }
        return tokens
    }

    /// The words that can appear in an expansion: literal words and the words of referenced classes.
    var vocabulary: Set<String> {
        var words = Set<String>()
        if needsWholeTokenization {
            // Glued references make new words; only enumeration finds them all.
            for index in 0..<expansionCount { words.formUnion(tokens(at: index)) }
            return words
        }
        for segment in segments {
            switch segment {
            case .literal(_, let tokens): words.formUnion(tokens)
            case .slot(_, _, let values): for value in values { words.formUnion(value) }
            }
        }
        return words
    }

    /// Streams the expansions of the template, each with its share of the count.
    public func expansions() -> Expansions { Expansions(template: self) }

    /// The expansions of a template, in odometer order, computed on demand.
    public struct Expansions: Sequence, Sendable {
        let template: CompiledTemplate

        public func makeIterator() -> Iterator {
            Iterator(template: template)
        }

        /// Produces one expansion at a time.
        public struct Iterator: IteratorProtocol {
            let template: CompiledTemplate
            let weight: Double
            var choices: [Int]
            var remaining: Int

            init(template: CompiledTemplate) {
                self.template = template
                self.weight = template.countPerExpansion
                self.choices = [Int](repeating: 0, count: template.segments.count)
                self.remaining = template.expansionCount
            }

            public mutating func next() -> WeightedSentence? {
                guard remaining > 0 else { return nil }
                remaining -= 1
                let tokens = CompiledTemplate.tokens(
                    segments: template.segments, choices: choices, whole: template.needsWholeTokenization)
                advance()
                return WeightedSentence(tokens: tokens, count: weight)
            }

            private mutating func advance() {
                for position in choices.indices.reversed() {
                    guard case .slot(_, let values, _) = template.segments[position] else { continue }
                    choices[position] += 1
                    if choices[position] < values.count { return }
                    choices[position] = 0
                }
            }
        }
    }
}

/// A tokenized sentence and how many samples it stands for (fractional for template expansions).
public struct WeightedSentence: Sendable, Hashable {
    /// Lowercase words, as ``WordTokenizer`` produces them; no sentence markers.
    public var tokens: [String]
    /// The sample count; positive.
    public var count: Double

    /// Creates a weighted sentence.
    public init(tokens: [String], count: Double) {
        self.tokens = tokens
        self.count = count
    }
}

/// All sentences of some training data with their weights: phrases first, in order, then each
/// template's expansions, streamed. The order is deterministic.
public struct WeightedSentences: Sequence, Sendable {
    let phrases: [WeightedSentence]
    let templates: [CompiledTemplate]

    /// The number of sentences the sequence yields.
    public var sentenceCount: Int { phrases.count + templates.reduce(0) { $0 + $1.expansionCount } }

    /// The total weight of all sentences.
    public var totalCount: Double {
        phrases.reduce(0) { $0 + $1.count } + templates.reduce(0) { $0 + Double($1.template.count) }
    }

    public func makeIterator() -> Iterator {
        Iterator(phrases: phrases.makeIterator(), templates: templates.makeIterator(), current: nil)
    }

    /// Produces one sentence at a time.
    public struct Iterator: IteratorProtocol {
        var phrases: IndexingIterator<[WeightedSentence]>
        var templates: IndexingIterator<[CompiledTemplate]>
        var current: CompiledTemplate.Expansions.Iterator?

        public mutating func next() -> WeightedSentence? {
            if let phrase = phrases.next() { return phrase }
            while true {
                if let sentence = current?.next() { return sentence }
                guard let template = templates.next() else { return nil }
                current = template.expansions().makeIterator()
            }
        }
    }
}

extension CustomLanguageModelData {
    /// The templates of every group, compiled.
    /// - Throws: ``TrainingDataError`` for the first template that cannot be compiled.
    public func compiledTemplates(limits: TrainingDataLimits = .default) throws -> [CompiledTemplate] {
        try templateGroups.flatMap { group in
            try group.templates.map { try CompiledTemplate($0, classes: group.classes, limits: limits) }
        }
    }

    /// The sentences and weights an n-gram estimator trains on.
    ///
    /// Phrases come first, then each template's expansions with `count / expansions` each. Custom
    /// pronunciations add no sentences. The data is validated first.
    /// - Throws: ``TrainingDataError`` if the data is not valid under `limits`.
    public func weightedSentences(limits: TrainingDataLimits = .default) throws -> WeightedSentences {
        try validate(limits: limits)
        let phrases = phraseCounts.map {
            WeightedSentence(tokens: WordTokenizer.tokenize($0.phrase), count: Double($0.count))
        }
        return WeightedSentences(phrases: phrases, templates: try compiledTemplates(limits: limits))
    }
}
