import Foundation
import Results
import Scoring

/// The full report as one self-contained HTML file: styles, script and charts inline, readable offline from
/// `file://`.
///
/// Summary first (per corpus, each variant against the baseline with 95% intervals and significance), then the
/// checks, charts (WER by corpus, gains with intervals, latency, sweep), cost, per-term tables, every utterance
/// aligned with filters and an audio player, and the run's provenance.
public struct HTMLReport: Sendable {
    /// Rendering options.
    public struct Options: Sendable, Equatable {
        /// Prepended (with `/`) to relative audio paths, e.g. `../suites/demo` when the report is written elsewhere
        /// than the suite. `nil` keeps the paths as they are.
        public var audioPrefix: String?
        /// Utterances shown per corpus (in corpus order); the rest are counted but not shown.
        public var maximumUtterancesPerCorpus: Int

        public init(audioPrefix: String? = nil, maximumUtterancesPerCorpus: Int = 1_000) {
            self.audioPrefix = audioPrefix
            self.maximumUtterancesPerCorpus = maximumUtterancesPerCorpus
        }
    }

    public var results: RunResults
    public var options: Options

    /// - Parameters:
    ///   - results: Results to render; redact them first (``Reporter`` does).
    ///   - options: Rendering options.
    public init(_ results: RunResults, options: Options = .init()) {
        self.results = results
        self.options = options
    }

    /// The HTML document.
    public func render() -> String {
        let r = results
        let applicable = r.checks.filter { !$0.isSkipped }
        let passed = applicable.filter(\.passed).count
        let skipped = r.checks.count - applicable.count
        let warnings = r.checks.filter(\.isWarning).count
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out +=
            "<title>Gambit — \(e(r.run.suite.name))</title>\n<style>\n\(HTMLAssets.style)\n</style>\n</head>\n<body>\n"
        out += "<header class=\"top\"><div class=\"wrap\">"
        out += "<div class=\"brand\">Gambit · custom language model report</div>"
        out += "<h1>\(e(r.run.suite.name))</h1>"
        out +=
            "<p class=\"meta\">\(e(r.run.createdAt)) · \(e(r.run.engine.name)) \(e(r.run.engine.version)) · "
            + "gambit \(e(r.run.gambitVersion)) · \(r.corpora.count) corpora · \(r.variants.count) variants"
            + (r.run.shard.map { " · shard \($0.index + 1) of \($0.count)" } ?? "") + "</p>"
        // The engine's settings change every hypothesis, so the header says how the engine searched.
        out +=
            "<p class=\"meta\">decoder: "
            + (r.run.engine.decoderArguments.isEmpty
                ? "(defaults)" : "<code>\(e(r.run.engine.decoderArguments.joined(separator: " ")))</code>") + "</p>"
        out += "<div class=\"badges\">"
        out +=
            "<a class=\"badge \(passed == applicable.count ? "ok" : "fail")\" href=\"#checks\">"
            + "\(passed == applicable.count ? "✓" : "✗") "
            + "\(passed) of \(applicable.count) checks passed" + (warnings > 0 ? ", \(warnings) with warnings" : "")
            + (skipped > 0 ? ", \(skipped) skipped" : "") + "</a>"
        out +=
            "<span class=\"badge \(r.networkDenial.verified ? "ok" : "fail")\">"
            + "\(r.networkDenial.verified ? "✓ on-device verified" : "✗ network not verified denied")</span>"
        let failed = r.systems.reduce(0) { $0 + $1.failures.failed }
        if failed > 0 { out += "<span class=\"badge fail\">\(failed) failed utterances</span>" }
        out += "</div></div></header>\n"
        if let partial = r.run.partial {
            // Every number below covers some shards only; the reader must see that before any of them.
            out += "<div class=\"partial-banner\" role=\"alert\"><div class=\"wrap\">⚠ Partial results: "
            out += "\(e(partial.detail))</div></div>\n"
        }
        out += "<nav class=\"toc\"><div class=\"wrap\">"
        for (anchor, title) in [
            ("checks", "Checks"), ("summary", "Summary"),
        ] + (r.comparisons.contains { $0.recognizer != nil } ? [("levers", "Levers")] : []) + [
            ("charts", "Charts"), ("cost", "Latency & cost"), ("terms", "Terms"),
        ] + (r.diagnosis == nil ? [] : [("diagnosis", "Diagnosis")]) + [
            ("breakdowns", "By speaker"), ("utterances", "Utterances"), ("run", "Run"),
        ] {
            out += "<a href=\"#\(anchor)\">\(title)</a>"
        }
        out += "</div></nav>\n<main class=\"wrap\">\n"
        // What failed or warned comes first: a reader should not scroll past every corpus to find it.
        out += checks()
        out += summary()
        out += levers()
        out += charts()
        out += cost()
        out += terms()
        out += diagnosis()
        out += breakdowns()
        out += utterances()
        out += provenance()
        out +=
            "</main>\n<footer>Generated by gambit \(e(r.run.gambitVersion)) from results schema v\(r.schemaVersion). "
        out += "Δ = customized − baseline in percentage points; negative is better.</footer>\n"
        out += "<script>\n\(HTMLAssets.script)\n</script>\n</body>\n</html>\n"
        return out
    }

    // MARK: Sections

    /// A summary-table row for a system with no paired comparison (oracle, external recognizer): its rates
    /// and its WER difference from the baseline, without intervals. `name` is HTML.
    func uncomparedRow(
        _ system: SystemResults, name: String, color: String, baseline: SystemMetrics, lastCell: String
    ) -> String {
        let m = system.metrics
        return "<tr><td><span class=\"swatch\" style=\"background:\(color)\"></span>\(name)</td>"
            + "<td class=\"num\">\(Format.percent(m.rates.wordErrorRate))</td>"
            + "<td class=\"num\">\(Format.points(m.rates.wordErrorRate - baseline.rates.wordErrorRate))</td>"
            + "<td class=\"num\">\(Format.percent(m.boosted?.boostedWordErrorRate))</td><td class=\"num\">—</td>"
            + "<td class=\"num\">\(Format.percent(m.boosted?.unboostedWordErrorRate))</td><td class=\"num\">—</td>"
            + "<td class=\"num\">\(m.keywords.map { Format.decimal($0.overall.f1) } ?? "—")</td>"
            + "<td class=\"num\">\(m.keywords.map { Format.perHour($0.falseAlarmsPerHour) } ?? "—")</td>"
            + "<td class=\"num\">\(lastCell)</td></tr>"
    }

