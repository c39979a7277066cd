public import Scoring

extension Aggregation {
    /// The labels a run breaks a system down by, in report order.
    public static let breakdownFields = ["speaker", "voice", "condition"]

    /// WER and B-WER of a system per speaker, voice and condition, each with a 95% bootstrap interval.
    ///
    /// A label no utterance has (a corpus without conditions) gives no breakdown. B-WER is broken down when the
    /// records carry boosted-word counts.
    /// - Parameters:
    ///   - records: The system's utterances, failed ones included (they score as all deletions).
    ///   - bootstrap: Resamples and seed, the run's.
    public static func breakdowns(of records: [UtteranceRecord], bootstrap: BootstrapOptions) -> [Breakdown] {
        let hasBoosted = records.contains { $0.boostedReferenceWords != nil }
        let boosted =
            hasBoosted
            ? (records.map { $0.boostedErrors ?? 0 }, records.map { $0.boostedReferenceWords ?? 0 }) : nil
        return breakdownFields.compactMap { field in
            let labels = records.map { record -> String? in
                switch field {
                case "speaker": record.speaker
                case "voice": voice(of: record.speaker)
                default: record.condition
                }
            }
            guard labels.contains(where: { $0 != nil }) else { return nil }
            return Breakdown(
                field: field, labels: labels, errors: records.map(\.counts.errors),
                referenceWords: records.map(\.counts.referenceWords), boosted: boosted, bootstrap: bootstrap)
        }
    }

    /// What kind of voice spoke: the synthesizer (`flite`, `espeak`) for a synthetic speaker, written as Gambit's
    /// corpora write them (`flite:slt`, `espeak:en-us+m3`), and `recorded` for any other named speaker; nil
    /// when the speaker is not known.
    public static func voice(of speaker: String?) -> String? {
        guard let speaker else { return nil }
        let parts = speaker.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return "recorded" }
        switch parts[0].lowercased() {
        case "flite": return "flite"
        case "espeak", "espeak-ng": return "espeak"
        default: return "recorded"
        }
    }
}
