import Foundation
public import Results
import Scoring

/// What a finding measures.
public enum GateMetric: String, Codable, Sendable, Equatable, CaseIterable {
    case wer
    case boostedWER
    case antiContextWER
    case finalLatencyP95
    case realTimeFactor
    case failedUtterances
    /// Boosted words heard where the reference does not have them, per hour of audio (customized systems).
    case falseAlarmsPerHour

    /// A short display name.
    public var title: String {
        switch self {
        case .wer: "WER"
        case .boostedWER: "B-WER"
        case .antiContextWER: "anti-context WER"
        case .finalLatencyP95: "p95 final latency"
        case .realTimeFactor: "RTF"
        case .failedUtterances: "failed utterances"
        case .falseAlarmsPerHour: "false alarms per hour"
        }
    }

    var isRate: Bool { self == .wer || self == .boostedWER || self == .antiContextWER }
}

/// The significance of a change between two runs on the same utterances.
public struct ChangeSignificance: Codable, Sendable, Equatable {
    /// Paired bootstrap 95% interval of current − baseline (fraction; per hour for false alarms).
    public var interval: BootstrapInterval
    /// MAPSSWE p-value (WER only).
    public var matchedPairsPValue: Double?
    /// The interval excludes 0 or MAPSSWE p < 0.05, over at least ``Significance/minimumUtterances`` utterances.
    public var significant: Bool

    /// The utterances compared, when too few to judge the change; nil otherwise.
    public var tooFewUtterances: Int? { interval.tooFewUtterances }

    /// "significant", "not significant" or "too few utterances to judge (…)".
    public var verdict: String { Significance.verdict(significant: significant, tooFewUtterances: tooFewUtterances) }
}

/// One metric of one system, compared between the baseline run and the current run.
public struct GateFinding: Codable, Sendable, Equatable {
    public var corpus: String
    /// The system, e.g. `chess/customized/chess-full`.
    public var system: String
    public var variant: String?
    public var metric: GateMetric
    /// The value in the baseline run (rates as fractions, latency in seconds).
    public var baselineValue: Double
    public var currentValue: Double
    /// current − baseline.
    public var delta: Double
    /// The limit applied.
    public var limit: Limit
    /// The change is larger than a limit.
    public var exceedsLimit: Bool
    /// Paired significance, for rates compared on common utterances.
    public var significance: ChangeSignificance?
    /// The finding fails the gate: it exceeds its limit and, if required, is significant.
    public var failed: Bool
    /// A sentence naming the corpus, the system and the numbers.
    public var message: String
}

/// The gate's verdict.
public struct GateOutcome: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable, Equatable {
        case pass
        case regression
        /// The inputs could not be compared (unreadable results, invalid thresholds, nothing in common).
        case badInput
    }

    public var status: Status
    /// Every comparison made, failing ones first.
    public var findings: [GateFinding]
    /// Why the input is bad, or systems present in only one run (as notes).
    public var notes: [String]

    /// Process exit code: 0 pass, 1 regression, 2 bad input.
    public var exitCode: Int32 {
        switch status {
        case .pass: 0
        case .regression: 1
        case .badInput: 2
        }
    }

    /// The failing findings.
    public var failures: [GateFinding] { findings.filter(\.failed) }

    /// A few lines for a terminal: the verdict, then each failure.
    public var summary: String {
        switch status {
        case .badInput:
            return "Gate: cannot compare — " + notes.joined(separator: "; ")
        case .pass:
            return "Gate passed: \(findings.count) comparisons, no regression beyond its threshold."
        case .regression:
            return "Gate failed: \(failures.count) regression(s)\n"
                + failures.map { "  ✗ " + $0.message }.joined(separator: "\n")
        }
    }
}

