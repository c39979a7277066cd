/// B-WER and U-WER (Le et al., "Contextualized Streaming End-to-End Speech Recognition with Trie-Based Deep
/// Biasing and Shallow Fusion", Interspeech 2021).
///
/// B-WER = (substitutions and deletions of reference words in the boosted set + insertions of boosted words) /
/// reference words in the boosted set. U-WER is the same for every other word; an inserted word that is not boosted
/// counts towards U-WER.
public struct BoostedWordErrorRates: Sendable, Codable, Hashable {
    public var boostedReferenceWords: Int
    public var boostedErrors: Int
    public var unboostedReferenceWords: Int
    public var unboostedErrors: Int
    /// B-WER; nil ("no data") when no reference word is boosted: a rate over nothing is neither 0% nor 100%.
    public var boostedWordErrorRate: Double?
    /// U-WER; nil ("no data") when every reference word is boosted.
    public var unboostedWordErrorRate: Double?

    public init(boostedReferenceWords: Int, boostedErrors: Int, unboostedReferenceWords: Int, unboostedErrors: Int) {
        self.boostedReferenceWords = boostedReferenceWords
        self.boostedErrors = boostedErrors
        self.unboostedReferenceWords = unboostedReferenceWords
        self.unboostedErrors = unboostedErrors
        boostedWordErrorRate = Rates.measured(boostedErrors, over: boostedReferenceWords)
        unboostedWordErrorRate = Rates.measured(unboostedErrors, over: unboostedReferenceWords)
    }

    enum CodingKeys: String, CodingKey {
        case boostedReferenceWords, boostedErrors, unboostedReferenceWords, unboostedErrors
        case boostedWordErrorRate, unboostedWordErrorRate
    }

    /// The rates are recomputed from the counts: a file written before "no data" existed stores 0 or 1
    /// for a rate over no word.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            boostedReferenceWords: try container.decode(Int.self, forKey: .boostedReferenceWords),
            boostedErrors: try container.decode(Int.self, forKey: .boostedErrors),
            unboostedReferenceWords: try container.decode(Int.self, forKey: .unboostedReferenceWords),
            unboostedErrors: try container.decode(Int.self, forKey: .unboostedErrors))
    }
}

/// An utterance's biasing list as every figure counts it.
public enum BiasingList {
    /// The words of a biasing list: each entry normalized like the references (an entry may give several words),
    /// duplicates dropped, in list order. A run scores a manifest's `boosted` list with them and writes them to
    /// `trn/<corpus>.ref.tsv`; `gambit score` counts a reference's lists with them: one definition, so that both
    /// give the same figures for the same list.
    public static func words(of list: [String], normalizer: Normalizer) -> [String] {
        var seen = Set<String>()
        return list.flatMap(normalizer.normalize).filter { seen.insert($0).inserted }
    }
}

/// What per-utterance biasing lists held, summed over the scored utterances: the size of the lists the
/// recognizer was given, how many entries were the reference's biased words and how many distractors, and
/// how many reference words B-WER is over.
public struct BiasingListSummary: Sendable, Codable, Hashable {
    /// Scored utterances, each with its own list.
    public var utterances = 0
    /// Entries of the lists given to the recognizer (column 4), summed, as ``BiasingList/words(of:normalizer:)``
    /// counts them.
    public var listEntries = 0
    /// The longest list.
    public var largestList = 0
    /// Entries that are biased words of their utterance's reference (column 3), summed, counted likewise.
    public var biasedEntries = 0
    /// Entries that are not (distractors), summed.
    public var distractorEntries = 0
    /// Reference words biased in their own utterance: what B-WER is over.
    public var biasedReferenceWords = 0
    /// Utterances whose reference holds at least one biased word.
    public var utterancesWithBiasedWords = 0

    public init() {}

    /// The mean list size; nil ("no data") over no utterance.
    public var meanListSize: Double? {
        utterances == 0 ? nil : Double(listEntries) / Double(utterances)
    }

    /// One sentence for reports: `4 utterances, 6 entries (mean 1.5, largest 3), 3 biased words and 3
    /// distractors; 3 biased reference words in 2 utterances`.
    public var sentence: String {
        "\(utterances) utterances, \(listEntries) entries "
            + "(mean \(meanListSize.map { String(format: "%.1f", $0) } ?? "no data"), largest \(largestList)), "
            + "\(biasedEntries) biased words and \(distractorEntries) distractors; \(biasedReferenceWords) biased "
            + "reference words in \(utterancesWithBiasedWords) utterances"
    }

    /// Adds one utterance's list.
    public mutating func add(listEntries: Int, biasedEntries: Int, distractorEntries: Int, biasedReferenceWords: Int) {
        utterances += 1
        self.listEntries += listEntries
        largestList = max(largestList, listEntries)
        self.biasedEntries += biasedEntries
        self.distractorEntries += distractorEntries
        self.biasedReferenceWords += biasedReferenceWords
        if biasedReferenceWords > 0 { utterancesWithBiasedWords += 1 }
    }
}

