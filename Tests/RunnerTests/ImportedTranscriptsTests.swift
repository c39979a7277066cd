import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// Transcripts made outside the run (as Apple's recognizer makes them on a Mac), imported as a recognizer's
/// systems and judged like any other.
@Suite("Imported transcripts", .serialized)
struct ImportedTranscriptsTests {
    /// A suite file beside `suite`'s, with `recognizers` instead of its own.
    static func run(_ suite: MiniSuite, recognizers: String, output: String) throws -> RunResults {
        let text = try String(contentsOf: suite.suiteFile, encoding: .utf8)
        let cut = text.range(of: "recognizers:").map { String(text[..<$0.lowerBound]) } ?? text
        let file = suite.folder.appendingPathComponent("suite-\(output).yaml")
        try (cut + recognizers + "\n").write(to: file, atomically: true, encoding: .utf8)
        return try Runner(
            suite: try Suite.load(file),
            options: RunOptions(
                output: suite.folder.appendingPathComponent(output), workerExecutable: MiniSuite.executable),
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache"))
        ).run()
    }

    static func imported(folder: String = "made", onDevice: Bool = true, customized: Bool = true) -> String {
        """
        recognizers:
          - name: fake
            onDevice: \(onDevice)
            corpora: [chess]
            transcripts:
              baseline: \(folder)/{corpus}.baseline.jsonl
        \(customized ? "      customized: \(folder)/{corpus}.{variant}.jsonl" : "")
        """
    }

