import Foundation
import GambitTestSupport
import Reporting
import Results
import ResultsFixtures
import RunnerTestSupport
import Testing

@testable import Recognition
@testable import Runner

/// The fixture run with private terms in every name: the suite, the private variant (`siobhan-full`), its
/// training file (`siobhan-contacts.yaml`) and the corpus of its calls (`calls-siobhan`); `chess` renamed to
/// `chess` + `chessSuffix` (e.g. `calls-Siobhan`, a name that masks like `calls-siobhan`).
private func privatelyNamed(chess: String = "chess") -> RunResults {
    var results = Fixture.renaming(
        Fixture.results(), corpora: ["contacts": "calls-siobhan", "chess": chess],
        variants: ["contacts": "siobhan-full"])
    results.run.suite.name = "siobhan-suite"
    results.run.suite.path = "suites/siobhan-suite.yaml"
    for index in results.variants.indices where results.variants[index].name == "siobhan-full" {
        results.variants[index].trainingDataFile = "../private/siobhan-contacts.yaml"
    }
    // The checks are made anew from the renamed results, so their names and messages hold the names too.
    results.checks = Fixture.checks(results)
    return results
}

/// A suite named after a contact, as a user might name it: `siobhan-suite`, with the corpus `calls-siobhan` and the
/// variant `siobhan-full`, whose private data says "call siobhan okonkwo". Its one utterance's audio is not audio:
/// a plan never reads it, and a run fails it at once, without decoding anything.
private func privateSuite() throws -> URL {
    let folder = try TestSupport.temporaryDirectory("private-suite")
    try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("audio"), withIntermediateDirectories: true)
    try Data("not audio".utf8).write(to: folder.appendingPathComponent("audio/call-siobhan.wav"))
    try (#"{"id": "call-siobhan", "audio": "audio/call-siobhan.wav", "text": "call siobhan okonkwo"}"# + "\n")
        .write(to: folder.appendingPathComponent("calls.jsonl"), atomically: true, encoding: .utf8)
    try MiniSuite.privateContacts.write(
        to: folder.appendingPathComponent("siobhan-contacts.yaml"), atomically: true, encoding: .utf8)
    let suite = folder.appendingPathComponent("siobhan-suite.yaml")
    try """
    name: siobhan-suite
    corpora:
      - {name: calls-siobhan, manifest: calls.jsonl, role: domain}
    variants:
      - {name: siobhan-full, training: siobhan-contacts.yaml, weight: 0.5}
    modes: [baseline, customized]

    """.write(to: suite, atomically: true, encoding: .utf8)
    return suite
}

/// Whether `text` names none of the private suite's terms.
private func namesNoPrivateTerm(_ text: String) -> Bool {
    ["siobhan", "okonkwo"].allSatisfy { text.range(of: $0, options: .caseInsensitive) == nil }
}

/// Every regular file under `folder` but Gambit's own data (`.gambit/`, which keeps private data in clear by
/// design), as paths relative to `folder`.
private func reportFiles(under folder: URL) -> [String] {
    let manager = FileManager.default
    let base = folder.resolvingSymlinksInPath().path + "/"
    var out: [String] = []
    for case let url as URL in manager.enumerator(at: folder, includingPropertiesForKeys: nil) ?? .init() {
        var isFolder: ObjCBool = false
        let path = url.resolvingSymlinksInPath().path
        guard manager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            path.hasPrefix(base), !path.dropFirst(base.count).hasPrefix(Runner.dataFolder + "/")
        else { continue }
        out.append(String(path.dropFirst(base.count)))
    }
    return out.sorted()
}

@Suite("Private data does not leak by name", .serialized)
struct PrivateNameTests {
    @Test("no report, report file name or terminal summary names a private term, whatever holds it")
    func reportsAndSummary() throws {
        let folder = try TestSupport.temporaryDirectory("private-names")
        let input = folder.appendingPathComponent("results.json")
        try privatelyNamed().write(to: input)
        let output = folder.appendingPathComponent("Reports")
        let merge = try TestSupport.gambit(["merge", input.path, "--output", output.path])
        #expect(merge.status == 0 || merge.status == 1 || merge.status == 3, "\(merge.output)")
        #expect(!merge.output.isEmpty)
        #expect(merge.output.range(of: "siobhan", options: .caseInsensitive) == nil, "\(merge.output)")

        let files = reportFiles(under: output)
        for format in ["report.html", "report.json", "junit.xml", "summary.md"] { #expect(files.contains(format)) }
        #expect(files.contains { $0.hasPrefix("trn/") } && files.contains { $0.hasPrefix("ctm/") }, "\(files)")
        for file in files {
            #expect(file.range(of: "siobhan", options: .caseInsensitive) == nil, "a file name: \(file)")
            let text = try String(contentsOf: output.appendingPathComponent(file), encoding: .utf8)
            for term in ["siobhan", "siobhan-contacts"] {
                #expect(text.range(of: term, options: .caseInsensitive) == nil, "\(file) holds \(term)")
            }
        }
        // Masked, not dropped: the reports still tell the variant, corpus and training file apart.
        let json = try RunResults.decode(Data(contentsOf: output.appendingPathComponent("report.json")))
        #expect(json.run.suite.name == "‹contact-1›-suite")
        #expect(json.variants.map(\.name) == ["chess-full", "‹contact-1›-full"])
        #expect(json.variants[1].trainingDataFile == "../private/‹contact-1›-contacts.yaml")
        #expect(json.corpora.map(\.name) == ["chess", "calls-‹contact-1›", "general"])
        #expect(json.systems.contains { $0.corpus == "calls-‹contact-1›" && $0.variant == "‹contact-1›-full" })
        #expect(json.checks.contains { $0.name == "calls-‹contact-1›/‹contact-1›-full WER gate" })
        // trn/ctm names are the masked names, as the contents are.
        #expect(
            files.contains("trn/" + PathComponent(joining: ["calls-‹contact-1›", "ref"]).value + ".trn"), "\(files)")
    }

