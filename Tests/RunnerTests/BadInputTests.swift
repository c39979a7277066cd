import Foundation
import GambitTestSupport
import Testing

/// Inputs that used to turn into a plausible number or a raw system error, tried through the CLI
/// as a user would.
@Suite("Bad input through the command line")
struct BadInputTests {
    /// Writes `text` to `name` in a fresh folder and returns the file.
    func file(_ name: String, _ text: String) throws -> URL {
        let url = try TestSupport.temporaryDirectory("bad-input").appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("Lint prints a count of 10¹² as it is, and its share of the budget")
    func lintHugeCount() throws {
        let training = try file(
            "huge.yaml",
            "locale: en-US\nidentifier: t\nversion: \"1\"\nphrases:\n  - {phrase: play, count: 1000000000000}\n")
        let (status, output) = try TestSupport.gambit(["lint", training.path])
        #expect(status == 1, "\(output)")
        #expect(output.contains("budget: 1000000000000 of 1000000 samples"), "\(output)")
        #expect(output.contains("1000000000000  "), "\(output)")
        #expect(!output.contains("-727379968"), "\(output)")
    }
}
