import Foundation
import GambitTestSupport
import Results
import ResultsFixtures
import Scoring
import Testing

@testable import Runner

/// A rate over an empty set is "no data", never 0% or 100%, and a check with nothing to judge is
/// skipped rather than passed.
@Suite("No data is not zero")
struct NoDataTests {
    /// The fixture's run with a domain corpus, `weather`, whose references hold none of chess-full's
    /// boosted words; chess-full inserts one of them ("gambit") in one utterance.
    static func withWeather() -> RunResults {
        var results = Fixture.results()
        let chess = results.variants.first { $0.name == "chess-full" }
        let lines: [(String, String?)] = [
            ("it will rain tomorrow", "it will rain tomorrow"), ("sunny in the morning", "sunny in the morning"),
        ]
        results.systems.append(Fixture.system("weather", .baseline, nil, lines))
        results.systems.append(
            Fixture.system(
                "weather", .customized, chess, [lines[0], ("sunny in the morning", "sunny gambit in the morning")]))
        results.corpora.append(CorpusInfo(name: "weather", role: .domain, utteranceCount: 2, audioSeconds: 4))
        return results.recomputingAggregates()
    }

    @Test("B-WER and keyword F1 over no boosted reference word are no data, in the metrics and the JSON")
    func metrics() throws {
        let results = Self.withWeather()
        let customized = try #require(results.systems.first { $0.corpus == "weather" && $0.mode == .customized })
        let boosted = try #require(customized.metrics.boosted)
        #expect(boosted.boostedReferenceWords == 0)
        #expect(boosted.boostedErrors == 1)
        #expect(boosted.boostedWordErrorRate == nil)
        #expect(boosted.unboostedWordErrorRate == 0)
        // "gambit" recognized once and never said: precision 0, recall and so F1 no data.
        let chessTerms = try #require(customized.metrics.keywords?.overall)
        #expect(chessTerms.recall == nil)
        #expect(chessTerms.precision == 0)
        #expect(chessTerms.f1 == nil)
        let baseline = try #require(results.systems.first { $0.corpus == "weather" && $0.mode == .baseline })
        #expect(baseline.metrics.keywords?.overall.f1 == nil)
        let json = String(decoding: try JSONEncoder().encode(boosted), as: UTF8.self)
        // Left out of the JSON, which readers take as null: never a number.
        #expect(!json.contains("\"boostedWordErrorRate\""), "\(json)")
    }

    @Test("ΔB-WER over no boosted reference word is no data, not ±0.00 or a significant +100 points")
    func deltaIsNoData() throws {
        let results = Self.withWeather()
        let weather = try #require(results.comparison(corpus: "weather", variant: "chess-full"))
        #expect(weather.deltaBoostedWER == nil)
        #expect(weather.customized.boostedWordErrorRate == nil)
        let chess = try #require(results.comparison(corpus: "chess", variant: "chess-full"))
        #expect(chess.deltaBoostedWER != nil)
    }

    @Test("A results file written before no data existed reads its B-WER over no word as no data")
    func oldFiles() throws {
        let old = Data(
            #"{"boostedReferenceWords": 0, "boostedErrors": 2, "unboostedReferenceWords": 5, "unboostedErrors": 1, "boostedWordErrorRate": 1, "unboostedWordErrorRate": 0.2}"#
                .utf8)
        let rates = try JSONDecoder().decode(BoostedWordErrorRates.self, from: old)
        #expect(rates.boostedWordErrorRate == nil)
        #expect(rates.unboostedWordErrorRate == 0.2)
    }

    @Test("The boosted-word gain check is skipped with the reason when there is nothing to judge")
    func checkSkipped() throws {
        let checks = Checks.evaluate(Self.withWeather(), artifacts: [:], responses: [:], items: [])
        let weather = try #require(checks.first { $0.name == "boosted-word gain: weather / chess-full" })
        #expect(weather.isSkipped)
        #expect(weather.message.hasPrefix("no data: no reference word of weather"), "\(weather.message)")
        let chess = try #require(checks.first { $0.name == "boosted-word gain: chess / chess-full" })
        #expect(!chess.isSkipped)
    }

    @Test("A corpus with no utterance in a shard skips its on-device and anti-context checks instead of failing")
    func emptyShardOfACorpus() throws {
        var results = Fixture.results()
        let variants = results.variants
        results.systems.removeAll { $0.corpus == "general" }
        results.systems.append(Fixture.system("general", .baseline, nil, []))
        for variant in variants {
            results.systems.append(Fixture.system("general", .customized, variant, []))
        }
        let checks = Checks.evaluate(results.recomputingAggregates(), artifacts: [:], responses: [:], items: [])
        let general = checks.filter { $0.corpus == "general" }
        #expect(!general.isEmpty)
        let names = general.map(\.name)
        #expect(general.allSatisfy { $0.isSkipped }, "\(names)")
        #expect(general.allSatisfy { $0.message.hasPrefix("no data:") })
        // The corpora that were decoded are still judged.
        #expect(checks.contains { $0.corpus == "chess" && !$0.isSkipped && $0.kind == .onDevice })
    }

    @Test("gambit score refuses to score nothing and shows no data for a rate over no words")
    func score() throws {
        let folder = try TestSupport.temporaryDirectory("no-data")
        let reference = folder.appendingPathComponent("ref.trn")
        let hypothesis = folder.appendingPathComponent("hyp.trn")
        try "play the albin counter gambit (u1)\n".write(to: reference, atomically: true, encoding: .utf8)
        try "play the album counter gambit (v1)\n".write(to: hypothesis, atomically: true, encoding: .utf8)
        let disjoint = try TestSupport.gambit([
            "score", "--ref", reference.path, "--hyp", hypothesis.path, "--missing", "skip",
        ])
        #expect(disjoint.status == 2, "\(disjoint.output)")
        #expect(disjoint.output.contains("share no utterance ids"), "\(disjoint.output)")
        #expect(!disjoint.output.contains("0.00%"), "\(disjoint.output)")

        try "play the albin counter gambit (u1)\n".write(to: hypothesis, atomically: true, encoding: .utf8)
        let noBoosted = try TestSupport.gambit([
            "score", "--ref", reference.path, "--hyp", hypothesis.path, "--boosted", "maeve", "--terms", "maeve",
        ])
        #expect(noBoosted.status == 0, "\(noBoosted.output)")
        #expect(noBoosted.output.contains("B-WER no data (0/0)"), "\(noBoosted.output)")
        #expect(noBoosted.output.contains("no data | no data | no data |"), "\(noBoosted.output)")

        try "(u1)\n".write(to: reference, atomically: true, encoding: .utf8)
        try "(u1)\n".write(to: hypothesis, atomically: true, encoding: .utf8)
        let empty = try TestSupport.gambit(["score", "--ref", reference.path, "--hyp", hypothesis.path])
        // One utterance, said right: SER 0% is a measurement; WER, CER and MER over no word are not.
        #expect(empty.output.contains("| no data |   0.00% | no data |"), "\(empty.output)")
        #expect(empty.output.contains("MER no data   WIL no data"), "\(empty.output)")
    }
}