    @Test("corpora whose names mask alike keep distinct names and distinct trn/ctm files")
    func distinctNames() throws {
        let results = privatelyNamed(chess: "calls-Siobhan")
        let redacted = results.redactingPrivateTerms()
        let names = redacted.corpora.map(\.name)
        #expect(names == ["calls-‹contact-1›", "calls-‹contact-1›-2", "general"])
        #expect(Set(redacted.systems.map(\.key)).count == results.systems.count)
        // Every place names the corpus the same way.
        #expect(Set(redacted.systems.map(\.corpus)) == Set(names))
        #expect(Set(redacted.comparisons.map(\.corpus)).isSubset(of: Set(names)))
        #expect(redacted.checks.contains { $0.name.hasPrefix("calls-‹contact-1›/chess-full ") })
        #expect(redacted.checks.contains { $0.name.hasPrefix("calls-‹contact-1›-2/‹contact-1›-full ") })

        let output = try TestSupport.temporaryDirectory("private-distinct")
        let written = try Reporter.write(results, formats: [.trn, .ctm], to: output)
        #expect(written.count == results.corpora.count + 2 * results.systems.count)
        #expect(Set(written.map(\.path)).count == written.count)
        #expect(written.allSatisfy { $0.path.range(of: "siobhan", options: .caseInsensitive) == nil })
    }