    /// JSON lines of `{id, text}`.
    static func write(_ lines: [(String, String)], to url: URL) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let data = try lines.map { id, text in
            String(decoding: try JSONSerialization.data(withJSONObject: ["id": id, "text": text]), as: UTF8.self)
        }.joined(separator: "\n")
        try (data + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    @Test("Transcripts made by a recognizer outside the run score, compare and check as when it runs inside")
    func roundTrip() throws {
        let folder = try TestSupport.temporaryDirectory("imported")
        let (script, _) = try ExternalCustomizationTests.adapter(in: folder, mode: "working")
        let suite = try MiniSuite(extra: ExternalCustomizationTests.recognizer(script))
        let inside = try suite.run()

        // The same recognizer outside the run, as a Mac runs Apple's: from `gambit export`'s folder alone, prepare
        // the variant from its export and phrase list, transcribe the corpus both ways, write the two files back.
        let export = folder.appendingPathComponent("export")
        let exported = try TestSupport.gambit(["export", suite.suiteFile.path, "--output", export.path])
        #expect(exported.status == 0, "\(exported.output)")
        let index = try JSONDecoder().decode(
            SuiteExport.Index.self, from: Data(contentsOf: export.appendingPathComponent("export.json")))
        let chess = try #require(index.corpora.first { $0.name == "chess" })
        #expect(chess.variants == ["chess-seed"] && chess.utterances == 8)
        let variant = try #require(index.variants.first { $0.name == "chess-seed" })
        let artifact = folder.appendingPathComponent("artifact")
        try FileManager.default.createDirectory(at: artifact, withIntermediateDirectories: true)
        _ = try TestSupport.run(
            script.path,
            [
                "prepare", export.appendingPathComponent(try #require(variant.training)).path,
                export.appendingPathComponent(try #require(variant.phrases)).path, artifact.path, "\(variant.weight)",
                "en-US",
            ])
        let manifest = export.appendingPathComponent(chess.manifest)
        var baseline: [(String, String)] = []
        var customized: [(String, String)] = []
        for line in try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n") {
            let entry = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(entry["text"] == nil, "an export holds no reference")
            let id = try #require(entry["id"] as? String)
            let audio = manifest.deletingLastPathComponent().appendingPathComponent(
                try #require(entry["audio"] as? String))
            func transcript(_ arguments: [String]) throws -> String {
                let answer = try TestSupport.run(script.path, ["decode", audio.path] + arguments)
                let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
                return try #require(object?["transcript"] as? String)
            }
            baseline.append((id, try transcript([])))
            customized.append((id, try transcript([artifact.path])))
        }
        try Self.write(baseline, to: export.appendingPathComponent("transcripts/chess.baseline.jsonl"))
        try Self.write(customized, to: export.appendingPathComponent("transcripts/chess.chess-seed.jsonl"))
        let readme = try String(contentsOf: export.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("`transcripts/chess.chess-seed.jsonl`"))

        let imported = try Self.run(
            suite, recognizers: Self.imported(folder: export.appendingPathComponent("transcripts").path),
            output: "imported")
        for key in ["chess/baseline@fake", "chess/customized/chess-seed@fake"] {
            let a = try #require(inside.systems.first { $0.key == key })
            let b = try #require(imported.systems.first { $0.key == key })
            #expect(a.metrics == b.metrics, "\(key)")
            #expect(a.utterances.map(\.hypothesis) == b.utterances.map(\.hypothesis))
        }
        let a = try #require(inside.comparison(corpus: "chess", variant: "chess-seed", recognizer: "fake"))
        let b = try #require(imported.comparison(corpus: "chess", variant: "chess-seed", recognizer: "fake"))
        #expect(a == b)
        // The same checks with the same outcomes, but the on-device claim: witnessed inside, only declared here.
        let claim = "external recognizer on-device: fake"
        func outcomes(_ results: RunResults) -> [String: Bool] {
            Dictionary(uniqueKeysWithValues: results.checks.filter { $0.name != claim }.map { ($0.name, $0.passed) })
        }
        #expect(outcomes(inside) == outcomes(imported))
        #expect(inside.checks.first { $0.name == claim }?.passed == true)
        let declared = try #require(imported.checks.first { $0.name == claim })
        #expect(declared.isSkipped && declared.message.hasPrefix("declared on-device, not verified"))
        #expect(imported.run.externalRecognizers?.first?.importedFiles?.count == 2)
    }

    @Test(
        "A missing utterance fails alone, named; an extra or duplicate one, a wrong format, a missing file stop the run"
    )
    func badFiles() throws {
        let suite = try MiniSuite(modes: ["baseline"])
        let file = suite.folder.appendingPathComponent("made/chess.baseline.jsonl")
        let ids = (0..<4).flatMap { index in ["kal16", "rms"].map { "chess-\(index)-\($0)" } }
        let recognizers = Self.imported(customized: false)

        func refusal(_ message: String) throws {
            #expect {
                _ = try Self.run(suite, recognizers: recognizers, output: "bad")
            } throws: { error in
                "\(error)".contains("recognizer fake: made/chess.baseline.jsonl") && "\(error)".contains(message)
            }
        }
        try refusal("no such file: the transcripts of its baseline on corpus chess")
        try Self.write(ids.map { ($0, "play the album counter gambit") } + [("chess-9-kal16", "extra")], to: file)
        try refusal("utterance 'chess-9-kal16' is not in corpus chess")
        try Self.write(ids.map { ($0, "play") } + [(ids[0], "again")], to: file)
        try refusal("chess-0-kal16")
        try "play the album (chess-0-kal16)\n".write(to: file, atomically: true, encoding: .utf8)
        try refusal("made/chess.baseline.jsonl:1: not a JSON object")

        try Self.write(ids.dropFirst().map { ($0, "play the album counter gambit") }, to: file)
        let results = try Self.run(suite, recognizers: recognizers, output: "missing")
        let system = try #require(results.system(corpus: "chess", mode: .baseline, recognizer: "fake"))
        #expect(system.failures.failed == 1 && system.utterances.count == 8)
        let missing = try #require(system.utterances.first { $0.id == ids[0] })
        #expect(missing.failureKind == .missingTranscript)
        #expect(missing.failure == "made/chess.baseline.jsonl has no transcript of utterance chess-0-kal16")
        #expect(results.checks.first { $0.name == "every utterance decoded" }?.passed == false)
    }

    /// The chess ids of ``MiniSuite``, in manifest order.
    static let chessIDs = (0..<4).flatMap { index in ["kal16", "rms"].map { "chess-\(index)-\($0)" } }

    @Test("Two utterances of one recording each get their own line, by id; a file naming audio files is refused")
    func sharedRecording() throws {
        let suite = try MiniSuite(modes: ["baseline"])
        // chess-0-rms is said in chess-0-kal16's recording too.
        let manifest = suite.folder.appendingPathComponent("chess.jsonl")
        try String(contentsOf: manifest, encoding: .utf8)
            .replacingOccurrences(of: "audio/chess-0-rms.wav", with: "audio/chess-0-kal16.wav")
            .write(to: manifest, atomically: true, encoding: .utf8)
        let texts = ["chess-0-kal16": "play the albin counter gambit", "chess-0-rms": "play the winawer variation"]
        try Self.write(
            Self.chessIDs.map { ($0, texts[$0] ?? "knight to queen bishop three") },
            to: suite.folder.appendingPathComponent("made/chess.baseline.jsonl"))
        let results = try Self.run(suite, recognizers: Self.imported(customized: false), output: "shared")
        let system = try #require(results.system(corpus: "chess", mode: .baseline, recognizer: "fake"))
        for (id, text) in texts {
            #expect(system.utterances.first { $0.id == id }?.hypothesis == text, "\(id)")
        }
        #expect(system.failures.failed == 0)

        // A ctm names its lines by file: by the recording's, they cannot be told apart.
        let ctm = Self.chessIDs.filter { $0 != "chess-0-rms" }.map { "\($0).wav 1 0.00 0.50 play" }
        try (ctm.joined(separator: "\n") + "\n").write(
            to: suite.folder.appendingPathComponent("made/chess.baseline.ctm"), atomically: true, encoding: .utf8)
        #expect {
            _ = try Self.run(
                suite, recognizers: Self.imported(customized: false).replacingOccurrences(of: ".jsonl", with: ".ctm"),
                output: "by-audio")
        } throws: { error in
            "\(error)".contains(
                "recognizer fake: made/chess.baseline.ctm: 'chess-0-kal16.wav' is not an utterance of corpus chess "
                    + "(chess.jsonl) but the audio of utterances chess-0-kal16, chess-0-rms. Imported transcripts are "
                    + "matched by utterance id")
        }
    }

    @Test("A line that is not UTF-8, or holds more words than its audio can, fails that utterance alone, named")
    func recognizerOutput() throws {
        let suite = try MiniSuite(modes: ["baseline"])
        var data = Data()
        var offset = 0
        for (index, id) in Self.chessIDs.enumerated() {
            if index == 2 {
                data.append(contentsOf: Array(#"{"id": "\#(id)", "text": "caf"#.utf8))
                offset = data.count
                data.append(contentsOf: [0xE9] + Array(#""}"#.utf8) + [0x0A])
            } else {
                let text = index == 5 ? String(repeating: "gambit ", count: 5000) : "play the queen's gambit"
                data.append(contentsOf: Array(#"{"id": "\#(id)", "text": "\#(text)"}"#.utf8) + [0x0A])
            }
        }
        let file = suite.folder.appendingPathComponent("made/chess.baseline.jsonl")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        let results = try Self.run(suite, recognizers: Self.imported(customized: false), output: "output")
        let system = try #require(results.system(corpus: "chess", mode: .baseline, recognizer: "fake"))
        #expect(system.failures.failed == 2)
        let latin = try #require(system.utterances.first { $0.id == Self.chessIDs[2] })
        #expect(latin.failureKind == .recognizerOutput && !latin.hypothesis.contains("\u{FFFD}"))
        #expect(
            latin.failure
                == "made/chess.baseline.jsonl:3: the transcript of utterance chess-1-kal16 is not UTF-8: byte 0xE9 "
                + "at offset \(offset) of the file. Re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)")
        let wordy = try #require(system.utterances.first { $0.id == Self.chessIDs[5] })
        #expect(wordy.failureKind == .recognizerOutput && wordy.hypothesis.isEmpty)
        let failure = try #require(wordy.failure)
        #expect(failure.hasPrefix("made/chess.baseline.jsonl: the transcript of utterance chess-2-rms has 5000 words"))
        #expect(failure.contains("s of audio, over the limit of"), "\(failure)")
        #expect(
            system.utterances.filter { $0.failure == nil }.allSatisfy { $0.hypothesis == "play the queen's gambit" })
    }

    @Test(
        "An empty file or a device says so; a file misread in the recognizer's format says where the format came from")
    func unreadableOrMisread() throws {
        let suite = try MiniSuite(modes: ["baseline"])
        let file = suite.folder.appendingPathComponent("made/chess.baseline.jsonl")
        func refusal(_ recognizers: String, _ message: String) {
            #expect {
                _ = try Self.run(suite, recognizers: recognizers, output: "refused")
            } throws: { error in
                "\(error)".contains(message)
            }
        }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "".write(to: file, atomically: true, encoding: .utf8)
        refusal(
            Self.imported(customized: false),
            "recognizer fake: made/chess.baseline.jsonl: the file is empty, so it has no utterances")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/dev/null")
        refusal(
            Self.imported(customized: false),
            "recognizer fake: made/chess.baseline.jsonl: this is a character device, not a file")
        try FileManager.default.removeItem(at: file)

        // JSON lines, read as trn because the recognizer says all its files are.
        try Self.write(Self.chessIDs.map { ($0, "play") }, to: file)
        let recognizers = Self.imported(customized: false) + "\n      format: trn"
        let suiteText = try String(contentsOf: suite.suiteFile, encoding: .utf8)
        let formatLine =
            suiteText.filter { $0 == "\n" }.count
            + recognizers.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                $0.contains("format: trn")
            }! + 1
        refusal(recognizers, "recognizer fake: made/chess.baseline.jsonl:1: missing utterance id")
        refusal(
            recognizers,
            "It was read as trn because recognizer fake's 'format: trn' (suite-refused.yaml:\(formatLine)) names the "
                + "format of all its files; its lines read as JSON lines instead. Correct the file, or remove "
                + "'format:'")
    }

    @Test("An export withholds private training data unless asked, holds no reference, and never writes over a folder")
    func exportPrivacy() throws {
        let suite = try MiniSuite()
        let training = suite.folder.appendingPathComponent("chess.yaml")
        try ("private: true\n" + (try String(contentsOf: training, encoding: .utf8)))
            .write(to: training, atomically: true, encoding: .utf8)
        let loaded = try Suite.load(suite.suiteFile)
        let folder = try TestSupport.temporaryDirectory("export")
        let withheld = try SuiteExport.write(
            suite: loaded, to: folder.appendingPathComponent("a"), includePrivate: false, allowOutsidePaths: false)
        let variant = try #require(withheld.variants.first)
        #expect(variant.isPrivate && variant.training == nil && variant.withheld?.contains("--include-private") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a/variants").path))
        let manifest = try String(
            contentsOf: folder.appendingPathComponent("a/corpora/chess/manifest.jsonl"), encoding: .utf8)
        #expect(!manifest.contains("albin") && manifest.split(separator: "\n").count == 8)
        let sent = try SuiteExport.write(
            suite: loaded, to: folder.appendingPathComponent("b"), includePrivate: true, allowOutsidePaths: false)
        #expect(sent.variants.first?.training == "variants/chess-seed.json")
        // The ranked terms a phrase-list lever takes (Apple's contextual strings on the Mac): the data's rare words,
        // most said first (the Albin and the Winawer 10 times each; winawer's pronunciation alone adds none).
        let termsFile = folder.appendingPathComponent("b").appendingPathComponent(
            try #require(sent.variants.first?.terms))
        let terms = try JSONDecoder().decode(SuiteExport.Terms.self, from: Data(contentsOf: termsFile))
        #expect(terms.variant == "chess-seed" && terms.terms.count >= 2)
        #expect(terms.terms.map(\.count) == terms.terms.map(\.count).sorted(by: >))
        #expect(terms.terms.first { $0.term == "albin" }?.count == 10)
        #expect(terms.terms.first { $0.term == "winawer" }?.count == 10)
        #expect {
            try SuiteExport.write(
                suite: loaded, to: folder.appendingPathComponent("b"), includePrivate: true, allowOutsidePaths: false)
        } throws: { "\($0)".contains("is not empty") }
    }
}