/// Compares a run with a baseline run (e.g. the main branch) and decides whether anything got worse.
public enum Gate {
    /// Evaluates every system present in both runs.
    ///
    /// For each system: WER (or anti-context WER on anti-context corpora), B-WER for customized systems, p95 final
    /// latency, real-time factor and failed utterances. Rates are tested for significance on the utterances both runs
    /// decoded (paired bootstrap with the current run's settings, and MAPSSWE for WER).
    /// - Parameters:
    ///   - current: The run under test.
    ///   - baseline: The reference run.
    ///   - thresholds: Limits (see ``GateThresholds``).
    /// - Returns: The outcome; ``GateOutcome/Status/badInput`` when the thresholds are invalid, either run is a
    ///   partial merge (``RunInfo/partial``), or the runs share no system.
    public static func evaluate(current: RunResults, baseline: RunResults, thresholds: GateThresholds = .default)
        -> GateOutcome
    {
        let problems = thresholds.problems
        if !problems.isEmpty { return GateOutcome(status: .badInput, findings: [], notes: problems) }
        let (matchedCurrent, matchedBaseline) = matched(current: current, baseline: baseline)
        // A limit for a corpus the run lacks is a typo, not a limit met: named against the run's corpora, masked or
        // not, as the thresholds may name either.
        let unknown = thresholds.unknownCorpora(
            known: Array(Set((current.corpora + matchedCurrent.corpora).map(\.name))))
        if !unknown.isEmpty {
            return GateOutcome(status: .badInput, findings: [], notes: unknown.map(\.description))
        }
        let (current, baseline) = (matchedCurrent, matchedBaseline)
        // Partial results are refused, not judged: a regression or a pass on some shards says nothing of the
        // rest, and a "regression" exit would send the reader looking for a change that is not there.
        let partial = [("this run", current), ("the baseline", baseline)].compactMap { name, results in
            results.run.partial.map {
                "\(name) has \($0.summary); the gate compares complete runs only. Merge every shard "
                    + "(`gambit merge` without --partial) and gate that"
            }
        }
        if !partial.isEmpty { return GateOutcome(status: .badInput, findings: [], notes: partial) }
        let mismatches = comparability(current: current, baseline: baseline)
        if !mismatches.isEmpty { return GateOutcome(status: .badInput, findings: [], notes: mismatches) }
        var findings: [GateFinding] = []
        var notes: [String] = []
        let (engineNow, engineThen) = (current.run.engine.decoderArguments, baseline.run.engine.decoderArguments)
        if engineNow != engineThen {
            // Not refused: a team may change the beam on purpose, and the gate then measures what that cost.
            notes.append(
                "the runs decoded with different engine settings (this run: \(engineNow.joined(separator: " ")); "
                    + "the baseline: \(engineThen.joined(separator: " "))): a change may come from them rather than "
                    + "from the training data")
        }
        let (rulesNow, rulesThen) = (current.run.settings, baseline.run.settings)
        if rulesNow.normalizer != rulesThen.normalizer || rulesNow.normalizerRules != rulesThen.normalizerRules {
            // Each run's figures are over its own normalized words: a declared term form or a new rule changes
            // what counts as an error, so the change may be the scoring's, not the recognizer's.
            notes.append(
                "the runs were scored under different normalization (this run: \(rulesNow.normalization), rules "
                    + "version \(rulesNow.normalizerRules); the baseline: \(rulesThen.normalization), rules version "
                    + "\(rulesThen.normalizerRules)): a change may come from the scoring rather than the recognizer")
        }
        for system in current.systems {
            guard let old = baseline.systems.first(where: { $0.key == system.key }) else {
                notes.append("\(system.key) is new in this run; nothing to compare it with")
                continue
            }
            findings += evaluate(system, old, current: current, thresholds: thresholds)
            if system.mode == .customized, current.corpus(named: system.corpus)?.role != .antiContext,
                system.metrics.boosted != nil,
                system.metrics.boosted?.boostedWordErrorRate == nil || old.metrics.boosted?.boostedWordErrorRate == nil
            {
                notes.append("\(system.key): B-WER not gated, no data (no boosted word in the references)")
            }
        }
        for system in baseline.systems where !current.systems.contains(where: { $0.key == system.key }) {
            notes.append("\(system.key) was in the baseline run but not in this one")
        }
        if findings.isEmpty {
            return GateOutcome(
                status: .badInput, findings: [],
                notes: [
                    "the runs have no system in common (suite \(current.run.suite.name) vs \(baseline.run.suite.name))"
                ]
                    + notes)
        }
        findings.sort { $0.failed && !$1.failed }
        return GateOutcome(
            status: findings.contains(where: \.failed) ? .regression : .pass, findings: findings, notes: notes)
    }