    @Test("gambit run --plan, as a table or as JSON, masks private terms in every name", arguments: [false, true])
    func plan(json: Bool) throws {
        let suite = try privateSuite()
        let plan = try TestSupport.gambit(
            ["run", suite.lastPathComponent, "--plan", "--output", "out", "--cache-dir", "cache"]
                + (json ? ["--json"] : []), in: suite.deletingLastPathComponent())
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.output.contains("calls-‹term-"), "\(plan.output)")
        #expect(namesNoPrivateTerm(plan.output), "\(plan.output)")
    }

    @Test("gambit run's first line masks the suite's name as its results will, and the run's folder names its suite")
    func runFirstLine() throws {
        let suite = try privateSuite()
        let folder = suite.deletingLastPathComponent()
        let run = try TestSupport.gambit(
            ["run", suite.lastPathComponent, "--output", "out", "--cache-dir", "cache", "--workers", "1"], in: folder)
        // The audio is not audio: both decodes fail, and the checks that needed them.
        #expect([1, 3].contains(run.status), "\(run.output)")
        let banner = run.output.split(separator: "\n").first { $0.hasPrefix("running ") }.map(String.init) ?? ""
        #expect(banner.hasPrefix("running ‹term-") && banner.hasSuffix("-suite: 1 corpora, 1 variants, 1 workers"))
        #expect(namesNoPrivateTerm(run.output), "\(run.output)")

        // Masked before anything is prepared as the results are masked after.
        let out = folder.appendingPathComponent("out")
        let results = try RunResults.load(from: Runner.resultsFile(in: out))
        let early = try Runner.privateTermMasker(
            of: Suite.load(suite), toolchain: Toolchain(cacheFolder: folder.appendingPathComponent("cache")))
        #expect(!early.isEmpty && early.masks == PrivateTermMasker(results).masks, "\(early.masks)")

        // The results name the suite from their folder: `report` finds it from any working directory.
        #expect(results.run.suite.pathFromOutput == "../siobhan-suite.yaml")
        let elsewhere = try TestSupport.temporaryDirectory("private-elsewhere")
        let report = try TestSupport.gambit(["report", out.path, "--output", folder.path], in: elsewhere)
        #expect(report.status == 2 && report.output.contains("holds the suite's own files"), "\(report.output)")
    }

    @Test("gambit diagnose's progress and failure lines mask private terms, as its summary does")
    func diagnoseProgress() throws {
        let suite = try privateSuite()
        let folder = suite.deletingLastPathComponent()
        let run = try TestSupport.gambit(
            ["run", suite.lastPathComponent, "--output", "out", "--cache-dir", "cache", "--workers", "1"], in: folder)
        #expect([1, 3].contains(run.status), "\(run.output)")
        // The customized decode made as if it had missed the boosted names, so that the diagnosis examines it (and
        // names the utterance it cannot read).
        let file = Runner.resultsFile(in: folder.appendingPathComponent("out"))
        var results = try RunResults.load(from: file)
        for s in results.systems.indices where results.systems[s].mode == .customized {
            for u in results.systems[s].utterances.indices {
                results.systems[s].utterances[u].failure = nil
                results.systems[s].utterances[u].failureKind = nil
            }
        }
        try results.write(to: file)

        let diagnose = try TestSupport.gambit(["diagnose", "out", "--cache-dir", "cache"], in: folder)
        #expect(diagnose.status == 0, "\(diagnose.output)")
        #expect(diagnose.output.contains("diagnose: ‹term-"), "\(diagnose.output)")
        #expect(diagnose.output.contains("not examined: calls-‹term-"), "\(diagnose.output)")
        #expect(namesNoPrivateTerm(diagnose.output), "\(diagnose.output)")
    }

    @Test("masking names that hold no private term changes nothing")
    func publicNamesUnchanged() {
        let results = Fixture.results()
        let redacted = results.redactingPrivateTerms()
        #expect(redacted.corpora.map(\.name) == results.corpora.map(\.name))
        #expect(redacted.variants.map(\.name) == results.variants.map(\.name))
        #expect(redacted.variants.map(\.trainingDataFile) == results.variants.map(\.trainingDataFile))
        #expect(redacted.run.suite == results.run.suite)
        #expect(redacted.systems.map(\.key) == results.systems.map(\.key))
    }

    @Test("cache list and clear show a private model's name with its private words masked")
    func cacheList() throws {
        let folder = try TestSupport.temporaryDirectory("private-cache")
        let cacheFolder = folder.appendingPathComponent("cache")
        let training = folder.appendingPathComponent("siobhan-contacts.yaml")
        try MiniSuite.privateContacts.write(to: training, atomically: true, encoding: .utf8)
        let plain = folder.appendingPathComponent("okonkwo-notes.yaml")
        try """
        locale: en-US
        identifier: com.example.notes
        version: "1"
        phrases:
          - {phrase: "take a note", count: 10}

        """.write(to: plain, atomically: true, encoding: .utf8)
        let toolchain = Toolchain(cacheFolder: cacheFolder)
        _ = try toolchain.prepare(training)
        _ = try toolchain.prepare(plain)

        let entries = ModelCache(folder: cacheFolder).entries()
        let secret = try #require(entries.first { $0.isPrivate })
        #expect(secret.privateWords.isSuperset(of: ["siobhan", "okonkwo"]), "\(secret.privateWords)")
        #expect(secret.shownName.hasPrefix("prepared/‹private›-contacts-"), "\(secret.shownName)")
        // Not private: shown as it is.
        #expect(entries.contains { !$0.isPrivate && $0.shownName.hasPrefix("prepared/okonkwo-notes-") })

        let list = try TestSupport.gambit(["cache", "list", "--cache-dir", cacheFolder.path])
        #expect(list.status == 0, "\(list.output)")
        #expect(list.output.range(of: "siobhan", options: .caseInsensitive) == nil, "\(list.output)")
        #expect(
            list.output.contains("prepared/‹private›-contacts-") && list.output.contains("PRIVATE"), "\(list.output)")
        let clear = try TestSupport.gambit(["cache", "clear", "--cache-dir", cacheFolder.path])
        #expect(clear.status == 0, "\(clear.output)")
        #expect(clear.output.range(of: "siobhan", options: .caseInsensitive) == nil, "\(clear.output)")
        #expect(ModelCache(folder: cacheFolder).entries().isEmpty)
    }

    @Test(
        "a failure message names files relative to the suite's folder",
        arguments: [
            ("/suite", "/suite/audio/a.wav: no such audio file", "audio/a.wav: no such audio file"),
            ("/my suite", "/my suite/audio/a.wav: truncated audio file (x)", "audio/a.wav: truncated audio file (x)"),
            (
                "/suite", "cannot open '/usr/share/pocketsphinx/model/en-us/mdef'.",
                "cannot open '../usr/share/pocketsphinx/model/en-us/mdef'."
            ),
            (
                "/a/suite", "adapter /a/suite/bin/run exited 2 (reading /a/suite)",
                "adapter bin/run exited 2 (reading .)"
            ),
            ("/a/suite", "model=/a/models/x.bin failed", "model=../models/x.bin failed"),
            ("/suite", "1/2 of the audio is silence", "1/2 of the audio is silence"),
        ])
    func relativeFailure(folder: String, message: String, expected: String) {
        #expect(WorkResponse.relativePaths(in: message, to: URL(fileURLWithPath: folder)) == expected)
    }

    @Test("an unreadable audio file fails with its path relative to the suite in results and reports")
    func failureMessagesInReports() throws {
        let suite = try MiniSuite(badAudio: true)
        let results = try suite.run()
        let failures = results.systems.flatMap(\.utterances).compactMap(\.failure)
        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0.hasPrefix("audio/broken.wav: ") }, "\(failures)")
        let output = suite.folder.appendingPathComponent("reports")
        try Reporter.write(results, formats: [.json, .html, .junit, .markdown], to: output, audioBase: suite.folder)
        let absolute = [suite.folder.standardizedFileURL.path, suite.folder.resolvingSymlinksInPath().path]
        for file in ["report.json", "report.html"] {
            let text = try String(contentsOf: output.appendingPathComponent(file), encoding: .utf8)
            for path in absolute {
                // `../../tmp/x/suite.yaml` (the suite, relative to the working directory) is relative, not absolute.
                let lines = text.replacingOccurrences(of: ".." + path, with: "..").split(separator: "\n")
                    .filter { $0.contains(path) }
                #expect(lines.isEmpty, "\(file) holds \(path): \(lines.prefix(3))")
            }
            #expect(text.contains("audio/broken.wav: "), "\(file)")
        }
    }
}

