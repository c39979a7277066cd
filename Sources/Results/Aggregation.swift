public import Scoring

/// Computes every aggregate of ``RunResults`` from the per-utterance records, through Scoring.
///
/// The runner and ``RunResults/merge(_:)`` both use these functions, so a merged run equals the run it was
/// split from. Words in ``UtteranceRecord/alignment`` are normalized words; boosted words, terms and templates are
/// normalized here with the run's normalizer before they are matched against them.
public enum Aggregation {
    /// Builds the record of one decoded utterance: normalizes, aligns and counts.
    /// - Parameters:
    ///   - id: Utterance id.
    ///   - index: Position in the corpus manifest.
    ///   - audioPath: Audio file path.
    ///   - speaker: Speaker, when known.
    ///   - condition: Recording condition, when known.
    ///   - reference: Reference transcript as written.
    ///   - hypothesis: Final hypothesis (empty when decoding failed).
    ///   - boostedWords: The system's boosted words (see ``boostedWords(for:in:)``).
    ///   - biasingList: The utterance's own biasing list from the manifest; when given, it is scored instead of
    ///     `boostedWords` (see ``Scoring/ScoredUtterance/biasedWords(normalizer:)``).
    ///   - settings: Normalizer and alignment mode.
    /// - Returns: A record with alignment, counts, character errors and boosted-word counts; timing fields are zero
    ///   for the caller to fill.
    public static func record(
        id: String, index: Int, audioPath: String, speaker: String? = nil, condition: String? = nil,
        reference: String, hypothesis: String, boostedWords: [String] = [], biasingList: [String]? = nil,
        settings: RunSettings
    ) -> UtteranceRecord {
        let ref = settings.normalizer.normalize(reference)
        let hyp = settings.normalizer.normalize(hypothesis)
        let alignment = Aligner.align(reference: ref, hypothesis: hyp, mode: settings.alignmentMode)
        let refText = ref.joined(separator: " ")
        let hypText = hyp.joined(separator: " ")
        var record = UtteranceRecord(
            id: id, index: index, audioPath: audioPath, speaker: speaker, condition: condition, reference: reference,
            hypothesis: hypothesis, alignment: alignment.pairs, counts: alignment.counts,
            referenceCharacters: refText.unicodeScalars.count,
            characterErrors: Aligner.characterDistance(reference: refText, hypothesis: hypText),
            biasingList: biasingList)
        record.setBoostedCounts(
            boosted: normalizedWords(boostedWords, settings.normalizer), normalizer: settings.normalizer)
        return record
    }

    /// The boosted words a system is scored on: its variant's for a customized system, the union of every
    /// variant's (in variant order) for baseline and oracle.
    public static func boostedWords(for system: SystemResults, in results: RunResults) -> [String] {
        scope(system, results).boostedWords
    }

    /// The terms a system is scored on, chosen as ``boostedWords(for:in:)`` chooses.
    public static func terms(for system: SystemResults, in results: RunResults) -> [String] {
        scope(system, results).scoredTerms
    }

    /// The templates a system is scored on, chosen as ``boostedWords(for:in:)`` chooses (classes merged).
    public static func templates(for system: SystemResults, in results: RunResults) -> SlotTemplates? {
        scope(system, results).templates
    }

    /// Aggregate accuracy of a set of records: Scoring's one definition
    /// (``Scoring/SystemMetrics/init(of:boostedWords:terms:templates:normalizer:bootstrap:)``), which
    /// `gambit score` calls too.
    /// - Parameters:
    ///   - records: The system's utterances (failed ones included).
    ///   - boostedWords: Words for B-WER/U-WER; empty for none.
    ///   - terms: Terms scored by position; empty for none.
    ///   - templates: Templates for slot errors.
    ///   - normalizer: The run's normalizer, applied to the words, terms and templates.
    ///   - bootstrap: Resamples and seed of the false-alarm interval; by default none is drawn (the comparisons and
    ///     the sweep read the rates only), and a run's systems pass the run's settings.
    public static func metrics(
        of records: [UtteranceRecord], boostedWords: [String] = [], terms: [String] = [],
        templates: SlotTemplates? = nil, normalizer: Normalizer, bootstrap: BootstrapOptions = .init(resamples: 0)
    ) -> SystemMetrics {
        SystemMetrics(
            of: records, boostedWords: boostedWords, terms: terms, templates: templates, normalizer: normalizer,
            bootstrap: bootstrap)
    }

