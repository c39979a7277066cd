import Foundation
import Results
import Scoring

extension HTMLReport {
    /// Why each boosted-word error happened (`gambit diagnose`): per variant its sentence, the errors by cause,
    /// the terms with their smallest fixing change, and each utterance's aligned customized decode with the
    /// cause and evidence beside each error. Empty until the run is diagnosed.
    func diagnosis() -> String {
        guard let report = results.diagnosis else { return "" }
        var out = "<section id=\"diagnosis\"><h2>Diagnosis</h2>"
        out +=
            "<p class=\"note\">Each boosted-word error of the customized decodes, explained by the engine: the "
            + "lattice the run kept (or the utterance decoded again), the reference force-aligned, the lattice "
            + "rescored at other weights. Posteriors are the lattice's, near where the word was said. Suggestions "
            + "are what to change in the training data, learned on the corpora and splits named.</p>"
        let normalizer = results.run.settings.normalizer
        for variant in report.variants {
            let counts = variant.byCause
            out += "<div class=\"card\"><div class=\"card-head\"><h3>\(e(variant.variant))</h3>"
            out += "<span class=\"sub\">weight \(TermDiagnosis.weight(variant.weight))"
            if !variant.utterances.isEmpty {
                out +=
                    " · \(variant.examined) in \(Format.seconds(variant.diagnoseSeconds)) "
                    + "(their customized decode: \(Format.seconds(variant.decodeSeconds)))"
            }
            out += "</span></div>"
            out +=
                "<p class=\"diag-sentence\">\(e(variant.sentence.prefix(1).uppercased() + variant.sentence.dropFirst())).</p>"
            if !counts.isEmpty {
                out += "<div class=\"causes\">"
                for cause in ErrorCause.allCases {
                    guard let count = counts[cause] else { continue }
                    out += "<span class=\"cause \(cause.rawValue)\">\(count) \(e(cause.phrase))</span>"
                }
                out += "</div>"
            }
            guard !variant.terms.isEmpty else {
                out += "</div>"
                continue
            }
            out += "<table><thead><tr><th>Term</th><th class=\"num\">Said</th><th class=\"num\">Errors</th>"
            out += "<th>Causes</th><th>Smallest fix</th></tr></thead><tbody>"
            for term in variant.terms {
                out += "<tr><td><span class=\"w b\">\(e(term.word))</span></td>"
                out += "<td class=\"num\">\(term.occurrences)</td><td class=\"num\">\(term.errors)</td>"
                out +=
                    "<td>\(e(term.causes))</td><td>\(e(term.smallestFix(cost: variant.antiContext) ?? "—"))</td></tr>"
            }
            out += "</tbody></table>"
            out += suggestions(variant)
            out += "<details class=\"diag-utts\"><summary>\(variant.utterances.count) utterances</summary>"
            for utterance in variant.utterances {
                let record = results.system(corpus: utterance.corpus, mode: .customized, variant: variant.variant)?
                    .utterances.first { $0.id == utterance.id }
                let boosted = Set(utterance.diagnoses.map(\.error.word))
                let role = results.corpus(named: utterance.corpus)?.role == .antiContext ? "anti" : "domain"
                out += "<div class=\"diag-utt\"><div class=\"utt-head\"><span class=\"id\">\(e(utterance.id))</span>"
                out += "<span class=\"tag \(role)\">\(e(utterance.corpus))</span></div>"
                out += "<div class=\"line\"><span class=\"who\">customized</span>"
                out += "<span class=\"wer\">\(record.map { Format.percent($0.wordErrorRate, digits: 0) } ?? "")</span>"
                out += "<span class=\"words\">"
                if let record {
                    out += record.alignment.map { token($0, boosted: boosted) }.joined(separator: " ")
                } else {
                    out += e(normalizer.normalize(utterance.hypothesis).joined(separator: " "))
                }
                out += "</span></div><ul>"
                for diagnosis in utterance.diagnoses {
                    out += "<li><span class=\"cause \(diagnosis.cause.rawValue)\">\(e(diagnosis.cause.phrase))</span> "
                    out += "<b>\(e(diagnosis.label))</b>: \(e(diagnosis.evidence))</li>"
                }
                out += "</ul></div>"
            }
            out += "</details></div>"
        }
        return out + "</section>\n"
    }

    /// What the diagnosis suggests changing in the variant's training data, and where it was learned.
    func suggestions(_ variant: VariantDiagnosis) -> String {
        guard let suggestions = variant.suggestions, !suggestions.isEmpty || !suggestions.examined.isEmpty else {
            return ""
        }
        var out = "<h4>Suggestions <span class=\"sub\">\(e(suggestions.provenance))"
        if !suggestions.isEmpty { out += " · the patch is in the run's suggestions folder" }
        out += "</span></h4>"
        out += "<table><thead><tr><th>Change</th><th>Why</th></tr></thead><tbody>"
        for found in suggestions.pronunciations {
            out += "<tr><td><span class=\"w b\">\(e(found.word))</span> add <code>\(e(found.xsampa))</code></td>"
            out += "<td>\(e(found.evidence))</td></tr>"
        }
        for count in suggestions.counts {
            out += "<tr><td>\(e(count.kind.rawValue)) “\(e(count.text))”: \(count.from) → \(count.to)</td>"
            out += "<td>\(e(count.evidence))</td></tr>"
        }
        for word in suggestions.examined.keys.sorted() {
            out += "<tr><td><span class=\"w b\">\(e(word))</span> keeps its pronunciations</td>"
            out += "<td>\(e(suggestions.examined[word]!))</td></tr>"
        }
        return out + "</tbody></table>"
    }
}
