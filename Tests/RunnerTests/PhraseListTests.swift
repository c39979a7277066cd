import Foundation
import GambitTestSupport
import Recognition
import Reporting
import Results
import Runner
import RunnerTestSupport
import Testing
import Tuning

/// The second lever: a recognizer given the phrase list Gambit derives from a variant (its terms ranked by their
/// counts in the training data, cut at the recognizer's limit, with distractors drawn in), globally or per
/// utterance, each list a system of its own compared with the recognizer's baseline.
@Suite("Phrase lists", .serialized)
struct PhraseListTests {
    /// Training data whose rare words are counted by hand below: albin 30 + 5, winawer 20, najdorf 12, taimanov 8,
    /// grob 2 (each among common words, so each is a term of its own).
    static let openings = """
        locale: en-US
        identifier: com.example.openings
        version: "1"
        phrases:
          - {phrase: "play the albin", count: 30}
          - {phrase: "the albin again", count: 5}
          - {phrase: "play the winawer", count: 20}
          - {phrase: "play the najdorf", count: 12}
          - {phrase: "play the taimanov", count: 8}
          - {phrase: "play the grob", count: 2}

        """

    /// A stand-in list-taking recognizer: it logs each list it is given with the audio's name, and hears the list's
    /// first entry (the baseline, and an empty list, hear "play the album counter gambit").
    static func adapter(in folder: URL) throws -> (script: URL, log: URL) {
        let script = folder.appendingPathComponent("lister.py")
        let log = folder.appendingPathComponent("lists.log")
        try """
        #!/usr/bin/python3
        import json, os, sys
        args = sys.argv[1:]
        answer = {"transcript": "play the album counter gambit"}
        if "--list" in args:
            given = json.loads(args[args.index("--list") + 1])
            with open(\(String(reflecting: log.path)), "a") as f:
                f.write(json.dumps({"audio": os.path.basename(args[1]), "list": given}) + "\\n")
            if given: answer = {"transcript": "play the " + given[0], "customization": "applied"}
        print(json.dumps(answer))
        """.write(to: script, atomically: true, encoding: .utf8)
        try TestSupport.makeExecutable(script)
        return (script, log)
    }

    /// The MiniSuite with the `openings` variant beside chess-seed and the stand-in recognizer, given `modes`.
    static func suite(modes: String, limit: Int = 3) throws -> (MiniSuite, log: URL) {
        let base = try MiniSuite()
        let (script, log) = try adapter(in: base.folder)
        try openings.write(to: base.folder.appendingPathComponent("openings.yaml"), atomically: true, encoding: .utf8)
        try "# openings nobody says\nzugzwang\nfianchetto\nluft\nhypermodern\n".write(
            to: base.folder.appendingPathComponent("distractors.txt"), atomically: true, encoding: .utf8)
        var text = try String(contentsOf: base.suiteFile, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "variants:\n", with: "variants:\n  - {name: openings, training: openings.yaml}\n")
        text += """
            recognizers:
              - name: lister
                command: ["\(script.path)", decode, "{audio}"]
                onDevice: true
                corpora: [chess, general]
                phraseLists:
                  decode: ["\(script.path)", decode, "{audio}", --list, "{list}"]
                  limit: \(limit)
                  modes: [\(modes)]
                  variants: [openings]
                  distractors: distractors.txt

            """
        try text.write(to: base.suiteFile, atomically: true, encoding: .utf8)
        return (base, log)
    }

