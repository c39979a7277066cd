import Corpus
import Foundation
import GambitTestSupport
import Recognition
import Runner
import Testing

/// A typo, an empty list or a split that matches nothing in a suite is an error naming the line,
/// never a default that makes the run report something else.
@Suite("Strict suites")
struct StrictSuiteTests {
    /// A suite folder with a two-line manifest (one dev, one test utterance) and `suite` as its file.
    func suite(_ text: String, manifest: String? = nil) throws -> URL {
        let folder = try TestSupport.temporaryDirectory("strict-suite")
        let audio = TestSupport.cards[0].path
        let lines =
            manifest
                ?? """
                {"id": "a1", "audio": "\(audio)", "text": "ten of clubs", "split": "dev"}
                {"id": "a2", "audio": "\(audio)", "text": "ten of clubs", "split": "test"}

                """
        try lines.write(to: folder.appendingPathComponent("m.jsonl"), atomically: true, encoding: .utf8)
        let url = folder.appendingPathComponent("suite.yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func error(_ text: String) throws -> RunnerError {
        let url = try suite(text)
        return try #require(throws: RunnerError.self) { try Suite.load(url) }
    }

    static let corpora = "corpora:\n  - {name: c, manifest: m.jsonl, role: anti-context}\n"

    @Test(
        "An unknown key is an error with its line and the nearest known key",
        arguments: [
            // A variant's weight spelled wrong.
            (
                corpora + "variants:\n  - {name: v, training: t.yaml, wieght: 0.9}\n", 4, "wieght",
                "in variants[0]; did you mean `weight`?"
            ),
            // A top-level section spelled wrong.
            (corpora + "modse: [baseline]\n", 3, "modse", "in the top level; did you mean `modes`?"),
            (corpora + "streaming: {utterances: 2, chunkMs: 100}\n", 3, "chunkMs", "in streaming"),
            (
                "name: x\ncorpora:\n  - {name: c, manifest: m.jsonl, rol: anti-context}\n", 3, "rol",
                "did you mean `role`?"
            ),
            (
                corpora + "recognizers:\n  - {name: r, command: [x, \"{audio}\"], onDevice: true, timout: 3}\n", 4,
                "timout", "did you mean `timeout`?"
            ),
        ])
    func unknownKey(text: String, line: Int, key: String, message: String) throws {
        guard case .invalidSuite(_, let reported, let text) = try error(text) else {
            Issue.record("not a suite error")
            return
        }
        #expect(reported == line)
        #expect(text.contains("unknown key `\(key)`"), "\(text)")
        #expect(text.contains(message), "\(text)")
    }

    @Test("A list that is not a list, or an empty one where one is needed, is an error")
    func emptyOrMistypedLists() throws {
        let nullVariants = try error(Self.corpora + "variants:\nmodes: [baseline]\n")
        #expect("\(nullVariants)".contains("'variants' must be a list of variants (write [] for none)"))
        let noModes = try error(Self.corpora + "modes: []\n")
        #expect("\(noModes)".contains("'modes' lists no modes"))
        let noCorpora = try error("corpora: []\n")
        #expect("\(noCorpora)".contains("'corpora' lists no corpora"))
        let streaming = try error(Self.corpora + "streaming: 5\n")
        #expect("\(streaming)".contains("'streaming' must be a mapping"))
        // A variant's corpora given as one name, not a list, used to apply the variant to no corpus at all.
        let oneName = try error(Self.corpora + "variants:\n  - {name: v, training: t.yaml, corpora: c}\n")
        #expect("\(oneName)".hasSuffix(":4: error: 'corpora' must be a list of corpus names, not 'c'"), "\(oneName)")
        // A recognizer's command that is neither a list nor a line is reported on its own line.
        let mapped = try error(
            Self.corpora + "recognizers:\n  - name: r\n    onDevice: true\n    command: {run: x}\n")
        #expect(
            "\(mapped)".hasSuffix(":6: error: 'command' must be a list of arguments, not a mapping, {run: x}"),
            "\(mapped)")
        // Several problems in one variant: the first is the one always reported first (the mix before the key
        // that is missing).
        let two = try error(Self.corpora + "variants:\n  - {name: v, mix: bogus}\n")
        #expect("\(two)".contains("mix must be set or merged, not 'bogus'"), "\(two)")
        // `[]` says "none" on purpose.
        let none = try Suite.load(try suite(Self.corpora + "variants: []\nrecognizers: []\n"))
        #expect(none.variants.isEmpty && none.recognizers.isEmpty)
    }

