import Foundation
import GambitTestSupport
import Results
import Runner
import RunnerTestSupport
import Testing

/// External recognizers decoded with and without customization: a prepare command run once per variant, its
/// artifact handed to every customized decode, and the checks that catch a customization that does nothing.
@Suite("External customization", .serialized)
struct ExternalCustomizationTests {
    /// A stand-in recognizer, so that these tests control what it does: it logs every call, prepares by copying
    /// the phrase list into its artifact, and "hears" the artifact's first phrase when customized (the baseline
    /// hears "play the album counter gambit"). `MODE` decides how it misbehaves.
    static func adapter(in folder: URL, mode: String) throws -> (script: URL, log: URL) {
        let script = folder.appendingPathComponent("fake-\(mode).py")
        let log = folder.appendingPathComponent("calls-\(mode).log")
        try """
        #!/usr/bin/python3
        import json, os, sys
        MODE, LOG = \(String(reflecting: mode)), \(String(reflecting: log.path))
        with open(LOG, "a") as f: f.write(sys.argv[1] + "\\n")
        if sys.argv[1] == "prepare":
            training, phrases, artifact, weight, locale = sys.argv[2:7]
            if MODE == "failing": sys.exit("cannot build a model for " + json.load(open(training))["identifier"])
            assert json.load(open(training))["formatVersion"] == 1 and locale == "en-US" and float(weight) > 0
            json.dump(json.load(open(phrases)), open(os.path.join(artifact, "model.json"), "w"))
            sys.exit(0)
        answer = {"transcript": "play the album counter gambit"}
        if len(sys.argv) > 3:
            phrases = json.load(open(os.path.join(sys.argv[3], "model.json")))["phrases"]
            if MODE == "ignoring": answer.update(customization="ignored", reason="model too large")
            elif MODE != "silent": answer = {"transcript": phrases[0]["phrase"].lower(), "customization": "applied"}
        print(json.dumps(answer))
        """.write(to: script, atomically: true, encoding: .utf8)
        try TestSupport.makeExecutable(script)
        return (script, log)
    }

    static func recognizer(_ script: URL, onDevice: Bool = true, allowPrivate: Bool = false) -> String {
        """
        recognizers:
          - name: fake
            command: ["\(script.path)", decode, "{audio}"]
            onDevice: \(onDevice)
            version: "1.0"
            corpora: [chess]
            customization:
              prepare: ["\(script.path)", prepare, "{training}", "{phrases}", "{artifact}", "{weight}", "{locale}"]
              decode: ["\(script.path)", decode, "{audio}", "{artifact}"]
              allowPrivate: \(allowPrivate)
        """
    }

    static func calls(_ log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("Prepared once, decoded both ways, compared, checked; a second run prepares and decodes nothing")
    func customizedAndResumed() throws {
        let folder = try TestSupport.temporaryDirectory("external-custom")
        let (script, log) = try Self.adapter(in: folder, mode: "working")
        let suite = try MiniSuite(extra: Self.recognizer(script))
        // A plan runs no prepare command (it may create something in a cloud service): all is still to do.
        let (unprepared, _) = try suite.plan()
        #expect(Self.calls(log).isEmpty && unprepared.items.contains { $0.request.externalInputs != nil })
        let results = try suite.run()
        // One prepare, then 8 chess utterances each way.
        #expect(Self.calls(log).filter { $0 == "prepare" }.count == 1)
        #expect(Self.calls(log).filter { $0 == "decode" }.count == 16)
        let customized = try #require(
            results.system(corpus: "chess", mode: .customized, variant: "chess-seed", recognizer: "fake"))
        #expect(customized.key == "chess/customized/chess-seed@fake")
        #expect(customized.utterances.allSatisfy { $0.customization == .applied && $0.failure == nil })
        let comparison = try #require(results.comparison(corpus: "chess", variant: "chess-seed", recognizer: "fake"))
        // The baseline mishears "albin" everywhere; the customized decode says the first training phrase.
        #expect(comparison.customized.wordErrorRate != comparison.baseline.wordErrorRate)
        #expect(comparison.oracle == nil && comparison.pairedUtterances == 8)
        let effect = try #require(results.checks.first { $0.name == "customization took effect: chess-seed @ fake" })
        #expect(effect.passed && effect.message.hasPrefix("8 of 8 hypotheses differ"))
        #expect(results.checks.contains { $0.name == "boosted-word gain: chess / chess-seed @ fake" })
        // PocketSphinx's own comparison is untouched by the other recognizer's.
        #expect(results.comparison(corpus: "chess", variant: "chess-seed")?.recognizer == nil)
        let info = try #require(results.run.externalRecognizers?.first?.customizations?.first)
        #expect(info.variant == "chess-seed" && !info.cached && info.failure == nil && info.networkDenied)
        #expect(info.prepareSeconds > 0 && info.artifactFingerprint?.count == 64)
        let onDevice = try #require(results.checks.first { $0.name == "external recognizer on-device: fake" })
        #expect(onDevice.passed && onDevice.message.contains("1 of 1 prepares"))
        // The plan lists every check the run made, in its order.
        let (plan, journaled) = try suite.plan()
        #expect(plan.checks.map(\.name) == results.checks.map(\.name))
        #expect(plan.items.allSatisfy { journaled.contains($0.request.key) })

        let again = try suite.run()
        #expect(Self.calls(log).count == 17, "a second run prepared or decoded: \(Self.calls(log))")
        #expect(again.run.externalRecognizers?.first?.customizations?.first?.cached == true)
        #expect(AccuracyView(again) == AccuracyView(results))

        // A changed training file is prepared and decoded again.
        let training = suite.folder.appendingPathComponent("chess.yaml")
        try (try String(contentsOf: training, encoding: .utf8)).replacingOccurrences(
            of: "Play the Albin counter gambit\", count: 10", with: "Play the Albin counter gambit\", count: 30"
        ).write(to: training, atomically: true, encoding: .utf8)
        _ = try suite.run()
        #expect(Self.calls(log).filter { $0 == "prepare" }.count == 2)
        #expect(Self.calls(log).filter { $0 == "decode" }.count == 24)
    }