    /// What the records' biasing lists held, counted as `gambit score` counts a biasing-list reference (one
    /// definition: ``Scoring/BiasingListSummary/init(of:normalizer:)``); `nil` when no record has a list.
    public static func biasingListSummary(of records: [UtteranceRecord], normalizer: Normalizer)
        -> BiasingListSummary?
    {
        BiasingListSummary(of: records, normalizer: normalizer)
    }

    /// Timing of a system: the real-time factors and latency percentiles come from the records; the rest is given.
    public static func timing(
        of records: [UtteranceRecord], modelLoadSeconds: Double, decodeWallSeconds: Double,
        peakResidentMegabytes: Double, bootstrap: BootstrapOptions = BootstrapOptions(resamples: 0)
    ) -> SystemTiming {
        let decode = records.reduce(0) { $0 + $1.decodeSeconds }
        let audio = records.reduce(0) { $0 + $1.audioSeconds }
        let rtf = audio > 0 ? decode / audio : 0
        return SystemTiming(
            modelLoadSeconds: modelLoadSeconds, decodeWallSeconds: decodeWallSeconds, realTimeFactor: rtf,
            inverseRealTimeFactor: rtf > 0 ? 1 / rtf : 0, peakResidentMegabytes: peakResidentMegabytes,
            finalLatency: Percentiles(records.compactMap { $0.latency?.finalLatencySeconds }, bootstrap: bootstrap),
            firstPartial: Percentiles(records.compactMap { $0.latency?.firstPartialSeconds }, bootstrap: bootstrap),
            streaming: StreamingSummary(records.compactMap(\.latency), bootstrap: bootstrap),
            wholeUtterance: Percentiles(
                records.compactMap { $0.latency?.wholeUtteranceSeconds }, bootstrap: bootstrap))
    }

    /// Compares a customized system with the baseline (and oracle) of its corpus.
    ///
    /// Utterances are paired by id in the baseline's order; B-WER, U-WER and keyword F1 of every system are computed
    /// over the variant's boosted words and terms.
    public static func comparison(
        variant: VariantInfo, baseline: SystemResults, customized: SystemResults, oracle: SystemResults?,
        settings: RunSettings
    ) -> Comparison {
        let normalizer = settings.normalizer
        let boosted = normalizedWords(variant.boostedWords, normalizer)
        let terms = variant.scoredTerms
        func summary(_ system: SystemResults) -> MetricSummary {
            MetricSummary(
                metrics(of: system.utterances, boostedWords: variant.boostedWords, terms: terms, normalizer: normalizer)
            )
        }
        let paired = pairedErrors(
            baseline: baseline.utterances, customized: customized.utterances, boosted: boosted, normalizer: normalizer)
        let options = settings.bootstrap
        let deltaWER = paired.deltaWER(options)
        let matchedPairs = paired.matchedPairs(minimumGoodWords: settings.minimumGoodWords)
        let base = summary(baseline)
        let custom = summary(customized)
        let oracleSummary = oracle.map(summary)
        var captured: Double? = nil
        if let oracleSummary, base.wordErrorRate - oracleSummary.wordErrorRate > 0 {
            captured =
                (base.wordErrorRate - custom.wordErrorRate) / (base.wordErrorRate - oracleSummary.wordErrorRate)
        }
        var comparison = Comparison(
            corpus: customized.corpus, variant: variant.name, baseline: base, customized: custom,
            oracle: oracleSummary, pairedUtterances: paired.count, deltaWER: deltaWER,
            deltaBoostedWER: paired.deltaBoostedWER(options), deltaUnboostedWER: paired.deltaUnboostedWER(options),
            deltaFalseAlarmsPerHour: falseAlarmChange(
                baseline: baseline.utterances, customized: customized.utterances, boosted: boosted,
                normalizer: normalizer, options: options),
            matchedPairs: matchedPairs, mcNemar: paired.mcNemar,
            oracleGainCaptured: captured,
            significant: deltaWER.significant || matchedPairs.significant, recognizer: customized.recognizer)
        comparison.list = customized.list
        return comparison
    }

