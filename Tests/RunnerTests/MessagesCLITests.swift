import Foundation
import GambitTestSupport
import LanguageModel
import Results
import ResultsFixtures
import Runner
import Testing

/// Messages that used to send the user the wrong way (a Cocoa error number, a raw NSError, a Swift source line, a
/// key the suite rejects), through the command line as a user meets them.
@Suite("Messages that say what is wrong and where")
struct MessagesCLITests {
    static let training =
        "locale: en-US\nidentifier: t\nversion: \"1\"\nphrases:\n  - {phrase: pawn to e4, count: 3}\n"

    /// Writes `text` to `name` in `folder`.
    func write(_ text: String, _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("A folder where a file belongs, or a file where a folder belongs, is named as such")
    func folderForFile() throws {
        let folder = try TestSupport.temporaryDirectory("messages")
        let reference = try write("hello world (u1)\n", "ref.trn", in: folder)
        let score = try TestSupport.gambit(["score", "--ref", reference.path, "--hyp", folder.path])
        #expect(score.status == 2, "\(score.output)")
        #expect(score.output.contains("\(folder.path): cannot read the file (it is a folder, not a file)"))
        #expect(!score.output.contains("NSCocoaErrorDomain"), "\(score.output)")

        let diagnose = try TestSupport.gambit(["diagnose", reference.path])
        #expect(diagnose.status == 2, "\(diagnose.output)")
        #expect(
            diagnose.output.contains(
                "\(reference.path): a file, not a folder; gambit diagnose takes the output folder of `gambit run`"),
            "\(diagnose.output)")
        #expect(!diagnose.output.contains("NSCocoaErrorDomain"), "\(diagnose.output)")
        let empty = try TestSupport.gambit(["diagnose", folder.path])
        #expect(empty.output.contains("\(folder.path): no .gambit/results.json in it"), "\(empty.output)")

        let lint = try TestSupport.gambit(["lint", folder.path])
        #expect(lint.status == 2)
        #expect(lint.output.contains("\(folder.path): a folder, not a training-data file"), "\(lint.output)")
    }

    @Test("lint --apply that cannot write its output says why in words, naming the output")
    func lintApplyWriteFailure() throws {
        let folder = try TestSupport.temporaryDirectory("messages")
        let training = try write(Self.training, "data.yaml", in: folder)
        let patch = try write(
            Self.training.replacingOccurrences(of: "count: 3", with: "count: 5"), "p.yaml", in: folder)
        let taken = folder.appendingPathComponent("taken.yaml")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        let long = folder.appendingPathComponent(String(repeating: "x", count: 300) + ".yaml")
        for (output, reason) in [
            (taken.path, "it is a folder, not a file"),
            (long.path, "is 305 bytes long, over the 255 a file or folder name may have"),
            (folder.appendingPathComponent("data.yaml/new.yaml").path, "\(training.path) is a file, not a folder"),
        ] {
            let (status, text) = try TestSupport.gambit([
                "lint", training.path, "--apply", patch.path, "--output", output,
            ])
            #expect(status == 2, "\(text)")
            #expect(text.contains("\(output): could not write: "), "\(text)")
            #expect(text.contains(reason + "; choose another --output"), "\(text)")
            #expect(!text.contains("Error Domain") && !text.contains("NSCocoaErrorDomain"), "\(text)")
        }
    }

    @Test("An output folder whose name is too long is named as too long, not as not writable")
    func outputNameTooLong() throws {
        let folder = try TestSupport.temporaryDirectory("messages")
        let long = folder.appendingPathComponent(String(repeating: "r", count: 300))
        let error = try #require(throws: OutputFolderError.self) { try OutputFolder.prepare(long) }
        #expect(error.description.contains("cannot make the output folder: the name \"rrrr"), "\(error)")
        #expect(error.description.contains("is 300 bytes long, over the 255"), "\(error)")
        #expect(!error.description.contains("not writable") && !error.description.contains("Error Domain"))
    }

