import Foundation
import Results
import ResultsFixtures
import Scoring
import Testing

@Suite("Breakdowns by speaker, voice and condition")
struct RunBreakdownTests {
    @Test("Every system is broken down by each label its utterances have, with counts that add up")
    func everySystem() throws {
        let results = Fixture.results()
        for system in results.systems {
            let breakdowns = try #require(system.breakdowns, "\(system.key)")
            #expect(breakdowns.map(\.field) == ["speaker", "voice", "condition"])
            for breakdown in breakdowns {
                #expect(breakdown.unlabelled == 0)
                #expect(breakdown.groups.reduce(0) { $0 + $1.utterances } == system.utterances.count)
                #expect(breakdown.groups.reduce(0) { $0 + $1.errors } == system.metrics.rates.counts.errors)
                #expect(
                    breakdown.groups.reduce(0) { $0 + $1.referenceWords }
                        == system.metrics.rates.counts.referenceWords)
                // A group of one utterance has no interval; every other has one.
                for group in breakdown.groups {
                    #expect((group.wordErrorRateInterval?.resamples ?? 0 > 0) == (group.utterances > 1))
                }
            }
            let voices = breakdowns[1].groups.map(\.label)
            #expect(voices == ["espeak", "flite", "recorded"])
        }
    }

    @Test("Counted by hand on the chess baseline: the telephone utterances and their boosted words")
    func handCounted() throws {
        let results = Fixture.results()
        let baseline = try #require(results.system(corpus: "chess", mode: .baseline))
        let condition = try #require(baseline.breakdowns?.first { $0.field == "condition" })
        let telephone = try #require(condition.groups.first { $0.label == "telephone" })
        // The records with an odd index are the telephone ones; sum them directly.
        let records = baseline.utterances.filter { $0.condition == "telephone" }
        #expect(telephone.utterances == records.count)
        #expect(telephone.errors == records.reduce(0) { $0 + $1.counts.errors })
        #expect(telephone.boostedErrors == records.reduce(0) { $0 + ($1.boostedErrors ?? 0) })
        let words = records.reduce(0) { $0 + ($1.boostedReferenceWords ?? 0) }
        #expect(telephone.boostedReferenceWords == words)
        #expect(telephone.boostedWordErrorRate == (words == 0 ? nil : Double(telephone.boostedErrors!) / Double(words)))
    }

    @Test("Voice: the synthesizer of a synthetic speaker, recorded for anyone else, nothing when unknown")
    func voices() {
        #expect(Aggregation.voice(of: "flite:slt") == "flite")
        #expect(Aggregation.voice(of: "espeak-ng:en-us+m3") == "espeak")
        #expect(Aggregation.voice(of: "librivox-austen-reader") == "recorded")
        #expect(Aggregation.voice(of: "dr:smith") == "recorded")
        #expect(Aggregation.voice(of: nil) == nil)
    }

    @Test("A label no utterance has gives no breakdown; one some lack counts them as unlabelled")
    func missingLabels() throws {
        var records = try #require(Fixture.results().system(corpus: "chess", mode: .baseline)?.utterances)
        for index in records.indices { records[index].condition = nil }
        records[0].speaker = nil
        let breakdowns = Aggregation.breakdowns(of: records, bootstrap: .init(resamples: 50, seed: 1))
        #expect(breakdowns.map(\.field) == ["speaker", "voice"])
        #expect(breakdowns.map(\.unlabelled) == [1, 1])
    }

    @Test("Redaction masks a speaker named after a private term in the breakdowns too")
    func redacted() throws {
        let redacted = Fixture.results().redactingPrivateTerms()
        let json = String(decoding: try redacted.jsonData(), as: UTF8.self)
        #expect(!json.contains("siobhan"))
        let groups = try #require(redacted.systems[0].breakdowns?.first?.groups)
        let masked = try #require(groups.first { $0.label.hasPrefix("‹") })
        // The interval's seed is derived from the label, so it is derived again from the masked one.
        let seed = Breakdown.seed(base: Fixture.settings.bootstrap.seed, field: "speaker", label: masked.label)
        #expect(masked.wordErrorRateInterval?.seed == seed)
        #expect(masked.boostedWordErrorRateInterval?.seed == Breakdown.boostedSeed(seed))
        let original = Breakdown.seed(base: Fixture.settings.bootstrap.seed, field: "speaker", label: "siobhan")
        #expect(!json.contains(String(original)))
    }

    @Test("Results written before breakdowns existed still read, and get them when recomputed")
    func olderResults() throws {
        var old = Fixture.results()
        for index in old.systems.indices { old.systems[index].breakdowns = nil }
        let json = String(decoding: try old.jsonData(), as: UTF8.self)
        #expect(!json.contains("\"breakdowns\""))
        let loaded = try RunResults.decode(Data(json.utf8))
        #expect(loaded.systems.allSatisfy { $0.breakdowns == nil })
        #expect(loaded.recomputingAggregates().systems == Fixture.results().systems)
    }
}
