/// One scored utterance as every aggregate reads it: a run's record of a decode and an utterance `gambit score`
/// aligned are both one, so both are summed by the same code (``SystemMetrics/init(of:boostedWords:terms:templates:normalizer:bootstrap:)``).
public protocol ScoredUtterance {
    var id: String { get }
    /// The alignment of the normalized words.
    var alignment: [AlignedPair] { get }
    /// What ``alignment`` counts.
    var counts: ErrorCounts { get }
    var referenceCharacters: Int { get }
    var characterErrors: Int { get }
    /// The utterance's own biasing list, as given to the recognizer (entries may have several words); nil when
    /// the utterance has none.
    var biasingList: [String]? { get }
    /// The list's words a source names as the reference's biased words (a biasing-list file's column 3); nil to
    /// take the literature's rule: the list's words that the reference holds.
    var namedBiasedWords: [String]? { get }
    /// The audio's length in seconds; 0 when unknown.
    var audioSeconds: Double { get }
}

extension ScoredUtterance {
    public var namedBiasedWords: [String]? { nil }

    /// The utterance's biased words: those ``namedBiasedWords`` gives, or the words of its biasing list that its
    /// reference holds, in list order; nil without a list.
    public func biasedWords(normalizer: Normalizer) -> [String]? {
        ListWords(of: self, cache: ListWordCache(normalizer))?.biased
    }

    /// The words B-WER counts for this utterance: its biased words when it has a biasing list (a reference word
    /// is then biased when it is one of them, and an inserted word only when it is one of them, so an inserted
    /// distractor is a U-WER error), else `global`; nil when neither gives a word.
    public func scoredBoostedWords(global: Set<String>, normalizer: Normalizer) -> Set<String>? {
        ListWords(of: self, cache: ListWordCache(normalizer)).scoredBoostedWords(global: WordSet(global))?.asSet
    }

    /// This utterance's B-WER and U-WER counts (``scoredBoostedWords(global:normalizer:)``); nil when no word is
    /// scored as boosted.
    public func boostedRates(global: Set<String>, normalizer: Normalizer) -> BoostedWordErrorRates? {
        boostedRates(ListWords(of: self, cache: ListWordCache(normalizer)).scoredBoostedWords(global: WordSet(global)))
    }

    /// The words that are false alarms when heard where the reference does not have them: the whole biasing list
    /// (distractors included) when the utterance has one, else `global`.
    public func alarmWords(global: Set<String>, normalizer: Normalizer) -> Set<String> {
        ListWords(of: self, cache: ListWordCache(normalizer)).alarmWords(global: WordSet(global)).asSet
    }

    /// B-WER and U-WER counts over `words` (``CustomizationMetrics/boostedWordErrorRates(alignments:boostedWords:)``
    /// of this one alignment); nil without words.
    func boostedRates(_ words: WordSet?) -> BoostedWordErrorRates? {
        guard let words else { return nil }
        var tally = BoostedTally()
        tally.add(alignment, isBoosted: words.contains)
        return tally.rates
    }
}

/// An utterance's biasing list as every figure counts it, worked out once: its words
/// (``BiasingList/words(of:normalizer:)``) and, of those, its biased words.
package struct ListWords {
    var all: [String]
    var biased: [String]
    /// ``all`` and ``biased`` for the per-word lookups.
    var allWords: WordSet
    var biasedWords: WordSet

    init?<U: ScoredUtterance>(of utterance: U, cache: ListWordCache) {
        guard let list = utterance.biasingList else { return nil }
        all = cache.words(of: list)
        if let named = utterance.namedBiasedWords {
            biased = cache.words(of: named)
        } else {
            let reference = Set(utterance.alignment.compactMap(\.reference))
            biased = all.filter(reference.contains)
        }
        allWords = WordSet(all)
        biasedWords = WordSet(biased)
    }
}

extension Optional where Wrapped == ListWords {
    func scoredBoostedWords(global: WordSet) -> WordSet? {
        if let self { return self.biasedWords }
        return global.isEmpty ? nil : global
    }

    func alarmWords(global: WordSet) -> WordSet { self?.allWords ?? global }
}

/// Words looked up one at a time: a scan for the few of one utterance's list, a hash set for more.
struct WordSet {
    private let words: [String]
    private let hashed: Set<String>?

    init(_ words: [String]) {
        self.words = words
        hashed = words.count > 12 ? Set(words) : nil
    }

    init(_ set: Set<String>) {
        words = []
        hashed = set
    }

    var isEmpty: Bool { hashed?.isEmpty ?? words.isEmpty }

