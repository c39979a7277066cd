import Foundation
import Reporting
import Results
import Runner
import RunnerTestSupport
import Scoring
import Testing

/// A manifest whose entries carry `boosted` lists: the run records each utterance's list, scores B-WER over it
/// and exports a `ref.tsv` that `gambit score` reads back to the same figures.
@Suite("Biasing lists through the runner", .serialized)
struct BiasingListRunTests {
    @Test func manifestListsReachTheRecordsAndTheExport() throws {
        let suite = try MiniSuite(modes: ["baseline"], biasingLists: true)
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let results = try suite.run()
        let chess = try #require(results.system(corpus: "chess", mode: .baseline))
        #expect(chess.utterances.allSatisfy { $0.biasingList == ["albin", "winawer", "gambit", "najdorf"] })
        // Per voice: "play the albin counter gambit" holds albin and gambit, "play the winawer variation"
        // winawer, "knight to queen bishop three" none, "play the queen's gambit" gambit; two voices each.
        let lists = try #require(chess.biasingLists)
        #expect(lists.utterances == 8 && lists.listEntries == 32 && lists.largestList == 4)
        #expect(lists.biasedEntries == 8 && lists.distractorEntries == 24 && lists.biasedReferenceWords == 8)
        #expect(lists.utterancesWithBiasedWords == 6)
        #expect(chess.metrics.boosted?.boostedReferenceWords == 8)
        // The anti-context manifest gives no lists, and is scored as before.
        #expect(results.system(corpus: "general", mode: .baseline)?.biasingLists == nil)

        let output = suite.folder.appendingPathComponent("reports")
        try Reporter.write(results, formats: [.trn], to: output)
        let report = try Scorer.score(
            reference: output.appendingPathComponent("trn/chess.ref.tsv"),
            hypothesis: output.appendingPathComponent("trn/chess.baseline.trn"))
        #expect(report.boosted == chess.metrics.boosted)
        #expect(report.biasingLists == lists)
        #expect(report.totals.counts == chess.metrics.rates.counts)
    }
}
