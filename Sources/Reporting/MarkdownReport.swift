import Results
import Scoring

/// A short Markdown summary for a pull-request comment or a CI job summary (`$GITHUB_STEP_SUMMARY`).
public struct MarkdownReport: Sendable {
    public var results: RunResults

    /// - Parameter results: Results to render; redact them first (``Reporter`` does).
    public init(_ results: RunResults) { self.results = results }

    /// The Markdown text.
    ///
    /// Layout: a `##` heading with ✅ or ❌ (every applicable check passed) and the suite name; a quote when the results
    /// are partial; one line of checks passed, warnings, skipped, engine, on-device verification and date. Then per
    /// corpus with a baseline: a `###` heading (role, utterances, baseline WER), a line per uncustomized external
    /// recognizer, the biasing-list note, and, if variants were compared, a table of each one's WER, B-WER and U-WER
    /// with Δ and 95% interval (✱ significant), keyword F1, false alarms and oracle gain. Then the Δ legend, ``breakdowns(_:)``,
    /// ``diagnosis(_:)``, the checks table (if any checks) and the cost table (RTF, RTFx, p50 / p95 final latency,
    /// peak RSS, failures per system).
    public func render() -> String {
        var out = ""
        func line(_ text: String = "") { out += text + "\n" }
        let applicable = results.checks.filter { !$0.isSkipped }
        let allPassed = applicable.allSatisfy(\.passed)
        line("## \(allPassed ? "✅" : "❌") Gambit — \(Self.inline(results.run.suite.name))")
        line()
        if let partial = results.run.partial {
            line("> ⚠️ **Partial results:** \(partial.detail).")
            line()
        }
        let denial = results.networkDenial
        line(
            "\(applicable.filter(\.passed).count) of \(applicable.count) checks passed"
                + (results.checks.contains(where: \.isWarning)
                    ? ", \(results.checks.filter(\.isWarning).count) with warnings" : "")
                + (applicable.count < results.checks.count
                    ? ", \(results.checks.count - applicable.count) skipped" : "")
                + " · \(results.run.engine.name) "
                + "\(results.run.engine.version) · on-device: \(denial.verified ? "verified" : "not verified") "
                + "(\(denial.method)) · \(results.run.createdAt)")
        checks(line)
        for corpus in results.corpora {
            let comparisons = results.comparisons.filter { $0.corpus == corpus.name }
            guard let baseline = results.system(corpus: corpus.name, mode: .baseline) else {
                uncompared(corpus, line)
                continue
            }
            line()
            line(
                "### \(Self.inline(corpus.name)) · \(corpus.role == .domain ? "domain" : "anti-context") · "
                    + "\(corpus.utteranceCount) utterances · baseline WER \(Format.percent(baseline.metrics.rates.wordErrorRate))"
            )
            for external in results.systems
            where external.corpus == corpus.name && external.recognizer != nil && external.mode == .baseline {
                line()
                line(
                    "Beside it, uncustomized: **\(Self.inline(external.recognizer!))** WER "
                        + "\(Format.percent(external.metrics.rates.wordErrorRate)) "
                        + "(\(Format.points(external.metrics.rates.wordErrorRate - baseline.metrics.rates.wordErrorRate)) "
                        + "against PocketSphinx's baseline), \(external.failures.failed) failed.")
            }
            if let lists = baseline.biasingLists {
                line()
                line(
                    "B-WER and U-WER over each utterance's own biasing list from the manifest: "
                        + "\(Self.inline(lists.sentence)).")
            }
            if comparisons.isEmpty, let oracle = results.system(corpus: corpus.name, mode: .oracle) {
                // Without a customized system there is no oracle-gain column to show it in; the floor is still news.
                line()
                line(
                    "Oracle (a grammar of the corpus's own sentences: the acoustic floor) WER "
                        + "\(Format.percent(oracle.metrics.rates.wordErrorRate)); no variant was decoded here, so there "
                        + "is no share of its gain to show.")
            }
            guard !comparisons.isEmpty else { continue }
            line()
            line(
                "| Variant | WER | ΔWER [95% CI] | B-WER | ΔB-WER [95% CI] | U-WER | ΔU-WER | Keyword F1 "
                    + "| False alarms, baseline → customized (Δ [95% CI]) | Oracle gain |")
            line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            for c in comparisons {
                func delta(_ interval: BootstrapInterval?) -> String {
                    guard let interval else { return "—" }
                    return
                        "\(Format.points(interval.observedDelta)) \(Format.interval(interval))"
                        + Format.mark(interval)
                }
                let wer =
                    "\(Format.points(c.deltaWER.observedDelta)) \(Format.interval(c.deltaWER))"
                    + Format.mark(significant: c.significant, tooFewUtterances: c.tooFewUtterances)
                let name = c.label
                line(
                    "| \(Self.inline(name)) | \(Format.percent(c.customized.wordErrorRate)) | \(wer) | "
                        + "\(Format.percent(c.customized.boostedWordErrorRate)) | \(delta(c.deltaBoostedWER)) | "
                        + "\(Format.percent(c.customized.unboostedWordErrorRate)) | \(delta(c.deltaUnboostedWER)) | "
                        + "\(Format.decimal(c.customized.keywordF1)) | \(Format.falseAlarms(c)) | "
                        + "\(c.oracleGainCaptured.map { Format.percent($0, digits: 0) } ?? "—") |")
            }
        }
        line()
        line(
            "Keyword F1 counts a boosted word as heard only where the reference has it (the aligned position); a "
                + "false alarm is a boosted word heard where the reference does not have it, per hour of audio.")
        line()
        line(
            "Δ in percentage points (false alarms: per hour), customized − baseline (negative is better"
                + (results.comparisons.contains { $0.recognizer != nil }
                    ? "; `variant @ recognizer` against that recognizer's own baseline" : "")
                + "); ✱ significant at 95%"
                + (results.comparisons.contains { $0.tooFewUtterances != nil } ? "; \(Format.tooFewLegend)." : "."))
        breakdowns(line)
        diagnosis(line)
        line()
        line("### Cost")
        line()
        line("| System | RTF | RTFx | p50 / p95 final latency | Peak RSS | Failed |")
        line("|---|---:|---:|---:|---:|---:|")
        for system in results.systems {
            let t = system.timing
            line(
                "| \(Self.inline(system.key)) | \(Format.realTimeFactor(t)) | "
                    + "\(Format.realTimeFactor(t, inverse: true).replacingOccurrences(of: "×", with: "")) | "
                    + "\(Format.seconds(t.finalLatency?.p50)) / \(Format.seconds(t.finalLatency?.p95)) | "
                    + "\(Format.decimal(t.peakResidentMegabytes, digits: 0)) MB | \(system.failures.failed) |")
        }
        latency(line)
        return out
    }

