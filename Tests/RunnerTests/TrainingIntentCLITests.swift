import Foundation
import GambitTestSupport
import Testing

/// Training data that lost part of what its author wrote with exit 0, through `gambit lint` as a user runs it.
@Suite("gambit lint keeps what the user wrote")
struct TrainingIntentCLITests {
    static let header = "locale: en-US\nidentifier: t\nversion: \"1\"\n"

    /// Writes training data (after the header) to `name` in `folder`.
    func write(_ body: String, _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try (Self.header + body).write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("An empty items list and a spaced class reference fail lint (exit 1) with their lines")
    func errors() throws {
        let folder = try TestSupport.temporaryDirectory("lint-intent")
        let empty = try write(
            "phrases:\n  - {phrase: pawn to e4, count: 1}\ntemplates:\n  - classes: {piece: [pawn]}\n    items: []\n",
            "empty.yaml", in: folder)
        let (status, output) = try TestSupport.gambit(["lint", empty.path])
        #expect(status == 1, "\(output)")
        #expect(output.contains("\(empty.path):7: error: a template group with classes <piece> has no templates"))
        let spaced = try write(
            "templates:\n  - classes: {piece: [pawn]}\n    items:\n      - {template: \"< piece > to e4\", count: 3}\n"
                + "phrases:\n  - {phrase: \"move < piece > now\", count: 1}\n",
            "spaced.yaml", in: folder)
        let lint = try TestSupport.gambit(["lint", spaced.path])
        #expect(lint.status == 1, "\(lint.output)")
        #expect(lint.output.contains("\(spaced.path):7: error: template \"< piece > to e4\" is malformed"))
        #expect(lint.output.contains("\(spaced.path):9: error: phrase \"move < piece > now\" holds \"< piece >\""))
    }

    @Test("An unused class and a phrase given twice are warnings with their lines; lint still passes")
    func warnings() throws {
        let folder = try TestSupport.temporaryDirectory("lint-intent")
        let training = try write(
            "phrases:\n  - {phrase: pawn to e4, count: 2}\n  - {phrase: \"Pawn to E4.\", count: 3}\n"
                + "templates:\n  - classes: {piece: [pawn], royal: [king]}\n    items:\n"
                + "      - {template: \"<piece> takes\", count: 4}\n",
            "warned.yaml", in: folder)
        let (status, output) = try TestSupport.gambit(["lint", training.path])
        #expect(status == 0, "\(output)")
        #expect(
            output.contains(
                "\(training.path):6: warning: phrase \"Pawn to E4.\" says the same words as \"pawn to e4\" "
                    + "(\(training.path):5), so their counts add up to 5"),
            "\(output)")
        #expect(output.contains("\(training.path):8: warning: class <royal> is defined but no template"), "\(output)")
    }

    @Test("lint --apply sets a phrase given in other case, and refuses a bad patch at the patch's line")
    func apply() throws {
        let folder = try TestSupport.temporaryDirectory("lint-apply")
        let training = try write("phrases:\n  - {phrase: pawn to e4, count: 3}\n", "data.yaml", in: folder)
        let patch = try write("phrases:\n  - {phrase: Pawn to E4, count: 5}\n", "patch.yaml", in: folder)
        let merged = folder.appendingPathComponent("merged.yaml")
        let (status, output) = try TestSupport.gambit([
            "lint", training.path, "--apply", patch.path, "--output", merged.path,
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("phrase \"pawn to e4\": count 3 → 5"), "\(output)")
        let text = try String(contentsOf: merged, encoding: .utf8)
        #expect(text.contains("  - {phrase: \"pawn to e4\", count: 5}\n") && !text.contains("Pawn"), "\(text)")

        let bad = try write(
            "phrases:\n  - {phrase: knight to f3, count: 0}\npronunciations:\n"
                + "  - {grapheme: winawer, phonemes: [\"w I n aU @r x\"]}\n",
            "bad.yaml", in: folder)
        let refused = folder.appendingPathComponent("refused.yaml")
        let badRun = try TestSupport.gambit(["lint", training.path, "--apply", bad.path, "--output", refused.path])
        #expect(badRun.status == 2, "\(badRun.output)")
        #expect(
            badRun.output.contains("\(bad.path):5: error: phrase \"knight to f3\" has count 0"), "\(badRun.output)")
        #expect(!FileManager.default.fileExists(atPath: refused.path), "nothing is written from a bad patch")
    }
}