    @Test("A compiler setting no suite takes is named by its option only, never as a suite key")
    func settingsASuiteRejects() throws {
        let folder = try TestSupport.temporaryDirectory("messages")
        let training = try write(Self.training, "data.yaml", in: folder)
        let prepare = try TestSupport.gambit([
            "prepare", training.path, "--output", folder.appendingPathComponent("out").path, "--order", "9",
        ])
        #expect(prepare.output.contains("`order` is 9; it must be within 1…5"), "\(prepare.output)")
        #expect(prepare.output.contains("(set by --order)") && !prepare.output.contains("`order:`"))
        let lint = try TestSupport.gambit(["lint", training.path, "--budget", "0"])
        #expect(lint.output.contains("(set by --budget)") && !lint.output.contains("`budget:`"), "\(lint.output)")
    }

    @Test("Every setting a message calls a suite key is one a suite's variant accepts")
    func suiteKeysAreTheSuites() throws {
        guard case .mapping(let top) = Suite.schema, case .list(let item)? = top["variants"],
            case .mapping(let variant) = item
        else {
            Issue.record("the suite schema has no variants mapping")
            return
        }
        let named = PrepareOptions.InvalidSetting.suiteKeys
        #expect(named.isSubset(of: Set(variant.keys)), "\(named.subtracting(variant.keys))")
    }

    @Test("baseline update refuses partial results, which every gate would refuse, and writes nothing")
    func partialBaseline() throws {
        let folder = try TestSupport.temporaryDirectory("messages")
        var partial = Fixture.results()
        partial.run.partial = PartialRun(shardCount: 4, present: [0, 2], missing: [1, 3])
        let results = folder.appendingPathComponent("results.json")
        try partial.write(to: results)
        let baseline = folder.appendingPathComponent("baseline.json")
        let (status, output) = try TestSupport.gambit(["baseline", "update", results.path, "--to", baseline.path])
        #expect(status == 2, "\(output)")
        #expect(output.contains("missing 1/4, 3/4"), "\(output)")
        #expect(output.contains("`gambit gate` compares complete runs only and would refuse this baseline"))
        #expect(!FileManager.default.fileExists(atPath: baseline.path))
        let complete = folder.appendingPathComponent("complete.json")
        try Fixture.results().write(to: complete)
        let (completeStatus, completeOutput) = try TestSupport.gambit([
            "baseline", "update", complete.path, "--to", baseline.path,
        ])
        #expect(completeStatus == 0, "\(completeOutput)")
    }

    @Test("A reference word the oracle cannot pronounce is reported at the manifest's line, not a Swift file's")
    func oracleWordAtManifestLine() throws {
        let folder = try TestSupport.temporaryDirectory("messages")
        let audio = TestSupport.cards[0].path
        _ = try write(
            #"{"id": "c1", "audio": "\#(audio)", "text": "ten of clubs"}"# + "\n"
                + #"{"id": "c2", "audio": "\#(audio)", "text": "ten of иван"}"# + "\n",
            "m.jsonl", in: folder)
        _ = try write(Self.training, "t.yaml", in: folder)
        let suite = try write(
            """
            name: oracle
            corpora:
              - {name: g, manifest: m.jsonl, role: domain, allow-outside-paths: \(TestSupport.testData.path)}
            variants:
              - {name: v, training: t.yaml}
            modes: [baseline, customized, oracle]

            """, "suite.yaml", in: folder)
        let (status, output) = try TestSupport.gambit([
            "run", suite.path, "--output", folder.appendingPathComponent("out").path, "--workers", "1",
            "--cache-dir", folder.appendingPathComponent("cache").path,
        ])
        #expect(status == 2, "\(output)")
        #expect(
            output.contains("\(folder.appendingPathComponent("m.jsonl").path):2: error: word \"иван\""), "\(output)")
        #expect(output.contains("The oracle of corpus g is a grammar of its references"), "\(output)")
        #expect(!output.contains("Runner.swift"), "\(output)")
    }
}