    /// Paired bootstrap interval of the change in false alarms per hour between two systems' utterances, paired
    /// by id: the boosted words (each utterance's biasing list, when it has one) heard where the reference does
    /// not have them. Nil when there is no such word or no audio.
    public static func falseAlarmChange(
        baseline: [UtteranceRecord], customized: [UtteranceRecord], boosted: Set<String>, normalizer: Normalizer,
        options: BootstrapOptions
    ) -> BootstrapInterval? {
        var customizedByID: [String: UtteranceRecord] = [:]
        for record in customized { customizedByID[record.id] = record }
        var alarmsA: [Int] = []
        var alarmsB: [Int] = []
        var milliseconds: [Int] = []
        var anyWord = false
        for a in baseline {
            guard let b = customizedByID[a.id] else { continue }
            let words = a.alarmWords(global: boosted, normalizer: normalizer)
            anyWord = anyWord || !words.isEmpty
            func alarms(_ record: UtteranceRecord) -> Int {
                KeywordScoring.countWords(record.alignment, words: words).values.reduce(0) { $0 + $1.falseAlarms }
            }
            alarmsA.append(alarms(a))
            alarmsB.append(alarms(b))
            // A failed decode has no audio length of its own; the other system's stands for the utterance.
            milliseconds.append(Int((max(a.audioSeconds, b.audioSeconds) * 1000).rounded()))
        }
        guard anyWord, milliseconds.reduce(0, +) > 0 else { return nil }
        return Significance.pairedBootstrap(
            metric: "false alarms per hour", errorsA: alarmsA, errorsB: alarmsB, referenceWords: milliseconds,
            options: options
        ).scaled(by: 3_600_000)
    }

    /// Pairs two systems' utterances by id, in the baseline's order: what the paired bootstrap,
    /// MAPSSWE and McNemar tests read. B-WER pairs are added when `boosted` (normalized words) is not empty, or
    /// over each utterance's biased words when the records carry biasing lists (found with `normalizer`).
    public static func pairedErrors(
        baseline: [UtteranceRecord], customized: [UtteranceRecord], boosted: Set<String> = [],
        normalizer: Normalizer = .standard
    ) -> PairedErrors {
        var customizedByID: [String: UtteranceRecord] = [:]
        for record in customized { customizedByID[record.id] = record }
        var paired = PairedErrors()
        for a in baseline {
            guard let b = customizedByID[a.id] else { continue }
            let alignmentA = Alignment(pairs: a.alignment)
            let alignmentB = Alignment(pairs: b.alignment)
            paired.append(
                operationsA: alignmentA.pairs.map(\.operation), operationsB: alignmentB.pairs.map(\.operation),
                errorsA: alignmentA.counts.errors, errorsB: alignmentB.counts.errors,
                referenceWords: alignmentA.counts.referenceWords)
            // Both systems decoded the same utterance, so the baseline's record gives the list for both.
            if let words = a.scoredBoostedWords(global: boosted, normalizer: normalizer) {
                let ra = CustomizationMetrics.boostedWordErrorRates(alignments: [alignmentA], boostedWords: words)
                let rb = CustomizationMetrics.boostedWordErrorRates(alignments: [alignmentB], boostedWords: words)
                paired.appendBoosted(
                    errorsA: ra.boostedErrors, errorsB: rb.boostedErrors, referenceWords: ra.boostedReferenceWords,
                    unboostedErrorsA: ra.unboostedErrors, unboostedErrorsB: rb.unboostedErrors,
                    unboostedReferenceWords: ra.unboostedReferenceWords)
            }
        }
        return paired
    }