    /// The two runs as they can be compared. A stored baseline has its private terms masked (`gambit
    /// baseline update`), names of suites, corpora and variants included, and so does a report.json:
    /// a raw run is then compared masked as its baseline is (or the other way round). The first pair
    /// whose suites and utterances agree wins; else the first whose suites agree; else the runs as given.
    static func matched(current: RunResults, baseline: RunResults) -> (RunResults, RunResults) {
        let plain = (current, baseline)
        guard current.variants.contains(where: \.isPrivate) || baseline.variants.contains(where: \.isPrivate) else {
            return plain
        }
        let pairs = [plain, (current.redactingPrivateTerms(), baseline), (current, baseline.redactingPrivateTerms())]
        let sameSuite = pairs.filter { $0.0.run.suite.name == $0.1.run.suite.name }
        return sameSuite.first { utteranceMismatches(current: $0.0, baseline: $0.1).isEmpty } ?? sameSuite.first
            ?? plain
    }

    /// Why two runs cannot be compared: different suites, or a system whose utterances (matched by
    /// id) or reference texts differ between them. Empty when they can.
    ///
    /// A WER difference between different utterances would be read as a regression or a gain that
    /// is neither.
    public static func comparability(current: RunResults, baseline: RunResults) -> [String] {
        let now = current.run.suite.name
        let old = baseline.run.suite.name
        guard now == old else {
            return [
                "this run is of suite \"\(now)\" and the baseline of suite \"\(old)\"; a gate compares two runs of one"
                    + " suite. Gate against a baseline from suite \"\(now)\", or make one with `gambit baseline update`"
            ]
        }
        let plain = utteranceMismatches(current: current, baseline: baseline)
        guard !plain.isEmpty else { return [] }
        // A stored baseline has its private terms masked (`gambit baseline update`), and so does a
        // report.json: a run matches its baseline when it does with the other side masked too.
        if utteranceMismatches(current: current.redactingPrivateTerms(), baseline: baseline).isEmpty
            || utteranceMismatches(current: current, baseline: baseline.redactingPrivateTerms()).isEmpty
        {
            return []
        }
        return plain
    }

    private static func utteranceMismatches(current: RunResults, baseline: RunResults) -> [String] {
        var problems: [String] = []
        let limit = 3
        for system in current.systems {
            guard let previous = baseline.systems.first(where: { $0.key == system.key }) else { continue }
            var before: [String: String] = [:]
            for record in previous.utterances { before[record.id] = record.reference }
            var after: [String: String] = [:]
            for record in system.utterances { after[record.id] = record.reference }
            let onlyNow = after.keys.filter { before[$0] == nil }.sorted()
            let onlyBefore = before.keys.filter { after[$0] == nil }.sorted()
            let changed = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.sorted()
            // A biasing list decides which words B-WER counts, so a changed list changes the rate as surely as a
            // changed reference.
            var listsBefore: [String: [String]?] = [:]
            for record in previous.utterances { listsBefore[record.id] = record.biasingList }
            let changedLists = system.utterances.filter { record in
                guard let old = listsBefore[record.id], before[record.id] == after[record.id] else { return false }
                return old != record.biasingList
            }.map(\.id).sorted()
            guard !onlyNow.isEmpty || !onlyBefore.isEmpty || !changed.isEmpty || !changedLists.isEmpty else {
                continue
            }
            func list(_ ids: [String]) -> String {
                ids.prefix(limit).joined(separator: ", ") + (ids.count > limit ? ", … (\(ids.count))" : "")
            }
            var parts: [String] = []
            if !onlyNow.isEmpty { parts.append("only in this run: \(list(onlyNow))") }
            if !onlyBefore.isEmpty { parts.append("only in the baseline: \(list(onlyBefore))") }
            if !changed.isEmpty { parts.append("reference text changed: \(list(changed))") }
            if !changedLists.isEmpty { parts.append("biasing list changed: \(list(changedLists))") }
            problems.append(
                "\(system.key): the runs decoded different utterances (\(parts.joined(separator: "; "))); "
                    + "the corpus changed since the baseline, so update the baseline deliberately")
        }
        return problems
    }

