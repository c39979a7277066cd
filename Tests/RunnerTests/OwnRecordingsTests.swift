import Foundation
import GambitTestSupport
import Results
import Testing

/// A team's own recordings, from a folder to a report, as a newcomer would go: `gambit corpus import`, `gambit init`,
/// `gambit run`.
@Suite("Own recordings", .serialized)
struct OwnRecordingsTests {
    static let texts = [
        "play the albin counter gambit", "play the winawer variation", "play the queen's gambit declined",
        "play the caro kann defence", "play the sicilian najdorf", "knight to f three", "bishop takes knight",
        "castle on the king side", "play the ruy lopez", "queen to d four",
    ]

    /// Twenty recordings by two speakers (a folder each), at 16 kHz mono, 8 kHz mono (a phone), 44.1 kHz stereo
    /// FLAC and 48 kHz stereo WAV in turn, and a spreadsheet of what was said with three rows that cannot be used.
    static func recordings(in folder: URL) throws -> (audio: URL, csv: URL) {
        let audio = folder.appendingPathComponent("recordings")
        var rows = ["file,text,speaker"]
        for (index, text) in (texts + texts).enumerated() {
            let speaker = index < texts.count ? "ana" : "ben"
            let voice = index < texts.count ? "slt" : "awb"
            let formats: [(ext: String, arguments: [String])] = [
                ("wav", ["-r", "16000", "-c", "1"]), ("wav", ["-r", "8000", "-c", "1"]),
                ("flac", ["-r", "44100", "-c", "2"]), ("wav", ["-r", "48000", "-c", "2"]),
            ]
            let format = formats[index % formats.count]
            let name = "\(speaker)/take-\(index + 1).\(format.ext)"
            let file = audio.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let spoken = folder.appendingPathComponent("spoken-\(index).wav")
            try TestSupport.run("flite", ["-voice", voice, "-t", text, "-o", spoken.path])
            try TestSupport.run("sox", ["-R", spoken.path] + format.arguments + [file.path])
            // A spreadsheet names a file as it likes: by its path, or by its name alone.
            rows.append("\(index % 2 == 0 ? name : (name as NSString).lastPathComponent),\"\(text)\",\(speaker)")
        }
        rows.append("ana/ghost.wav,play the scotch game,ana")
        rows.append(",knight to e five,ben")
        rows.append("ben/take-12.wav,queen,to,d,four")
        let csv = folder.appendingPathComponent("what-was-said.csv")
        try (rows.joined(separator: "\n") + "\n").write(to: csv, atomically: true, encoding: .utf8)
        return (audio, csv)
    }

