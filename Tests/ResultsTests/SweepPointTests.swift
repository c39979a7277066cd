import Foundation
import Results
import Scoring
import Testing

/// A sweep point holds one metrics value; points written before that still read.
@Suite struct SweepPointTests {
    @Test("A point written with its rates as fields of its own reads into its metrics")
    func olderPoint() throws {
        let json = """
            {"parameters": {"weight": 0.5, "countScaling": {}}, "samplesUsed": 10, "wordErrorRate": 0.2,
             "boostedWordErrorRate": 0.4, "unboostedWordErrorRate": 0.1, "antiContextWordErrorRate": 0.05,
             "prepareSeconds": 1, "paretoOptimal": true, "falseAlarmsPerHour": 12,
             "antiContextFalseAlarmsPerHour": 3}
            """
        let point = try JSONDecoder().decode(SweepPoint.self, from: Data(json.utf8))
        #expect(point.wordErrorRate == 0.2 && point.boostedWordErrorRate == 0.4)
        #expect(point.unboostedWordErrorRate == 0.1 && point.falseAlarmsPerHour == 12)
        #expect(point.antiContextWordErrorRate == 0.05 && point.antiContextFalseAlarmsPerHour == 3)
        #expect(point.paretoOptimal && point.samplesUsed == 10)
        let scaling = """
            {"distractors": 100, "boostedTerms": 120, "samplesUsed": 10, "wordErrorRate": 0.2,
             "boostedWordErrorRate": 0.4, "unboostedWordErrorRate": 0.1, "prepareSeconds": 1, "decodeSeconds": 2}
            """
        let old = try JSONDecoder().decode(ScalingPoint.self, from: Data(scaling.utf8))
        #expect(old.boostedWordErrorRate == 0.4 && old.antiContext == nil)
    }

    @Test("A point is written with its metrics once, and reads back equal")
    func roundTrip() throws {
        let point = SweepPoint(
            parameters: SweepParameters(weight: 0.7), samplesUsed: 12,
            metrics: MetricSummary(
                wordErrorRate: 0.1, sentenceErrorRate: 0.3, boostedWordErrorRate: nil, unboostedWordErrorRate: 0.1,
                keywordF1: 0.8, falseAlarmsPerHour: 4, falseAlarms: 2),
            antiContext: MetricSummary(wordErrorRate: 0.05, sentenceErrorRate: 0.1))
        let data = try JSONEncoder().encode(point)
        let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["wordErrorRate"] == nil && object["metrics"] != nil)
        #expect(try JSONDecoder().decode(SweepPoint.self, from: data) == point)
        // No data stays no data in the metrics; the point's own reading keeps the old 0.
        #expect(point.metrics.boostedWordErrorRate == nil && point.boostedWordErrorRate == 0)
    }
}