    /// Loads both result files and evaluates them; unreadable files give a bad-input outcome instead of an error.
    public static func evaluate(current: URL, baseline: URL, thresholds: GateThresholds = .default) -> GateOutcome {
        do {
            return evaluate(
                // Recomputed from the records: a baseline written by an older Gambit compares by today's
                // rules (a B-WER over nothing is no data, not 0%).
                current: try RunResults.load(from: current).recomputingAggregates(),
                baseline: try RunResults.load(from: baseline).recomputingAggregates(),
                thresholds: thresholds)
        } catch {
            return GateOutcome(status: .badInput, findings: [], notes: ["\(error)"])
        }
    }

    static func evaluate(_ now: SystemResults, _ old: SystemResults, current: RunResults, thresholds: GateThresholds)
        -> [GateFinding]
    {
        let anti = current.corpus(named: now.corpus)?.role == .antiContext
        let overrides = thresholds.corpora[now.corpus]
        var findings: [GateFinding] = []
        let paired = Paired(old, now, current: current)
        let werMetric: GateMetric = anti ? .antiContextWER : .wer
        let werLimit =
            anti ? (overrides?.antiContextWER ?? thresholds.antiContextWER) : (overrides?.wer ?? thresholds.wer)
        findings.append(
            finding(
                now, werMetric, old.metrics.rates.wordErrorRate, now.metrics.rates.wordErrorRate, werLimit,
                paired.werSignificance(current.run.settings)))
        // A B-WER over no boosted reference word is no data: nothing to gate (the caller notes it).
        if now.mode == .customized, let oldBoosted = old.metrics.boosted?.boostedWordErrorRate,
            let nowBoosted = now.metrics.boosted?.boostedWordErrorRate, !anti
        {
            findings.append(
                finding(
                    now, .boostedWER, oldBoosted, nowBoosted,
                    overrides?.boostedWER ?? thresholds.boostedWER, paired.boostedSignificance(current.run.settings)))
        }
        if let oldLatency = old.timing.finalLatency, let nowLatency = now.timing.finalLatency {
            findings.append(
                finding(
                    now, .finalLatencyP95, oldLatency.p95, nowLatency.p95, thresholds.finalLatencyP95,
                    paired.latencySignificance(current.run.settings)))
        }
        if old.timing.realTimeFactor > 0 && now.timing.realTimeFactor > 0 {
            findings.append(
                finding(
                    now, .realTimeFactor, old.timing.realTimeFactor, now.timing.realTimeFactor,
                    thresholds.realTimeFactor, nil))
        }
        findings.append(
            finding(
                now, .failedUtterances, Double(old.failures.failed), Double(now.failures.failed),
                thresholds.failedUtterances, nil))
        // On every corpus, anti-context ones above all: what biasing made the recognizer hear that nobody said.
        if now.mode == .customized, let oldAlarms = old.metrics.keywords?.falseAlarmsPerHour,
            let nowAlarms = now.metrics.keywords?.falseAlarmsPerHour
        {
            findings.append(
                finding(
                    now, .falseAlarmsPerHour, oldAlarms, nowAlarms,
                    overrides?.falseAlarmsPerHour ?? thresholds.falseAlarmsPerHour,
                    paired.falseAlarmSignificance(current.run.settings)))
        }
        return findings
    }

