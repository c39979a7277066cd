import Foundation
import Results
import Scoring

extension HTMLReport {
    /// How a comparison's customization reached its recognizer: PocketSphinx's custom language model, another
    /// recognizer's own customization (its prepare command), or a phrase list Gambit derived.
    static func lever(of comparison: Comparison) -> String {
        if let list = comparison.list {
            let size =
                list.terms.map { "\($0) of \(list.termsBeforeCut) terms" }
                ?? String(format: "%.1f terms each on average", list.meanLength)
            let distractors = list.distractors > 0 ? ", +\(list.distractors) distractors" : ""
            return "\(list.mode) phrase list (\(size)\(distractors))"
        }
        return comparison.recognizer == nil ? "custom language model" : "its own customization"
    }

    /// Every customization of every recognizer on each domain corpus, side by side: which lever helps the domain,
    /// each against its own recognizer's baseline with its paired interval. Shown when some recognizer besides
    /// PocketSphinx was customized.
    func levers() -> String {
        guard results.comparisons.contains(where: { $0.recognizer != nil }) else { return "" }
        var out = "<section id=\"levers\"><h2>Levers</h2>"
        out +=
            "<p class=\"note\">Each customization against its own recognizer's baseline on the same audio: "
            + "PocketSphinx's custom language model, another recognizer's own customization, and the phrase lists "
            + "Gambit derives (a global list is the variant's terms by count; a local list is each utterance's "
            + "own terms, which knows what is said). Δ is customized − baseline with its paired 95% interval; "
            + "✱ marks a change whose interval excludes 0.</p>"
        for corpus in results.corpora where corpus.role == .domain {
            let comparisons = results.comparisons.filter { $0.corpus == corpus.name }
            guard !comparisons.isEmpty else { continue }
            out += "<div class=\"card\"><div class=\"card-head\"><h3>\(e(corpus.name))</h3>"
            out += "<span class=\"sub\">\(corpus.utteranceCount) utterances · \(e(corpus.split)) split</span></div>"
            out += "<table><thead><tr><th>Recognizer</th><th>Lever</th><th>Variant</th>"
            out += "<th class=\"num\">B-WER</th><th class=\"num\">ΔB-WER · 95% CI</th>"
            out += "<th class=\"num\">Keyword F1</th><th class=\"num\">False alarms</th>"
            out += "<th class=\"num\">ΔWER · 95% CI</th></tr></thead><tbody>"
            for c in comparisons {
                func from(_ value: String?) -> String {
                    value.map { "<span class=\"from\">from \($0)</span>" } ?? ""
                }
                out += "<tr data-lever=\"\(e(c.label))\"><td>\(e(c.recognizer ?? results.run.engine.name))</td>"
                out += "<td>\(e(Self.lever(of: c)))</td><td>\(e(c.variant))</td>"
                out += "<td class=\"num\">\(Format.percent(c.customized.boostedWordErrorRate))"
                out += from(c.baseline.boostedWordErrorRate.map { Format.percent($0) }) + "</td>"
                out += "<td class=\"num\">\(c.deltaBoostedWER.map { delta($0) } ?? "—")</td>"
                out += "<td class=\"num\">\(c.customized.keywordF1.map { Format.decimal($0) } ?? "—")"
                out += from(c.baseline.keywordF1.map { Format.decimal($0) }) + "</td>"
                out += "<td class=\"num\">\(c.customized.falseAlarmsPerHour.map { Format.perHour($0) } ?? "—")"
                out += from(c.baseline.falseAlarmsPerHour.map { Format.perHour($0) })
                out +=
                    (c.deltaFalseAlarmsPerHour.map { $0.lower == 0 && $0.upper == 0 ? "" : "<br>" + perHourDelta($0) }
                        ?? "") + "</td>"
                out +=
                    "<td class=\"num\">"
                    + delta(c.deltaWER, significant: c.significant, tooFewUtterances: c.tooFewUtterances) + "</td></tr>"
            }
            out += "</tbody></table></div>\n"
        }
        return out + "</section>\n"
    }

