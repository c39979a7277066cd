import Foundation
import GambitTestSupport
import Results
import Runner
import Testing

/// Transcripts made outside the run (as Apple's recognizer makes them on a Mac), imported as a recognizer's
/// systems and judged like any other.
@Suite("Imported transcripts", .serialized)
struct ImportedTranscriptsTests {
    /// A suite file beside `suite`'s, with `recognizers` instead of its own.
    static func run(_ suite: MiniSuite, recognizers: String, output: String) throws -> RunResults {
        let text = try String(contentsOf: suite.suiteFile, encoding: .utf8)
        let cut = text.range(of: "recognizers:").map { String(text[..<$0.lowerBound]) } ?? text
        let file = suite.folder.appendingPathComponent("suite-\(output).yaml")
        try (cut + recognizers + "\n").write(to: file, atomically: true, encoding: .utf8)
        return try Runner(
            suite: try Suite.load(file),
            options: RunOptions(
                output: suite.folder.appendingPathComponent(output), workerExecutable: MiniSuite.executable),
            toolchain: Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache"))
        ).run()
    }

    static func imported(onDevice: Bool = true, customized: Bool = true) -> String {
        """
        recognizers:
          - name: fake
            onDevice: \(onDevice)
            corpora: [chess]
            transcripts:
              baseline: made/{corpus}.baseline.jsonl
        \(customized ? "      customized: made/{corpus}.{variant}.jsonl" : "")
        """
    }

    /// JSON lines of `{id, text}`.
    static func write(_ lines: [(String, String)], to url: URL) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let data = try lines.map { id, text in
            String(decoding: try JSONSerialization.data(withJSONObject: ["id": id, "text": text]), as: UTF8.self)
        }.joined(separator: "\n")
        try (data + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    @Test("Transcripts made by a recognizer outside the run score, compare and check as when it runs inside")
    func roundTrip() throws {
        let folder = try TestSupport.temporaryDirectory("imported")
        let (script, _) = try ExternalCustomizationTests.adapter(in: folder, mode: "working")
        let suite = try MiniSuite(extra: ExternalCustomizationTests.recognizer(script))
        let inside = try suite.run()

        // The same recognizer by hand, as a Mac would run Apple's: prepare the variant from Gambit's export,
        // transcribe every utterance of the corpus both ways, write the two files.
        let export = folder.appendingPathComponent("export.json")
        let phrases = folder.appendingPathComponent("phrases.json")
        let prepared = try TestSupport.gambit([
            "prepare", suite.folder.appendingPathComponent("chess.yaml").path, "--output",
            folder.appendingPathComponent("model").path, "--export", export.path, "--phrase-list", phrases.path,
        ])
        #expect(prepared.status == 0, "\(prepared.output)")
        let artifact = folder.appendingPathComponent("artifact")
        try FileManager.default.createDirectory(at: artifact, withIntermediateDirectories: true)
        _ = try TestSupport.run(script.path, ["prepare", export.path, phrases.path, artifact.path, "0.5", "en-US"])
        let manifest = try String(contentsOf: suite.folder.appendingPathComponent("chess.jsonl"), encoding: .utf8)
        var baseline: [(String, String)] = []
        var customized: [(String, String)] = []
        for line in manifest.split(separator: "\n") {
            let entry = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try #require(entry["id"] as? String)
            let audio = suite.folder.appendingPathComponent(try #require(entry["audio"] as? String)).path
            func transcript(_ arguments: [String]) throws -> String {
                let answer = try TestSupport.run(script.path, ["decode", audio] + arguments)
                let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
                return try #require(object?["transcript"] as? String)
            }
            baseline.append((id, try transcript([])))
            customized.append((id, try transcript([artifact.path])))
        }
        try Self.write(baseline, to: suite.folder.appendingPathComponent("made/chess.baseline.jsonl"))
        try Self.write(customized, to: suite.folder.appendingPathComponent("made/chess.chess-seed.jsonl"))

        let imported = try Self.run(suite, recognizers: Self.imported(), output: "imported")
        for key in ["chess/baseline@fake", "chess/customized/chess-seed@fake"] {
            let a = try #require(inside.systems.first { $0.key == key })
            let b = try #require(imported.systems.first { $0.key == key })
            #expect(a.metrics == b.metrics, "\(key)")
            #expect(a.utterances.map(\.hypothesis) == b.utterances.map(\.hypothesis))
        }
        let a = try #require(inside.comparison(corpus: "chess", variant: "chess-seed", recognizer: "fake"))
        let b = try #require(imported.comparison(corpus: "chess", variant: "chess-seed", recognizer: "fake"))
        #expect(a == b)
        // The same checks with the same outcomes, but the on-device claim: witnessed inside, only declared here.
        let claim = "external recognizer on-device: fake"
        func outcomes(_ results: RunResults) -> [String: Bool] {
            Dictionary(uniqueKeysWithValues: results.checks.filter { $0.name != claim }.map { ($0.name, $0.passed) })
        }
        #expect(outcomes(inside) == outcomes(imported))
        #expect(inside.checks.first { $0.name == claim }?.passed == true)
        let declared = try #require(imported.checks.first { $0.name == claim })
        #expect(declared.isSkipped && declared.message.hasPrefix("declared on-device, not verified"))
        #expect(imported.run.externalRecognizers?.first?.importedFiles?.count == 2)
    }

    @Test(
        "A missing utterance fails alone, named; an extra or duplicate one, a wrong format, a missing file stop the run"
    )
    func badFiles() throws {
        let suite = try MiniSuite(modes: ["baseline"])
        let file = suite.folder.appendingPathComponent("made/chess.baseline.jsonl")
        let ids = (0..<4).flatMap { index in ["kal16", "rms"].map { "chess-\(index)-\($0)" } }
        let recognizers = Self.imported(customized: false)

        func refusal(_ message: String) throws {
            #expect {
                _ = try Self.run(suite, recognizers: recognizers, output: "bad")
            } throws: { error in
                "\(error)".contains("recognizer fake: made/chess.baseline.jsonl") && "\(error)".contains(message)
            }
        }
        try refusal("no such file: the transcripts of its baseline on corpus chess")
        try Self.write(ids.map { ($0, "play the album counter gambit") } + [("chess-9-kal16", "extra")], to: file)
        try refusal("utterance 'chess-9-kal16' is not in corpus chess")
        try Self.write(ids.map { ($0, "play") } + [(ids[0], "again")], to: file)
        try refusal("chess-0-kal16")
        try "play the album (chess-0-kal16)\n".write(to: file, atomically: true, encoding: .utf8)
        try refusal("made/chess.baseline.jsonl:1: not a JSON object")

        try Self.write(ids.dropFirst().map { ($0, "play the album counter gambit") }, to: file)
        let results = try Self.run(suite, recognizers: recognizers, output: "missing")
        let system = try #require(results.system(corpus: "chess", mode: .baseline, recognizer: "fake"))
        #expect(system.failures.failed == 1 && system.utterances.count == 8)
        let missing = try #require(system.utterances.first { $0.id == ids[0] })
        #expect(missing.failureKind == .missingTranscript)
        #expect(missing.failure == "made/chess.baseline.jsonl has no transcript of utterance chess-0-kal16")
        #expect(results.checks.first { $0.name == "every utterance decoded" }?.passed == false)
    }
}