    static func finding(
        _ system: SystemResults, _ metric: GateMetric, _ before: Double, _ after: Double, _ limit: Limit,
        _ significance: ChangeSignificance?
    ) -> GateFinding {
        let delta = after - before
        // Display units: points for rates.
        let scale = metric.isRate ? 100.0 : 1.0
        var exceeds = false
        if let maximum = limit.maxIncrease, delta * scale > maximum + 1e-9 { exceeds = true }
        // A ceiling holds whatever the baseline run measured, significant or not.
        let aboveCeiling = limit.ceiling.map { after * scale > $0 + 1e-9 } ?? false
        if let percent = limit.maxIncreasePercent, delta > 0 {
            if before > 0 {
                if delta / before * 100 > percent + 1e-9 { exceeds = true }
            } else {
                exceeds = true
            }
        }
        let usesSignificance = limit.requireSignificance && significance != nil
        let failed = (exceeds && (!usesSignificance || significance!.significant)) || aboveCeiling
        let name =
            "\(system.corpus) · "
            + Comparison.label(
                system.variant ?? system.mode.rawValue, recognizer: system.recognizer, list: system.list?.name)
        func value(_ v: Double) -> String {
            switch metric {
            case .wer, .boostedWER, .antiContextWER: String(format: "%.2f%%", v * 100)
            case .finalLatencyP95: String(format: "%.3f s", v)
            case .realTimeFactor: String(format: "%.3f", v)
            case .failedUtterances: String(Int(v))
            case .falseAlarmsPerHour: String(format: "%.1f/h", v)
            }
        }
        let change: String
        switch metric {
        case .wer, .boostedWER, .antiContextWER: change = String(format: "%+.2f points", delta * 100)
        case .finalLatencyP95: change = String(format: "%+.3f s", delta)
        case .realTimeFactor: change = String(format: "%+.3f", delta)
        case .failedUtterances: change = String(format: "%+d", Int(delta))
        case .falseAlarmsPerHour: change = String(format: "%+.1f per hour", delta)
        }
        let relative = before > 0 ? String(format: ", %+.1f%%", delta / before * 100) : ""
        var limits: [String] = []
        if let maximum = limit.maxIncrease {
            limits.append(
                metric.isRate
                    ? String(format: "+%.2f points", maximum)
                    : metric == .finalLatencyP95 ? String(format: "+%.3f s", maximum) : String(format: "+%g", maximum))
        }
        if let percent = limit.maxIncreasePercent { limits.append(String(format: "+%g%%", percent)) }
        if let ceiling = limit.ceiling {
            limits.append(
                "at most "
                    // A rate's ceiling is in points, which read as its percentage.
                    + (metric.isRate ? String(format: "%.2f%%", ceiling) : value(ceiling)))
        }
        let limitText = limits.isEmpty ? "no limit" : "limit " + limits.joined(separator: " or ")
        var message =
            "\(name): \(metric.title) \(delta > 0 ? "rose" : delta < 0 ? "fell" : "stayed") from \(value(before)) to "
            + "\(value(after)) (\(change)\(relative)); \(limitText)"
        if let significance { message += significanceText(significance, metric: metric) }
        if exceeds && !failed {
            message +=
                significance?.tooFewUtterances != nil
                ? " — above the limit, but too few utterances to judge, so not a regression"
                : " — above the limit but not significant, so not a regression"
        }
        if aboveCeiling { message += " — above the ceiling" }
        if failed { message += " — regression" }
        return GateFinding(
            corpus: system.corpus, system: system.key, variant: system.variant, metric: metric, baselineValue: before,
            currentValue: after, delta: delta, limit: limit, exceedsLimit: exceeds, significance: significance,
            failed: failed, message: message)
    }

    /// "; 95% CI [+0.10, +2.00] points, significant" (per hour for false alarms).
    static func significanceText(_ significance: ChangeSignificance, metric: GateMetric) -> String {
        let i = significance.interval
        if metric == .finalLatencyP95 {
            return String(format: "; 95%% CI [%+.3f, %+.3f] s, %@", i.lower, i.upper, significance.verdict)
        }
        let scale = metric == .falseAlarmsPerHour ? 1.0 : 100
        return String(
            format: metric == .falseAlarmsPerHour
                ? "; 95%% CI [%+.1f, %+.1f] per hour, %@" : "; 95%% CI [%+.2f, %+.2f] points, %@",
            i.lower * scale, i.upper * scale, significance.verdict)
    }