    @inline(__always)
    func contains(_ word: String) -> Bool { hashed?.contains(word) ?? words.contains(word) }

    var asSet: Set<String> { hashed ?? Set(words) }
}

/// ``BiasingList/words(of:normalizer:)`` with each entry normalized once: lists repeat their entries from one
/// utterance to the next.
final class ListWordCache {
    let normalizer: Normalizer
    private var normalized: [String: [String]] = [:]

    init(_ normalizer: Normalizer) { self.normalizer = normalizer }

    func words(of list: [String]) -> [String] {
        var words: [String] = []
        words.reserveCapacity(list.count)
        // A list's few words are deduplicated by a scan; a long one through a set.
        var seen: Set<String>? = list.count > 32 ? [] : nil
        for entry in list {
            let entryWords: [String]
            if let known = normalized[entry] {
                entryWords = known
            } else {
                entryWords = normalizer.normalize(entry)
                normalized[entry] = entryWords
            }
            for word in entryWords {
                let isNew = seen != nil ? seen!.insert(word).inserted : !words.contains(word)
                if isNew { words.append(word) }
            }
        }
        return words
    }
}

/// Aggregate accuracy of a set of scored utterances: a run's system, or the files `gambit score` reads. Both are
/// computed by ``init(of:boostedWords:terms:templates:normalizer:bootstrap:)``, so a figure has one definition.
public struct SystemMetrics: Codable, Sendable, Hashable {
    /// WER, CER, SER, MER, WIL and the counts behind them.
    public var rates: Rates
    /// B-WER and U-WER over the boosted words (for a run's baseline and oracle: over the union of every
    /// variant's boosted words), or over each utterance's own biasing list when the utterances have lists;
    /// `nil` when there are none.
    public var boosted: BoostedWordErrorRates?
    /// Errors per template slot class; `nil` without templates.
    public var slots: SlotErrorReport?
    /// Keywords scored by position, and the false alarms: boosted terms heard where nobody said them; `nil`
    /// when there are neither terms nor boosted words nor biasing lists (and in results written before it
    /// existed).
    public var keywords: KeywordMetrics?

    public init(
        rates: Rates, boosted: BoostedWordErrorRates? = nil, slots: SlotErrorReport? = nil,
        keywords: KeywordMetrics? = nil
    ) {
        self.rates = rates
        self.boosted = boosted
        self.slots = slots
        self.keywords = keywords
    }

    /// Every metric of a set of scored utterances.
    /// - Parameters:
    ///   - utterances: The scored utterances (a run's failed ones included, with nothing heard).
    ///   - boostedWords: Words (or phrases, counted by their words) for B-WER/U-WER and the headline keyword
    ///     figures where an utterance has no biasing list; empty for none.
    ///   - terms: Terms, of one word or more, each scored by position on its own row; empty for none.
    ///   - templates: Templates for slot errors.
    ///   - normalizer: Applied to the words, terms, lists and templates (the utterances' words already are).
    ///   - bootstrap: Resamples and seed of the false-alarm interval; by default none is drawn.
    public init<U: ScoredUtterance>(
        of utterances: [U], boostedWords: [String] = [], terms: [String] = [], templates: SlotTemplates? = nil,
        normalizer: Normalizer, bootstrap: BootstrapOptions = .init(resamples: 0)
    ) {
        self.init(
            of: utterances, prepared: Prepared(of: utterances, boostedWords: boostedWords, normalizer: normalizer),
            terms: terms, templates: templates, bootstrap: bootstrap)
    }

    /// What every figure reads of each utterance, worked out once: its list's words and its B-WER counts.
    package struct Prepared {
        /// The boosted words, normalized.
        let boosted: Set<String>
        let normalizer: Normalizer
        /// Each utterance's list, when it has one.
        let lists: [ListWords?]
        /// Each utterance's B-WER and U-WER counts over its own scored words
        /// (``ScoredUtterance/scoredBoostedWords(global:normalizer:)``); nil for one without scored words.
        package let boostedRates: [BoostedWordErrorRates?]

        package init<U: ScoredUtterance>(of utterances: [U], boostedWords: [String], normalizer: Normalizer) {
            boosted = BiasingList.normalizedWords(boostedWords, normalizer)
            self.normalizer = normalizer
            let cache = ListWordCache(normalizer)
            lists = utterances.map { ListWords(of: $0, cache: cache) }
            let global = WordSet(boosted)
            boostedRates = zip(utterances, lists).map { $0.boostedRates($1.scoredBoostedWords(global: global)) }
        }

        /// Whether B-WER is asked for: boosted words, or an utterance with its own list.
        var hasBoosted: Bool { !boosted.isEmpty || lists.contains { $0 != nil } }
    }

