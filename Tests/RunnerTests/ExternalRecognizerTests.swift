import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// Recognizers other than PocketSphinx, run through a command beside it.
@Suite("External recognizers", .serialized)
struct ExternalRecognizerTests {
    /// The adapter shipped for `pocketsphinx_continuous`.
    static let cliAdapter = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/recognizers/pocketsphinx-cli.sh")

    @Test("An on-device recognizer is evaluated beside PocketSphinx with the network denied")
    func onDevice() throws {
        let suite = try MiniSuite(
            extra: """
                recognizers:
                  - {name: cli, command: ["\(Self.cliAdapter.path)", "{audio}"], onDevice: true, corpora: [general]}
                """)
        let results = try suite.run()
        let external = try #require(results.system(corpus: "general", mode: .baseline, recognizer: "cli"))
        let engine = try #require(results.system(corpus: "general", mode: .baseline))
        #expect(engine.recognizer == nil && external.key == "general/baseline@cli")
        #expect(results.system(corpus: "chess", mode: .baseline, recognizer: "cli") == nil)
        #expect(external.utterances.count == 3 && external.failures.failed == 0)
        // The same engine and models behind another front end: the program normalises cepstra live from
        // its initial means, so the 1.5 s "cards" clip ("ten of clubs") comes out as "i've been up close"
        // while the longer LibriVox ones are close to the library's batch decoding.
        #expect(external.utterances.allSatisfy { !$0.hypothesis.isEmpty && !($0.words ?? []).isEmpty })
        #expect(external.metrics.rates.wordErrorRate < 1, "\(external.utterances.map(\.hypothesis))")
        #expect(external.utterances.allSatisfy { $0.customization == .notRequested })
        let info = try #require(results.run.externalRecognizers?.first)
        #expect(info.onDevice && info.decodings == 3 && info.networkDenied == 3)
        let check = try #require(results.checks.first { $0.name == "external recognizer on-device: cli" })
        #expect(check.passed)
        // Its decodings count toward the run's network-denial evidence.
        #expect(results.networkDenial.verified && results.networkDenial.detail.hasPrefix("25 of 25"))
    }

    @Test("A failing, garbled or hung recognizer costs that utterance only; off-device it keeps the network")
    func failuresAreRecorded() throws {
        let folder = try TestSupport.temporaryDirectory("external")
        let script = folder.appendingPathComponent("flaky.sh")
        try """
        #!/bin/sh
        case "$1" in
          *0880*) echo "model not loaded" >&2; exit 3 ;;
          *0930*) echo "this is not json" ;;
          *) sleep 5; echo '{"text": "too late"}' ;;
        esac
        """.write(to: script, atomically: true, encoding: .utf8)
        try TestSupport.makeExecutable(script)
        let suite = try MiniSuite(
            extra: """
                recognizers:
                  - {name: flaky, command: ["\(script.path)", "{audio}"], onDevice: false, timeout: 1, corpora: [general]}
                """)
        let results = try suite.run()
        let flaky = try #require(results.system(corpus: "general", mode: .baseline, recognizer: "flaky"))
        let failures = Dictionary(uniqueKeysWithValues: flaky.utterances.map { ($0.id, $0.failure ?? "") })
        #expect(failures["librivox-0880"]?.contains("exited with status 3: model not loaded") == true)
        #expect(failures["librivox-0930"]?.contains("expected one JSON object") == true)
        #expect(failures["cards-001"]?.contains("no answer within 1 s") == true)
        #expect(failures.values.allSatisfy { $0.contains("flaky") })
        #expect(flaky.failures.failed == 3)
        let kinds = Dictionary(uniqueKeysWithValues: flaky.utterances.map { ($0.id, $0.failureKind) })
        #expect(kinds["librivox-0880"] == .recognizerOutput && kinds["librivox-0930"] == .recognizerOutput)
        #expect(kinds["cards-001"] == .timeout)
        // Everything else was decoded as usual.
        #expect(results.system(corpus: "general", mode: .baseline)?.failures.failed == 0)
        let info = try #require(results.run.externalRecognizers?.first)
        #expect(!info.onDevice && info.decodings == 3 && info.networkDenied == 0)
        #expect(!results.checks.contains { $0.name.hasPrefix("external recognizer on-device") })
        #expect(results.networkDenial.verified && results.networkDenial.detail.hasPrefix("22 of 22"))
    }

    @Test("A suite may not hand customization data or nothing at all to a recognizer")
    func suiteValidation() throws {
        let cases = [
            (#"command: [asr, "{audio}", "{training}"], onDevice: false"#, "cannot use the placeholder {training}"),
            (#"command: [asr, input.wav], onDevice: true"#, "must pass the audio path"),
            (#"command: [asr, "{audio}"]"#, "missing key 'onDevice'"),
            (#"command: [asr, "{audio}"], onDevice: maybe"#, "onDevice must be true or false"),
            (
                #"command: [asr, "{audio}"], onDevice: true, customization: {decode: [asr, "{audio}"], variants: [nope]}"#,
                "unknown variant 'nope'"
            ),
            (
                #"command: [asr, "{audio}"], onDevice: true, customization: {prepare: [p, "{audio}"], decode: [asr, "{audio}"]}"#,
                "the prepare command cannot use the placeholder {audio}"
            ),
            (
                #"command: [asr, "{audio}"], onDevice: true, transcripts: {baseline: "t/{corpus}.jsonl"}"#,
                "either 'transcripts' (made elsewhere) or 'command' (run here, with its 'customization' and "
                    + "'phraseLists'), not both"
            ),
            (#"onDevice: true, transcripts: {baseline: t.jsonl}"#, "must name {corpus}"),
        ]
        for (fields, message) in cases {
            let suite = try MiniSuite(extra: "recognizers:\n  - {name: other, \(fields)}")
            #expect {
                _ = try Suite.load(suite.suiteFile)
            } throws: { error in
                "\(error)".contains(message) && "\(error)".contains("suite.yaml:")
            }
        }
    }
}