    /// The normalized words of phrases, deduplicated.
    static func normalizedWords(_ phrases: [String], _ normalizer: Normalizer) -> Set<String> {
        BiasingList.normalizedWords(phrases, normalizer)
    }

    /// The variant a system is scored against: its own, or the union of all variants for baseline and oracle.
    static func scope(_ system: SystemResults, _ results: RunResults) -> VariantInfo {
        if let name = system.variant, let variant = results.variant(named: name) { return variant }
        var union = VariantInfo(name: "*", trainingDataFile: "")
        var seenWords = Set<String>()
        var seenTerms = Set<String>()
        var templates: [[String]] = []
        var classes: [String: [String]] = [:]
        for variant in results.variants {
            union.boostedWords += variant.boostedWords.filter { seenWords.insert($0).inserted }
            union.multiWordTerms += variant.multiWordTerms.filter { seenTerms.insert($0).inserted }
            if let t = variant.templates {
                templates += t.templates.filter { !templates.contains($0) }
                for (name, values) in t.classes {
                    classes[name, default: []] += values.filter { !(classes[name]?.contains($0) ?? false) }
                }
            }
        }
        if !templates.isEmpty || !classes.isEmpty {
            union.templates = SlotTemplates(templates: templates, classes: classes)
        }
        return union
    }
}

extension RunResults {
    /// The same results with every aggregate recomputed from the per-utterance records: system metrics, failure
    /// counts, real-time factors, latency percentiles and all comparisons. Utterances are put in corpus order.
    ///
    /// Checks and the sweep are kept as they are.
    public func recomputingAggregates() -> RunResults {
        var copy = self
        let normalizer = run.settings.normalizer
        for index in copy.systems.indices {
            var system = copy.systems[index]
            system.utterances.sort { ($0.index, $0.id) < ($1.index, $1.id) }
            let scope = Aggregation.scope(system, self)
            let boosted = Aggregation.normalizedWords(scope.boostedWords, normalizer)
            for u in system.utterances.indices {
                system.utterances[u].setBoostedCounts(boosted: boosted, normalizer: normalizer)
            }
            system.metrics = Aggregation.metrics(
                of: system.utterances, boostedWords: scope.boostedWords, terms: scope.scoredTerms,
                templates: scope.templates, normalizer: normalizer, bootstrap: run.settings.bootstrap)
            system.timing = Aggregation.timing(
                of: system.utterances, modelLoadSeconds: system.timing.modelLoadSeconds,
                decodeWallSeconds: system.timing.decodeWallSeconds,
                peakResidentMegabytes: system.timing.peakResidentMegabytes, bootstrap: run.settings.bootstrap)
            system.failures = FailureCounts(system.utterances)
            system.breakdowns = Aggregation.breakdowns(of: system.utterances, bootstrap: run.settings.bootstrap)
            system.biasingLists = Aggregation.biasingListSummary(of: system.utterances, normalizer: normalizer)
            copy.systems[index] = system
        }
        copy.comparisons = copy.systems.compactMap { system in
            guard system.mode == .customized, let name = system.variant, let variant = copy.variant(named: name),
                let baseline = copy.system(corpus: system.corpus, mode: .baseline, recognizer: system.recognizer)
            else { return nil }
            // The oracle is PocketSphinx's grammar of the references: no bound on another recognizer.
            return Aggregation.comparison(
                variant: variant, baseline: baseline, customized: system,
                oracle: system.recognizer == nil ? copy.system(corpus: system.corpus, mode: .oracle) : nil,
                settings: run.settings)
        }
        return copy
    }
}

extension UtteranceRecord {
    /// Sets ``boostedErrors`` and ``boostedReferenceWords`` from the alignment: over the record's own biased
    /// words when it has a biasing list, else over `boosted` (normalized words); nil when neither gives words.
    mutating func setBoostedCounts(boosted: Set<String>, normalizer: Normalizer) {
        let rates = boostedRates(global: boosted, normalizer: normalizer)
        boostedErrors = rates?.boostedErrors
        boostedReferenceWords = rates?.boostedReferenceWords
    }
}

extension UtteranceRecord: ScoredUtterance {}