    /// ``init(of:boostedWords:terms:templates:normalizer:bootstrap:)`` from what was worked out of each utterance.
    package init<U: ScoredUtterance>(
        of utterances: [U], prepared: Prepared, terms: [String], templates: SlotTemplates?, bootstrap: BootstrapOptions
    ) {
        var counts = ErrorCounts()
        var withErrors = 0
        var referenceCharacters = 0
        var characterErrors = 0
        for utterance in utterances {
            counts += utterance.counts
            if utterance.counts.errors > 0 { withErrors += 1 }
            referenceCharacters += utterance.referenceCharacters
            characterErrors += utterance.characterErrors
        }
        let normalizer = prepared.normalizer
        self.init(
            rates: Rates(
                counts: counts, utterances: utterances.count, utterancesWithErrors: withErrors,
                referenceCharacters: referenceCharacters, characterErrors: characterErrors),
            boosted: Self.boostedRates(of: utterances, prepared: prepared),
            slots: templates.map {
                CustomizationMetrics.slotErrors(
                    alignments: utterances.map { Alignment(pairs: $0.alignment) }, templates: $0,
                    normalizer: normalizer)
            },
            keywords: KeywordMetrics(
                of: utterances, lists: prepared.lists, terms: terms.map(normalizer.normalize).filter { !$0.isEmpty },
                boosted: prepared.boosted, bootstrap: bootstrap))
    }

    /// B-WER and U-WER summed over utterances, each over its own scored words
    /// (``ScoredUtterance/scoredBoostedWords(global:normalizer:)``); nil when none has a list and `boosted` is
    /// empty.
    static func boostedRates<U: ScoredUtterance>(of utterances: [U], prepared: Prepared) -> BoostedWordErrorRates? {
        guard prepared.hasBoosted else { return nil }
        var sum = BoostedWordErrorRates(
            boostedReferenceWords: 0, boostedErrors: 0, unboostedReferenceWords: 0, unboostedErrors: 0)
        for (utterance, rates) in zip(utterances, prepared.boostedRates) {
            // An utterance without scored words still has its words in U-WER.
            let rates =
                rates
                ?? BoostedWordErrorRates(
                    boostedReferenceWords: 0, boostedErrors: 0,
                    unboostedReferenceWords: utterance.counts.referenceWords, unboostedErrors: utterance.counts.errors)
            sum = BoostedWordErrorRates(
                boostedReferenceWords: sum.boostedReferenceWords + rates.boostedReferenceWords,
                boostedErrors: sum.boostedErrors + rates.boostedErrors,
                unboostedReferenceWords: sum.unboostedReferenceWords + rates.unboostedReferenceWords,
                unboostedErrors: sum.unboostedErrors + rates.unboostedErrors)
        }
        return sum
    }
}

/// Keywords scored by position (``KeywordScoring``) and the false alarms: each boosted term heard where the
/// reference does not have it at that aligned position.
public struct KeywordMetrics: Codable, Sendable, Hashable {
    /// Each scored term on its own (multi-word terms, then boosted words), in that order.
    public var terms: [KeywordCounts]
    /// Over the boosted words (each utterance's biasing list, when the utterances have lists): every occurrence
    /// is one word, so none counts twice, as it would summing a phrase term and its words. The headline figures.
    public var overall: KeywordCounts
    /// Utterances scored (a run's failed ones included, with no words heard).
    public var utterances: Int
    /// Their audio, in seconds; 0 when unknown.
    public var audioSeconds: Double
    /// False alarms (of ``overall``) per 100 utterances; nil without utterances.
    public var falseAlarmsPer100Utterances: Double?
    /// Bootstrap 95% interval of ``falseAlarmsPer100Utterances``, resampling utterances.
    public var falseAlarmsPer100UtterancesInterval: RateInterval?
    /// False alarms (of ``overall``) per hour of audio; nil without audio.
    public var falseAlarmsPerHour: Double?
    /// Bootstrap 95% interval of ``falseAlarmsPerHour``, resampling utterances.
    public var falseAlarmsPerHourInterval: RateInterval?
    /// The utterances with a false alarm of each term (of ``terms``, and of the biasing-list words), by id, in
    /// the utterances' order.
    public var falseAlarmUtterances: [String: [String]]

