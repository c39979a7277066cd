import Foundation
import GambitTestSupport
import Runner
import Testing

/// Inputs that used to turn into a plausible number or a raw system error, tried through the CLI
/// as a user would.
@Suite("Bad input through the command line")
struct BadInputTests {
    /// Writes `text` to `name` in a fresh folder and returns the file.
    func file(_ name: String, _ text: String) throws -> URL {
        let url = try TestSupport.temporaryDirectory("bad-input").appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("Lint prints a count of 10¹² as it is, and its share of the budget")
    func lintHugeCount() throws {
        let training = try file(
            "huge.yaml",
            "locale: en-US\nidentifier: t\nversion: \"1\"\nphrases:\n  - {phrase: play, count: 1000000000000}\n")
        let (status, output) = try TestSupport.gambit(["lint", training.path])
        #expect(status == 1, "\(output)")
        #expect(output.contains("budget: 1000000000000 of 1000000 samples"), "\(output)")
        #expect(output.contains("1000000000000  "), "\(output)")
        #expect(!output.contains("-727379968"), "\(output)")
    }

    @Test("Score counts a missing hypothesis as all deletions, and --strict refuses it")
    func scoreMissingHypotheses() throws {
        let reference = try file(
            "ref.trn", "play the albin counter gambit (u1)\ncall maeve (u2)\ntake two tablets (u3)\n")
        let hypothesis = try file("hyp.trn", "play the albin counter gambit (u1)\n")
        let (status, output) = try TestSupport.gambit(["score", "--ref", reference.path, "--hyp", hypothesis.path])
        #expect(status == 0, "\(output)")
        // 5 words deleted of 10: the two missing utterances count, as in sclite.
        #expect(output.contains("50.00"), "\(output)")
        #expect(!output.contains("WER 0.00"), "\(output)")
        #expect(output.contains("u2, u3"), "\(output)")

        let skipped = try TestSupport.gambit(
            ["score", "--ref", reference.path, "--hyp", hypothesis.path, "--missing", "skip", "--json"])
        #expect(skipped.status == 0, "\(skipped.output)")
        #expect(skipped.output.contains("\"onlyInReference\" : 2"), "\(skipped.output)")

        let strict = try TestSupport.gambit(["score", "--ref", reference.path, "--hyp", hypothesis.path, "--strict"])
        #expect(strict.status != 0, "\(strict.output)")
        #expect(strict.output.contains("2 of 3 reference utterances have no hypothesis (u2, u3)"), "\(strict.output)")
    }

    @Test("Score guesses a file's format only when all its lines agree, says which it took, and takes --ref-format")
    func scoreFormats() throws {
        // Kaldi text whose words are digits: line 1 reads as ctm and stm too, line 2 as Kaldi text only.
        let text = try file("text", "utt1 4 2 0 7 1\nutt2 nine one one\n")
        let guessed = try TestSupport.gambit(["score", "--ref", text.path, "--hyp", text.path])
        #expect(guessed.status == 0, "\(guessed.output)")
        #expect(guessed.output.contains("note: \(text.path): read as Kaldi text"), "\(guessed.output)")
        #expect(guessed.output.contains("|      2 |       8 |       8 |"), "\(guessed.output)")

        // Every line reads as ctm, stm and Kaldi text: refused until named, and named, no guess is told.
        let digits = try file("digits", "u1 1 2 3 4\nu2 5 6 7 8\n")
        let refused = try TestSupport.gambit(["score", "--ref", digits.path, "--hyp", text.path])
        #expect(refused.status == 2, "\(refused.output)")
        #expect(refused.output.contains("every line reads as ctm, stm and Kaldi text alike"), "\(refused.output)")
        let named = try TestSupport.gambit(
            ["score", "--ref", digits.path, "--hyp", digits.path, "--ref-format", "kaldi", "--hyp-format", "kaldi"])
        #expect(named.status == 0, "\(named.output)")
        #expect(!named.output.contains("note:"), "\(named.output)")
        #expect(named.output.contains("|      2 |       8 |       8 |"), "\(named.output)")
        let unknown = try TestSupport.gambit(["score", "--ref", digits.path, "--hyp", text.path, "--ref-format", "sph"])
        #expect(unknown.status != 0 && unknown.output.contains("biasing-tsv"), "\(unknown.output)")

        // A biasing list whose third column on line 1 is not a list is read as one, and its reader names the column.
        let lists = try file(
            "refs.tsv", "u1\tplay the albin gambit\talbin\t[\"albin\"]\nu2\tcall maria\t[\"maria\"]\t[\"maria\"]\n")
        let list = try TestSupport.gambit(["score", "--ref", lists.path, "--hyp", text.path])
        #expect(list.status == 2, "\(list.output)")
        #expect(list.output.contains("\(lists.path):1: utterance 'u1': column 3"), "\(list.output)")

        // A file in two formats is refused, naming the line.
        let mixed = try file("mixed.txt", "play the albin counter gambit (u1)\ncall maeve (u2)\nu3 take two tablets\n")
        let refusedMixed = try TestSupport.gambit(["score", "--ref", mixed.path, "--hyp", text.path])
        #expect(refusedMixed.status == 2, "\(refusedMixed.output)")
        #expect(
            refusedMixed.output.contains("\(mixed.path):3: this line is not trn, as 2 of the file's 3 lines are"),
            "\(refusedMixed.output)")

        // A manifest's boosted lists are each utterance's own.
        let manifest = try file(
            "manifest.jsonl",
            #"{"id": "u1", "audio": "u1.wav", "text": "play the albin gambit", "boosted": ["albin", "winawer"]}"#
                + "\n" + #"{"id": "u2", "audio": "u2.wav", "text": "call maria now", "boosted": ["maria"]}"# + "\n")
        let hypotheses = try file("hyps", "u1 play the album gambit\nu2 call maria albin now\n")
        let scored = try TestSupport.gambit(["score", "--ref", manifest.path, "--hyp", hypotheses.path])
        #expect(scored.status == 0, "\(scored.output)")
        #expect(scored.output.contains("B-WER  50.00% (1/2)   U-WER  20.00% (1/5)"), "\(scored.output)")
        #expect(scored.output.contains("Biasing lists: 2 utterances, 3 entries"), "\(scored.output)")
    }

    @Test("An output path that is a file, or a folder that cannot be written, is named with what is wrong")
    func unusableOutput() throws {
        let folder = try TestSupport.temporaryDirectory("output")
        let file = folder.appendingPathComponent("Reports")
        try Data("x".utf8).write(to: file)
        #expect(throws: OutputFolderError(path: file.path, problem: .isFile(file.path))) {
            try OutputFolder.prepare(file)
        }
        let below = file.appendingPathComponent("run1")
        let error = try #require(throws: OutputFolderError.self) { try OutputFolder.prepare(below) }
        #expect(error.description.contains("\(file.path) is a file, not a folder"), "\(error)")

        let locked = folder.appendingPathComponent("readonly")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        // root may write anywhere; the check is then rightly silent.
        if getuid() != 0 {
            let readOnly = try #require(throws: OutputFolderError.self) {
                try OutputFolder.prepare(locked.appendingPathComponent("out"))
            }
            #expect(readOnly.description.contains("\(locked.path) is not writable (Permission denied)"))
        }
        // Through the CLI, the message is the same sentence, not a Cocoa error code.
        let suite = folder.appendingPathComponent("suite.yaml")
        try """
        name: s
        corpora:
          - {name: general, manifest: general.jsonl, role: anti-context}
        variants: []
        modes: [baseline]

        """.write(to: suite, atomically: true, encoding: .utf8)
        try #"{"id":"cards-001","audio":"\#(TestSupport.cards[0].path)","text":"ten of clubs"}"#
            .appending("\n").write(
                to: folder.appendingPathComponent("general.jsonl"), atomically: true, encoding: .utf8)
        let (status, output) = try TestSupport.gambit(["run", suite.path, "--output", file.path])
        #expect(status != 0)
        #expect(output.contains("the output path is a file, not a folder"), "\(output)")
        #expect(!output.contains("NSCocoaErrorDomain"), "\(output)")
    }

    @Test("Training data, a suite and a manifest that are not UTF-8 name the file, the byte offset and the line")
    func notUTF8() throws {
        let folder = try TestSupport.temporaryDirectory("latin1")
        // "café" in Latin-1: the é is the single byte 0xE9.
        let head = "locale: en-US\nidentifier: t\nversion: \"1\"\nphrases:\n  - {phrase: \"caf"
        let training = folder.appendingPathComponent("training.yaml")
        try (Data(head.utf8) + [0xE9] + Data("\", count: 5}\n".utf8)).write(to: training)
        let lint = try TestSupport.gambit(["lint", training.path])
        #expect(lint.status != 0)
        #expect(
            lint.output.contains(
                "\(training.path):5: error: malformed YAML: not UTF-8: byte 0xE9 at offset \(head.utf8.count) (line 5)"),
            "\(lint.output)")
        #expect(!lint.output.contains("Code=259"), "\(lint.output)")

        let suite = folder.appendingPathComponent("suite.yaml")
        try (Data("name: caf".utf8) + [0xE9] + Data("\ncorpora: []\n".utf8)).write(to: suite)
        let run = try TestSupport.gambit(["run", suite.path, "--output", folder.appendingPathComponent("out").path])
        #expect(run.status != 0)
        #expect(run.output.contains("suite.yaml:1") && run.output.contains("byte 0xE9 at offset 9"), "\(run.output)")

        let manifest = folder.appendingPathComponent("general.jsonl")
        try (Data(#"{"id":"a","audio":"\#(TestSupport.cards[0].path)","text":"caf"#.utf8) + [0xE9] + Data("\"}\n".utf8))
            .write(to: manifest)
        try
            "name: s\ncorpora:\n  - {name: general, manifest: general.jsonl, role: anti-context}\nvariants: []\nmodes: [baseline]\n"
            .write(to: suite, atomically: true, encoding: .utf8)
        let manifestRun = try TestSupport.gambit([
            "run", suite.path, "--output", folder.appendingPathComponent("out").path,
        ])
        #expect(manifestRun.status != 0)
        #expect(
            manifestRun.output.contains("\(manifest.path): cannot read the file (not UTF-8: byte 0xE9"),
            "\(manifestRun.output)")
    }

    @Test("Decoding a folder says it is a folder, not that there is no such file")
    func decodeFolder() throws {
        let folder = try TestSupport.temporaryDirectory("decode-folder")
        let (status, output) = try TestSupport.gambit(["decode", folder.path])
        #expect(status != 0)
        #expect(output.contains("\(folder.path): a folder, not an audio file"), "\(output)")
        #expect(!output.contains("no such audio file"), "\(output)")
    }

    @Test("Decoding a WAV as --raw, or a stereo file whose channels cancel, names the file instead of decoding it")
    func decodeMisreadAudio() throws {
        let speech = TestSupport.cards[0]
        let raw = try TestSupport.gambit(["decode", "--alternatives", "0", "--raw", "s16le:16000:1", speech.path])
        #expect(raw.status != 0)
        #expect(
            raw.output.contains("\(speech.path): the file has a header (WAV, 16000 Hz, 1 channel)"), "\(raw.output)")

        let folder = try TestSupport.temporaryDirectory("decode-cancel")
        let inverted = folder.appendingPathComponent("inverted.wav")
        let stereo = folder.appendingPathComponent("stereo.wav")
        try TestSupport.run("sox", ["-R", speech.path, inverted.path, "vol", "-1"])
        try TestSupport.run("sox", ["-R", "-M", speech.path, inverted.path, stereo.path])
        let mixed = try TestSupport.gambit(["decode", "--alternatives", "0", stereo.path])
        #expect(mixed.status != 0)
        #expect(
            mixed.output.contains("\(stereo.path): the channels cancel out when mixed to mono"), "\(mixed.output)")
    }

    @Test("decode --allow-server says in text, as its JSON does, that the training data was not used")
    func decodeIgnoredCustomization() throws {
        let folder = try TestSupport.temporaryDirectory("decode-ignored")
        let training = folder.appendingPathComponent("cards.yaml")
        try "locale: en-US\nidentifier: t\nversion: \"1\"\nphrases:\n  - {phrase: ten of clubs, count: 10}\n"
            .write(to: training, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["GAMBIT_CACHE"] = folder.appendingPathComponent("cache").path
        let arguments = [
            "decode", "--allow-server", "--training", training.path, "--alternatives", "0", TestSupport.cards[0].path,
        ]
        let ignored = try TestSupport.gambit(arguments, environment: environment)
        #expect(ignored.status == 0, "\(ignored.output)")
        #expect(ignored.output.contains("customization ignored: request not forced on-device"), "\(ignored.output)")
        let applied = try TestSupport.gambit(arguments.filter { $0 != "--allow-server" }, environment: environment)
        #expect(applied.status == 0 && !applied.output.contains("customization ignored"), "\(applied.output)")
    }

    @Test("A training file and a cache folder whose names hold $( decode customized, read by the engine as named")
    func dollarParenthesisInNames() throws {
        // The engine's argument parser reads `$(x)` in a value as the environment variable x.
        let folder = try TestSupport.temporaryDirectory("dollar").appendingPathComponent("cache$(x)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let training = folder.deletingLastPathComponent().appendingPathComponent("cards$(x).yaml")
        try "locale: en-US\nidentifier: t\nversion: \"1\"\nphrases:\n  - {phrase: ten of clubs, count: 10}\n"
            .write(to: training, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["GAMBIT_CACHE"] = folder.path
        environment["x"] = "elsewhere"
        for mix in ["merged", "set"] {
            let (status, output) = try TestSupport.gambit(
                [
                    "decode", "--training", training.path, "--mix", mix, "--alternatives", "0",
                    TestSupport.cards[0].path,
                ], environment: environment)
            #expect(status == 0, "\(mix): \(output)")
            #expect(output.contains("ten of clubs"), "\(mix): \(output)")
            #expect(!output.contains("customization ignored"), "\(mix): \(output)")
        }
    }
}
