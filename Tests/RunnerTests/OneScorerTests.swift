import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Scoring
import Testing

/// `gambit score` and a run give one set of numbers: the same references, hypotheses and lists, scored by the
/// command and by a run of the same hypotheses imported as a recognizer's, agree in every metric field.
@Suite("One scorer", .serialized)
struct OneScorerTests {
    /// Hypotheses with a hit, a miss, a swap, false alarms of list words and of distractors, and an insertion.
    static let hypotheses: [String: String] = [
        "chess-0-kal16": "play the album counter gambit",
        "chess-0-rms": "play the albin counter gambit",
        "chess-1-kal16": "play the albin variation",
        "chess-1-rms": "winawer played the variation",
        "chess-2-kal16": "knight to queen bishop najdorf",
        "chess-2-rms": "knight to queen bishop three gambit",
        "chess-3-kal16": "gambit the queen's play",
        "chess-3-rms": "play the queen's gambit",
        "cards-001": "ten of gambit",
        "librivox-0880": "he was not an ill disposed young man",
        "librivox-0930": "he might even have been made albin himself",
    ]

    @Test("gambit score and a run of imported transcripts agree in every metric, with lists and without")
    func scoreEqualsRun() throws {
        let suite = try MiniSuite(
            extra: """
                recognizers:
                  - name: made
                    onDevice: true
                    corpora: [chess, general]
                    transcripts:
                      baseline: made/{corpus}.jsonl
                      customized: made/{corpus}.{variant}.jsonl
                """,
            biasingLists: true)
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        for corpus in ["chess", "general"] {
            let manifest = try String(
                contentsOf: suite.folder.appendingPathComponent("\(corpus).jsonl"), encoding: .utf8)
            let ids = try manifest.split(separator: "\n").map { line -> String in
                let entry = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(entry["id"] as? String)
            }
            for file in ["\(corpus).jsonl", "\(corpus).chess-seed.jsonl"] {
                try ImportedTranscriptsTests.write(
                    ids.map { ($0, Self.hypotheses[$0]!) }, to: suite.folder.appendingPathComponent("made/\(file)"))
            }
        }
        let results = try suite.run()
        for corpus in ["chess", "general"] {
            let system = try #require(
                results.system(corpus: corpus, mode: .customized, variant: "chess-seed", recognizer: "made"))
            let scored = try TestSupport.gambit(
                [
                    "score", "--ref", suite.folder.appendingPathComponent("\(corpus).jsonl").path, "--hyp",
                    suite.folder.appendingPathComponent("made/\(corpus).chess-seed.jsonl").path, "--json",
                    "--suite", suite.suiteFile.path, "--variant", "chess-seed",
                ])
            try #require(scored.status == 0, "\(scored.output)")
            let output = Data(scored.output.utf8)
            let report = try JSONDecoder().decode(ScoreReport.self, from: output)
            #expect(report.metrics == system.metrics, "\(corpus)")
            #expect(report.biasingLists == system.biasingLists, "\(corpus)")
            let keywords = try #require(system.metrics.keywords)
            #expect(keywords.overall.falseAlarms > 0, "\(corpus): \(keywords.overall)")
            #expect(report.slots != nil && report.slots == system.metrics.slots)
            #expect(keywords.falseAlarmsPerHour != nil && keywords.falseAlarmsPerHourInterval != nil)
            // The JSON's `keywords` object is the run's, field for field.
            let object = try #require(JSONSerialization.jsonObject(with: output) as? [String: Any])
            let fromScore = try JSONSerialization.data(withJSONObject: object["keywords"]!, options: .sortedKeys)
            let fromRun = try JSONSerialization.data(
                withJSONObject: JSONSerialization.jsonObject(with: JSONEncoder().encode(keywords)), options: .sortedKeys
            )
            #expect(fromScore == fromRun, "\(corpus)")
        }
        let chess = try #require(
            results.system(corpus: "chess", mode: .customized, variant: "chess-seed", recognizer: "made"))
        // The list's distractor heard where "three" was said, and the variant's words heard out of place.
        #expect(chess.metrics.keywords?.falseAlarmUtterances["najdorf"] == ["chess-2-kal16"])
        #expect(chess.metrics.keywords?.overall.hits == 4)
    }

    @Test("Term forms from a file count as their terms, and a chain of forms is refused naming its lines")
    func termFormsFile() throws {
        let folder = try TestSupport.temporaryDirectory("term-forms")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = folder.appendingPathComponent("ref.trn")
        let hypothesis = folder.appendingPathComponent("hyp.trn")
        let forms = folder.appendingPathComponent("forms.yaml")
        try "play albin's gambit (u1)\n".write(to: reference, atomically: true, encoding: .utf8)
        try "play albin gambit (u1)\n".write(to: hypothesis, atomically: true, encoding: .utf8)
        try "# how the recognizers spell them\nalbin's: albin\n".write(to: forms, atomically: true, encoding: .utf8)
        let base = ["score", "--ref", reference.path, "--hyp", hypothesis.path, "--terms", "albin", "--json"]
        let without = try JSONDecoder().decode(
            ScoreReport.self, from: Data(try TestSupport.gambit(base).output.utf8))
        #expect(without.totals.counts.errors == 1 && without.keywords?.terms.first?.hits == 0)
        let with = try JSONDecoder().decode(
            ScoreReport.self, from: Data(try TestSupport.gambit(base + ["--term-forms", forms.path]).output.utf8))
        #expect(with.totals.counts.errors == 0 && with.keywords?.terms.first?.hits == 1)
        #expect(with.normalization.contains("1 term form"))

        try "nimzo: nimzo indian\nnimzo indian: nimzoindian\n".write(to: forms, atomically: true, encoding: .utf8)
        let chain = try TestSupport.gambit(base + ["--term-forms", forms.path])
        #expect(chain.status == 2)
        #expect(chain.output.contains("forms.yaml") && chain.output.contains("lines 1, 2"), "\(chain.output)")
    }
}
