import Foundation
import GambitTestSupport
import Results
import Runner
import Testing

/// `gambit diagnose` as a person runs it: on a finished run's folder, writing the diagnosis into the run's
/// results and reports, journaled so that a second invocation answers from the journal.
@Suite("gambit diagnose on a finished run", .serialized)
struct DiagnoseCommandTests {
    /// (what the voice says, what the reference says): each boosted name is pronounced as the common word, so
    /// only the language model tells them apart.
    static let texts = [
        ("play the ready opening", "play the reti opening"), ("he plays like murphy", "he plays like morphy"),
        ("a quick win by carlson", "a quick win by carlsen"), ("try the tall attack", "try the tal attack"),
    ]

    /// Everyday sentences with the common words the names sound like: where the customization puts the names.
    static let everyday = [
        "i am ready to go now", "murphy was late again", "the tall man left early", "mister carlson called today",
    ]

    /// A suite of chess names pronounced as common words, with an anti-context corpus that says the common words.
    static func suite(weight: Double) throws -> URL {
        let folder = try TestSupport.temporaryDirectory("diagnose")
        func corpus(_ name: String, _ texts: [(spoken: String, reference: String)]) throws {
            var lines: [String] = []
            for (index, text) in texts.enumerated() {
                for voice in ["kal16", "rms", "slt"] {
                    let id = "\(name)-\(index)-\(voice)"
                    try TestSupport.synthesize(
                        text.spoken, voice: voice, to: folder.appendingPathComponent("\(id).wav"))
                    lines.append(#"{"id":"\#(id)","audio":"\#(id).wav","text":"\#(text.reference)"}"#)
                }
            }
            try (lines.joined(separator: "\n") + "\n").write(
                to: folder.appendingPathComponent("\(name).jsonl"), atomically: true, encoding: .utf8)
        }
        try corpus("chess", texts.map { ($0.0, $0.1) })
        try corpus("everyday", everyday.map { ($0, $0) })
        try """
        locale: en-US
        identifier: com.example.openings
        version: "1.0"
        phrases:
        \(texts.map { "  - {phrase: \"\($0.1)\", count: 10}" }.joined(separator: "\n"))
        pronunciations:
          - {grapheme: Reti, phonemes: ["r E d i"]}
          - {grapheme: Morphy, phonemes: ["m 3` f i"]}
          - {grapheme: Carlsen, phonemes: ["k A r l s @ n"]}
          - {grapheme: Tal, phonemes: ["t O l"]}
        """.write(to: folder.appendingPathComponent("openings.yaml"), atomically: true, encoding: .utf8)
        let suite = folder.appendingPathComponent("suite.yaml")
        try """
        name: openings
        corpora:
          - {name: chess, manifest: chess.jsonl, role: domain}
          - {name: everyday, manifest: everyday.jsonl, role: anti-context}
        variants:
          - {name: openings, training: openings.yaml, weight: \(weight)}
        modes: [baseline, customized]
        streaming: {utterances: 0, chunkMilliseconds: 100}
        """.write(to: suite, atomically: true, encoding: .utf8)
        return suite
    }

    @Test("Names put where common words were said: the language model's, gone at a lower weight, at a measured cost")
    func insertions() throws {
        let suite = try Self.suite(weight: 0.5)
        let out = suite.deletingLastPathComponent().appendingPathComponent("out")
        let run = try TestSupport.gambit(["run", suite.path, "--output", out.path, "--workers", "1"])
        #expect([0, 1].contains(run.status), "\(run.output)")
        let (status, output) = try TestSupport.gambit(["diagnose", out.path])
        #expect(status == 0, "\(output)")
        let results = try RunResults.load(from: Runner.resultsFile(in: out))
        let variant = try #require(results.diagnosis?.variants.first, "\(output)")
        // The run kept the lattices of the utterances with errors and of the anti-context ones, and the diagnosis
        // read them rather than decoding again.
        let kept = Set(
            try FileManager.default.contentsOfDirectory(atPath: Runner.latticeFolder(in: out).path).map {
                String($0.dropLast(".lat".count))
            })
        let customized = results.systems.filter { $0.mode == .customized }
        func key(_ corpus: String, _ id: String) -> String? {
            customized.first { $0.corpus == corpus }?.utterances.first { $0.id == id }?.key
        }
        let examined = variant.utterances.compactMap { key($0.corpus, $0.id) }
        let antiContext = customized.filter { results.corpus(named: $0.corpus)?.role == .antiContext }
            .flatMap(\.utterances).filter { $0.failure == nil }.compactMap(\.key)
        #expect(examined.count == variant.utterances.count && kept == Set(examined + antiContext))
        #expect(kept.count < customized.flatMap(\.utterances).count, "lattices nobody reads were kept")
        #expect(variant.latticesRead == variant.utterances.count && variant.decodedAgain == 0, "\(output)")
        let insertions = variant.diagnoses.filter { $0.error.kind == .inserted }
        #expect(insertions.count >= 3, "\(output)")
        // Each is a name only the customization knows, said nowhere: the language model put it there.
        #expect(insertions.allSatisfy { $0.cause == .languageModel }, "\(output)")
        // A lower weight that removes some is priced on the anti-context corpus, on the same lattices.
        let cost = try #require(variant.antiContext, "\(output)")
        #expect(cost.corpora == ["everyday"] && cost.utterances == 12)
        #expect(Set(cost.weights.map(\.weight)) == Set(variant.fixingWeights))
        #expect(cost.weights.allSatisfy { $0.boostedInsertions <= cost.own.boostedInsertions }, "\(output)")
        #expect(output.contains("removes its insertions (anti-context WER "), "\(output)")
        // Only the base model alone (weight 0) removes those insertions: no count of one phrase equals that.
        #expect(variant.suggestions?.counts.isEmpty == true, "\(output)")
        // The reports carry it.
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<section id=\"diagnosis\">"))
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("- **openings**: \(variant.sentence)."))
        // Every utterance examined is journaled: a second diagnosis answers from the journal, the same way.
        let journal = out.appendingPathComponent(".gambit/diagnosis.journal")
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").count
        #expect(lines == variant.utterances.count + cost.utterances)
        let again = try TestSupport.gambit(["diagnose", out.path])
        #expect(again.status == 0)
        #expect(try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").count == lines)
        #expect(try RunResults.load(from: Runner.resultsFile(in: out)).diagnosis == results.diagnosis)
        // --fresh examines everything again; without the kept lattices each utterance is decoded again, with the
        // same causes and evidence.
        try FileManager.default.removeItem(at: Runner.latticeFolder(in: out))
        let fresh = try TestSupport.gambit(["diagnose", out.path, "--fresh"])
        #expect(fresh.status == 0)
        #expect(try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").count == lines)
        let decoded = try #require(try RunResults.load(from: Runner.resultsFile(in: out)).diagnosis?.variants.first)
        #expect(decoded.decodedAgain == variant.utterances.count && decoded.latticesRead == 0)
        // Posteriors computed on the lattice read back agree with the decoder's own to within the file's rounding;
        // everything else is the same.
        let pairs = zip(decoded.diagnoses, variant.diagnoses)
        func withoutPosteriors(_ diagnosis: ErrorDiagnosis) -> ErrorDiagnosis {
            var diagnosis = diagnosis
            (diagnosis.posterior, diagnosis.competitorPosterior) = (nil, nil)
            return diagnosis
        }
        #expect(decoded.diagnoses.map(withoutPosteriors) == variant.diagnoses.map(withoutPosteriors))
        for (again, read) in pairs {
            for (a, b) in [(again.posterior, read.posterior), (again.competitorPosterior, read.competitorPosterior)] {
                #expect((a == nil) == (b == nil) && abs((a ?? 0) - (b ?? 0)) < 0.01, "\(again) against \(read)")
            }
        }
    }
}