    /// A summary-table row for a variant against its baseline: its rates, each with the baseline's beside it,
    /// and the paired intervals. `name` is HTML.
    func comparisonRow(_ c: Comparison, name: String, color: String) -> String {
        func from(_ value: String?) -> String { value.map { "<span class=\"from\">from \($0)</span>" } ?? "" }
        return "<tr><td><span class=\"swatch\" style=\"background:\(color)\"></span>\(name)</td>"
            + "<td class=\"num\">\(Format.percent(c.customized.wordErrorRate))"
            + from(Format.percent(c.baseline.wordErrorRate)) + "</td>"
            + "<td class=\"num\">\(delta(c.deltaWER, significant: c.significant, tooFewUtterances: c.tooFewUtterances))</td>"
            + "<td class=\"num\">\(Format.percent(c.customized.boostedWordErrorRate))"
            + from(c.baseline.boostedWordErrorRate.map { Format.percent($0) })
            + "</td><td class=\"num\">\(c.deltaBoostedWER.map { delta($0) } ?? "—")</td>"
            + "<td class=\"num\">\(Format.percent(c.customized.unboostedWordErrorRate))"
            + from(c.baseline.unboostedWordErrorRate.map { Format.percent($0) })
            + "</td><td class=\"num\">\(c.deltaUnboostedWER.map { delta($0) } ?? "—")</td>"
            + "<td class=\"num\">\(c.customized.keywordF1.map { Format.decimal($0) } ?? "—")"
            + from(c.baseline.keywordF1.map { Format.decimal($0) })
            + "</td><td class=\"num\">\(c.customized.falseAlarmsPerHour.map { Format.perHour($0) } ?? "—")"
            + from(c.baseline.falseAlarmsPerHour.map { Format.perHour($0) })
            // No change at all, in every resample, needs no pill.
            + (c.deltaFalseAlarmsPerHour.map { $0.lower == 0 && $0.upper == 0 ? "" : "<br>" + perHourDelta($0) } ?? "")
            + "</td><td class=\"num\">\(c.oracleGainCaptured.map { Format.percent($0, digits: 0) } ?? "—")</td></tr>"
    }

    /// The card of a corpus decoded without PocketSphinx's baseline (`modes: [customized]`): its systems' WER,
    /// since there is nothing to compare them with, rather than no card at all.
    func uncomparedCard(_ corpus: CorpusInfo) -> String {
        let systems = results.systems.filter { $0.corpus == corpus.name }
        guard !systems.isEmpty else { return "" }
        let named = systems.map { system in
            let own =
                system.mode == .customized
                ? "customized "
                    + Comparison.label(system.variant ?? "", recognizer: system.recognizer, list: system.list?.name)
                : system.mode.rawValue + (system.recognizer.map { " @ \($0)" } ?? "")
            return "\(e(own)) WER "
                + Format.percent(system.metrics.rates.wordErrorRate)
        }
        return "<div class=\"card\"><div class=\"card-head\"><h3>\(e(corpus.name))</h3>"
            + (corpus.role == .domain
                ? "<span class=\"tag domain\">domain</span>" : "<span class=\"tag anti\">anti-context</span>")
            + "<span class=\"sub\">\(corpus.utteranceCount) utterances · no baseline decoded</span></div>"
            + "<p class=\"note\">The suite's modes leave out baseline, so nothing here is a change from it: "
            + named.joined(separator: ", ") + ".</p></div>\n"
    }