@Suite("A sweep of private data into a run's folder")
struct PrivateSweepTests {
    /// A sweep into the folder of a run re-renders the run's reports with the sweep in them: their audio players
    /// must still point at the suite's audio, as the run's did (they pointed nowhere when the sweep wrote the
    /// reports without the audio folder). The sweep's terminal output masks the private words of its data.
    @Test(
        "gambit sweep into a run's folder masks private words on the terminal and its reports play audio that is there",
        .timeLimit(.minutes(10)))
    func sweepMasksNamesAndKeepsAudioLinks() throws {
        let suite = try MiniSuite()
        // The seed's chess data, made private, under a variant named for one of its boosted words.
        let training = suite.folder.appendingPathComponent("chess.yaml")
        let data = try String(contentsOf: training, encoding: .utf8)
        try data.replacingOccurrences(of: "version: \"1.0\"\n", with: "version: \"1.0\"\nprivate: true\n")
            .write(to: training, atomically: true, encoding: .utf8)
        let text = try String(contentsOf: suite.suiteFile, encoding: .utf8)
        try text.replacingOccurrences(of: "name: chess-seed", with: "name: winawer-seed")
            .write(to: suite.suiteFile, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["GAMBIT_CACHE"] = suite.folder.appendingPathComponent("cache").path
        let output = suite.folder.appendingPathComponent("out")
        // The run fails its checks on so small a suite (status 1) but writes its reports.
        let (ran, runOutput) = try TestSupport.gambit(
            ["run", suite.suiteFile.path, "--output", output.path, "--workers", "2"]
                + (MiniSuite.sharedDecodes.map { ["--decode-cache", $0.path] } ?? []), environment: environment)
        #expect(ran == 0 || ran == 1, "\(runOutput)")
        let before = try Self.audioLinks(in: output)
        let (status, printed) = try TestSupport.gambit(
            [
                "sweep", suite.suiteFile.path, "--output", output.path, "--workers", "2", "--weights", "0.5",
                "--phrase-scales", "1", "--template-scales", "1", "--scaling", "none",
            ], environment: environment)
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("tuning ") && printed.contains("sweep of "), "\(printed)")
        #expect(printed.range(of: "winawer", options: .caseInsensitive) == nil, "\(printed)")
        #expect(printed.contains("re-rendered the reports"), "\(printed)")

        let results = try RunResults.load(from: Runner.resultsFile(in: output))
        #expect(results.sweep?.points.count == 1, "the run's results hold the sweep the reports were re-rendered with")
        let after = try Self.audioLinks(in: output)
        #expect(!after.isEmpty && after.count == before.count, "\(before.count) players before, \(after.count) after")
        for link in after {
            #expect(FileManager.default.fileExists(atPath: link.path), "\(link.path) is not there")
        }
    }

    /// Every `<audio src>` of the folder's report.html, resolved from that folder.
    static func audioLinks(in output: URL) throws -> [URL] {
        let html = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        return html.matches(of: /<audio [^>]*src="([^"]+)"/).compactMap { match in
            String(match.output.1).removingPercentEncoding.map {
                output.appendingPathComponent($0).standardizedFileURL
            }
        }
    }
}