    /// The utterances two runs of one system have in common, paired by id.
    struct Paired {
        var old: [UtteranceRecord] = []
        var now: [UtteranceRecord] = []
        var boosted: Set<String> = []

        init(_ oldSystem: SystemResults, _ nowSystem: SystemResults, current: RunResults) {
            var byID: [String: UtteranceRecord] = [:]
            for record in oldSystem.utterances { byID[record.id] = record }
            for record in nowSystem.utterances {
                guard let match = byID[record.id] else { continue }
                old.append(match)
                now.append(record)
            }
            let words = Aggregation.boostedWords(for: nowSystem, in: current)
            boosted = Set(words.flatMap(current.run.settings.normalizer.normalize))
        }

        func werSignificance(_ settings: RunSettings) -> ChangeSignificance? {
            guard !old.isEmpty else { return nil }
            let a = old.map { Alignment(pairs: $0.alignment) }
            let b = now.map { Alignment(pairs: $0.alignment) }
            let interval = Significance.pairedBootstrap(
                metric: "WER", errorsA: a.map(\.counts.errors), errorsB: b.map(\.counts.errors),
                referenceWords: a.map(\.counts.referenceWords), options: settings.bootstrap)
            let mapsswe = Significance.matchedPairs(
                a.map { $0.pairs.map(\.operation) }, b.map { $0.pairs.map(\.operation) },
                minimumGoodWords: settings.minimumGoodWords)
            return ChangeSignificance(
                interval: interval, matchedPairsPValue: mapsswe.pValue,
                significant: interval.significant || mapsswe.significant)
        }

        func boostedSignificance(_ settings: RunSettings) -> ChangeSignificance? {
            let normalizer = settings.normalizer
            // Each pair is scored over one set of words: the utterance's own biased words when the corpus gives
            // biasing lists (the same utterance, so the current record's), else the current variant's words.
            let words = now.map { $0.scoredBoostedWords(global: boosted, normalizer: normalizer) }
            guard !old.isEmpty, words.contains(where: { $0 != nil }) else { return nil }
            func rates(_ records: [UtteranceRecord]) -> [BoostedWordErrorRates] {
                zip(records, words).map { record, words in
                    CustomizationMetrics.boostedWordErrorRates(
                        alignments: [Alignment(pairs: record.alignment)], boostedWords: words ?? [])
                }
            }
            let a = rates(old)
            let b = rates(now)
            let interval = Significance.pairedBootstrap(
                metric: "B-WER", errorsA: a.map(\.boostedErrors), errorsB: b.map(\.boostedErrors),
                referenceWords: a.map(\.boostedReferenceWords), options: settings.bootstrap)
            return ChangeSignificance(interval: interval, matchedPairsPValue: nil, significant: interval.significant)
        }

        /// The change in p95 final latency over the utterances streamed, with a final, in both runs.
        func latencySignificance(_ settings: RunSettings) -> ChangeSignificance? {
            let pairs = Swift.zip(old, now).compactMap { a, b in
                both(a.latency?.finalLatencySeconds, b.latency?.finalLatencySeconds)
            }
            // No utterance streamed in both runs is "too few to judge" (0 compared), never a test skipped.
            let interval = Significance.pairedQuantileBootstrap(
                metric: "p95 final latency", valuesA: pairs.map(\.0), valuesB: pairs.map(\.1), quantile: 0.95,
                options: settings.bootstrap)
            return ChangeSignificance(interval: interval, matchedPairsPValue: nil, significant: interval.significant)
        }

        private func both(_ a: Double?, _ b: Double?) -> (Double, Double)? {
            guard let a, let b else { return nil }
            return (a, b)
        }

        func falseAlarmSignificance(_ settings: RunSettings) -> ChangeSignificance? {
            guard
                let interval = Aggregation.falseAlarmChange(
                    baseline: old, customized: now, boosted: boosted, normalizer: settings.normalizer,
                    options: settings.bootstrap)
            else { return nil }
            return ChangeSignificance(interval: interval, matchedPairsPValue: nil, significant: interval.significant)
        }
    }
}