    func summary() -> String {
        var out = "<section id=\"summary\"><h2>Summary</h2>\n"
        let variants = results.variants.map(\.name)
        for corpus in results.corpora {
            guard let baseline = results.system(corpus: corpus.name, mode: .baseline) else {
                out += uncomparedCard(corpus)
                continue
            }
            let comparisons = results.comparisons.filter { $0.corpus == corpus.name }
            out += "<div class=\"card\"><div class=\"card-head\"><h3>\(e(corpus.name))</h3>"
            out +=
                corpus.role == .domain
                ? "<span class=\"tag domain\">domain</span>" : "<span class=\"tag anti\">anti-context</span>"
            out +=
                "<span class=\"sub\">\(corpus.utteranceCount) utterances · \(duration(corpus.audioSeconds)) "
                + "of audio · \(e(corpus.split)) split · \(baseline.metrics.rates.counts.referenceWords) words</span></div>"
            out += "<table><thead><tr><th>System</th><th class=\"num\">WER</th><th class=\"num\">ΔWER · 95% CI</th>"
            out += "<th class=\"num\">B-WER</th><th class=\"num\">ΔB-WER · 95% CI</th><th class=\"num\">U-WER</th>"
            out += "<th class=\"num\">ΔU-WER · 95% CI</th>"
            out += "<th class=\"num\" title=\"a boosted word counts as heard only where the reference has it\">"
            out += "Keyword F1</th><th class=\"num\" title=\"boosted words heard where the reference does not have "
            out += "them, per hour of audio\">False alarms</th>"
            out += "<th class=\"num\">Oracle gain</th></tr></thead><tbody>"
            let b = baseline.metrics
            out += "<tr><td><span class=\"swatch\" style=\"background:\(Charts.baselineColor)\"></span>baseline</td>"
            out += "<td class=\"num\">\(Format.percent(b.rates.wordErrorRate))</td><td class=\"num\">—</td>"
            out += "<td class=\"num\">\(Format.percent(b.boosted?.boostedWordErrorRate))</td><td class=\"num\">—</td>"
            out += "<td class=\"num\">\(Format.percent(b.boosted?.unboostedWordErrorRate))</td><td class=\"num\">—</td>"
            out +=
                "<td class=\"num\">\(Format.decimal(b.keywords?.overall.f1))</td>"
                + "<td class=\"num\">\(b.keywords.map { Format.perHour($0.falseAlarmsPerHour) } ?? "—")</td>"
                + "<td class=\"num\">—</td></tr>"
            for c in comparisons where c.recognizer == nil {
                let isPrivate = results.variant(named: c.variant)?.isPrivate == true
                out += comparisonRow(
                    c, name: e(c.variant) + (isPrivate ? " <span class=\"tag private\">private</span>" : ""),
                    color: Charts.color(.customized, variant: c.variant, variants: variants))
            }
            if let oracle = results.system(corpus: corpus.name, mode: .oracle) {
                out += uncomparedRow(oracle, name: "oracle", color: Charts.oracleColor, baseline: b, lastCell: "100%")
            }
            // Each external recognizer: its baseline against PocketSphinx's, then each variant against its own.
            for external in results.systems
            where external.corpus == corpus.name && external.recognizer != nil && external.mode == .baseline {
                let name = external.recognizer!
                let onDevice = results.run.externalRecognizers?.first { $0.name == name }?.onDevice
                let place = onDevice.map { $0 ? ", on-device" : ", off-device" } ?? ""
                out += uncomparedRow(
                    external, name: "\(e(name)) <span class=\"sub\">external\(place)</span>",
                    color: Charts.externalColor, baseline: b, lastCell: "—")
                for c in comparisons where c.recognizer == name {
                    let isPrivate = results.variant(named: c.variant)?.isPrivate == true
                    out += comparisonRow(
                        c,
                        name: "\(e(name)) <span class=\"sub\">customized</span> \(e(c.variant))"
                            + (c.list.map { " <span class=\"sub\">\(e($0.name)) list</span>" } ?? "")
                            + (isPrivate ? " <span class=\"tag private\">private</span>" : ""),
                        color: Charts.externalColor)
                }
            }
            out += "</tbody></table>"
            if let lists = baseline.biasingLists {
                out +=
                    "<p class=\"note\">B-WER and U-WER over each utterance's own biasing list from the manifest: "
                    + "\(e(lists.sentence)).</p>"
            }
            for c in comparisons {
                out +=
                    "<p class=\"note\">\(e(c.label)): MAPSSWE p \(Format.decimal(c.matchedPairs.pValue, digits: 4)) "
                    + "(\(c.matchedPairs.segments) segments) · McNemar p \(Format.decimal(c.mcNemar.pValue, digits: 4)) · "
                    + "\(c.pairedUtterances) paired utterances · "
                    + (c.significant ? "<span class=\"sig\">significant ✱</span>" : e(c.verdict)) + "</p>"
            }
            out += "</div>\n"
        }
        return out + summaryLegend() + "</section>\n"
    }

    /// What the summary's columns and marks mean.
    func summaryLegend() -> String {
        "<p class=\"note\">B-WER, U-WER and keyword F1 of a variant row (and its “from” values) are computed on that "
            + "variant’s boosted words; the baseline row uses all variants’ words. "
            + (results.comparisons.contains { $0.recognizer != nil }
                ? "An external recognizer’s customized rows are compared with its own baseline. " : "")
            + "✱ significant at 95% (paired bootstrap "
            + "interval excludes 0, or MAPSSWE p &lt; 0.05)"
            + (results.comparisons.contains { $0.tooFewUtterances != nil } ? "; \(e(Format.tooFewLegend))" : "")
            + ". Oracle gain: (baseline − customized) / (baseline − oracle) WER.</p>"
    }

    /// A change in false alarms per hour, as ``delta(_:significant:tooFewUtterances:)`` shows a change in points.
    func perHourDelta(_ interval: BootstrapInterval) -> String {
        let tone = !interval.significant ? "flat" : (interval.observedDelta < 0 ? "better" : "worse")
        return
            "<span class=\"delta \(tone)\" title=\"p \(Format.decimal(interval.pValue)) over \(interval.resamples) resamples\">"
            + "\(Format.signed(interval.observedDelta))/h\(Format.mark(interval))</span>"
            + "<span class=\"ci\">[\(Format.signed(interval.lower)), \(Format.signed(interval.upper))]</span>"
    }

    /// A change in points with its interval: toned and starred when significant, daggered when too few utterances
    /// were compared to judge it.
    func delta(_ interval: BootstrapInterval, significant: Bool, tooFewUtterances tooFew: Int?) -> String {
        let tone = !significant ? "flat" : (interval.observedDelta < 0 ? "better" : "worse")
        let title =
            tooFew.map { Significance.tooFewPhrase($0) }
            ?? "p \(Format.decimal(interval.pValue)) over \(interval.resamples) resamples"
        return
            "<span class=\"delta \(tone)\" title=\"\(e(title))\">"
            + "\(Format.points(interval.observedDelta))"
            + "\(Format.mark(significant: significant, tooFewUtterances: tooFew))</span>"
            + "<span class=\"ci\">\(Format.interval(interval))</span>"
    }

    /// A change judged by its own interval.
    func delta(_ interval: BootstrapInterval) -> String {
        delta(interval, significant: interval.significant, tooFewUtterances: interval.tooFewUtterances)
    }

    /// What needs attention first, each with its whole message (`data-check` says which, for tests and styles),
    /// then every family of checks folded into one line with its count, opened to the cards of its checks.
    func checks() -> String {
        var out = "<section id=\"checks\"><h2>Checks</h2>"
        guard !results.checks.isEmpty else { return out + "<p class=\"note\">No checks in this run.</p></section>\n" }
        let summary = CheckSummary(results.checks)
        if !summary.attention.isEmpty {
            out += "<div class=\"attention\">"
            for check in summary.attention { out += card(check) }
            out += "</div>"
        }
        out += "<div class=\"check-groups\">"
        for group in summary.groups {
            let (tone, icon) = [
                .failed: ("failed", "✗"), .warned: ("warning", "!"), .skipped: ("skipped", "–"), .passed: ("ok", "✓"),
            ][group.state]!
            out += "<details class=\"check-group \(tone)\"><summary><span class=\"icon\">\(icon)</span>"
            out += "\(e(group.line))</summary><div class=\"checks\">"
            for check in group.checks { out += card(check) }
            out += "</div></details>"
        }
        return out + "</div></section>\n"
    }

