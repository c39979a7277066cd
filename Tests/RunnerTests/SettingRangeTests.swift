import Foundation
import GambitTestSupport
import LanguageModel
import Runner
import Testing

/// Settings out of range used to crash the engine (`prepare --order 6`), or were clamped or read as
/// a flag without a word. One validation per setting serves the command line and the suite.
@Suite("Setting ranges")
struct SettingRangeTests {
    static let training = TestSupport.packageRoot.appendingPathComponent("Corpora/chess/training/minimal.yaml").path

    @Test(
        "prepare refuses a setting out of range, naming it and its range, before compiling anything",
        arguments: [
            (["--order", "6"], "`order` is 6; it must be within 1…5"),
            (["--order", "0"], "`order` is 0; it must be within 1…5"),
            // A negative number is the option's value, not an unknown flag.
            (["--order", "-1"], "`order` is -1; it must be within 1…5"),
            (["--boundary-share", "-0.5"], "`boundaryShare` is -0.5; it must be within 0…1"),
            (
                ["--background-mass", "1.5"],
                "`backgroundMass` is 1.5; it must be within 0…1 (the suite's `backgroundMass:`, or --background-mass)"
            ),
            (["--budget", "0"], "`budget` is 0; it must be within 1…"),
            (["--mix", "merged", "--tempering", "-2"], "`tempering` is -2.0; it must be within 0…∞"),
        ])
    func prepare(arguments: [String], message: String) throws {
        let output = try TestSupport.temporaryDirectory("ranges").path
        let (status, text) = try TestSupport.gambit(["prepare", Self.training, "--output", output] + arguments)
        #expect(status != 0, "\(text)")
        #expect(text.contains(message), "\(text)")
        #expect(!text.contains("Backtrace") && !text.contains("Missing value"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: output + "/manifest.json"))
    }

    @Test("decode and lint refuse their settings out of range")
    func otherCommands() throws {
        let audio = TestSupport.cards[0].path
        let alternatives = try TestSupport.gambit(["decode", audio, "--alternatives", "-2"])
        #expect(alternatives.status != 0)
        #expect(alternatives.output.contains("--alternatives is -2; it must be within 0…50"), "\(alternatives.output)")
        let weight = try TestSupport.gambit(["decode", audio, "--weight", "-0.1"])
        #expect(weight.status != 0)
        #expect(weight.output.contains("`weight` is -0.1; it must be within 0…1"), "\(weight.output)")
        let lint = try TestSupport.gambit(["lint", Self.training, "--budget", "-5"])
        #expect(lint.status != 0)
        #expect(lint.output.contains("`budget` is -5"), "\(lint.output)")
    }

    @Test("A suite's variant out of range is an error at its line, with the same words as the command line")
    func suiteVariant() throws {
        let folder = try TestSupport.temporaryDirectory("ranges-suite")
        let url = folder.appendingPathComponent("suite.yaml")
        for (line, message) in [
            ("{name: v, training: t.yaml, weight: 1.5}", "`weight` is 1.5; it must be within 0…1"),
            ("{name: v, training: t.yaml, boundaryShare: -1}", "`boundaryShare` is -1.0; it must be within 0…1"),
            ("{name: v, training: t.yaml, backgroundMass: 2}", "`backgroundMass` is 2.0"),
        ] {
            try "corpora:\n  - {name: c, manifest: m.jsonl}\nvariants:\n  - \(line)\n"
                .write(to: url, atomically: true, encoding: .utf8)
            let error = try #require(throws: RunnerError.self) { try Suite.load(url) }
            guard case .invalidSuite(_, let reported, let text) = error else {
                Issue.record("not a suite error: \(error)")
                continue
            }
            #expect(reported == 4)
            #expect(text.contains(message), "\(text)")
        }
    }

    @Test("A suite's weight -0 is 0: the base model alone, recorded as 0")
    func negativeZeroWeight() throws {
        let folder = try TestSupport.temporaryDirectory("ranges-zero")
        let url = folder.appendingPathComponent("suite.yaml")
        try "corpora:\n  - {name: c, manifest: m.jsonl}\nvariants:\n  - {name: v, training: t.yaml, weight: -0}\n"
            .write(to: url, atomically: true, encoding: .utf8)
        let weight = try #require(try Suite.load(url).variants.first?.weight)
        #expect(weight == 0 && weight.sign == .plus)
    }

    @Test("Every default is in range")
    func defaults() throws {
        try PrepareOptions().validate()
        try PrepareOptions(mix: .merged).validate()
    }
}
