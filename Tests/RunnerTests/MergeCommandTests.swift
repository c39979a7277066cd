import Foundation
import GambitTestSupport
import Results
import ResultsFixtures
import Runner
import Testing

/// `gambit merge`, `report` and `gate` through the command line, on the fixture's results cut into shards (no
/// decoding needed).
@Suite("gambit merge of some shards, through the command line")
struct MergeCommandTests {
    let folder: URL

    init() throws {
        folder = try TestSupport.temporaryDirectory("merge")
        let full = Fixture.results()
        for index in 0..<4 {
            try FileManager.default.createDirectory(
                at: Runner.resultsFile(in: folder.appendingPathComponent("s\(index)")).deletingLastPathComponent(),
                withIntermediateDirectories: true)
            try Self.shard(full, index: index, count: 4).write(
                to: Runner.resultsFile(in: folder.appendingPathComponent("s\(index)")))
        }
    }

    /// Every `count`-th utterance from `index`, as a runner's shard would hold them.
    static func shard(_ full: RunResults, index: Int, count: Int) -> RunResults {
        var part = full
        part.run.shard = Shard(index: index, count: count)
        for s in part.systems.indices {
            part.systems[s].utterances = part.systems[s].utterances.filter { $0.index % count == index }
        }
        for c in part.corpora.indices {
            part.corpora[c].utteranceCount =
                part.system(corpus: part.corpora[c].name, mode: .baseline)?.utterances.count ?? 0
        }
        let checks = part.checks
        part = part.recomputingAggregates()
        part.checks = checks
        return part
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Every shard's results, as bytes.
    func shardResults() throws -> [Data] {
        try (0..<4).map { try Data(contentsOf: Runner.resultsFile(in: folder.appendingPathComponent("s\($0)"))) }
    }

    @Test(
        "A merge into one of its own shards is refused before anything is written, however the shard is named",
        arguments: ["s0", "./s2/", "link-to-s1", "s3/.gambit/.."])
    func intoAShard(output: String) throws {
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link-to-s1"), withDestinationURL: folder.appendingPathComponent("s1"))
        let before = try shardResults()
        // Relative paths are the command line's, taken from the folder it runs in.
        let (status, text) = try TestSupport.gambit(["merge", "s0", "s1", "s2", "s3", "--output", output], in: folder)
        #expect(status == 2, "\(text)")
        #expect(text.contains("the output folder holds an input of this command"), "\(text)")
        #expect(text.contains("--output"), "\(text)")
        #expect(try shardResults() == before)
        for index in 0..<4 { #expect(!FileManager.default.fileExists(atPath: path("s\(index)/report.html"))) }
    }

    @Test("merge, report and diagnose take the output folder's lock: a folder another gambit holds is refused")
    func lockedOutput() throws {
        let out = folder.appendingPathComponent("out")
        let shards = (0..<4).map { path("s\($0)") }
        let merged = try TestSupport.gambit(["merge"] + shards + ["--output", out.path])
        #expect([0, 1, 3].contains(merged.status), "\(merged.output)")
        let before = try Data(contentsOf: Runner.resultsFile(in: out))
        // Held here as a run holds it while it decodes.
        let lock = try OutputFolder.lock(out)
        defer { lock.release() }
        let pid = ProcessInfo.processInfo.processIdentifier
        for command in [
            ["merge"] + shards + ["--output", out.path], ["report", out.path, "--output", out.path],
            ["diagnose", out.path],
        ] {
            let refused = try TestSupport.gambit(command)
            #expect(refused.status == 2, "\(command[0]): \(refused.output)")
            #expect(
                refused.output.contains("\(out.path): the output folder is in use by another gambit run (pid \(pid))"),
                "\(command[0]): \(refused.output)")
        }
        #expect(try Data(contentsOf: Runner.resultsFile(in: out)) == before)
        lock.release()
        let report = try TestSupport.gambit(["report", out.path, "--output", out.path])
        #expect(report.status == 0, "\(report.output)")
    }

    @Test("Shards 0/4 and 2/4 alone are refused, naming 1/4 and 3/4, and nothing is written")
    func refused() throws {
        let (status, output) = try TestSupport.gambit(["merge", path("s0"), path("s2"), "--output", path("out")])
        #expect(status == 2, "\(output)")
        #expect(output.contains("missing shards 1/4, 3/4 of run of suite \"demo\""), "\(output)")
        #expect(output.contains("--partial"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: path("out")))
    }

    @Test("--partial merges, and the summary, every report, `gambit report` and `gambit gate` say partial")
    func partial() throws {
        let (status, output) = try TestSupport.gambit([
            "merge", path("s0"), path("s2"), "--partial", "--output", path("out"),
        ])
        // The fixture has a failing check: a partial merge ends as the merged results do.
        #expect(status == 1, "\(output)")
        let line = "PARTIAL  partial results: 2 of 4 shards merged (0/4, 2/4); missing 1/4, 3/4"
        #expect(output.components(separatedBy: line).count == 3, "said first and last: \(output)")
        let merged = try RunResults.load(from: Runner.resultsFile(in: folder.appendingPathComponent("out")))
        #expect(merged.run.partial == PartialRun(shardCount: 4, present: [0, 2], missing: [1, 3]))
        for name in ["report.html", "summary.md", "junit.xml", "report.json"] {
            let text = try String(contentsOfFile: path("out/\(name)"), encoding: .utf8)
            #expect(text.contains("missing 1/4, 3/4") || text.contains("\"missing\""), "\(name)")
        }

        // Re-rendering keeps the banner.
        let (reportStatus, reportOutput) = try TestSupport.gambit([
            "report", path("out/.gambit/results.json"), "--output", path("again"),
        ])
        #expect(reportStatus == 0, "\(reportOutput)")
        let html = try String(contentsOfFile: path("again/report.html"), encoding: .utf8)
        #expect(html.contains("partial-banner\" role=\"alert\""))
        // The run's folder names its results as well as the file does; a folder without them is refused.
        let (folderStatus, folderOutput) = try TestSupport.gambit(["report", path("out"), "--output", path("again2")])
        #expect(folderStatus == 0, "\(folderOutput)")
        #expect(try String(contentsOfFile: path("again2/report.html"), encoding: .utf8) == html)
        let (emptyStatus, emptyOutput) = try TestSupport.gambit(["report", path("again2/trn")])
        #expect(emptyStatus == 2 && emptyOutput.contains("is a folder without a run's results"), "\(emptyOutput)")

        // The gate refuses partial results, even against themselves.
        let (gateStatus, gateOutput) = try TestSupport.gambit([
            "gate", path("out/report.json"), "--baseline", path("out/report.json"),
        ])
        #expect(gateStatus == 2, "\(gateOutput)")
        #expect(gateOutput.contains("partial results") && gateOutput.contains("missing 1/4, 3/4"), "\(gateOutput)")

        // The missing shards complete it.
        let (completeStatus, completeOutput) = try TestSupport.gambit([
            "merge", path("out"), path("s1"), path("s3"), "--output", path("complete"),
        ])
        #expect(completeStatus == 1, "\(completeOutput)")
        #expect(!completeOutput.contains("PARTIAL"), "\(completeOutput)")
        let complete = try RunResults.load(from: Runner.resultsFile(in: folder.appendingPathComponent("complete")))
        #expect(complete.run.partial == nil)
    }
}