    @Test("A decoder block is read, and a misspelt or out-of-range setting is an error at its line")
    func decoderBlock() throws {
        let loaded = try Suite.load(
            try suite(Self.corpora + "decoder:\n  beam: 1e-40\n  secondPass: false\n  languageWeight: 8\n"))
        #expect(
            loaded.decoder.beam == 1e-40 && loaded.decoder.secondPass == false && loaded.decoder.languageWeight == 8)
        #expect(try Suite.load(try suite(Self.corpora)).decoder == .standard)
        for (text, line, message) in [
            (
                "decoder:\n  beam: 1e-40\n  wordBeem: 1e-30\n", 5,
                "unknown key `wordBeem` in decoder; did you mean `wordBeam`?"
            ),
            (
                "decoder:\n  beam: 2\n", 4,
                "decoder setting 'beam' must be a number in (0, 1e-15], e.g. 1e-60 (wider beams crash the engine), not '2'"
            ),
            ("decoder: {secondPass: maybe}\n", 3, "decoder setting 'secondPass' must be true or false, not 'maybe'"),
            ("decoder: 1e-40\n", 3, "'decoder' must be a mapping of engine settings (beam, wordBeam"),
        ] {
            guard case .invalidSuite(_, let reported, let description) = try error(Self.corpora + text) else {
                Issue.record("not a suite error")
                continue
            }
            #expect(reported == line, "\(description)")
            #expect(description.contains(message), "\(description)")
        }
    }

    @Test("The engine settings are part of every decoded utterance's key; the defaults keep today's key")
    func decoderSettingsInTheKey() throws {
        func key(_ settings: DecoderSettings) -> String {
            WorkRequest.key(
                audioHash: "a", systemFingerprint: "s", modelFingerprint: "m", decoder: settings,
                streamed: nil)
        }
        var narrow = DecoderSettings.standard
        try narrow.set("beam", to: "1e-40")
        #expect(key(narrow) != key(.standard))
        // The key a run made before settings existed: "-remove_silence no" was its settings field.
        // (SHA-256 of "a|s|m|-remove_silence no|0"), so journals and caches of earlier runs stay valid.
        #expect(key(.standard) == "199b79455388f024f6c294aa6bda57638c92a4dea047a35f4da8b7160e4fff06")
    }

    @Test("termForms: a mapping of forms to terms, scored by the suite's normalizer; a form of no word names its line")
    func termForms() throws {
        let corpus = "corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: test}\n"
        let loaded = try Suite.load(
            try suite(corpus + "termForms:\n  \"albin's\": albin\n  nimzoindian: nimzo indian\n"))
        #expect(loaded.termForms == ["albin's": "albin", "nimzoindian": "nimzo indian"])
        #expect(
            loaded.normalizer.normalize("the Albin's and the nimzoindian") == [
                "the", "albin", "and", "the", "nimzo", "indian",
            ])
        #expect(try Suite.load(try suite(corpus)).normalizer == .standard)
        let empty = try #require(throws: RunnerError.self) {
            try Suite.load(try suite(corpus + "termForms:\n  albin: albin\n  \"...\": albin\n"))
        }
        #expect("\(empty)".contains(":5:") && "\(empty)".contains("has no word once normalized"), "\(empty)")
        let list = try #require(throws: RunnerError.self) { try Suite.load(try suite(corpus + "termForms: [albin]\n")) }
        #expect("\(list)".contains(":3:"), "\(list)")
    }

    @Test(
        "normalize: names the rules a run is scored under; term forms are read under them; an unknown name is refused")
    func normalize() throws {
        let corpus = "corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: test}\n"
        let whisper = try Suite.load(
            try suite(corpus + "normalize: whisper\ntermForms:\n  \"E5\": e five\n"))
        #expect(whisper.normalization == .whisper)
        #expect(whisper.normalizer.whisper == "openai-whisper 20250625")
        // Under Whisper's rules the form `E5` is the words `e 5`, and the term `e five` is the same words.
        #expect(whisper.normalizer.normalize("Play E5, Dr. Smith") == ["play", "e", "5", "doctor", "smith"])
        #expect(try Suite.load(try suite(corpus + "normalize: english\n")).normalizer == .standardEnglish)
        let unknown = try #require(throws: RunnerError.self) {
            try Suite.load(try suite(corpus + "normalize: jiwer\n"))
        }
        #expect("\(unknown)".contains(":3:") && "\(unknown)".contains("standard, english or whisper"), "\(unknown)")
    }

    @Test("The shipped suites load: every key they use is known")
    func shippedSuites() throws {
        let names = ["suite", "mixes", "phrases", "tune-merged", "weighted", "whisper-levers", "loop-dev", "loop-test"]
        for name in names {
            _ = try Suite.load(TestSupport.packageRoot.appendingPathComponent("Corpora/\(name).yaml"))
        }
    }

    @Test("A split that matches nothing, an unknown split and an empty manifest are errors naming the corpus")
    func splits() throws {
        let typo = try Suite.load(
            try suite("corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: tset}\n"))
        // "tset" is known because the suite names it, but no utterance is in it.
        let none = try #require(throws: RunnerError.self) {
            try typo.scoredEntries(of: typo.corpora[0], allowOutsidePaths: true)
        }
        #expect("\(none)".contains("corpus c: no utterance of"), "\(none)")
        #expect("\(none)".contains("is in split 'tset' (the manifest has dev: 1, test: 1)"), "\(none)")

        let audio = TestSupport.cards[0].path
        let stray = try Suite.load(
            try suite(
                "corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: test}\n",
                manifest: """
                    {"id": "a1", "audio": "\(audio)", "text": "ten of clubs", "split": "test"}
                    {"id": "a2", "audio": "\(audio)", "text": "ten of clubs", "split": "tets"}

                    """))
        let unknown = try #require(throws: RunnerError.self) {
            try stray.scoredEntries(of: stray.corpora[0], allowOutsidePaths: true)
        }
        #expect("\(unknown)".contains("utterance a2"), "\(unknown)")
        #expect("\(unknown)".contains("split 'tets', which this suite does not know (known: dev, test, train)"))

        let empty = try Suite.load(try suite(Self.corpora, manifest: "\n"))
        let nothing = try #require(throws: RunnerError.self) {
            try empty.scoredEntries(of: empty.corpora[0], allowOutsidePaths: true)
        }
        #expect("\(nothing)".contains("lists no utterance"), "\(nothing)")

        let fine = try Suite.load(try suite("corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: dev}\n"))
        #expect(try fine.scoredEntries(of: fine.corpora[0], allowOutsidePaths: true).map(\.id) == ["a1"])
    }

    @Test("Splits a user names are accepted: on a corpus that scores every entry, and beside a --split")
    func ownSplits() throws {
        let audio = TestSupport.cards[0].path
        let manifest = """
            {"id": "a1", "audio": "\(audio)", "text": "ten of clubs", "split": "holdout"}
            {"id": "a2", "audio": "\(audio)", "text": "ten of clubs", "split": "tune"}

            """
        // No split on the corpus: every entry is scored, whatever its split is called.
        let all = try Suite.load(try suite(Self.corpora, manifest: manifest))
        #expect(try all.scoredEntries(of: all.corpora[0], allowOutsidePaths: true).count == 2)
        // The suite names holdout; `--split tune` (which replaces the corpus's split) keeps it known.
        var named = try Suite.load(
            try suite(
                "corpora:\n  - {name: c, manifest: m.jsonl, split: holdout}\n  - {name: d, manifest: m.jsonl, split: tune}\n",
                manifest: manifest))
        for index in named.corpora.indices { named.corpora[index].split = "tune" }
        #expect(try named.scoredEntries(of: named.corpora[0], allowOutsidePaths: true).map(\.id) == ["a2"])
    }

    @Test("gambit run refuses a typo in the suite, a split with nothing in it and a shard beyond the data")
    func throughTheCommandLine() throws {
        let typo = try suite(Self.corpora + "variants: []\nmodes: [baseline]\ngate:\n  wer: {maxIncrese: 1}\n")
        let output = typo.deletingLastPathComponent().appendingPathComponent("out").path
        let gate = try TestSupport.gambit(["run", typo.path, "--output", output])
        #expect(gate.status != 0)
        #expect(
            gate.output.contains("unknown key `maxIncrese` in gate.wer; did you mean `maxIncrease`?"), "\(gate.output)")

        let split = try suite(
            "corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: dev}\nmodes: [baseline]\n")
        let splitRun = try TestSupport.gambit([
            "run", split.path, "--split", "validation", "--allow-outside-paths", "--output",
            split.deletingLastPathComponent().appendingPathComponent("out").path,
        ])
        #expect(splitRun.status != 0)
        #expect(
            splitRun.output.contains(
                "--split validation: no corpus has a 'validation' split, so every utterance would be scored "
                    + "(the corpora have dev: 1, test: 1); choose one of those splits"),
            "\(splitRun.output)")
        #expect(!splitRun.output.contains("0.00%"), "\(splitRun.output)")

        // One utterance over eight shards: at least seven shards hold nothing.
        let one = try suite(
            Self.corpora + "modes: [baseline]\n",
            manifest: "{\"id\": \"a1\", \"audio\": \"\(TestSupport.cards[0].path)\", \"text\": \"ten of clubs\"}\n")
        let emptyShard = try (0..<8).lazy.map { index in
            try TestSupport.gambit([
                "run", one.path, "--shard", "\(index)/8", "--allow-outside-paths", "--output",
                one.deletingLastPathComponent().appendingPathComponent("out\(index)").path,
            ])
        }.first { $0.status != 0 }
        let refused = try #require(emptyShard)
        #expect(
            refused.output.contains("holds no utterance of this suite's 1; run with fewer shards"), "\(refused.output)")
        #expect(!refused.output.contains("0.00%"), "\(refused.output)")
    }

    @Test("gambit run --split naming a split no corpus has is refused, not a run of every utterance")
    func splitNoCorpusHas() throws {
        let audio = TestSupport.cards[0].path
        // Entries that name no split belong to every split: any --split chose them all.
        let unlabelled = try suite(
            "corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: test}\nmodes: [baseline]\n",
            manifest: "{\"id\": \"a1\", \"audio\": \"\(audio)\", \"text\": \"ten of clubs\"}\n")
        // A suite whose corpora name no split: --split replaced nothing.
        let splitless = try suite(Self.corpora + "modes: [baseline]\n")
        for (suite, message) in [
            (
                unlabelled,
                "--split validation: no corpus has a 'validation' split, so every utterance would be scored "
                    + "(no manifest entry names a split); mark entries with \"split\", or leave out --split"
            ),
            (splitless, "--split validation: no corpus of \(splitless.path) names a split"),
        ] {
            let (status, output) = try TestSupport.gambit([
                "run", suite.path, "--split", "validation", "--plan", "--allow-outside-paths", "--output",
                suite.deletingLastPathComponent().appendingPathComponent("out").path,
            ])
            #expect(status == 2, "\(output)")
            #expect(output.contains(message), "\(output)")
            #expect(!output.contains("plan of"), "\(output)")
        }
        // A split one corpus has is fine, though another corpus has none of it (its entries name no split).
        let labelled = try suite(
            "corpora:\n  - {name: c, manifest: m.jsonl, role: domain, split: test}\n"
                + "  - {name: d, manifest: u.jsonl, role: anti-context, split: test}\nmodes: [baseline]\n")
        try "{\"id\": \"b1\", \"audio\": \"\(audio)\", \"text\": \"ten of clubs\"}\n".write(
            to: labelled.deletingLastPathComponent().appendingPathComponent("u.jsonl"), atomically: true,
            encoding: .utf8)
        let (status, output) = try TestSupport.gambit([
            "run", labelled.path, "--split", "dev", "--plan", "--allow-outside-paths", "--output",
            labelled.deletingLastPathComponent().appendingPathComponent("out").path,
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("plan of"), "\(output)")
    }

    /// The suite's message and line, or nil when the suite loads.
    func refusal(_ text: String) throws -> (line: Int?, message: String)? {
        let url = try suite(text)
        do {
            try Suite.load(url).checkPrograms()
            return nil
        } catch RunnerError.invalidSuite(_, let line, let message) {
            return (line, message)
        }
    }

    @Test(
        "Term forms that form a cycle or a chain are refused with the chain spelt out and its lines",
        arguments: [
            (
                "termForms:\n  albin: alvin\n  alvin: albin\n", 4,
                "form a cycle, 'albin' → 'alvin' → 'albin' (lines 4, 5)"
            ),
            ("termForms:\n  alpha: beta\n  beta: gamma\n", 4, "form a chain, 'alpha' → 'beta' → 'gamma' (lines 4, 5)"),
            // The form that is a term elsewhere is found whatever the order; case does not hide it.
            ("termForms:\n  Alvin: albin\n  ALBIN: alvin\n", 4, "form a cycle, 'Alvin' → 'albin' → 'alvin'"),
            ("termForms:\n  zeta: eta\n  iota: Zeta\n", 5, "form a chain, 'iota' → 'Zeta' → 'eta'"),
        ])
    func termFormChains(text: String, line: Int, message: String) throws {
        let refused = try #require(try refusal(Self.corpora + text))
        #expect(refused.line == line)
        #expect(refused.message.contains(message), "\(refused.message)")
        // Forms that each name their final term are fine, and so is a form that names itself.
        #expect(try refusal(Self.corpora + "termForms:\n  albin's: albin\n  albins: albin\n  albin: albin\n") == nil)
    }

    @Test(
        "A duration out of range (huge, infinite, zero, negative) is refused with the setting, value and range",
        arguments: [
            ("timeout: 1e30", "`timeout` is 1e30; it must be a number of seconds within 1…604800 (7 days)"),
            ("timeout: .inf", "`timeout` is .inf; it must be a number of seconds within 1…604800"),
            ("timeout: 0", "`timeout` is 0; it must be a number of seconds within 1…604800"),
            ("timeout: -1", "`timeout` is -1; it must be a number of seconds within 1…604800"),
            ("timeout: nan", "`timeout` is nan; it must be a number of seconds"),
            (
                #"customization: {decode: [/bin/echo, "{audio}"], prepareTimeout: 1e300}"#,
                "`prepareTimeout` is 1e300; it must be a number of seconds within 1…604800 (7 days)"
            ),
            (
                #"customization: {decode: [/bin/echo, "{audio}"], prepareTimeout: -1}"#,
                "`prepareTimeout` is -1; it must be a number of seconds within 1…604800"
            ),
        ])
    func durations(setting: String, message: String) throws {
        let text =
            Self.corpora
            + "recognizers:\n  - {name: r, command: [/bin/echo, \"{audio}\"], onDevice: true, \(setting)}\n"
        let refused = try #require(try refusal(text))
        #expect(refused.line == 4)
        #expect(refused.message.contains(message), "\(refused.message)")
    }

    @Test("A decoder profile sets its settings, those beside it are set over it, and an unknown one is refused")
    func decoderProfile() throws {
        let low = try Suite.load(try suite(Self.corpora + "decoder: {languageWeight: 8, profile: lowLatency}\n"))
        #expect(low.decoder == DecoderSettings(languageWeight: 8, secondPass: false))
        let over = try Suite.load(try suite(Self.corpora + "decoder: {profile: lowLatency, secondPass: true}\n"))
        #expect(over.decoder == DecoderSettings(secondPass: true))
        #expect(try Suite.load(try suite(Self.corpora + "decoder: {profile: default}\n")).decoder == .standard)
        let lowest = try Suite.load(try suite(Self.corpora + "decoder: {profile: lowestLatency}\n"))
        #expect(lowest.decoder == DecoderSettings(secondPass: false, bestPath: false))
        let refused = try #require(try refusal(Self.corpora + "decoder: {profile: fastest}\n"))
        #expect(refused.line == 3)
        #expect(
            refused.message.contains(
                "unknown decoder profile 'fastest'; the profiles are default, lowLatency, lowestLatency"),
            "\(refused.message)")
    }

    @Test("Streaming's pacing and trailing silence are read, and refused out of range")
    func streamingSetup() throws {
        #expect(try Suite.load(try suite(Self.corpora)).streaming.setup == StreamingSetup(chunkMilliseconds: 100))
        let paced = try Suite.load(
            try suite(
                Self.corpora
                    + "streaming: {utterances: 3, chunkMilliseconds: 50, pacing: realTime, trailingSilenceMilliseconds: 800}\n"
            ))
        #expect(
            paced.streaming.setup
                == StreamingSetup(chunkMilliseconds: 50, pacing: .realTime, trailingSilenceMilliseconds: 800))
        let pacing = try #require(try refusal(Self.corpora + "streaming: {utterances: 1, pacing: live}\n"))
        #expect(pacing.message.contains("'pacing' is 'live'; it must be realTime or simulated"), "\(pacing.message)")
        let silence = try #require(
            try refusal(Self.corpora + "streaming: {utterances: 1, trailingSilenceMilliseconds: 20000}\n"))
        #expect(
            silence.message.contains("`trailingSilenceMilliseconds` is 20000; it must be a number of milliseconds"),
            "\(silence.message)")
        // Each setup has a key of its own, and none is an answer streamed before the detector was on ("100").
        #expect(StreamingSetup(chunkMilliseconds: 100).keyText == "100/simulated/0/vad")
        #expect(StreamingSetup(chunkMilliseconds: 100, pacing: .realTime).keyText == "100/realTime/0/vad")
    }

    @Test("A streaming chunk out of range is refused with its value and range")
    func chunkDuration() throws {
        for chunk in ["99999999999999", "0", "2.5"] {
            let refused = try #require(
                try refusal(Self.corpora + "streaming: {utterances: 1, chunkMilliseconds: \(chunk)}\n"))
            #expect(refused.line == 3)
            #expect(refused.message.contains("`chunkMilliseconds` is \(chunk); it must be a"), "\(refused.message)")
            #expect(refused.message.contains("milliseconds within 10…60000"), "\(refused.message)")
        }
        let utterances = try #require(
            try refusal(Self.corpora + "streaming: {utterances: -1, chunkMilliseconds: 100}\n"))
        #expect(utterances.message.contains("'utterances' must be a whole number, 0 or more, not '-1'"))
    }

    @Test(
        "A value of the wrong type names the type the key takes and what was given",
        arguments: [
            (
                "variants:\n  - {name: v, training: t.yaml, weight: [0.5]}\n",
                "'weight' must be a number, not a list, [0.5]"
            ),
            ("variants:\n  - {name: v, training: t.yaml, weight: heavy}\n", "'weight' must be a number, not 'heavy'"),
            (
                "variants:\n  - {name: v, training: t.yaml, compounds: {a: 1}}\n",
                "'compounds' must be true or false, not a mapping, {a: 1}"
            ),
            ("variants:\n  - {name: [v], training: t.yaml}\n", "'name' must be a text, not a list, [v]"),
            (
                "recognizers:\n  - {name: r, command: [/bin/echo, \"{audio}\"], onDevice: true, timeout: [3]}\n",
                "'timeout' must be a number of seconds, not a list, [3]"
            ),
            (
                "streaming: {utterances: [1], chunkMilliseconds: 100}\n",
                "'utterances' must be a whole number, not a list"
            ),
            ("decoder: {beam: [1e-60]}\n", "decoder setting 'beam' is one value, not a list, [1e-60]"),
        ])
    func typeMismatch(text: String, message: String) throws {
        let refused = try #require(try refusal(Self.corpora + text))
        #expect(refused.line == 4 || refused.line == 3)
        #expect(refused.message.contains(message), "\(refused.message)")
        #expect(!refused.message.contains("must be a string"), "\(refused.message)")
    }

    @Test("A recognizer's program that will not be found is refused with the rule and where it looked")
    func programLookup() throws {
        let recognizer = { (command: String) in
            Self.corpora + "recognizers:\n  - {name: r, command: [\(command), \"{audio}\"], onDevice: true}\n"
        }
        let bare = try #require(try refusal(recognizer("gambit-no-such-asr")))
        #expect(bare.line == 4)
        #expect(bare.message.contains("gambit-no-such-asr, is not on PATH (looked in /"), "\(bare.message)")
        #expect(bare.message.contains("A program named without a slash is looked up on PATH"), "\(bare.message)")
        #expect(bare.message.contains("resolved against the suite's folder"), "\(bare.message)")
        // One beside the suite is pointed to.
        let url = try suite(recognizer("asr-here"))
        let folder = url.deletingLastPathComponent()
        try "#!/bin/sh\n".write(to: folder.appendingPathComponent("asr-here"), atomically: true, encoding: .utf8)
        try TestSupport.makeExecutable(folder.appendingPathComponent("asr-here"))
        let beside = try #require(throws: RunnerError.self) { try Suite.load(url).checkPrograms() }
        #expect("\(beside)".contains("The suite's folder has asr-here: write ./asr-here."), "\(beside)")
        // Written with a slash, it is found there; a missing one names where it was looked for.
        try recognizer("./asr-here").write(to: url, atomically: true, encoding: .utf8)
        #expect(try Suite.load(url).recognizers.first?.command.first == folder.appendingPathComponent("asr-here").path)
        let missing = try #require(try refusal(recognizer("./nope/asr")))
        #expect(missing.message.contains("./nope/asr, does not exist: /"), "\(missing.message)")
        // A program on PATH is found as before.
        #expect(try refusal(recognizer("sh")) == nil)
        // Reading the suite is not running it (a report, an export, a Slurm login node): it reads, and a run
        // refuses it before anything is prepared or decoded.
        try recognizer("gambit-no-such-asr").write(to: url, atomically: true, encoding: .utf8)
        #expect(try Suite.load(url).missingPrograms.count == 1)
        let run = try TestSupport.gambit(["run", url.path, "--output", folder.appendingPathComponent("out").path])
        #expect(run.status == 2)
        #expect(run.output.contains("gambit-no-such-asr, is not on PATH"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/.gambit").path))
    }

    @Test("Modes written out that would decode nothing are refused, saying why")
    func modesThatDropSomething() throws {
        let customized = try #require(try refusal(Self.corpora + "modes: [baseline, customized]\n"))
        #expect(customized.line == 3)
        #expect(customized.message.contains("modes lists customized, but the suite has no variants"))
        let oracle = try #require(try refusal(Self.corpora + "modes: [baseline, oracle]\n"))
        #expect(oracle.message.contains("modes lists oracle, but every corpus is anti-context"), "\(oracle.message)")
        // The oracle needs no variant: it is decoded, and measured, on a domain corpus without one.
        let domain = "corpora:\n  - {name: c, manifest: m.jsonl, role: domain}\n"
        #expect(try Suite.load(try suite(domain + "modes: [baseline, oracle]\n")).modes == [.baseline, .oracle])
    }

    @Test("Two names that print alike are told apart by their code points")
    func namesThatPrintAlike() throws {
        let text =
            Self.corpora
            + "variants:\n  - {name: \"caf\u{E9}\", training: t.yaml}\n  - {name: \"cafe\u{301}\", training: t.yaml}\n"
        let refused = try #require(try refusal(text))
        #expect(
            refused.message.contains(
                "variant names must be unique: 'caf\u{E9} (U+0063 U+0061 U+0066 U+00E9)' (entry 1) and "
                    + "'cafe\u{301} (U+0063 U+0061 U+0066 U+0065 U+0301)' (entry 2) are the same name"),
            "\(refused.message)")
        let unknown = try #require(
            try refusal(Self.corpora + "variants:\n  - {name: v, training: t.yaml, corpora: [\"c\\0\"]}\n"))
        #expect(unknown.message.contains("unknown corpus 'c\\u{0}' (have: 'c')"), "\(unknown.message)")
        // Every error that names a corpus, an utterance or a variant escapes it; an id in another normal form
        // shows its code points.
        let split = RunnerError.unknownSplit(
            corpus: "c\u{0}", manifest: "m.jsonl", utterance: "u\n1", split: "x", known: [])
        #expect("\(split)".hasPrefix("corpus c\\u{0}: utterance u\\n1 in m.jsonl"), "\(split)")
        let duplicate = CorpusError.duplicateID(path: "t.tsv", line: 2, id: "cafe\u{301}", firstLine: 1)
        #expect("\(duplicate)".contains("\"cafe\u{301} (U+0063 U+0061 U+0066 U+0065 U+0301)\""), "\(duplicate)")
    }

    @Test("gambit run refuses gate limits for a corpus the suite does not have, before anything is decoded")
    func gateCorpusTypo() throws {
        let typo = try suite(Self.corpora + "modes: [baseline]\ngate:\n  corpora:\n    cc: {wer: {maxIncrease: 0}}\n")
        let output = typo.deletingLastPathComponent().appendingPathComponent("out")
        let run = try TestSupport.gambit(["run", typo.path, "--output", output.path])
        #expect(run.status == 2, "\(run.output)")
        #expect(
            run.output.contains(":6: error: the limits for corpus `cc` name a corpus not in the suite"), "\(run.output)"
        )
        #expect(run.output.contains("Did you mean `c`?"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
