import Formats
import Foundation

/// The result of scoring one hypothesis file against one reference file.
public struct ScoreReport: Sendable, Codable, Hashable {
    public var referenceFile: String
    public var hypothesisFile: String
    public var mode: AlignmentMode
    /// ``Normalizer/summary`` of the pipeline used.
    public var normalization: String
    /// Rates over every scored utterance.
    public var totals: Rates
    /// Whether ``Rates/characterErrorRate`` was computed.
    public var characterErrorRateComputed: Bool
    /// Rates per speaker, for utterances whose speaker is known.
    public var speakers: [SpeakerRates]
    /// Most frequent substitutions first.
    public var confusions: [ConfusionPair]
    /// Every scored utterance, in reference order.
    public var utterances: [UtteranceScore]
    /// The utterances with the most errors, aligned for display.
    public var worstUtterances: [AlignedUtterance]
    /// B-WER and U-WER, when boosted words were given (for the file or per utterance).
    public var boosted: BoostedWordErrorRates?
    /// The per-utterance biasing lists a biasing-list reference gave, summed over the scored utterances.
    public var biasingLists: BiasingListSummary?
    /// WER and B-WER per value of ``ScoringOptions/breakdownField``, when one was asked for.
    public var breakdown: Breakdown?
    /// Keywords scored by position and false alarms, when terms, boosted words or per-utterance lists were given:
    /// the same object, computed by the same code, as a run's system's `metrics.keywords`.
    public var keywords: KeywordMetrics?
    /// Errors per template class slot, when templates were given.
    public var slots: SlotErrorReport?
    public var unscored: UnscoredUtterances
    public var warnings: [ScoringWarning]

    /// The report's metrics as a run's system holds them.
    public var metrics: SystemMetrics {
        SystemMetrics(rates: totals, boosted: boosted, slots: slots, keywords: keywords)
    }

    /// A plain-text rendering: summary table, per-speaker table, customization metrics (B-WER, keywords scored by
    /// position, false alarms), top confusions and the worst utterances aligned.
    public var text: String {
        var out = ""
        func line(_ text: String = "") { out += text + "\n" }
        func percent(_ value: Double?) -> String { value.map { String(format: "%6.2f%%", $0 * 100) } ?? "no data" }
        let t = totals
        line("Reference:     \(referenceFile)")
        line("Hypothesis:    \(hypothesisFile)")
        line("Alignment:     \(mode == .sclite ? "sclite (sub 4, ins 3, del 3)" : "minimal (unit costs)")")
        line("Normalization: \(normalization)")
        line()
        line("| Utts   | Words   | Corr    | Sub     | Del     | Ins     | WER     | SER     | CER     |")
        line("|--------|---------|---------|---------|---------|---------|---------|---------|---------|")
        let c = t.counts
        line(
            String(
                format: "| %6ld | %7ld | %7ld | %7ld | %7ld | %7ld | ", t.utterances, c.referenceWords, c.correct,
                c.substitutions, c.deletions, c.insertions)
                + "\(percent(Rates.measured(c.errors, over: c.referenceWords))) | "
                + "\(percent(Rates.measured(t.utterancesWithErrors, over: t.utterances))) | "
                + "\(characterErrorRateComputed ? percent(Rates.measured(t.characterErrors, over: t.referenceCharacters)) : "    n/a") |"
        )
        line()
        line(
            "MER \(percent(Rates.measured(c.errors, over: c.correct + c.errors)).trimmingCharacters(in: .whitespaces))"
                + "   WIL \(percent(c.referenceWords == 0 ? nil : t.wordInformationLost).trimmingCharacters(in: .whitespaces))"
        )
        if unscored.onlyInReference + unscored.onlyInHypothesis + unscored.scoredAsEmpty > 0 {
            line(
                "Unscored: \(unscored.onlyInReference) only in reference, \(unscored.onlyInHypothesis) only in "
                    + "hypothesis; \(unscored.scoredAsEmpty) scored as empty")
        }
        if let boosted {
            line()
            line(
                "B-WER \(percent(boosted.boostedWordErrorRate)) (\(boosted.boostedErrors)/\(boosted.boostedReferenceWords))"
                    + "   U-WER \(percent(boosted.unboostedWordErrorRate)) "
                    + "(\(boosted.unboostedErrors)/\(boosted.unboostedReferenceWords))")
        }
        if let lists = biasingLists { line("Biasing lists: \(lists.sentence)") }
        if let keywords {
            line()
            out += keywords.text
        }
        if let slots {
            line()
            line(
                "Slot errors (\(slots.matchedUtterances) references matched a template, \(slots.unmatchedUtterances) did not)"
            )
            for slot in slots.classes {
                line("  <\(slot.className)>: \(slot.errors)/\(slot.occurrences) wrong (\(percent(slot.errorRate)))")
            }
        }
        if let breakdown {
            line()
            line(breakdown.text)
        } else if speakers.count > 1 {
            line()
            line("| Speaker          | Utts   | Words   | WER     |")
            line("|------------------|--------|---------|---------|")
            for speaker in speakers {
                line(
                    "| \(speaker.speaker.padding(to: 16)) | "
                        + String(
                            format: "%6ld | %7ld | ", speaker.rates.utterances, speaker.rates.counts.referenceWords)
                        + "\(percent(speaker.rates.wordErrorRate)) |")
            }
        }
        if !confusions.isEmpty {
            line()
            line("Top confusions (reference → hypothesis):")
            for pair in confusions.prefix(10) { line("  \(pair.count)× \(pair.reference) → \(pair.hypothesis)") }
        }
        if !worstUtterances.isEmpty {
            line()
            line("Worst utterances:")
            for utterance in worstUtterances {
                line()
                line(
                    "id: (\(utterance.id))  errors \(utterance.counts.errors), WER "
                        + percent(utterance.wordErrorRate).trimmingCharacters(in: .whitespaces))
                line("REF:  \(utterance.aligned.reference)")
                line("HYP:  \(utterance.aligned.hypothesis)")
                line("Eval: \(utterance.aligned.evaluation)")
            }
        }
        if !warnings.isEmpty {
            line()
            for warning in warnings { line(warning.description) }
        }
        return out
    }
}

