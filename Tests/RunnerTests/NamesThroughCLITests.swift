import Foundation
import GambitTestSupport
import Results
import ResultsFixtures
import Runner
import Testing

/// Hostile corpus and variant names through `gambit merge`: its terminal summary and the reports it writes.
@Suite("Names through the command line")
struct NamesThroughCLITests {
    /// The fixture with the `chess` corpus and the `chess-full` variant renamed everywhere.
    static func renamed(corpus: String, variant: String) -> RunResults {
        Fixture.renaming(Fixture.results(), corpora: ["chess": corpus], variants: ["chess-full": variant])
    }

    @Test(
        "the summary keeps one line per system and the files stay in --output",
        arguments: ["../../escaped\nline", "/tmp/gambit-cli-abs\tname", "con|fuse \u{1B}[31mred"])
    func merge(name: String) throws {
        let root = try TestSupport.temporaryDirectory("names-cli")
        let input = root.appendingPathComponent("in/run")
        try FileManager.default.createDirectory(
            at: Runner.resultsFile(in: input).deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.renamed(corpus: name, variant: name + "-v").write(to: Runner.resultsFile(in: input))
        let output = root.appendingPathComponent("in/out")
        let (status, text) = try TestSupport.gambit(["merge", input.path, "--output", output.path])
        #expect(status == 0 || status == 1, "\(text)")
        let escaped = name.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\u{1B}", with: "\\u{1B}")
        // Every row of the table starts with a corpus name: none is cut by a line break in one.
        let rows = text.split(separator: "\n").filter { $0.contains("%") && $0.contains("baseline") }
        #expect(rows.contains { $0.hasPrefix(escaped) }, "\(text)")
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains("\(escaped) / \(escaped)-v: WER"), "\(text)")
        // Nothing beside the two folders, nor at the absolute path a name spells.
        let top = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("in").path).sorted()
        #expect(top == ["out", "run"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["in"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/gambit-cli-abs\tname.ref.trn"))
    }
}