/// Utterance templates with class slots, as plain data.
///
/// A template token written `<name>` is a slot filled by any value of class `name`; any other token is literal.
/// Values may be several words (`"albin counter gambit"`). Literals and values are normalized with the scoring
/// normalizer before matching.
public struct SlotTemplates: Sendable, Codable, Hashable {
    /// Each template as tokens, e.g. `["<piece>", "to", "<royal>", "<piece>", "<rank>"]`.
    public var templates: [[String]]
    /// Class name (without angle brackets) → values.
    public var classes: [String: [String]]

    public init(templates: [[String]], classes: [String: [String]]) {
        self.templates = templates
        self.classes = classes
    }
}

/// How often the words filling one class slot were wrong.
public struct SlotErrorRate: Sendable, Codable, Hashable {
    /// The class name, e.g. `piece`.
    public var className: String
    /// Slots of this class in references that matched a template.
    public var occurrences: Int
    /// Of those, slots with a substituted or deleted word, or an insertion inside the slot.
    public var errors: Int
    public var errorRate: Double { Rates.ratio(errors, occurrences) }

    enum CodingKeys: String, CodingKey { case className, occurrences, errors, errorRate }

    public init(className: String, occurrences: Int, errors: Int) {
        self.className = className
        self.occurrences = occurrences
        self.errors = errors
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        className = try container.decode(String.self, forKey: .className)
        occurrences = try container.decode(Int.self, forKey: .occurrences)
        errors = try container.decode(Int.self, forKey: .errors)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(className, forKey: .className)
        try container.encode(occurrences, forKey: .occurrences)
        try container.encode(errors, forKey: .errors)
        try container.encode(errorRate, forKey: .errorRate)
    }
}

/// Slot errors by class, sorted by class name.
public struct SlotErrorReport: Sendable, Codable, Hashable {
    public var classes: [SlotErrorRate]
    /// References that matched a template.
    public var matchedUtterances: Int
    /// References that matched none.
    public var unmatchedUtterances: Int
}

/// The customization metrics on already aligned, already normalized words.
public enum CustomizationMetrics {
    /// B-WER and U-WER over a set of alignments.
    /// - Parameters:
    ///   - alignments: Word alignments (normalized words).
    ///   - boostedWords: The boosted vocabulary, normalized; multi-word phrases should be given as their words.
    public static func boostedWordErrorRates(alignments: [Alignment], boostedWords: Set<String>)
        -> BoostedWordErrorRates
    {
        var tally = BoostedTally()
        for alignment in alignments { tally.add(alignment.pairs, isBoosted: boostedWords.contains) }
        return tally.rates
    }

    /// Errors per class slot.
    /// - Parameters:
    ///   - alignments: Word alignments of the utterances (normalized words).
    ///   - templates: Templates and class values.
    ///   - normalizer: Applied to template literals and class values.
    public static func slotErrors(alignments: [Alignment], templates: SlotTemplates, normalizer: Normalizer)
        -> SlotErrorReport
    {
        let matcher = TemplateMatcher(templates: templates, normalize: normalizer.normalize) { $0 }
        var tally = SlotTally(classNames: matcher.classNames)
        for alignment in alignments {
            let reference = alignment.pairs.compactMap(\.reference)
            let operations = alignment.pairs.map(\.operation)
            tally.add(matcher.match(reference[...])?.map { ($0.classIndex, $0.range) }, operations: operations[...])
        }
        return tally.report
    }
}

struct BoostedTally {
    var boostedReference = 0
    var boostedErrors = 0
    var unboostedReference = 0
    var unboostedErrors = 0

    @inline(__always)
    mutating func add(_ operation: EditOperation, referenceBoosted: Bool, hypothesisBoosted: Bool) {
        switch operation {
        case .correct:
            if referenceBoosted { boostedReference += 1 } else { unboostedReference += 1 }
        case .substitution, .deletion:
            if referenceBoosted {
                boostedReference += 1
                boostedErrors += 1
            } else {
                unboostedReference += 1
                unboostedErrors += 1
            }
        case .insertion:
            if hypothesisBoosted { boostedErrors += 1 } else { unboostedErrors += 1 }
        }
    }

    /// Adds every pair of one alignment, a word being boosted when `isBoosted` says so.
    @inline(__always)
    mutating func add(_ pairs: [AlignedPair], isBoosted: (String) -> Bool) {
        for pair in pairs {
            add(
                pair.operation, referenceBoosted: pair.reference.map(isBoosted) ?? false,
                hypothesisBoosted: pair.hypothesis.map(isBoosted) ?? false)
        }
    }