    public init(
        terms: [KeywordCounts], overall: KeywordCounts, utterances: Int, audioSeconds: Double,
        falseAlarmsPer100UtterancesInterval: RateInterval? = nil, falseAlarmsPerHourInterval: RateInterval? = nil,
        falseAlarmUtterances: [String: [String]] = [:]
    ) {
        self.terms = terms
        self.overall = overall
        self.utterances = utterances
        self.audioSeconds = audioSeconds
        falseAlarmsPer100Utterances = utterances > 0 ? 100 * Double(overall.falseAlarms) / Double(utterances) : nil
        self.falseAlarmsPer100UtterancesInterval = falseAlarmsPer100UtterancesInterval
        falseAlarmsPerHour = audioSeconds > 0 ? 3600 * Double(overall.falseAlarms) / audioSeconds : nil
        self.falseAlarmsPerHourInterval = falseAlarmsPerHourInterval
        self.falseAlarmUtterances = falseAlarmUtterances
    }

    /// Keywords scored by position and the false alarms of a set of utterances; nil when there is no term, no
    /// boosted word and no biasing list.
    /// - Parameters:
    ///   - terms: The scored terms, normalized; a boosted word that is not one of them gets its row after them.
    ///   - boosted: The boosted words, normalized: the headline's words where an utterance has no biasing list.
    init?<U: ScoredUtterance>(
        of utterances: [U], lists: [ListWords?], terms: [[String]], boosted: Set<String>, bootstrap: BootstrapOptions
    ) {
        let hasLists = lists.contains { $0 != nil }
        guard !terms.isEmpty || !boosted.isEmpty || hasLists else { return nil }
        // Every boosted word has its row, after the terms given.
        let terms = terms + boosted.subtracting(terms.filter { $0.count == 1 }.map { $0[0] }).sorted().map { [$0] }
        let names = terms.map { $0.joined(separator: " ") }
        var rows = names.map { KeywordCounts(term: $0) }
        let counter = KeywordCounter(terms: terms)
        let global = WordSet(boosted)
        var overall = KeywordCounts(term: "*")
        var alarms: [Int] = []
        alarms.reserveCapacity(utterances.count)
        var flagged: [String: [String]] = [:]
        for (utterance, list) in zip(utterances, lists) {
            let pairs = utterance.alignment
            counter.add(pairs, to: &rows) { flagged[names[$0], default: []].append(utterance.id) }
            var utteranceAlarms = 0
            KeywordScoring.forEachWord(of: list.alarmWords(global: global), in: pairs) { _ in
                overall.said += 1
            } heard: { word, hit in
                overall.heard += 1
                if hit {
                    overall.hits += 1
                    return
                }
                utteranceAlarms += 1
                if hasLists, flagged[word]?.last != utterance.id { flagged[word, default: []].append(utterance.id) }
            }
            alarms.append(utteranceAlarms)
        }
        let perHour = Significance.bootstrapRate(
            counts: alarms, exposure: utterances.map { Int(($0.audioSeconds * 1000).rounded()) }, options: bootstrap)
        let perUtterance = Significance.bootstrapRate(
            counts: alarms, exposure: Array(repeating: 1, count: alarms.count), options: bootstrap)
        self.init(
            terms: rows, overall: overall, utterances: utterances.count,
            audioSeconds: utterances.reduce(0) { $0 + $1.audioSeconds },
            falseAlarmsPer100UtterancesInterval: perUtterance?.scaled(by: 100),
            falseAlarmsPerHourInterval: perHour?.scaled(by: 3_600_000), falseAlarmUtterances: flagged)
    }
}

extension BiasingList {
    /// The normalized words of phrases, deduplicated.
    public static func normalizedWords(_ phrases: [String], _ normalizer: Normalizer) -> Set<String> {
        Set(phrases.flatMap(normalizer.normalize))
    }
}

extension BiasingListSummary {
    /// What the utterances' biasing lists held: list entries are ``BiasingList/words(of:normalizer:)``, biased
    /// entries ``ScoredUtterance/biasedWords(normalizer:)``; nil when no utterance has a list.
    public init?<U: ScoredUtterance>(of utterances: [U], normalizer: Normalizer) {
        self.init(prepared: SystemMetrics.Prepared(of: utterances, boostedWords: [], normalizer: normalizer))
    }

    /// The summary from what was worked out of each utterance; nil when none has a list.
    package init?(prepared: SystemMetrics.Prepared) {
        guard prepared.lists.contains(where: { $0 != nil }) else { return nil }
        self.init()
        for (list, rates) in zip(prepared.lists, prepared.boostedRates) {
            guard let list else { continue }
            add(
                listEntries: list.all.count, biasedEntries: list.biased.count,
                distractorEntries: list.all.count - list.biased.count,
                biasedReferenceWords: rates?.boostedReferenceWords ?? 0)
        }
    }
}
