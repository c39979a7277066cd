import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// A modern recognizer: Whisper tiny.en through faster-whisper, in the virtual environment `scripts/install-deps.sh`
/// makes, kept loaded by each worker (`serve`) and customized by a prompt its adapter
/// (`scripts/recognizers/whisper-tiny-en.py`) builds from the variant's phrases.
@Suite("Whisper tiny.en, customized by its prompt", .serialized)
struct WhisperAdapterTests {
    static let adapter = TestSupport.packageRoot.appendingPathComponent("scripts/recognizers/whisper-tiny-en.py")
    static let venvPython = TestSupport.packageRoot.appendingPathComponent(".venv/whisper/bin/python")
    /// The venv exists; under CI the tests run whatever this says, so a machine without it fails them.
    static let available =
        FileManager.default.isExecutableFile(atPath: venvPython.path)
        || ProcessInfo.processInfo.environment["CI"] == "true"

    /// Stands between Gambit and the real adapter's serve process, passing each request and answer through. It
    /// logs each start, and on the first request for `chess-1-kal16` it meets it kills the adapter (SIGKILL) while
    /// that request is being answered and dies itself: a serve process killed mid-run.
    static func killer(in folder: URL) throws -> (script: URL, log: URL) {
        let script = folder.appendingPathComponent("kill-once.py")
        let log = folder.appendingPathComponent("serve.log")
        let marker = folder.appendingPathComponent("killed-once")
        try """
        import os, subprocess, sys
        LOG, MARKER = \(String(reflecting: log.path)), \(String(reflecting: marker.path))
        with open(LOG, "a") as f: f.write("start\\n")
        child = subprocess.Popen([sys.executable, \(String(reflecting: adapter.path)), "serve"] + sys.argv[1:],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for line in sys.stdin:
            child.stdin.write(line)
            child.stdin.flush()
            if "chess-1-kal16" in line and not os.path.exists(MARKER):
                open(MARKER, "w").close()
                child.kill()
                os._exit(1)
            sys.stdout.write(child.stdout.readline())
            sys.stdout.flush()
        """.write(to: script, atomically: true, encoding: .utf8)
        return (script, log)
    }