    var rates: BoostedWordErrorRates {
        BoostedWordErrorRates(
            boostedReferenceWords: boostedReference, boostedErrors: boostedErrors,
            unboostedReferenceWords: unboostedReference, unboostedErrors: unboostedErrors)
    }
}

/// Matches references against slot templates and reports the reference span of each slot.
struct TemplateMatcher<Token: Hashable> {
    enum Element {
        case literal([Token])
        case slot(classIndex: Int, values: [[Token]])
    }

    struct Span {
        var classIndex: Int
        var range: Range<Int>
    }

    private(set) var templates: [[Element]] = []
    private(set) var classNames: [String] = []

    init(templates: SlotTemplates, normalize: (String) -> [String], token: (String) -> Token) {
        classNames = templates.classes.keys.sorted()
        var classIndex: [String: Int] = [:]
        for (index, name) in classNames.enumerated() { classIndex[name] = index }
        let values: [[[Token]]] = classNames.map { name in
            templates.classes[name]!.map { normalize($0).map(token) }.filter { !$0.isEmpty }
        }
        for template in templates.templates {
            var elements: [Element] = []
            for part in template {
                if part.count > 2, part.hasPrefix("<"), part.hasSuffix(">"),
                    let index = classIndex[String(part.dropFirst().dropLast())]
                {
                    elements.append(.slot(classIndex: index, values: values[index]))
                } else {
                    let words = normalize(part).map(token)
                    if !words.isEmpty { elements.append(.literal(words)) }
                }
            }
            self.templates.append(elements)
        }
    }

    /// The slot spans (reference positions relative to `reference.startIndex`) of the first template the whole
    /// reference matches, or `nil`.
    func match(_ reference: ArraySlice<Token>) -> [Span]? {
        for template in templates {
            var spans: [Span] = []
            if matchFrom(template[...], reference, reference.startIndex, &spans) {
                return spans.map {
                    Span(
                        classIndex: $0.classIndex,
                        range: ($0.range.lowerBound - reference.startIndex)..<($0.range.upperBound
                            - reference.startIndex))
                }
            }
        }
        return nil
    }

    private func matchFrom(
        _ elements: ArraySlice<Element>, _ reference: ArraySlice<Token>, _ position: Int, _ spans: inout [Span]
    ) -> Bool {
        guard let element = elements.first else { return position == reference.endIndex }
        switch element {
        case .literal(let words):
            guard position + words.count <= reference.endIndex,
                reference[position..<position + words.count].elementsEqual(words)
            else { return false }
            return matchFrom(elements.dropFirst(), reference, position + words.count, &spans)
        case .slot(let classIndex, let values):
            for value in values {
                guard position + value.count <= reference.endIndex,
                    reference[position..<position + value.count].elementsEqual(value)
                else { continue }
                spans.append(Span(classIndex: classIndex, range: position..<position + value.count))
                if matchFrom(elements.dropFirst(), reference, position + value.count, &spans) { return true }
                spans.removeLast()
            }
            return false
        }
    }
}

struct SlotTally {
    var classNames: [String]
    var occurrences: [Int]
    var errors: [Int]
    var matched = 0
    var unmatched = 0

    init(classNames: [String]) {
        self.classNames = classNames
        occurrences = [Int](repeating: 0, count: classNames.count)
        errors = [Int](repeating: 0, count: classNames.count)
    }

    /// Records one utterance: slot spans from ``TemplateMatcher/match(_:)`` (nil if unmatched) and its alignment.
    mutating func add(_ spans: [(classIndex: Int, range: Range<Int>)]?, operations: ArraySlice<EditOperation>) {
        guard let spans else {
            unmatched += 1
            return
        }
        matched += 1
        addSpans(spans, operations: operations)
    }

    private mutating func addSpans(
        _ spans: [(classIndex: Int, range: Range<Int>)], operations: ArraySlice<EditOperation>
    ) {
        // wrong[p]: reference word p is not correct; insertedAfter[p]: an insertion follows reference word p.
        var wrong: [Bool] = []
        var insertedAfter: [Bool] = []
        for operation in operations {
            switch operation {
            case .correct: wrong.append(false)
            case .substitution, .deletion: wrong.append(true)
            case .insertion: if !wrong.isEmpty { insertedAfter[wrong.count - 1] = true }
            }
            if insertedAfter.count < wrong.count { insertedAfter.append(false) }
        }
        for (classIndex, range) in spans {
            occurrences[classIndex] += 1
            var bad = false
            for position in range where position < wrong.count {
                if wrong[position] || (position + 1 < range.upperBound && insertedAfter[position]) { bad = true }
            }
            if bad { errors[classIndex] += 1 }
        }
    }

    var report: SlotErrorReport {
        SlotErrorReport(
            classes: classNames.indices.map {
                SlotErrorRate(className: classNames[$0], occurrences: occurrences[$0], errors: errors[$0])
            },
            matchedUtterances: matched,
            unmatchedUtterances: unmatched)
    }
}