extension SystemComparison {
    /// A plain-text rendering of both systems' totals and the significance tests.
    public var text: String {
        func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
        func signedPercent(_ value: Double) -> String { String(format: "%+.2f%%", value * 100) }
        var out = ""
        out += "A: \(systemA.hypothesisFile)  WER \(percent(systemA.totals.wordErrorRate))\n"
        out += "B: \(systemB.hypothesisFile)  WER \(percent(systemB.totals.wordErrorRate))\n"
        out += "Compared on \(commonUtterances) common utterances.\n\n"
        out +=
            String(
                format: "MAPSSWE: %ld segments, mean diff %.3f, Z %.3f, p %.4f — ", matchedPairs.segments,
                matchedPairs.meanDifference, matchedPairs.z, matchedPairs.pValue)
            + (matchedPairs.significant ? "significant at 0.05\n" : matchedPairs.verdict + "\n")
        out +=
            String(
                format: "McNemar (sentence errors): only A right %ld, only B right %ld, p %.4f — ",
                mcNemar.onlyACorrect, mcNemar.onlyBCorrect, mcNemar.pValue)
            + (mcNemar.significant ? "significant at 0.05\n" : mcNemar.verdict + "\n")
        for interval in [deltaWER] + (deltaBoostedWER.map { [$0] } ?? []) {
            out +=
                "Δ\(interval.metric) (B − A): \(signedPercent(interval.observedDelta)), 95% CI "
                + "[\(signedPercent(interval.lower)), \(signedPercent(interval.upper))] over \(interval.resamples) "
                + "resamples — \(interval.verdict)\n"
        }
        return out
    }
}

extension KeywordMetrics {
    /// The headline keyword figures and false alarms, then one row per term, for `gambit score`'s text.
    public var text: String {
        func percent(_ value: Double?) -> String { value.map { String(format: "%6.2f%%", $0 * 100) } ?? "no data" }
        func rate(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "no data" }
        let o = overall
        var out =
            "Keywords by position: F1 \(percent(o.f1).trimmingCharacters(in: .whitespaces)), "
            + "recall \(percent(o.recall).trimmingCharacters(in: .whitespaces)) (\(o.hits)/\(o.said)), "
            + "precision \(percent(o.precision).trimmingCharacters(in: .whitespaces)) (\(o.hits)/\(o.heard))\n"
        func interval(_ interval: RateInterval?) -> String {
            interval.map { String(format: " (95%% CI %.2f–%.2f)", $0.lower, $0.upper) } ?? ""
        }
        var alarms =
            "False alarms: \(o.falseAlarms), \(rate(falseAlarmsPer100Utterances)) per 100 utterances"
            + "\(interval(falseAlarmsPer100UtterancesInterval)), \(rate(falseAlarmsPerHour)) per hour"
            + interval(falseAlarmsPerHourInterval)
        if falseAlarmsPerHour == nil, audioSeconds == 0 {
            alarms += " (no audio lengths: give a manifest with audio or durations, or an stm reference)"
        }
        out += alarms + "\n\n"
        out += "| Term                           | Said | Heard | Hits | Recall  | Precis. | F1      | False al. |\n"
        out += "|--------------------------------|------|-------|------|---------|---------|---------|-----------|\n"
        for term in terms {
            out +=
                "| \(term.term.padding(to: 30)) | "
                + String(format: "%4ld | %5ld | %4ld | ", term.said, term.heard, term.hits)
                + "\(percent(term.recall)) | \(percent(term.precision)) | \(percent(term.f1)) | "
                + String(format: "%9ld |\n", term.falseAlarms)
        }
        return out
    }
}