    @Test(
        "Served in a real run: loaded once per worker and system, the prompt changes words, a killed process restarts",
        .enabled(if: available, "needs the Whisper venv (scripts/install-deps.sh)"), .timeLimit(.minutes(10)))
    func servedRun() throws {
        let folder = try TestSupport.temporaryDirectory("whisper")
        let (script, log) = try Self.killer(in: folder)
        let adapter = Self.adapter.path
        let suite = try MiniSuite(
            modes: ["baseline", "customized"],
            extra: """
                recognizers:
                  - name: whisper
                    command: ["\(adapter)", decode, "{audio}"]
                    serve: ["\(Self.venvPython.path)", "\(script.path)"]
                    onDevice: true
                    corpora: [chess]
                    customization:
                      prepare: ["\(adapter)", prepare, --training, "{training}", --phrases, "{phrases}", --artifact, "{artifact}"]
                      decode: ["\(adapter)", decode, "{audio}", --artifact, "{artifact}"]
                      serve: ["\(Self.venvPython.path)", "\(script.path)", --artifact, "{artifact}"]
                """)
        let results = try suite.run(workers: 2)
        let baseline = try #require(
            results.system(corpus: "chess", mode: .baseline, variant: nil, recognizer: "whisper"))
        let customized = try #require(
            results.system(corpus: "chess", mode: .customized, variant: "chess-seed", recognizer: "whisper"))
        for system in [baseline, customized] {
            #expect(system.utterances.count == 8)
            #expect(system.utterances.allSatisfy { $0.failure == nil }, "\(system.utterances.compactMap(\.failure))")
        }
        #expect(baseline.utterances.allSatisfy { $0.customization == .notRequested && !$0.hypothesis.isEmpty })
        #expect(customized.utterances.allSatisfy { $0.customization == .applied })
        // The prompt changes what it hears: on this audio the baseline writes "album" or "albion" for Albin.
        let differing = zip(baseline.utterances, customized.utterances).filter { $0.hypothesis != $1.hypothesis }
        #expect(!differing.isEmpty, "\(baseline.utterances.map(\.hypothesis))")
        // The killed request was sent again to a new process, and only that one.
        let retried = (baseline.utterances + customized.utterances).filter { $0.retries > 0 }
        #expect(retried.map(\.id) == ["chess-1-kal16"])
        // Each start is a model load: at most one per worker and system, plus the restart; the results say so.
        let starts = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").count
        let info = try #require(results.run.externalRecognizers?.first { $0.name == "whisper" })
        #expect(info.modelLoads == starts, "results say \(info.modelLoads ?? -1) loads, the log \(starts) starts")
        #expect(starts >= 3 && starts <= 2 * 2 + 1, "\(starts) starts for 16 decodes on 2 workers")
        // What the prepare said of its prompt reaches the results.
        let report = info.customizations?.first?.prepareReport ?? ""
        #expect(report.hasPrefix("prompt of ") && report.contains("kept"), "\(report)")
    }

    struct Prompt: Decodable {
        struct Entry: Decodable {
            var text: String
            var source: String
            var why: String?
            var written: String?
        }
        var prompt: String
        var tokens: Int
        var kept: [Entry]
        var dropped: [Entry]
    }

    struct Answer: Decodable {
        var transcript: String
        var customization: String?
        var reason: String?
    }

    /// Writes a phrase list and a training export as Gambit hands them to a prepare command.
    static func inputs(in folder: URL, phrases: [(String, Double)]) throws -> (training: URL, phrases: URL) {
        let training = folder.appendingPathComponent("training.json")
        let list = folder.appendingPathComponent("phrases.json")
        try """
        {"formatVersion": 1, "locale": "en-US", "identifier": "t", "version": "1", "phrases": [],
         "pronunciations": [{"grapheme": "Winawer", "phonemes": ["w I n aU @r"]}]}
        """.write(to: training, atomically: true, encoding: .utf8)
        let items = phrases.map { #"{"phrase": "\#($0.0)", "count": \#($0.1)}"# }.joined(separator: ", ")
        try #"{"formatVersion": 1, "locale": "en-US", "identifier": "t", "phrases": [\#(items)]}"#
            .write(to: list, atomically: true, encoding: .utf8)
        return (training, list)
    }

    @Test(
        "The prompt: pronunciations, then phrases by count within the budget; nothing fitted is reported as ignored",
        .enabled(if: available, "needs the Whisper venv (scripts/install-deps.sh)"), .timeLimit(.minutes(5)))
    func promptBuilding() throws {
        let folder = try TestSupport.temporaryDirectory("whisper-prompt")
        let (training, phrases) = try Self.inputs(
            in: folder,
            phrases: [
                ("play the sicilian najdorf", 10), ("play the albin counter gambit", 25), ("play the najdorf", 40),
                ("play the winawer variation", 25),
            ])
        let artifact = folder.appendingPathComponent("artifact")
        let summary = try TestSupport.run(
            Self.adapter.path,
            ["prepare", "--training", training.path, "--phrases", phrases.path, "--artifact", artifact.path])
        #expect(summary.contains("of 223 tokens: 5 kept, 0 over the budget"), "\(summary)")
        let record = try JSONDecoder().decode(
            Prompt.self, from: Data(contentsOf: artifact.appendingPathComponent("prompt.json")))
        // By count, ties in the list's order; a phrase that starts as the one before it gives only the rest.
        #expect(
            record.prompt
                == "Winawer, play the najdorf, albin counter gambit, winawer variation, sicilian najdorf")
        #expect(record.kept.map(\.source) == ["pronunciation", "phrase", "phrase", "phrase", "phrase"])
        #expect(record.dropped.isEmpty && record.tokens > 10 && record.tokens <= 223)

        // A budget too small for anything: the prompt is empty, and every decode says the customization was ignored.
        let tiny = folder.appendingPathComponent("tiny")
        _ = try TestSupport.run(
            Self.adapter.path,
            [
                "prepare", "--training", training.path, "--phrases", phrases.path, "--artifact", tiny.path,
                "--budget", "1",
            ])
        let empty = try JSONDecoder().decode(
            Prompt.self, from: Data(contentsOf: tiny.appendingPathComponent("prompt.json")))
        #expect(empty.prompt.isEmpty && empty.kept.isEmpty)
        #expect(empty.dropped.allSatisfy { $0.why?.contains("over the 1-token budget") == true }, "\(empty.dropped)")
        let audio = folder.appendingPathComponent("a.wav")
        try TestSupport.synthesize("play the albin counter gambit", to: audio)
        let answer = try JSONDecoder().decode(
            Answer.self,
            from: Data(try TestSupport.run(Self.adapter.path, ["decode", audio.path, "--artifact", tiny.path]).utf8))
        #expect(answer.customization == "ignored" && answer.reason?.contains("no phrase fitted") == true)
        #expect(!answer.transcript.isEmpty)
    }

    @Test(
        "Bad input is named; a served process answers an unreadable file with an error and goes on",
        .enabled(if: available, "needs the Whisper venv (scripts/install-deps.sh)"), .timeLimit(.minutes(5)))
    func badInput() throws {
        let folder = try TestSupport.temporaryDirectory("whisper-bad")
        let notJSON = folder.appendingPathComponent("export.json")
        try Data("not json".utf8).write(to: notJSON)
        let prepare = [
            "prepare", "--training", notJSON.path, "--phrases", notJSON.path, "--artifact",
            folder.appendingPathComponent("a").path,
        ]
        let error = #expect(throws: ToolFailure.self) { try TestSupport.run(Self.adapter.path, prepare) }
        #expect(error?.status == 2 && error?.stderr.contains(notJSON.path) == true, "\(String(describing: error))")

        let broken = folder.appendingPathComponent("broken.wav")
        try Data("not audio at all".utf8).write(to: broken)
        let good = folder.appendingPathComponent("good.wav")
        try TestSupport.synthesize("ten of clubs", to: good)
        let requests = [broken, good].map { #"{"audio": "\#($0.path)", "key": "k"}"# }.joined(separator: "\n") + "\n"
        let lines = try TestSupport.run(Self.adapter.path, ["serve"], input: Data(requests.utf8))
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 2)
        #expect((lines.first??["error"] as? String)?.contains(broken.path) == true, "\(lines)")
        #expect((lines.last??["transcript"] as? String)?.lowercased().contains("clubs") == true, "\(lines)")
    }
}