    @Test(
        "Twenty recordings at mixed rates and a spreadsheet with three bad rows become a corpus, a suite and a report")
    func folderToReport() throws {
        let folder = try TestSupport.temporaryDirectory("own-recordings")
        let (audio, csv) = try Self.recordings(in: folder)
        let corpus = folder.appendingPathComponent("corpus")
        let imported = try TestSupport.gambit(
            ["corpus", "import", audio.path, "--transcripts", csv.path, "--output", corpus.path])
        #expect(imported.status == 0, "\(imported.output)")
        #expect(
            imported.output.contains(
                "what-was-said.csv row 21: transcript without a recording: no recording ana/ghost.wav in the folder"),
            "\(imported.output)")
        #expect(
            imported.output.contains(
                "what-was-said.csv row 22: unusable transcript row: no recording named in column file"),
            "\(imported.output)")
        #expect(
            imported.output.contains(
                "what-was-said.csv row 23: unusable transcript row: 5 fields where the header has 3"),
            "\(imported.output)")
        #expect(
            imported.output.contains(
                "3 problems (3 left out): 1 × transcript without a recording, 2 × unusable transcript row"),
            "\(imported.output)")
        // Five of every twenty were already 16 kHz mono; the rest were converted.
        #expect(imported.output.contains("20 utterances"), "\(imported.output)")
        #expect(imported.output.contains("2 speakers"), "\(imported.output)")
        #expect(imported.output.contains("15 converted to 16 kHz mono"), "\(imported.output)")
        let manifest = try String(contentsOf: corpus.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let lines = manifest.split(separator: "\n")
        #expect(lines.count == 20)
        #expect(lines.allSatisfy { $0.contains("\"duration\"") && $0.contains("\"split\"") })
        #expect(manifest.contains("\"id\": \"ana-take-1\"") && manifest.contains("\"speaker\": \"ben\""))

        let suite = folder.appendingPathComponent("suite.yaml")
        let written = try TestSupport.gambit(
            [
                "init", "--corpus", corpus.path, "--training",
                TestSupport.packageRoot.appendingPathComponent("Corpora/chess/training/full.yaml").path,
                "--anti-context", "general", "--shipped-corpora",
                TestSupport.packageRoot.appendingPathComponent("Corpora").path, "--output", suite.path,
            ])
        #expect(written.status == 0, "\(written.output)")
        #expect(written.output.contains("2 corpora (1 yours), 1 variant,"), "\(written.output)")
        let again = try TestSupport.gambit([
            "init", "--corpus", corpus.path, "--anti-context", "none", "--output", suite.path,
        ])
        #expect(again.status == 2 && again.output.contains("exists already"), "\(again.output)")

        let reports = folder.appendingPathComponent("Reports")
        let run = try TestSupport.gambit(["run", suite.path, "--output", reports.path, "--workers", "2"])
        #expect(run.status == 0 || run.status == 1, "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("report.html").path))
        let results = try JSONDecoder().decode(
            RunResults.self, from: Data(contentsOf: reports.appendingPathComponent(".gambit/results.json")))
        let scored = results.systems.filter { $0.corpus == "corpus" }
        #expect(Set(scored.map(\.mode)) == [.baseline, .customized, .oracle])
        #expect(scored.allSatisfy { $0.failures.failed == 0 && !$0.utterances.isEmpty })
        #expect(results.systems.contains { $0.corpus == "general" && $0.variant == "full" })
    }

    @Test("Kaldi text and a .txt beside each recording are read too; a recording without either is named")
    func otherTranscripts() throws {
        let folder = try TestSupport.temporaryDirectory("own-recordings-kaldi")
        let audio = folder.appendingPathComponent("audio")
        try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
        for (index, text) in Self.texts.prefix(3).enumerated() {
            try TestSupport.synthesize(text, to: audio.appendingPathComponent("u\(index).wav"))
        }
        try "play the albin counter gambit".write(
            to: audio.appendingPathComponent("u0.txt"), atomically: true, encoding: .utf8)
        let beside = try TestSupport.gambit(
            ["corpus", "import", audio.path, "--output", folder.appendingPathComponent("beside").path])
        #expect(beside.status == 0, "\(beside.output)")
        #expect(beside.output.contains("u1.wav: no transcript: nothing says what was said in it (left out)"))
        #expect(
            beside.output.contains("1 utterance (1 dev, 0 test)")
                || beside.output.contains("1 utterance (0 dev, 1 test)"), "\(beside.output)")
        // An output whose audio/ would be the recordings' folder is refused, and the recordings are untouched.
        let overlapping = try TestSupport.gambit(["corpus", "import", audio.path, "--output", folder.path])
        #expect(
            overlapping.status == 2 && overlapping.output.contains("would overlap the recordings"),
            "\(overlapping.output)")
        #expect(FileManager.default.fileExists(atPath: audio.appendingPathComponent("u2.wav").path))
        let kaldi = folder.appendingPathComponent("text")
        try "u0 play the albin counter gambit\nu1 play the winawer variation\nu2\nu9 queen to d four\n".write(
            to: kaldi, atomically: true, encoding: .utf8)
        let read = try TestSupport.gambit(
            [
                "corpus", "import", audio.path, "--transcripts", kaldi.path, "--output",
                folder.appendingPathComponent("k").path,
            ])
        #expect(read.status == 0, "\(read.output)")
        for line in [
            "text, utterance u2: unusable transcript row: an id with no words",
            "text, utterance u9: transcript without a recording: no recording u9",
        ] {
            #expect(read.output.contains(line), "\(read.output)")
        }
        #expect(read.output.contains("u2.wav: no transcript"), "\(read.output)")
        #expect(read.output.contains("2 utterances"), "\(read.output)")
    }
}