    /// Latency per streamed system: first partial from speech onset, final after the audio (p50, p95 with its interval,
    /// p99), end of speech detected, and missing finals; a recognizer that does not stream, its whole-utterance time.
    private func latency(_ line: (String) -> Void) {
        let systems = results.systems.filter { $0.timing.streaming != nil || $0.timing.wholeUtterance != nil }
        guard !systems.isEmpty else { return }
        line("")
        line("### Latency")
        line("")
        line(
            "| System | Streamed | n | First partial from speech p50 / p95 | Final p50 / p95 [95% CI] / p99 | End of speech detected p50 (n) | Missing finals |"
        )
        line("|---|---|---:|---:|---:|---:|---:|")
        func final(_ p: Percentiles?) -> String {
            guard let p else { return "—" }
            let interval = p.p95Interval.map { " [\(Format.milliseconds($0.first)), \(Format.milliseconds($0.last))]" }
            return "\(Format.milliseconds(p.p50)) / \(Format.milliseconds(p.p95))\(interval ?? "") / "
                + Format.milliseconds(p.p99)
        }
        for system in systems {
            let t = system.timing
            guard let s = t.streaming else {
                line(
                    "| \(Self.inline(system.key)) | whole utterance (does not stream) | \(t.wholeUtterance?.count ?? 0) | — | \(final(t.wholeUtterance)) | — | — |"
                )
                continue
            }
            let onset = s.firstPartialAfterOnset.map {
                "\(Format.milliseconds($0.p50)) / \(Format.milliseconds($0.p95))"
            }
            let endpoint = s.endpointLatency.map { "\(Format.milliseconds($0.p50)) (\(s.endpointsDetected))" }
            line(
                "| \(Self.inline(system.key)) | \(s.pacing == "realTime" ? "real-time paced" : s.pacing) | \(s.streamed) | "
                    + "\(onset ?? "—") | \(final(t.finalLatency)) | \(endpoint ?? "not detected") | \(s.missingFinals) |"
            )
        }
    }

    /// WER and B-WER per speaker, voice and condition: one folded block per corpus, one table per label.
    private func breakdowns(_ line: (String) -> Void) {
        var headed = false
        for corpus in results.corpora {
            let tables = Format.breakdowns(of: results.systems.filter { $0.corpus == corpus.name })
            guard !tables.isEmpty else { continue }
            if !headed {
                line("")
                line("### By speaker, voice and condition")
                line("")
                line("WER and B-WER with 95% bootstrap intervals over each group's utterances, in percent.")
                headed = true
            }
            line("")
            line(
                // Inside raw HTML Markdown escapes do not apply, so the name is escaped as HTML.
                "<details><summary>\(Format.escape(Self.oneLine(corpus.name))): by "
                    + tables.map(\.field).joined(separator: ", ") + "</summary>")
            for table in tables {
                line("")
                line("| \(table.field.capitalized) | System | Utts | WER [95% CI] | B-WER [95% CI] |")
                line("|---|---|---:|---:|---:|")
                for (system, group) in table.rows {
                    line(
                        "| \(Self.inline(group.label)) | \(Self.inline(Format.systemName(system))) | "
                            + "\(group.utterances) | \(Format.rate(group.wordErrorRate, group.wordErrorRateInterval)) | "
                            + (group.boostedReferenceWords == nil
                                ? "—" : Format.rate(group.boostedWordErrorRate, group.boostedWordErrorRateInterval))
                            + " |")
                }
            }
            line("")
            line("</details>")
        }
    }

