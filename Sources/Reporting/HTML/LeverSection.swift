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
}
