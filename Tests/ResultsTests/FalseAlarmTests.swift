import Scoring
import Testing

@testable import Results

/// False alarms of boosted words, per hour and per 100 utterances, and their change against the baseline.
@Suite struct FalseAlarmTests {
    private let settings = RunSettings(workers: 1)

    /// Three utterances of 1,200 s each (an hour in all), spoken and heard as given.
    private func records(_ hypotheses: [String]) -> [UtteranceRecord] {
        let references = ["he ran the race", "play the albin counter gambit", "albin played the winawer"]
        return zip(references, hypotheses).enumerated().map { index, texts in
            var record = Aggregation.record(
                id: "u\(index)", index: index, audioPath: "u\(index).wav", reference: texts.0, hypothesis: texts.1,
                settings: settings)
            record.audioSeconds = 1200
            return record
        }
    }

    @Test("Boosted words heard where nobody said them are counted per term, per hour and per 100 utterances")
    func counted() throws {
        let heard = records(["he najdorf the race", "play the albin counter gambit", "winawer played the albin"])
        let metrics = Aggregation.metrics(
            of: heard, boostedWords: ["albin", "winawer", "najdorf"], terms: ["albin counter gambit"],
            normalizer: settings.normalizer, bootstrap: settings.bootstrap)
        let keywords = try #require(metrics.keywords)
        // najdorf for ran (1), winawer and albin swapped (2): 3 false alarms; albin said twice, heard at one of them.
        #expect(keywords.overall.falseAlarms == 3 && keywords.overall.said == 3 && keywords.overall.hits == 1)
        #expect(keywords.falseAlarmsPerHour == 3 && keywords.falseAlarmsPer100Utterances == 100)
        let interval = try #require(keywords.falseAlarmsPerHourInterval)
        #expect(interval.lower <= 3 && 3 <= interval.upper && interval.upper <= 9)
        let rows = Dictionary(uniqueKeysWithValues: keywords.terms.map { ($0.term, $0) })
        #expect(keywords.terms.map(\.term) == ["albin counter gambit", "albin", "najdorf", "winawer"])
        #expect(rows["albin counter gambit"]?.hits == 1 && rows["albin counter gambit"]?.falseAlarms == 0)
        #expect(rows["najdorf"]?.falseAlarms == 1 && keywords.falseAlarmUtterances["najdorf"] == ["u0"])
        #expect(keywords.falseAlarmUtterances["albin"] == ["u2"] && keywords.falseAlarmUtterances["winawer"] == ["u2"])
        #expect(keywords.falseAlarmUtterances["albin counter gambit"] == nil)
    }

    @Test("No boosted word and no term: no keyword figures at all; no audio: no rate per hour")
    func noData() throws {
        let heard = records(["he ran the race", "play the albin counter gambit", "albin played the winawer"])
        #expect(Aggregation.metrics(of: heard, normalizer: settings.normalizer).keywords == nil)
        let silent = heard.map { record in
            var record = record
            record.audioSeconds = 0
            return record
        }
        let keywords = try #require(
            Aggregation.metrics(of: silent, boostedWords: ["najdorf"], normalizer: settings.normalizer).keywords)
        #expect(keywords.falseAlarmsPerHour == nil && keywords.falseAlarmsPerHourInterval == nil)
        // Without resamples asked for, the rate comes without an interval.
        let plain = try #require(
            Aggregation.metrics(of: heard, boostedWords: ["najdorf"], normalizer: settings.normalizer).keywords)
        #expect(plain.falseAlarmsPerHour != nil && plain.falseAlarmsPerHourInterval == nil)
        #expect(keywords.falseAlarmsPer100Utterances == 0)
    }

    @Test("The change against the baseline is paired by utterance and says when it is significant")
    func change() throws {
        let baseline = records(["he ran the race", "play the album counter gambit", "albin played the winawer"])
        let customized = records(["he najdorf the race", "play the albin counter gambit", "winawer played the albin"])
        let delta = try #require(
            Aggregation.falseAlarmChange(
                baseline: baseline, customized: customized, boosted: ["albin", "winawer", "najdorf"],
                normalizer: settings.normalizer, options: settings.bootstrap))
        #expect(delta.observedDelta == 3)
        #expect(delta.lower >= 0 && delta.upper <= 9)
        #expect(
            Aggregation.falseAlarmChange(
                baseline: baseline, customized: customized, boosted: [], normalizer: settings.normalizer,
                options: settings.bootstrap) == nil)
    }
}