    /// Each list the recognizer was given, by audio file name, in the order given.
    static func lists(_ log: URL) throws -> [(audio: String, list: [String])] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (try #require(object["audio"] as? String), try #require(object["list"] as? [String]))
        }
    }

    @Test("A list system gets the top terms by count up to the limit, plus the distractors asked for")
    func derivedLists() throws {
        let (suite, log) = try Self.suite(modes: "global, local, global+2")
        let results = try suite.run()
        let all = try Self.lists(log)
        // 8 chess and 3 general utterances under each of the three list systems.
        let general = all.filter { !$0.audio.hasPrefix("chess") }
        #expect(general.count == 9 && general.filter { $0.list.isEmpty }.count == 3)
        let given = all.filter { $0.audio.hasPrefix("chess") }
        #expect(given.count == 24)
        let top = ["albin", "winawer", "najdorf"]
        let global = given.filter { $0.list.count == 3 }
        #expect(global.count == 8 && global.allSatisfy { $0.list == top }, "\(given.map(\.list))")
        // Two distractors from the file, drawn in among the terms; the same two for every utterance.
        let withDistractors = given.filter { $0.list.count == 5 }
        #expect(withDistractors.count == 8)
        let drawn = Set(try #require(withDistractors.first).list).subtracting(top)
        #expect(drawn.count == 2 && drawn.isSubset(of: ["zugzwang", "fianchetto", "luft", "hypermodern"]))
        #expect(withDistractors.allSatisfy { Set($0.list) == Set(top).union(drawn) })
        // Local: each utterance's list holds the variant's terms its reference says, and nothing else.
        let local = given.filter { $0.list.count < 3 }
        #expect(local.count == 8)
        for (audio, list) in local {
            let expected: [String] =
                audio.hasPrefix("chess-0") ? ["albin"] : audio.hasPrefix("chess-1") ? ["winawer"] : []
            #expect(list == expected, "\(audio)")
        }

        let system = try #require(
            results.system(
                corpus: "chess", mode: .customized, variant: "openings", recognizer: "lister", list: "global")
        )
        #expect(system.key == "chess/customized/openings/global@lister")
        let use = try #require(system.list)
        #expect(use.mode == "global" && use.distractors == 0 && use.limit == 3 && use.unit == "phrases")
        #expect(use.terms == 3 && use.termsBeforeCut == 5 && use.meanLength == 3)
        #expect(use.distractorSource == "distractors.txt")
        let localUse = try #require(
            results.system(
                corpus: "chess", mode: .customized, variant: "openings", recognizer: "lister", list: "local")?
                .list)
        #expect(localUse.mode == "local" && localUse.terms == nil && localUse.meanLength == 0.5)
        let plus = try #require(
            results.system(
                corpus: "chess", mode: .customized, variant: "openings", recognizer: "lister", list: "global+2")?.list)
        #expect(plus.distractors == 2 && plus.meanLength == 5)
        // Each list system is compared with the recognizer's own baseline, and checked under its own name.
        for name in ["global", "local", "global+2"] {
            let comparison = try #require(
                results.comparison(corpus: "chess", variant: "openings", recognizer: "lister", list: name))
            #expect(comparison.pairedUtterances == 8 && comparison.list?.name == name)
            #expect(results.checks.contains { $0.name == "boosted-word gain: chess / openings/\(name) @ lister" })
            let effect = try #require(
                results.checks.first { $0.name == "customization took effect: openings/\(name) @ lister" })
            #expect(effect.passed, "\(effect.message)")
        }
        // An anti-context check reads its own list system's words, not another system's of the variant.
        let anti = try #require(
            results.checks.first { $0.name == "anti-context WER: general / openings/global @ lister" })
        let heard = try #require(
            results.system(
                corpus: "general", mode: .customized, variant: "openings", recognizer: "lister", list: "global"))
        #expect(
            anti.message.contains("of \(heard.metrics.rates.counts.referenceWords) reference words"), "\(anti.message)")
        // Each list system has transcript files of its own, none written over another's.
        let reports = try TestSupport.temporaryDirectory("list-reports")
        let files = try Reporter.write(results, formats: [.trn], to: reports).map(\.lastPathComponent)
        for name in ["global", "local", "global%2B2"] {
            #expect(files.contains("chess.customized.openings.\(name).lister.trn"), "\(files)")
        }
        // The recognizer is not customized otherwise, and PocketSphinx's own systems are untouched.
        #expect(results.system(corpus: "chess", mode: .customized, variant: "openings", recognizer: "lister") == nil)
        #expect(results.comparison(corpus: "chess", variant: "openings")?.list == nil)
        // The report's lever view puts each list beside PocketSphinx's custom model, each against its own baseline.
        let html = HTMLReport(results).render()
        #expect(html.contains("<section id=\"levers\">"))
        #expect(
            html.contains(
                "data-lever=\"openings/global @ lister\"><td>lister</td><td>global phrase list (3 of 5 terms)"))
        #expect(html.contains("data-lever=\"openings/local @ lister\"><td>lister</td><td>local phrase list (0.5 terms"))
        #expect(html.contains("data-lever=\"openings\"><td>PocketSphinx</td><td>custom language model"))
        let (plan, journaled) = try suite.plan()
        #expect(plan.checks.map(\.name) == results.checks.map(\.name))
        #expect(plan.items.allSatisfy { journaled.contains($0.request.key) })
    }

    @Test("A list sweep decodes each length with each distractor count on dev, picks one, and judges it on test")
    func listSweep() throws {
        let (suite, log) = try Self.suite(modes: "global")
        let folder = try TestSupport.temporaryDirectory("list-sweep")
        let sweep = ListSweep(
            suite: try Suite.load(suite.suiteFile),
            options: ListSweepOptions(
                recognizer: "lister", variant: "openings", lengths: [3, 1], distractors: [2, 0], workers: 2,
                workerExecutable: MiniSuite.executable),
            folder: folder)
        let results = try sweep.run()
        #expect(
            results.points.map { [$0.length, $0.distractors, $0.terms] } == [
                [1, 0, 1], [1, 2, 1], [3, 0, 3], [3, 2, 3],
            ])
        #expect(results.termsAvailable == 5 && results.corpus == "chess" && results.split == "dev")
        // The dev split's albin is heard (a hit) and so is albin where the knight was said (a false alarm).
        let first = results.points[0]
        #expect(first.recall == 1 && first.precision == 0.5 && first.domain.pairedUtterances == 4)
        #expect(first.antiContext.map(\.corpus) == ["general"] && first.passesAntiContext)
        // Distractors are rare dictionary words nobody says, drawn into the list.
        let lists = try Self.lists(log)
        let drawn = lists.filter { $0.list.count == 3 && !$0.list.contains("winawer") }
        #expect(!drawn.isEmpty, "no list of one term and two distractors: \(lists.map(\.list))")
        #expect(results.distractorSource.hasPrefix("2 rare words of the base dictionary"))
        // The same F1 at both lengths: the shorter is recommended, then decoded on every chess utterance.
        let recommendation = try #require(results.recommendation)
        #expect(recommendation.length == 1 && recommendation.test.pairedUtterances == 8)
        #expect(recommendation.testAntiContext.map(\.corpus) == ["general"])
        // Recorded beside a run's results, the report draws the curve and lists every point.
        var run = try suite.run()
        run.listSweep = results
        let html = HTMLReport(run).render()
        #expect(
            html.contains("List sweep · lister with openings&#39;s terms on chess (dev)")
                || html.contains("List sweep · lister with openings's terms on chess (dev)"))
        #expect(html.contains("Recommended: 1 phrases"))
        #expect(
            html.contains("List sweep: B-WER against the list&#39;s length")
                || html.contains("List sweep: B-WER against the list's length"))
    }

    @Test("A private variant's list never goes to a recognizer off the device, even with allowPrivate")
    func privateLists() throws {
        let (suite, _) = try Self.suite(modes: "global+2")
        let training = suite.folder.appendingPathComponent("openings.yaml")
        try ("private: true\n" + (try String(contentsOf: training, encoding: .utf8)))
            .write(to: training, atomically: true, encoding: .utf8)
        var text = try String(contentsOf: suite.suiteFile, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "onDevice: true\n    corpora: [chess, general]", with: "onDevice: false\n    corpora: [chess, general]")
        let script = suite.folder.appendingPathComponent("lister.py").path
        text = text.replacingOccurrences(
            of: "    phraseLists:",
            with:
                "    customization: {decode: [\"\(script)\", \"{audio}\"], variants: [chess-seed], allowPrivate: true}\n"
                + "    phraseLists:")
        try text.write(to: suite.suiteFile, atomically: true, encoding: .utf8)
        let error = try #require(throws: RunnerError.self) { try suite.run() }
        #expect("\(error)".contains("variant openings's training data is private"), "\(error)")
    }

    @Test("A phrase list the suite writes wrong is refused with its line")
    func badLever() throws {
        let (suite, _) = try Self.suite(modes: "global, nearby")
        let error = try #require(throws: RunnerError.self) { try Suite.load(suite.suiteFile) }
        #expect("\(error)".contains("'modes' must be a list of global, local, global+N or local+N"), "\(error)")
        let (twice, _) = try Self.suite(modes: "local, local")
        let again = try #require(throws: RunnerError.self) { try Suite.load(twice.suiteFile) }
        #expect("\(again)".contains("names the mode local twice"), "\(again)")
        let (zero, _) = try Self.suite(modes: "global", limit: 0)
        let none = try #require(throws: RunnerError.self) { try Suite.load(zero.suiteFile) }
        #expect("\(none)".contains("'limit' must be a whole number of at least 1"), "\(none)")
    }
}