    /// One check as a card: its name, message and numbers.
    func card(_ check: Check) -> String {
        let state =
            check.isSkipped ? "skipped" : check.isWarning ? "passed warning" : check.passed ? "passed" : "failed"
        let icon = check.isSkipped ? "–" : check.isWarning ? "!" : check.passed ? "✓" : "✗"
        let marker =
            check.isWarning
            ? " data-check=\"warning\"" : !check.passed && !check.isSkipped ? " data-check=\"failed\"" : ""
        var out = "<div class=\"check \(state)\"\(marker)>"
        out += "<div class=\"name\"><span class=\"icon\">\(icon)</span>\(e(check.name))</div>"
        out += "<div class=\"msg\">\(e(check.message))</div>"
        if check.measured != nil || check.threshold != nil {
            out +=
                "<div class=\"nums\">measured <b>\(Format.measure(check.measured, unit: check.unit))</b> · "
                + "threshold \(Format.measure(check.threshold, unit: check.unit)) · \(e(check.kind.rawValue))</div>"
        }
        return out + "</div>"
    }

    func charts() -> String {
        var out = "<section id=\"charts\"><h2>Charts</h2><div class=\"grid2\">"
        out += "<div class=\"card wide\"><h3>WER by corpus and system</h3>\(Charts.werByCorpus(results))</div>"
        let gains = Charts.gains(results)
        if !gains.isEmpty {
            out += "<div class=\"card\"><h3>Change against the baseline, 95% intervals</h3>\(gains)"
            out +=
                "<div class=\"legend\"><span>filled dot: significant · green better · red worse · grey not significant</span></div></div>"
        }
        let latency = Charts.latency(results)
        if !latency.isEmpty {
            out += "<div class=\"card\"><h3>Final latency after end of audio</h3>\(latency)"
            out += "<div class=\"legend\"><span>dots: utterances · black: p50 · red dashed: p95</span></div></div>"
        }
        out += listSweep()
        if let sweep = results.sweep {
            let chart = Charts.sweep(sweep)
            if !chart.isEmpty {
                out +=
                    "<div class=\"card\"><h3>Sweep · \(e(sweep.variant)) on \(e(sweep.corpus)) (\(e(sweep.split)))</h3>"
                out += chart
                out += "<div class=\"legend\"><span><i style=\"background:#2563eb\"></i>B-WER</span>"
                out += "<span><i style=\"background:#7c3aed\"></i>U-WER</span>"
                out +=
                    "<span><i style=\"background:#ea580c\"></i>anti-context WER</span><span>filled: Pareto-optimal</span></div>"
                if let recommendation = sweep.recommendation {
                    out +=
                        "<p class=\"note\">Recommended weight \(Format.decimal(recommendation.parameters.weight, digits: 2))"
                        + (recommendation.parameters.budget.map { ", budget \($0)" } ?? "")
                        + ": \(e(recommendation.reason)). On \(e(recommendation.testSplit)): WER "
                        + "\(Format.percent(recommendation.test.wordErrorRate)) (baseline "
                        + "\(Format.percent(recommendation.testBaseline.wordErrorRate))), B-WER "
                        + "\(Format.percent(recommendation.test.boostedWordErrorRate)) (baseline "
                        + "\(Format.percent(recommendation.testBaseline.boostedWordErrorRate)))"
                        + (recommendation.testAntiContextWER.map { ", anti-context WER \(Format.percent($0))" } ?? "")
                        + ".</p>"
                }
                out += sweepTable(sweep)
                out += "</div>"
            }
            if let scaling = sweep.scaling {
                let chart = Charts.scaling(scaling)
                if !chart.isEmpty, let last = scaling.last {
                    out += "<div class=\"card\"><h3>Scaling · \(e(sweep.variant)) with distractor terms</h3>"
                    out += chart
                    out += "<div class=\"legend\"><span><i style=\"background:#2563eb\"></i>B-WER</span>"
                    out += "<span><i style=\"background:#7c3aed\"></i>U-WER</span>"
                    out += "<span><i style=\"background:#ea580c\"></i>anti-context WER</span></div>"
                    out +=
                        "<p class=\"note\">The variant's data plus up to \(last.distractors) rare dictionary words nobody "
                        + "says in the audio (\(last.boostedTerms) boosted terms in all), each at the data's median "
                        + "phrase count; every point is a full decode of the \(e(sweep.split)) split.</p></div>"
                }
            }
        }
        return out + "</div></section>\n"
    }

