import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// An external recognizer in its long-lived form (`serve:`): started once per worker and system, not once per
/// utterance, restarted when it dies without losing the utterance it was answering.
@Suite("Served recognizers", .serialized)
struct ServedRecognizerTests {
    /// A stand-in that stays loaded: it logs each start and request, "hears" the artifact's first phrase when it was
    /// started with one (the baseline hears "play the album counter gambit"), and dies once, on the first request
    /// for `chess-1-kal16` it meets.
    static func adapter(in folder: URL) throws -> (script: URL, log: URL) {
        let script = folder.appendingPathComponent("serve.py")
        let log = folder.appendingPathComponent("serve.log")
        let marker = folder.appendingPathComponent("died-once")
        try """
        import json, os, sys
        LOG, MARKER = \(String(reflecting: log.path)), \(String(reflecting: marker.path))
        def note(text):
            with open(LOG, "a") as f: f.write(text + "\\n")
        artifact = sys.argv[2] if len(sys.argv) > 2 else None
        note("start " + ("customized" if artifact else "baseline"))
        answer = {"transcript": "play the album counter gambit"}
        if artifact:
            phrase = json.load(open(os.path.join(artifact, "model.json")))["phrases"][0]["phrase"].lower()
            answer = {"transcript": phrase, "customization": "applied"}
        for line in sys.stdin:
            request = json.loads(line)
            assert request["placeholders"]["{audio}"] == request["audio"]
            note("request " + os.path.basename(request["audio"]))
            if "chess-1-kal16" in request["audio"] and not os.path.exists(MARKER):
                open(MARKER, "w").close()
                os._exit(1)
            print(json.dumps(answer), flush=True)
        """.write(to: script, atomically: true, encoding: .utf8)
        return (script, log)
    }

    static func recognizer(_ script: URL) -> String {
        """
        recognizers:
          - name: fake
            command: [/usr/bin/false, "{audio}"]
            serve: [/usr/bin/python3, "\(script.path)", serve]
            onDevice: true
            corpora: [chess]
            customization:
              prepare: [/usr/bin/python3, -c, "import json, os, sys; json.dump(json.load(open(sys.argv[1])), open(os.path.join(sys.argv[2], 'model.json'), 'w'))", "{phrases}", "{artifact}"]
              decode: [/usr/bin/false, "{audio}", "{artifact}"]
              serve: [/usr/bin/python3, "\(script.path)", serve, "{artifact}"]
        """
    }

    @Test("Loaded once per worker and system, every utterance answered, a death restarted without a loss")
    func servedRun() throws {
        let folder = try TestSupport.temporaryDirectory("served")
        let (script, log) = try Self.adapter(in: folder)
        let suite = try MiniSuite(extra: Self.recognizer(script))
        let results = try suite.run(workers: 2)
        let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
        let starts = lines.filter { $0.hasPrefix("start") }
        let requests = lines.filter { $0.hasPrefix("request") }
        // 8 chess utterances each way, one of them sent twice because its process died answering it.
        #expect(requests.count == 17, "\(lines)")
        // At most one start per worker and system, and one more after the death: never one per utterance.
        #expect(starts.count >= 3 && starts.count <= 5, "\(starts)")
        let baseline = try #require(results.system(corpus: "chess", mode: .baseline, variant: nil, recognizer: "fake"))
        let customized = try #require(
            results.system(corpus: "chess", mode: .customized, variant: "chess-seed", recognizer: "fake"))
        for system in [baseline, customized] {
            #expect(system.utterances.count == 8 && system.utterances.allSatisfy { $0.failure == nil })
        }
        #expect(baseline.utterances.allSatisfy { $0.hypothesis == "play the album counter gambit" })
        #expect(customized.utterances.allSatisfy { $0.customization == .applied && $0.hypothesis != "" })
        let retried = (baseline.utterances + customized.utterances).filter { $0.retries > 0 }
        #expect(retried.map(\.id) == ["chess-1-kal16"])
        // It does not stream: its latency is the time over each whole utterance, a program's first request (its
        // start) and the retried one (a restart) left out, and no streamed figure is made up.
        for system in [baseline, customized] {
            let timed = system.utterances.filter { $0.latency?.wholeUtteranceSeconds != nil }
            let whole = try #require(system.timing.wholeUtterance)
            #expect(whole.count == timed.count && timed.count >= 8 - 3 && timed.count < 8, "\(timed.count)")
            #expect(timed.allSatisfy { $0.retries == 0 && $0.latency?.wholeUtteranceSeconds == $0.decodeSeconds })
            #expect(system.timing.streaming == nil && system.timing.finalLatency == nil)
        }
    }

    @Test("A served program that answers {\"error\": …} fails that utterance with its reason and stays loaded")
    func errorAnswer() throws {
        let folder = try TestSupport.temporaryDirectory("served-error")
        let script = folder.appendingPathComponent("serve.py")
        let log = folder.appendingPathComponent("serve.log")
        try """
        import json, sys
        with open(\(String(reflecting: log.path)), "a") as f: f.write("start\\n")
        for line in sys.stdin:
            request = json.loads(line)
            if "chess-2-" in request["audio"]:
                print(json.dumps({"error": "cannot read " + request["audio"] + ": bad header"}), flush=True)
            else:
                print(json.dumps({"transcript": "play the albin counter gambit"}), flush=True)
        """.write(to: script, atomically: true, encoding: .utf8)
        let suite = try MiniSuite(
            modes: ["baseline"],
            extra: """
                recognizers:
                  - name: fake
                    command: [/usr/bin/false, "{audio}"]
                    serve: [/usr/bin/python3, "\(script.path)"]
                    onDevice: true
                    corpora: [chess]
                """)
        let results = try suite.run(workers: 1)
        let system = try #require(results.system(corpus: "chess", mode: .baseline, variant: nil, recognizer: "fake"))
        let failed = system.utterances.filter { $0.failure != nil }
        #expect(failed.map(\.id).sorted() == ["chess-2-kal16", "chess-2-rms"])
        #expect(failed.allSatisfy { $0.failure!.contains("it could not decode the file: cannot read") }, "\(failed)")
        #expect(failed.allSatisfy { $0.retries == 0 })
        // One worker, one system: started once, never again for an answer that says it failed.
        let starts = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").count
        #expect(starts == 1)
        #expect(results.run.externalRecognizers?.first?.modelLoads == 1)
    }

    @Test("A serve command may not take the audio or the biasing list: they come with each request")
    func servePlaceholders() throws {
        for serve in ["[/usr/bin/python3, x.py, \"{audio}\"]", "[/usr/bin/python3, x.py, \"{boosted}\"]"] {
            let suite = try MiniSuite(
                extra: """
                    recognizers:
                      - name: fake
                        command: [/usr/bin/false, "{audio}"]
                        serve: \(serve)
                        onDevice: true
                    """)
            let error = try #require(throws: RunnerError.self) { try Suite.load(suite.suiteFile) }
            #expect("\(error)".contains("the serve command cannot use the placeholder"), "\(error)")
        }
    }
}
