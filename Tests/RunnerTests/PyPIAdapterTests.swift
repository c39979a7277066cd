import Foundation
import GambitTestSupport
import RunnerTestSupport
import Testing

/// The second real engine: PocketSphinx 5.1.1 from PyPI, in the virtual environment `scripts/install-deps.sh`
/// makes, customized by its adapter (`scripts/recognizers/pocketsphinx-pypi.py`) through its own tools from the
/// two files Gambit hands a recognizer: the training data's export and its expanded phrase list.
@Suite("PocketSphinx from PyPI, customized by its adapter", .serialized)
struct PyPIAdapterTests {
    static let adapter = TestSupport.packageRoot.appendingPathComponent("scripts/recognizers/pocketsphinx-pypi.py")
    static let venvPython = TestSupport.packageRoot.appendingPathComponent(".venv/pocketsphinx/bin/python")
    /// The venv exists; under CI the tests run whatever this says, so a machine without it fails them.
    static let available =
        FileManager.default.isExecutableFile(atPath: venvPython.path)
        || ProcessInfo.processInfo.environment["CI"] == "true"

    /// Chess commands and the opening names in them that the training data boosts.
    static let utterances: [(text: String, boosted: [String])] = [
        ("play the albin counter gambit", ["albin"]), ("play the winawer variation", ["winawer"]),
        ("play the sicilian najdorf", ["najdorf"]), ("play the grunfeld defense", ["grunfeld"]),
        ("play the caro kann defense", ["caro", "kann"]), ("play the nimzo indian defense", ["nimzo"]),
    ]

    /// Runs the adapter; returns its standard output, or throws with its standard error.
    func adapter(_ arguments: [String]) throws -> String {
        try TestSupport.run(Self.adapter.path, arguments)
    }

    struct Answer: Decodable {
        var transcript: String
        var customization: String?
        var reason: String?
    }

    @Test(
        "Customized by its own tools, its hypotheses change and boosted-word errors fall on real decodes",
        .enabled(if: available, "needs the PyPI engine's venv (scripts/install-deps.sh)"), .timeLimit(.minutes(10)))
    func customizationHelps() throws {
        let folder = try TestSupport.temporaryDirectory("pypi")
        // The files Gambit writes for a recognizer's prepare command.
        let export = folder.appendingPathComponent("export.json")
        let phrases = folder.appendingPathComponent("phrases.json")
        let training = TestSupport.packageRoot.appendingPathComponent("Corpora/chess/training/full.yaml")
        let prepared = try TestSupport.gambit([
            "prepare", training.path, "--output", folder.appendingPathComponent("gambit-model").path,
            "--export", export.path, "--phrase-list", phrases.path,
        ])
        #expect(prepared.status == 0, "\(prepared.output)")
        let artifact = folder.appendingPathComponent("artifact")
        _ = try adapter([
            "prepare", "--training", export.path, "--phrases", phrases.path, "--artifact", artifact.path,
        ])
        #expect(try adapter(["version"]).contains("5.1.1"))

        var missedBaseline = 0
        var missedCustomized = 0
        var changed = 0
        var decoded: [[String]] = [[], []]
        var requests = Data()
        for (index, utterance) in Self.utterances.enumerated() {
            let audio = folder.appendingPathComponent("u\(index).wav")
            try TestSupport.synthesize(utterance.text, voice: index % 2 == 0 ? "kal16" : "slt", to: audio)
            let baseline = try JSONDecoder().decode(Answer.self, from: Data(try adapter(["decode", audio.path]).utf8))
            let customized = try JSONDecoder().decode(
                Answer.self, from: Data(try adapter(["decode", audio.path, "--artifact", artifact.path]).utf8))
            decoded[0].append(baseline.transcript)
            decoded[1].append(customized.transcript)
            requests.append(try JSONEncoder().encode(["audio": audio.path, "key": "u\(index)"]))
            requests.append(0x0A)
            #expect(baseline.customization == nil)
            #expect(customized.customization == "applied", "\(customized.reason ?? "")")
            if baseline.transcript != customized.transcript { changed += 1 }
            func missed(_ transcript: String) -> Int {
                let words = Set(transcript.split(separator: " ").map(String.init))
                return utterance.boosted.filter { !words.contains($0) }.count
            }
            missedBaseline += missed(baseline.transcript)
            missedCustomized += missed(customized.transcript)
        }
        let boosted = Self.utterances.reduce(0) { $0 + $1.boosted.count }
        // Served (loaded once, one request a line), it answers each utterance as a fresh process does.
        for (side, arguments) in [["serve"], ["serve", "--artifact", artifact.path]].enumerated() {
            let answers = try TestSupport.run(Self.adapter.path, arguments, input: requests).split(separator: "\n")
                .map { try JSONDecoder().decode(Answer.self, from: Data($0.utf8)) }
            #expect(answers.map(\.transcript) == decoded[side], "\(arguments)")
        }
        #expect(changed >= Self.utterances.count / 2, "customized hypotheses changed on \(changed)")
        // The stock model hears almost none of the opening names; the customized one most of them.
        #expect(missedBaseline >= boosted / 2, "baseline missed \(missedBaseline) of \(boosted)")
        #expect(missedCustomized < missedBaseline, "\(missedCustomized) vs \(missedBaseline) of \(boosted)")
        #expect(missedCustomized <= boosted / 3, "customized missed \(missedCustomized) of \(boosted)")
    }