    /// The charted curve as numbers: each weight's rates and anti-context checks, with the paired
    /// bootstrap interval of each change, so a reader can tell a trend from noise.
    func sweepTable(_ sweep: SweepResults) -> String {
        let points = sweep.curve
        let corpora = points.first?.antiContextChecks?.map(\.corpus) ?? []
        guard !points.isEmpty else { return "" }
        var out = "<table><thead><tr><th class=\"num\">Weight</th><th class=\"num\">Samples</th>"
        out += "<th class=\"num\">B-WER</th><th class=\"num\">U-WER</th>"
        for corpus in corpora { out += "<th class=\"num\">\(e(corpus)) WER · Δ · 95% CI</th>" }
        out += "<th>Anti-context checks</th></tr></thead><tbody>"
        let chosen = sweep.recommendation?.parameters
        for point in points {
            let mark = point.parameters == chosen ? " ◆" : ""
            out += "<tr><td class=\"num\">\(Format.decimal(point.parameters.weight, digits: 2))\(mark)</td>"
            out += "<td class=\"num\">\(point.samplesUsed)</td>"
            out += "<td class=\"num\">\(Format.percent(point.boostedWordErrorRate))</td>"
            out += "<td class=\"num\">\(Format.percent(point.unboostedWordErrorRate))</td>"
            for check in point.antiContextChecks ?? [] {
                out +=
                    "<td class=\"num\">\(Format.percent(check.wordErrorRate)) · \(Format.points(check.delta)) · "
                    + "[\(Format.points(check.deltaLower)), \(Format.points(check.deltaUpper))]</td>"
            }
            let verdict =
                (point.antiContextChecks ?? []).isEmpty
                ? "—"
                : !point.passesAntiContextChecks
                    ? "fails: "
                        + (point.antiContextChecks ?? []).filter { !$0.passed }.map(\.corpus).joined(separator: ", ")
                    : (point.antiContextChecks ?? []).contains(where: \.warning) ? "pass (warning)" : "pass"
            out += "<td>\(e(verdict))</td></tr>"
        }
        out += "</tbody></table>"
        out +=
            "<p class=\"note\">Rates on the \(e(sweep.split)) split, "
            + (sweep.pointScoring == "decode"
                ? "each point decoded in full; Δ is the change from the baseline decoded on the same audio."
                : "rescored from one decoding pass; Δ is the change from the baseline on the same lattices.")
            + (sweep.pointModel.map {
                " Points scored with the variant's \(e($0)) twin (the same custom model interpolated at decode time)."
            } ?? "")
            + (sweep.recommendation?.testModel.map { " The test split was decoded with \(e($0))." } ?? "")
            + " A check fails when the rise is above the tolerance and "
            + "significant (interval above 0, or MAPSSWE p &lt; 0.05). ◆ recommended.</p>"
        return out
    }