    @Test("A customization ignored, or with no effect, fails its check naming the recognizer and the variant")
    func noEffect() throws {
        let folder = try TestSupport.temporaryDirectory("external-noeffect")
        for (mode, message) in [("ignoring", "said it ignored the customization on 8 of 8"), ("silent", "no effect")] {
            let (script, _) = try Self.adapter(in: folder, mode: mode)
            let suite = try MiniSuite(extra: Self.recognizer(script))
            let results = try suite.run()
            let check = try #require(
                results.checks.first { $0.name == "customization took effect: chess-seed @ fake" })
            #expect(!check.passed && check.message.contains(message), "\(check.message)")
            if mode == "ignoring" { #expect(check.message.contains("model too large")) }
        }
    }

    @Test("A failing prepare fails its variant's utterances by name, and the run goes on")
    func failingPrepare() throws {
        let folder = try TestSupport.temporaryDirectory("external-failing")
        let (script, log) = try Self.adapter(in: folder, mode: "failing")
        let suite = try MiniSuite(extra: Self.recognizer(script))
        let results = try suite.run()
        let customized = try #require(
            results.system(corpus: "chess", mode: .customized, variant: "chess-seed", recognizer: "fake"))
        #expect(customized.failures.failed == 8)
        #expect(customized.utterances.allSatisfy { $0.failureKind == .preparation })
        let failure = try #require(customized.utterances.first?.failure)
        #expect(failure.contains("fake") && failure.contains("chess.yaml") && failure.contains("cannot build a model"))
        #expect(!failure.contains(suite.folder.path), "a report names no absolute path: \(failure)")
        // Everything else was decoded: PocketSphinx both ways, and the recognizer's own baseline.
        #expect(results.system(corpus: "chess", mode: .customized, variant: "chess-seed")?.failures.failed == 0)
        #expect(results.system(corpus: "chess", mode: .baseline, recognizer: "fake")?.failures.failed == 0)
        #expect(results.checks.first { $0.name == "customization took effect: chess-seed @ fake" }?.passed == false)
        #expect(results.run.externalRecognizers?.first?.customizations?.first?.failure != nil)
        // A failed prepare is not kept: the next run tries again.
        _ = try suite.run()
        #expect(Self.calls(log).filter { $0 == "prepare" }.count == 2)
    }

    @Test("Private training data never goes to an off-device recognizer unless the suite allows it by name")
    func privacy() throws {
        let folder = try TestSupport.temporaryDirectory("external-private")
        let (script, log) = try Self.adapter(in: folder, mode: "working")
        let suite = try MiniSuite(extra: Self.recognizer(script, onDevice: false))
        let training = suite.folder.appendingPathComponent("chess.yaml")
        try ("private: true\n" + (try String(contentsOf: training, encoding: .utf8)))
            .write(to: training, atomically: true, encoding: .utf8)
        #expect {
            _ = try suite.run()
        } throws: { error in
            "\(error)".contains("variant chess-seed's training data is private")
                && "\(error)".contains("recognizer fake runs off the device")
        }
        #expect(Self.calls(log).isEmpty, "nothing may be prepared or decoded")

        let allowed = try MiniSuite(extra: Self.recognizer(script, onDevice: false, allowPrivate: true))
        let allowedTraining = allowed.folder.appendingPathComponent("chess.yaml")
        try ("private: true\n" + (try String(contentsOf: allowedTraining, encoding: .utf8)))
            .write(to: allowedTraining, atomically: true, encoding: .utf8)
        let results = try allowed.run()
        let warning = try #require(
            results.checks.first { $0.name == "private training data sent off the device: chess-seed @ fake" })
        #expect(warning.isWarning && warning.message.contains("left this machine"))
        let info = try #require(results.run.externalRecognizers?.first?.customizations?.first)
        #expect(info.privateDataSentOffDevice)
        // Off the device, its prepare keeps the network (a cloud service's phrase set needs it).
        #expect(!info.networkDenied)
    }
}
