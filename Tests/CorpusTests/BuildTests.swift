import Corpus
import Foundation
import GambitTestSupport
import Testing

@Suite("Building corpus folders")
struct BuildTests {
    static let plan = SynthesisPlan(
        voices: [.flite("slt"), .espeak("en-us+m3")], conditions: [.clean, .noise(snr: 10), .telephone],
        renditionsPerText: 2)

    @Test func buildWritesAManifestThatLoadReadsBack() throws {
        let folder = try TestSupport.temporaryDirectory("build")
        let texts = try fixture(
            "texts.tsv",
            "chess-001\tplay the albin counter gambit\tdev\nchess-002\tknight to queen bishop three\ttest\n",
            in: folder)
        let output = folder.appendingPathComponent("corpus")
        let entries = try Synthesizer().build(texts: texts, output: output, plan: Self.plan)

        #expect(entries.count == 4)
        #expect(
            entries.map(\.id) == [
                "chess-001-slt-clean", "chess-001-en-us-m3-noise10", "chess-002-slt-noise10",
                "chess-002-en-us-m3-telephone",
            ])
        #expect(entries.map(\.split) == ["dev", "dev", "test", "test"])
        #expect(entries[1].speaker == "espeak:en-us+m3")
        #expect(entries[1].condition == "noise:10")
        #expect(entries.allSatisfy { FileManager.default.fileExists(atPath: $0.audio.path) && ($0.duration ?? 0) > 1 })

        let manifest = output.appendingPathComponent("manifest.jsonl")
        let loaded = try CorpusManifest.load(manifest)
        #expect(loaded == entries)
        let text = try String(contentsOf: manifest, encoding: .utf8)
        #expect(text.hasPrefix("{\"id\": \"chess-001-slt-clean\", \"audio\": \"audio/chess-001-slt-clean.wav\", "))

        // What gambit slurm counts before any job runs: the same utterances, without synthesising them.
        let planned = try Synthesizer.plannedEntries(texts: texts, output: output, plan: Self.plan)
        var built = entries
        for index in built.indices { built[index].duration = nil }
        #expect(planned == built)
    }

    @Test func rebuildReusesStampedFilesAndRedoesOnlyWhatChanged() throws {
        let folder = try TestSupport.temporaryDirectory("rebuild")
        let output = folder.appendingPathComponent("corpus")
        let texts = try fixture(
            "texts.tsv", "a\tcall siobhan\tdev\nb\ttext nguyen\ttest\nc\tcall xochitl\ttest\n", in: folder)
        let synthesizer = Synthesizer()
        let first = try synthesizer.buildCorpus(texts: texts, output: output, plan: Self.plan)
        #expect((first.synthesized, first.reused) == (6, 0))
        let bytes = try first.entries.map { try Data(contentsOf: $0.audio) }
        let manifest = try Data(contentsOf: first.manifest)

        let second = try synthesizer.buildCorpus(texts: texts, output: output, plan: Self.plan)
        #expect((second.synthesized, second.reused) == (0, 6))
        #expect(second.entries == first.entries)
        #expect(try Data(contentsOf: second.manifest) == manifest)

        // A damaged file is made again; a changed text redoes only its renditions; a dropped text's files go.
        try Data("junk".utf8).write(to: first.entries[0].audio)
        _ = try fixture("texts.tsv", "a\tcall siobhan\tdev\nb\ttext nguyen now\ttest\n", in: folder)
        let third = try synthesizer.buildCorpus(texts: texts, output: output, plan: Self.plan)
        #expect((third.synthesized, third.reused) == (3, 1))
        #expect(try Data(contentsOf: third.entries[0].audio) == bytes[0])
        #expect(try Data(contentsOf: third.entries[1].audio) == bytes[1])
        for dropped in first.entries[4...] { #expect(!FileManager.default.fileExists(atPath: dropped.audio.path)) }
    }

    @Test func buildFailsBeforeWorkWhenAToolIsMissing() throws {
        let folder = try TestSupport.temporaryDirectory("notools")
        let texts = try fixture("texts.txt", "call siobhan\n", in: folder)
        let output = folder.appendingPathComponent("corpus")
        #expect(throws: CorpusError.toolMissing(tool: "flite", package: "flite")) {
            try Synthesizer(searchPath: folder.path).build(texts: texts, output: output, plan: Self.plan)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