    /// Why the boosted-word errors happened (`gambit diagnose`): per variant its sentence and a folded table of
    /// its terms. Nothing until the run is diagnosed.
    private func diagnosis(_ line: (String) -> Void) {
        guard let report = results.diagnosis, !report.variants.isEmpty else { return }
        line("")
        line("### Diagnosis")
        line("")
        for variant in report.variants {
            var suggested = ""
            if let suggestions = variant.suggestions, !suggestions.isEmpty {
                suggested =
                    " Suggested (\(Self.inline(suggestions.provenance))): \(suggestions.tally) "
                    + "(the patch is in the run's suggestions folder)."
            }
            line("- **\(Self.inline(variant.variant))**: \(Self.inline(variant.sentence)).\(suggested)")
        }
        for variant in report.variants where !variant.terms.isEmpty {
            line("")
            line(
                "<details><summary>\(Format.escape(Self.oneLine(variant.variant))): "
                    + "\(variant.terms.count) terms</summary>")
            line("")
            line("| Term | Said | Errors | Causes | Smallest fix |")
            line("|---|---:|---:|---|---|")
            for term in variant.terms {
                line(
                    "| \(Self.inline(term.word)) | \(term.occurrences) | \(term.errors) | \(cell(term.causes)) | "
                        + "\(cell(term.smallestFix(cost: variant.antiContext) ?? "—")) |")
            }
            line("")
            line("</details>")
        }
    }

    /// The checks, before any number: each failed or warned one with its message, then one line per family with
    /// its count, which opens to the family's table.
    private func checks(_ line: (String) -> Void) {
        guard !results.checks.isEmpty else { return }
        let summary = CheckSummary(results.checks)
        line("")
        line("### Checks")
        line("")
        for check in summary.attention {
            line("- \(check.passed ? "⚠️" : "❌") **\(Self.inline(check.name))**: \(Self.inline(check.message))")
        }
        if !summary.attention.isEmpty { line("") }
        for group in summary.groups {
            let icon = [.failed: "❌", .warned: "⚠️", .skipped: "⏭️", .passed: "✅"][group.state]!
            line("<details><summary>\(icon) \(Format.escape(Self.oneLine(group.line)))</summary>")
            line("")
            line("| | Check | Measured | Threshold | Details |")
            line("|---|---|---:|---:|---|")
            for check in group.checks {
                line(
                    "| \(check.isSkipped ? "⏭️" : check.isWarning ? "⚠️" : check.passed ? "✅" : "❌") | \(Self.inline(check.name)) | "
                        + "\(Format.measure(check.measured, unit: check.unit)) | "
                        + "\(Format.measure(check.threshold, unit: check.unit)) | \(Self.inline(check.message)) |")
            }
            line("")
            line("</details>")
        }
    }

    private func cell(_ text: String) -> String {
        Self.oneLine(text).replacingOccurrences(of: "|", with: "\\|")
    }

    /// A name (suite, corpus, variant, recognizer) as literal inline Markdown: every character Markdown
    /// or a table would read as markup (`|`, `*`, `_`, `[`, `<`, …) is backslash-escaped, and line breaks
    /// and other control characters become spaces, so a name can neither end a table row nor a heading.
    /// A corpus decoded without PocketSphinx's baseline (`modes: [customized]`): its systems' WER, since there is
    /// nothing to compare them with, rather than nothing at all.
    private func uncompared(_ corpus: CorpusInfo, _ line: (String) -> Void) {
        let systems = results.systems.filter { $0.corpus == corpus.name }
        guard !systems.isEmpty else { return }
        line("")
        line(
            "### \(Self.inline(corpus.name)) · \(corpus.role == .domain ? "domain" : "anti-context") · "
                + "\(corpus.utteranceCount) utterances · no baseline decoded")
        line("")
        let named = systems.map { system in
            let own =
                system.mode == .customized
                ? "customized "
                    + Comparison.label(system.variant ?? "", recognizer: system.recognizer, list: system.list?.name)
                : system.mode.rawValue + (system.recognizer.map { " @ \($0)" } ?? "")
            return (own, system.metrics.rates.wordErrorRate)
        }
        line(
            "The suite's modes leave out baseline, so nothing here is a change from it: "
                + named.map { "\(Self.inline($0.0)) WER \(Format.percent($0.1))" }.joined(separator: ", ") + ".")
    }

    static func inline(_ name: String) -> String {
        var out = ""
        for character in oneLine(name) {
            if "\\`*_[]<>|~&#!".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// The text on one line: control characters (line breaks, tabs) become spaces.
    static func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