    func cost() -> String {
        var out = "<section id=\"cost\"><h2>Latency &amp; cost</h2><div class=\"card\"><table><thead><tr>"
        out +=
            "<th>System</th><th class=\"num\">Model load</th><th class=\"num\">Decode wall</th><th class=\"num\">RTF</th>"
        out += "<th class=\"num\">RTFx</th><th class=\"num\">Peak RSS</th>"
        out += "<th class=\"num\">Failed / retried / crashed</th></tr></thead><tbody>"
        for system in results.systems {
            let t = system.timing
            out += "<tr><td>\(e(system.corpus)) · \(e(Format.systemName(system)))</td>"
            out +=
                "<td class=\"num\">\(Format.seconds(t.modelLoadSeconds))</td><td class=\"num\">\(Format.seconds(t.decodeWallSeconds))</td>"
            out +=
                "<td class=\"num\">\(Format.realTimeFactor(t))</td><td class=\"num\">\(Format.realTimeFactor(t, inverse: true))</td>"
            out += "<td class=\"num\">\(Format.decimal(t.peakResidentMegabytes, digits: 0)) MB</td>"
            let f = system.failures
            out += "<td class=\"num\">\(f.failed) / \(f.retried) / \(f.crashed)</td></tr>"
        }
        out += "</tbody></table></div>"
        out += latencyCard()
        out += timings()
        guard !results.variants.isEmpty else { return out + "</section>\n" }
        out +=
            "<div class=\"card\"><h3>Preparing the variants</h3><table><thead><tr><th>Variant</th><th class=\"num\">Weight</th>"
        out += "<th class=\"num\">Samples / budget</th><th class=\"num\">Expand</th><th class=\"num\">Estimate</th>"
        out +=
            "<th class=\"num\">Write</th><th class=\"num\">Compile</th><th class=\"num\">Total</th><th>Artifact</th></tr></thead><tbody>"
        for v in results.variants {
            let p = v.prepareSeconds
            out += "<tr><td>\(e(v.name))\(v.isPrivate ? " <span class=\"tag private\">private</span>" : "")</td>"
            out += "<td class=\"num\">\(Format.decimal(v.weight, digits: 2))</td>"
            out += "<td class=\"num\">\(v.samplesUsed) / \(v.sampleBudget.map(String.init) ?? "∞")</td>"
            for value in [p.expand, p.estimate, p.write, p.compileBinary, p.total] {
                out += "<td class=\"num\">\(Format.seconds(value))</td>"
            }
            out += "<td class=\"sub\">\(e(v.artifactFingerprint))</td></tr>"
        }
        return out + "</tbody></table></div></section>\n"
    }

    /// Where the run's time went: stages with wall and CPU time, the workers' time by kind of work, and the
    /// decode floor beside the wall time. Empty for results without timings (merged shards, older files).
    func timings() -> String {
        guard let t = results.timings else { return "" }
        let floor = t.decodeFloorSeconds
        var out = "<div class=\"card\"><h3>Where the time went</h3><p class=\"sub\">"
        out += "\(duration(t.wallSeconds)) wall; decode floor \(duration(floor)) "
        out += "(\(Format.decimal(floor / max(t.wallSeconds, 1e-9) * 100, digits: 0))% of it): the workers' "
        out += "PocketSphinx time over \(t.workerCount) \(t.workerCount == 1 ? "worker" : "workers"). "
        out += "\(t.decoded) decodings in this run\(t.journaled > 0 ? ", \(t.journaled) from the journal" : "").</p>"
        out +=
            "<table><thead><tr><th>Stage</th><th class=\"num\">Wall</th><th class=\"num\">CPU</th></tr></thead><tbody>"
        for stage in t.stages {
            out += "<tr><td>\(e(stage.name))</td><td class=\"num\">\(Format.seconds(stage.wallSeconds))</td>"
            out += "<td class=\"num\">\(Format.seconds(stage.cpuSeconds))</td></tr>"
        }
        out += "</tbody></table>"
        guard !t.workers.isEmpty else { return out + "</div>" }
        out += "<table><thead><tr><th>In the workers (summed)</th><th class=\"num\">Time</th>"
        out += "<th class=\"num\">Count</th><th class=\"num\">Per audio second</th></tr></thead><tbody>"
        for part in t.workers {
            out += "<tr><td>\(e(part.name))</td><td class=\"num\">\(Format.seconds(part.seconds))</td>"
            out += "<td class=\"num\">\(part.count)</td>"
            out += "<td class=\"num\">\(part.costPerAudioSecond.map { String(format: "%.3f s", $0) } ?? "—")</td></tr>"
        }
        out += "</tbody></table>"
        if let ratio = t.customizedCostRatio {
            out +=
                "<p class=\"note\">Customized decodes cost "
                + String(format: "%.2f", ratio) + "× the baseline's per second of audio.</p>"
        }
        return out + "</div>"
    }

    /// Per comparison, each boosted term scored by position (recall, precision, F1, baseline → customized) and
    /// its false alarms, each linked to its utterance; domain and anti-context corpora alike, where a false alarm
    /// matters most.
    func terms() -> String {
        var out = "<section id=\"terms\"><h2>Terms</h2>"
        var any = false
        for c in results.comparisons {
            guard
                let customized = results.system(
                    corpus: c.corpus, mode: .customized, variant: c.variant, recognizer: c.recognizer,
                    list: c.list?.name),
                let keywords = customized.metrics.keywords
            else { continue }
            let baseline = results.system(corpus: c.corpus, mode: .baseline, recognizer: c.recognizer)?.metrics.keywords
            let rows = (keywords.terms + [keywords.overall]).filter { term in
                let before = baseline?.terms.first { $0.term == term.term }
                return term.term == "*" || term.said + term.heard + (before?.heard ?? 0) > 0
            }
            guard rows.count > 1 else { continue }
            any = true
            let heading = c.label
            out += "<div class=\"card\"><div class=\"card-head\"><h3>\(e(heading)) on \(e(c.corpus))</h3>"
            out += "<span class=\"sub\">scored by position: heard only where the reference has it · "
            out += "baseline → customized</span></div>"
            out += "<table><thead><tr><th>Term</th><th class=\"num\">Said</th><th class=\"num\">Recall</th>"
            out += "<th class=\"num\">Precision</th><th class=\"num\">F1</th><th>False alarms</th>"
            out += "<th class=\"num\">First correct emission</th></tr></thead><tbody>"
            for term in rows {
                let before = term.term == "*" ? baseline?.overall : baseline?.terms.first { $0.term == term.term }
                let emissions = customized.utterances.compactMap { $0.latency?.firstCorrectEmission[term.term] }
                let name =
                    term.term == "*" ? "<b>all boosted words</b>" : "<span class=\"w b\">\(e(term.term))</span>"
                out += "<tr><td>\(name)</td><td class=\"num\">\(term.said)</td>"
                for (now, then) in [
                    (term.recall, before?.recall), (term.precision, before?.precision), (term.f1, before?.f1),
                ] {
                    out += "<td class=\"num\">\(then.map { Format.decimal($0, digits: 2) + " → " } ?? "")"
                    out += "<b>\(Format.decimal(now, digits: 2))</b></td>"
                }
                out += "<td>\(before.map { "\($0.falseAlarms) → " } ?? "")<b>\(term.falseAlarms)</b>"
                if term.term == "*" {
                    var rates: [String] = []
                    if let perHour = keywords.falseAlarmsPerHour {
                        rates.append(
                            Format.perHour(perHour)
                                + (keywords.falseAlarmsPerHourInterval.map {
                                    String(format: " [%.1f, %.1f]", $0.lower, $0.upper)
                                } ?? ""))
                    }
                    if let per100 = keywords.falseAlarmsPer100Utterances {
                        rates.append(String(format: "%.1f per 100 utterances", per100))
                    }
                    if !rates.isEmpty { out += " <span class=\"sub\">\(rates.joined(separator: " · "))</span>" }
                }
                let heardIn = keywords.falseAlarmUtterances[term.term] ?? []
                if !heardIn.isEmpty {
                    out += " <span class=\"sub\">in "
                    out += heardIn.prefix(5).map {
                        "<a href=\"#\(e(Self.anchor(corpus: c.corpus, utterance: $0)))\">\(e($0))</a>"
                    }.joined(separator: ", ")
                    out += heardIn.count > 5 ? " and \(heardIn.count - 5) more</span>" : "</span>"
                }
                out +=
                    "</td><td class=\"num\">\(emissions.isEmpty ? "—" : Format.seconds(emissions.reduce(0, +) / Double(emissions.count)))</td></tr>"
            }
            out += "</tbody></table>"
            if let slots = customized.metrics.slots, !slots.classes.isEmpty,
                results.corpus(named: c.corpus)?.role == .domain
            {
                out += "<p class=\"note\">Slot errors (\(slots.matchedUtterances) references matched a template): "
                out += slots.classes.map {
                    "&lt;\(e($0.className))&gt; \($0.errors)/\($0.occurrences) wrong (\(Format.percent($0.errorRate, digits: 0)))"
                }.joined(separator: " · ")
                out += "</p>"
            }
            out += "</div>"
        }
        if !any { out += "<p class=\"note\">No boosted term was said or heard.</p>" }
        return out + "</section>\n"
    }

    /// The id of an utterance's entry in the per-utterance view: unique in the report, without whitespace.
    static func anchor(corpus: String, utterance: String) -> String {
        "u-" + (corpus + "/" + utterance).map { $0.isWhitespace ? "_" : String($0) }.joined()
    }

    /// WER and B-WER per speaker, voice and condition: one card per corpus, one sortable table per label (click a
    /// heading to sort by it; rates sort by value, "no data" last).
    func breakdowns() -> String {
        var out = "<section id=\"breakdowns\"><h2>By speaker, voice and condition</h2>"
        var any = false
        for corpus in results.corpora {
            let tables = Format.breakdowns(of: results.systems.filter { $0.corpus == corpus.name })
            guard !tables.isEmpty else { continue }
            any = true
            out += "<div class=\"card\"><div class=\"card-head\"><h3>\(e(corpus.name))</h3>"
            out += "<span class=\"sub\">WER and B-WER with 95% bootstrap intervals over each group's utterances"
            out += " · click a heading to sort</span></div>"
            for table in tables {
                out += "<table class=\"sortable\" data-field=\"\(e(table.field))\"><thead><tr>"
                out += "<th scope=\"col\" aria-sort=\"ascending\">\(e(table.field.capitalized))</th>"
                out += "<th scope=\"col\">System</th><th scope=\"col\" class=\"num\">Utterances</th>"
                out += "<th scope=\"col\" class=\"num\">Words</th><th scope=\"col\" class=\"num\">WER · 95% CI</th>"
                out += "<th scope=\"col\" class=\"num\">B-WER · 95% CI</th></tr></thead><tbody>"
                for (order, row) in table.rows.enumerated() {
                    let (system, group) = row
                    func rate(_ value: Double?, _ interval: RateInterval?, measured: Bool) -> String {
                        guard measured else { return "<td class=\"num\" data-sort=\"\">—</td>" }
                        guard let value else { return "<td class=\"num\" data-sort=\"\">\(Format.noData)</td>" }
                        let ci = interval.map {
                            "<span class=\"ci\">[\(Format.percent($0.lower)), \(Format.percent($0.upper))]</span>"
                        }
                        return "<td class=\"num\" data-sort=\"\(value)\">\(Format.percent(value))\(ci ?? "")</td>"
                    }
                    out +=
                        "<tr data-order=\"\(order)\"><td>\(e(group.label))</td><td>\(e(Format.systemName(system)))</td>"
                    out += "<td class=\"num\" data-sort=\"\(group.utterances)\">\(group.utterances)</td>"
                    out += "<td class=\"num\" data-sort=\"\(group.referenceWords)\">\(group.referenceWords)</td>"
                    out += rate(group.wordErrorRate, group.wordErrorRateInterval, measured: true)
                    out += rate(
                        group.boostedWordErrorRate, group.boostedWordErrorRateInterval,
                        measured: group.boostedReferenceWords != nil)
                    out += "</tr>"
                }
                out += "</tbody></table>"
            }
            out += "</div>"
        }
        if !any {
            out += "<p class=\"note\">No corpus has two or more speakers, voices or conditions to compare.</p>"
        }
        return out + "</section>\n"
    }

    /// The utterances, each with every system's alignment, and filters to pick them out.
    ///
    /// Layout: `<section id="utterances">` opens with a filter bar (corpus; term, from every variant's scored terms
    /// normalized; "errors only"; "changed by customization"; a count) and a key to the word marks. Per corpus, for the
    /// first ``Options/maximumUtterancesPerCorpus`` utterances of its first system, an `<article class="utt">` whose
    /// `data-` attributes feed the filters (corpus; any error or failure; a customized system heard otherwise than its
    /// recognizer's baseline; the terms in the reference): a head (id, corpus tag, speaker, length, audio player, or a
    /// note when the file name holds a private term), the reference with biased words marked (its biasing list, else
    /// every boosted word), and a line per system (swatch, name, WER, failure note, words by ``token(_:boosted:)``). A
    /// note counts any utterances left to the JSON report.
    func utterances() -> String {
        var out = "<section id=\"utterances\"><h2>Utterances</h2><div class=\"filters\">"
        out += "<select id=\"f-corpus\" aria-label=\"Corpus\"><option value=\"\">All corpora</option>"
        for corpus in results.corpora { out += "<option value=\"\(e(corpus.name))\">\(e(corpus.name))</option>" }
        out += "</select><select id=\"f-term\" aria-label=\"Term\"><option value=\"\">All terms</option>"
        let normalizer = results.run.settings.normalizer
        var allTerms: [String] = []
        for variant in results.variants {
            for term in variant.scoredTerms {
                let words = normalizer.normalize(term).joined(separator: " ")
                if !words.isEmpty && !allTerms.contains(words) { allTerms.append(words) }
            }
        }
        for term in allTerms { out += "<option value=\"\(e(term))\">\(e(term))</option>" }
        out += "</select><label><input type=\"checkbox\" id=\"f-errors\"> errors only</label>"
        out += "<label><input type=\"checkbox\" id=\"f-changed\"> changed by customization</label>"
        out += "<span class=\"sub\" id=\"f-count\"></span><span class=\"keys\">"
        out += "<span><span class=\"op s\"><s>ref</s>hyp</span> substitution</span>"
        out +=
            "<span><span class=\"op d\"><s>ref</s></span> deletion</span><span><span class=\"op i\">+hyp</span> insertion</span>"
        out += "<span><span class=\"w b\">term</span> boosted</span></span></div>\n"
        var boosted = Set<String>()
        for variant in results.variants { boosted.formUnion(variant.boostedWords.flatMap(normalizer.normalize)) }
        let termWords = allTerms.map { $0.split(separator: " ").map(String.init) }
        for corpus in results.corpora {
            let systems = results.systems.filter { $0.corpus == corpus.name }
            guard let first = systems.first else { continue }
            var bySystem: [[String: UtteranceRecord]] = []
            for system in systems {
                var map: [String: UtteranceRecord] = [:]
                for record in system.utterances { map[record.id] = record }
                bySystem.append(map)
            }
            for record in first.utterances.prefix(options.maximumUtterancesPerCorpus) {
                let rows = zip(systems, bySystem).compactMap { system, map in map[record.id].map { (system, $0) } }
                let hasErrors = rows.contains { $0.1.counts.errors > 0 || $0.1.failure != nil }
                // Changed: a customized system heard it otherwise than its own recognizer's baseline.
                let changed = rows.contains { system, row in
                    system.mode == .customized
                        && row.hypothesis
                            != rows.first { $0.0.mode == .baseline && $0.0.recognizer == system.recognizer }?.1
                            .hypothesis
                }
                let referenceWords = record.alignment.compactMap(\.reference)
                let present = zip(allTerms, termWords).filter { contains(referenceWords, $0.1) }.map(\.0)
                out +=
                    "<article class=\"utt\" id=\"\(e(Self.anchor(corpus: corpus.name, utterance: record.id)))\" "
                    + "data-corpus=\"\(e(corpus.name))\" data-errors=\"\(hasErrors ? 1 : 0)\" "
                    + "data-changed=\"\(changed ? 1 : 0)\" data-terms=\"|\(e(present.joined(separator: "|")))|\">"
                out += "<div class=\"utt-head\"><span class=\"id\">\(e(record.id))</span>"
                out += "<span class=\"tag \(corpus.role == .domain ? "domain" : "anti")\">\(e(corpus.name))</span>"
                out += "<span class=\"sub\">\(record.speaker.map { e($0) + " · " } ?? "")"
                out += "\(String(format: "%.1f s", record.audioSeconds))</span>"
                if PrivateTermMasker.containsMask(record.audioPath) {
                    // The file's real name holds a private term; a link to it would print the term.
                    out += "<span class=\"withheld\" title=\"\(e(record.audioPath))\">audio withheld: its file name "
                    out += "holds a private term</span></div>"
                } else {
                    out += "<audio controls preload=\"none\" src=\"\(e(audioSource(record.audioPath)))\"></audio></div>"
                }
                out +=
                    "<div class=\"line\"><span class=\"who\">reference</span><span class=\"wer\"></span><span class=\"words\">"
                // With a biasing list, the words B-WER counts are the utterance's own biased words.
                let marked = record.scoredBoostedWords(global: boosted, normalizer: normalizer) ?? []
                out += referenceWords.map { "<span class=\"w\(marked.contains($0) ? " b" : "")\">\(e($0))</span>" }
                    .joined(separator: " ")
                out += "</span></div>"
                for (system, row) in rows {
                    let color =
                        system.recognizer == nil
                        ? Charts.color(system.mode, variant: system.variant, variants: results.variants.map(\.name))
                        : Charts.externalColor
                    out +=
                        "<div class=\"line\"><span class=\"who\"><span class=\"swatch\" style=\"background:\(color)\"></span>"
                    out +=
                        "\(e(Format.systemName(system)))</span><span class=\"wer\">\(Format.percent(row.wordErrorRate, digits: 0))</span>"
                    out += "<span class=\"words\">"
                    if let failure = row.failure {
                        let kind = row.failureKind.map { " (\($0.label))" } ?? ""
                        out += "<span class=\"failed-note\">decode failed\(kind): \(e(failure))</span> "
                    }
                    out += row.alignment.map { token($0, boosted: marked) }.joined(separator: " ")
                    out += "</span></div>"
                }
                out += "</article>\n"
            }
            if first.utterances.count > options.maximumUtterancesPerCorpus {
                out +=
                    "<p class=\"note\">\(first.utterances.count - options.maximumUtterancesPerCorpus) more utterances of "
                    + "\(e(corpus.name)) are in the JSON report.</p>"
            }
        }
        return out + "</section>\n"
    }

    func provenance() -> String {
        let r = results
        var rows: [(String, String)] = [
            ("Suite", "\(r.run.suite.name) — \(r.run.suite.path)"), ("Suite content hash", r.run.suite.contentHash),
            ("Created", r.run.createdAt), ("gambit", r.run.gambitVersion),
            ("Engine", "\(r.run.engine.name) \(r.run.engine.version)"),
            ("Acoustic model", r.run.engine.acousticModelPath),
            ("Acoustic model fingerprint", r.run.engine.acousticModelFingerprint),
            (
                "Decoder arguments",
                r.run.engine.decoderArguments.isEmpty
                    ? "(defaults)" : r.run.engine.decoderArguments.joined(separator: " ")
            ),
            ("Workers", String(r.run.settings.workers)), ("Normalization", r.run.settings.normalization),
            ("Alignment", r.run.settings.alignmentMode.rawValue),
            ("Bootstrap", "\(r.run.settings.bootstrap.resamples) resamples, seed \(r.run.settings.bootstrap.seed)"),
            ("Network denial", "\(r.networkDenial.method) — \(r.networkDenial.verified ? "verified" : "NOT verified")"),
            ("Network evidence", r.networkDenial.detail),
        ]
        if let shard = r.run.shard { rows.append(("Shard", "\(shard.index + 1) of \(shard.count)")) }
        for v in r.variants {
            rows.append(("Variant \(v.name)", "\(v.trainingDataFile) · \(v.artifactFingerprint)"))
        }
        var out = "<section id=\"run\"><h2>Run</h2><div class=\"card\"><dl class=\"run\">"
        for (key, value) in rows { out += "<dt>\(e(key))</dt><dd>\(e(value))</dd>" }
        return out + "</dl></div></section>\n"
    }

    // MARK: Helpers

    func token(_ pair: AlignedPair, boosted: Set<String>) -> String {
        let isBoosted =
            (pair.reference.map(boosted.contains) ?? false) || (pair.hypothesis.map(boosted.contains) ?? false)
        let b = isBoosted ? " b" : ""
        switch pair.operation {
        case .correct:
            return "<span class=\"w\(b)\">\(e(pair.hypothesis ?? ""))</span>"
        case .substitution:
            return
                "<span class=\"op s\(b)\" title=\"substitution: \(e(pair.reference ?? "")) → \(e(pair.hypothesis ?? ""))\">"
                + "<s>\(e(pair.reference ?? ""))</s>\(e(pair.hypothesis ?? ""))</span>"
        case .deletion:
            return "<span class=\"op d\(b)\" title=\"deletion\"><s>\(e(pair.reference ?? ""))</s></span>"
        case .insertion:
            return "<span class=\"op i\(b)\" title=\"insertion\">+\(e(pair.hypothesis ?? ""))</span>"
        }
    }

    func duration(_ seconds: Double) -> String {
        if seconds < 120 { return String(format: "%.1f s", seconds) }
        if seconds < 7_200 { return String(format: "%.1f min", seconds / 60) }
        return String(format: "%.1f h", seconds / 3_600)
    }

    func audioSource(_ path: String) -> String {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        guard let prefix = options.audioPrefix, !path.hasPrefix("/") else { return encoded }
        return prefix + "/" + encoded
    }

    func contains(_ words: [String], _ term: [String]) -> Bool {
        guard !term.isEmpty, term.count <= words.count else { return false }
        for start in 0...(words.count - term.count) where Array(words[start..<start + term.count]) == term {
            return true
        }
        return false
    }

    func e(_ text: String) -> String { Format.escape(text) }
}