    /// The list sweep (`gambit sweep --lists`): the curve, every point with its keyword figures, false alarms and
    /// anti-context checks, and the recommended length as judged on the test split.
    func listSweep() -> String {
        guard let sweep = results.listSweep else { return "" }
        var out = "<div class=\"card wide\" id=\"list-sweep\"><h3>List sweep · \(e(sweep.recognizer)) with "
        out += "\(e(sweep.variant))'s terms on \(e(sweep.corpus)) (\(e(sweep.split)))</h3>"
        out += Charts.listSweep(sweep)
        out += "<div class=\"legend\">"
        for (_, name, color) in Charts.listSweepLegend(sweep) {
            out += "<span><i style=\"background:\(color)\"></i>\(e(name))</span>"
        }
        out += "</div>"
        if let r = sweep.recommendation {
            let t = r.test
            out +=
                "<p class=\"note\">Recommended: \(r.length) \(e(sweep.unit)), \(e(r.reason)). On the "
                + "\(e(r.testSplit)) split: B-WER \(Format.percent(t.customized.boostedWordErrorRate)) (baseline "
                + "\(Format.percent(t.baseline.boostedWordErrorRate))), keyword F1 "
                + "\(t.customized.keywordF1.map { Format.decimal($0) } ?? "—") (baseline "
                + "\(t.baseline.keywordF1.map { Format.decimal($0) } ?? "—")), false alarms "
                + "\(t.customized.falseAlarmsPerHour.map { Format.perHour($0) } ?? "—") (baseline "
                + "\(t.baseline.falseAlarmsPerHour.map { Format.perHour($0) } ?? "—")); ΔWER "
                + delta(t.deltaWER, significant: t.significant, tooFewUtterances: t.tooFewUtterances) + "</p>"
        }
        out += "<table><thead><tr><th class=\"num\">Length</th><th class=\"num\">Terms</th>"
        out += "<th class=\"num\">Distractors</th><th class=\"num\">B-WER</th><th class=\"num\">ΔB-WER · 95% CI</th>"
        out += "<th class=\"num\">Recall</th><th class=\"num\">Precision</th><th class=\"num\">F1</th>"
        out +=
            "<th class=\"num\">False alarms (domain / anti-context)</th><th>Anti-context checks</th></tr></thead><tbody>"
        for point in sweep.points {
            let mark = point.length == sweep.recommendation?.length && point.distractors == 0 ? " ◆" : ""
            out += "<tr><td class=\"num\">\(point.length)\(mark)</td><td class=\"num\">\(point.terms)</td>"
            out += "<td class=\"num\">\(point.distractors)</td>"
            out += "<td class=\"num\">\(Format.percent(point.domain.customized.boostedWordErrorRate))</td>"
            out += "<td class=\"num\">\(point.domain.deltaBoostedWER.map { delta($0) } ?? "—")</td>"
            for value in [point.recall, point.precision, point.f1] {
                out += "<td class=\"num\">\(value.map { Format.decimal($0) } ?? "—")</td>"
            }
            out +=
                "<td class=\"num\">\(point.domain.customized.falseAlarmsPerHour.map { Format.perHour($0) } ?? "—") / "
                + "\(point.antiContextFalseAlarmsPerHour.map { Format.perHour($0) } ?? "—")</td>"
            let checks = point.antiContext.map {
                "\($0.corpus) \(Format.points($0.deltaWER.observedDelta))\($0.passed ? "" : " ✗")"
            }
            out +=
                "<td>\(e(checks.isEmpty ? "—" : (point.passesAntiContext ? "pass: " : "fails: ") + checks.joined(separator: ", ")))</td></tr>"
        }
        out += "</tbody></table>"
        out +=
            "<p class=\"note\">Every point is the variant's global list cut at its length (\(sweep.termsAvailable) "
            + "terms in all, so a longer length gives no more), decoded in full on the \(e(sweep.split)) split and "
            + "compared with the recognizer's baseline on the same audio. Distractors: \(e(sweep.distractorSource)), "
            + "mixed among the terms.</p></div>"
        return out
    }
}
