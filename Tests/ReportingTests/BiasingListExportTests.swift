import Foundation
import Reporting
import Results
import ResultsFixtures
import Scoring
import Testing

/// A run over a corpus whose manifest gives per-utterance biasing lists scores B-WER by the literature's rule,
/// and its exported `trn/<corpus>.ref.tsv` makes `gambit score` give the same figures.
@Suite("Biasing lists in runs")
struct BiasingListExportTests {
    /// (id, reference, the utterance's list, baseline hypothesis, customized hypothesis).
    static let lines: [(String, String, [String], String, String)] = [
        (
            "u1", "play the albin counter gambit", ["albin", "gambit", "winawer"], "play the album counter gambit",
            "play the albin counter gambit"
        ),
        ("u2", "call maria now", ["maria", "albin"], "call maria albin now", "call maria albin now"),
        ("u3", "good morning", ["winawer"], "good morning winawer", "good morning"),
        ("u4", "see you later", [], "", "see you later"),
        // Words of the private contacts variant: every report masks them (‹contact-n›), the exported lists too.
        (
            "u5", "call Siobhan Okonkwo", ["Siobhan", "okonkwo", "aurelio"], "call shivaun okonkwo",
            "call siobhan okonkwo"
        ),
    ]

    static func results() -> RunResults {
        var results = Fixture.results()
        func system(_ mode: SystemMode, _ variant: VariantInfo?, _ hypothesis: (Int) -> String) -> SystemResults {
            let records = lines.enumerated().map { index, line in
                Aggregation.record(
                    id: line.0, index: index, audioPath: "audio/lists/\(line.0).wav", reference: line.1,
                    hypothesis: hypothesis(index), boostedWords: variant?.boostedWords ?? [], biasingList: line.2,
                    settings: Fixture.settings)
            }
            return SystemResults(
                corpus: "lists", mode: mode, variant: variant?.name,
                metrics: Aggregation.metrics(of: records, normalizer: .standard), utterances: records,
                timing: SystemTiming(modelLoadSeconds: 1, decodeWallSeconds: 1, peakResidentMegabytes: 100),
                failures: FailureCounts(records))
        }
        results.corpora.append(CorpusInfo(name: "lists", role: .domain, utteranceCount: lines.count, audioSeconds: 8))
        results.systems.append(system(.baseline, nil) { lines[$0].3 })
        results.systems.append(system(.customized, Fixture.chess) { lines[$0].4 })
        return results.recomputingAggregates()
    }

    @Test("Each utterance's list decides, not the variant's boosted words; counted by hand")
    func handCounted() throws {
        let results = Self.results()
        let baseline = try #require(results.system(corpus: "lists", mode: .baseline))
        let customized = try #require(results.system(corpus: "lists", mode: .customized, variant: "chess-full"))
        // Baseline: u1 albin → album, a B error over 2 biased words (albin, gambit); u2 inserts albin, biased in
        // u1 and a distractor here: U; u3 inserts the distractor winawer: U; u4 is empty: 3 deletions, U; u5
        // siobhan → shivaun, a B error over 2 biased words (siobhan, okonkwo; the list's case does not matter).
        // Biased reference words: 2 (u1) + 1 (maria, u2) + 2 (u5) = 5; the other 11 are unbiased.
        let b = try #require(baseline.metrics.boosted)
        #expect(b.boostedErrors == 2 && b.boostedReferenceWords == 5)
        #expect(b.unboostedErrors == 5 && b.unboostedReferenceWords == 11)
        // Customized: only u2's insertion of albin, a U error. The variant's boosted words hold albin, so
        // scored with them it would be a B error; the utterance's own list decides.
        let c = try #require(customized.metrics.boosted)
        #expect(c.boostedErrors == 0 && c.boostedReferenceWords == 5)
        #expect(c.unboostedErrors == 1 && c.unboostedReferenceWords == 11)
        #expect(customized.utterances.map(\.boostedErrors) == [0, 0, 0, 0, 0])
        #expect(baseline.utterances.map(\.boostedReferenceWords) == [2, 1, 0, 0, 2])
        // The lists: 3 + 2 + 1 + 0 + 3 = 9 entries, 5 biased (albin, gambit, maria, siobhan, okonkwo) and 4
        // distractors (winawer twice, albin, aurelio).
        let lists = try #require(customized.biasingLists)
        #expect(lists.utterances == 5 && lists.listEntries == 9 && lists.largestList == 3)
        #expect(lists.biasedEntries == 5 && lists.distractorEntries == 4 && lists.biasedReferenceWords == 5)
        #expect(lists.utterancesWithBiasedWords == 3)
        // The comparison pairs the two systems on the same lists: B-WER from 1/3 to 0.
        let comparison = try #require(results.comparisons.first { $0.corpus == "lists" })
        #expect(comparison.baseline.boostedWordErrorRate == 2.0 / 5)
        #expect(comparison.customized.boostedWordErrorRate == 0)
        #expect(comparison.deltaBoostedWER != nil)
        // Corpora without lists keep the variant's boosted words.
        #expect(results.system(corpus: "chess", mode: .baseline)?.biasingLists == nil)
        #expect(results.system(corpus: "chess", mode: .baseline)?.metrics.boosted != nil)
    }

    @Test("gambit score on the exported ref.tsv and a system's trn gives the run's figures")
    func exportRescoresToTheSameFigures() throws {
        let results = Self.results()
        let directory = try temporaryDirectory("biasing-export")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Reporter.write(results, formats: [.trn], to: directory)
        let reference = directory.appendingPathComponent("trn/lists.ref.tsv")
        let tsv = try String(contentsOf: reference, encoding: .utf8)
        #expect(
            tsv.hasPrefix(
                "u1\tplay the albin counter gambit\t[\"albin\",\"gambit\"]\t[\"albin\",\"gambit\",\"winawer\"]\n"))
        // The private words are masked in the text and in both lists, and still count as biased.
        #expect(tsv.contains("u5\tcall ‹contact-1› ‹contact-2›\t[\"‹contact-1›\",\"‹contact-2›\"]\t"))
        #expect(!tsv.lowercased().contains("siobhan") && !tsv.contains("okonkwo") && !tsv.contains("aurelio"))
        // Corpora without lists get no tsv.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("trn/chess.ref.tsv").path))
        for system in results.systems where system.corpus == "lists" {
            let name = ["lists", system.mode.rawValue, system.variant].compactMap { $0 }.joined(separator: ".")
            let hypothesis = directory.appendingPathComponent("trn/\(name).trn")
            let report = try Scorer.score(reference: reference, hypothesis: hypothesis)
            #expect(report.boosted == system.metrics.boosted, "\(system.key)")
            #expect(report.biasingLists == system.biasingLists, "\(system.key)")
            #expect(report.totals.counts == system.metrics.rates.counts, "\(system.key)")
        }
    }
}