    @Test(
        "Bad input is refused with a message and a non-zero status, never an empty model",
        .enabled(if: available, "needs the PyPI engine's venv (scripts/install-deps.sh)"))
    func badInput() throws {
        let folder = try TestSupport.temporaryDirectory("pypi-bad")
        let notJSON = folder.appendingPathComponent("export.json")
        try Data("not json".utf8).write(to: notJSON)
        let missing = folder.appendingPathComponent("none.wav")
        let cases: [([String], String)] = [
            (
                [
                    "prepare", "--training", notJSON.path, "--phrases", notJSON.path, "--artifact",
                    folder.appendingPathComponent("a").path,
                ], notJSON.path
            ),
            (["decode", missing.path], missing.path),
        ]
        for (arguments, named) in cases {
            // Status 2 (bad input) naming the file: not 4 (no venv) or a crash, which would also be a failure.
            let error = #expect(throws: ToolFailure.self) { try adapter(arguments) }
            #expect(error?.status == 2, "\(error.map(String.init(describing:)) ?? "")")
            #expect(error?.stderr.contains(named) == true, "\(error.map(String.init(describing:)) ?? "")")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a/custom.lm.bin").path))
    }

    @Test(
        "In a run, beside the built-in engine: prepared by its adapter, decoded both ways, boosted errors fall",
        .enabled(if: available, "needs the PyPI engine's venv (scripts/install-deps.sh)"), .timeLimit(.minutes(10)))
    func inARun() throws {
        let program = Self.adapter.path
        let suite = try MiniSuite(
            extra: """
                recognizers:
                  - name: pypi
                    command: ["\(program)", decode, "{audio}"]
                    onDevice: true
                    version: "5.1.1"
                    corpora: [chess]
                    customization:
                      prepare: ["\(program)", prepare, --training, "{training}", --phrases, "{phrases}", --artifact, "{artifact}", --weight, "{weight}"]
                      decode: ["\(program)", decode, "{audio}", --artifact, "{artifact}"]
                """)
        let results = try suite.run()
        let baseline = try #require(results.system(corpus: "chess", mode: .baseline, recognizer: "pypi"))
        let customized = try #require(
            results.system(corpus: "chess", mode: .customized, variant: "chess-seed", recognizer: "pypi"))
        #expect(baseline.failures.failed == 0 && customized.failures.failed == 0)
        #expect(customized.utterances.allSatisfy { $0.customization == .applied })
        let before = try #require(baseline.metrics.boosted?.boostedErrors)
        let after = try #require(customized.metrics.boosted?.boostedErrors)
        #expect(after < before, "boosted-word errors \(before) → \(after): \(customized.utterances.map(\.hypothesis))")
        let effect = try #require(results.checks.first { $0.name == "customization took effect: chess-seed @ pypi" })
        #expect(effect.passed, "\(effect.message)")
        let onDevice = try #require(results.checks.first { $0.name == "external recognizer on-device: pypi" })
        #expect(onDevice.passed, "\(onDevice.message)")
    }
}
