import Foundation
import Gate
import ResultsFixtures
import Testing

/// A thresholds file with a misspelt key used to pass with the defaults in force.
@Suite("Thresholds files")
struct ThresholdsFileTests {
    func file(_ name: String, _ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-thresholds-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test(
        "An unknown key is an error with its line and the nearest known key, in YAML, JSON and a suite",
        arguments: [
            (
                "t.yaml", "wer: {maxIncrease: 1}\nbosstedWER: {maxIncrease: 2}\n", 2,
                "`bosstedWER` in the top level; did you mean `boostedWER`?"
            ),
            (
                "t.yaml", "wer:\n  maxIncrease: 1\n  requireSignificanse: true\n", 3,
                "in wer; did you mean `requireSignificance`?"
            ),
            (
                "t.json", "{\"wer\": {\"maxIncrease\": 1},\n \"antiContextWer\": {\"maxIncrease\": 0.5}}\n", 2,
                "did you mean `antiContextWER`?"
            ),
            (
                "suite.yaml",
                "name: s\ncorpora: []\ngate:\n  corpora:\n    chess: {wer: {maxIncrease: 1}, bwer: {maxIncrease: 1}}\n",
                5, "`bwer` in gate.corpora.chess"
            ),
        ])
    func unknownKey(name: String, text: String, line: Int, message: String) throws {
        let url = try file(name, text)
        let error = try #require(throws: GateThresholdsError.self) { try GateThresholds.load(from: url) }
        #expect(error.line == line, "\(error)")
        #expect(error.description.hasPrefix("\(url.path):\(line): error: unknown key"), "\(error)")
        #expect(error.message.contains(message), "\(error)")
    }

    @Test(
        "A value of the wrong type is an error at its own line, not the section's", arguments: ["t.yaml", "suite.yaml"])
    func wrongTypeLine(name: String) throws {
        let body = "wer:\n  maxIncrease: 1\nantiContextWER:\n  requireSignificance: true\n  maxIncrease: lots\n"
        let text =
            name == "suite.yaml"
            ? "name: s\ncorpora: []\ngate:\n" + body.split(separator: "\n").map { "  \($0)\n" }.joined() : body
        let error = try #require(throws: GateThresholdsError.self) {
            try GateThresholds.load(from: try file(name, text))
        }
        #expect(error.line == (name == "suite.yaml" ? 8 : 5), "\(error)")
    }

    @Test("Known keys load in YAML, JSON and a suite's gate section; a suite without one gives the defaults")
    func knownKeys() throws {
        let yaml = try GateThresholds.load(
            from: try file(
                "t.yaml", "wer: {maxIncrease: 0.5, requireSignificance: true}\ncorpora:\n  c: {wer: {maxIncrease: 3}}\n"
            ))
        #expect(yaml.wer == Limit(maxIncrease: 0.5, requireSignificance: true))
        #expect(yaml.corpora["c"]?.wer == Limit(maxIncrease: 3))
        #expect(yaml.boostedWER == GateThresholds.default.boostedWER)
        let json = try GateThresholds.load(
            from: try file("t.json", "{\"antiContextWER\": {\"maxIncreasePercent\": 20}}"))
        #expect(json.antiContextWER == Limit(maxIncreasePercent: 20))
        let suite = try GateThresholds.load(
            from: try file("suite.yaml", "name: s\ncorpora: []\ngate:\n  realTimeFactor: {maxIncreasePercent: 5}\n"))
        #expect(suite.realTimeFactor == Limit(maxIncreasePercent: 5))
        let plain = try GateThresholds.load(from: try file("suite.yaml", "name: s\ncorpora:\n  - {name: c}\n"))
        #expect(plain == .default)
    }

    @Test("A value of the wrong type names the file")
    func wrongType() throws {
        let url = try file("t.yaml", "wer: {maxIncrease: lots}\n")
        let error = try #require(throws: GateThresholdsError.self) { try GateThresholds.load(from: url) }
        #expect(error.description.hasPrefix(url.path), "\(error)")
    }

    @Test("Limits for a corpus the results do not have are bad input naming it, its line and the nearest corpus")
    func unknownCorpus() throws {
        let url = try file(
            "t.yaml", "wer: {maxIncrease: 1}\ncorpora:\n  chesss: {wer: {maxIncrease: 0}}\n  general: {}\n")
        let thresholds = try GateThresholds.load(from: url)
        // A limit of 0 on a corpus that got worse would fail the gate, if it applied.
        let outcome = Gate.evaluate(
            current: Fixture.results(worse: true), baseline: Fixture.results(), thresholds: thresholds)
        #expect(outcome.status == .badInput && outcome.exitCode == 2)
        let note = try #require(outcome.notes.first)
        #expect(
            note.hasPrefix("\(url.path):3: error: the limits for corpus `chesss` name a corpus not in the results"),
            "\(note)")
        #expect(note.contains("Did you mean `chess`?"), "\(note)")
        #expect(note.contains("Its corpora: `chess`, `contacts`, `general`."), "\(note)")
        #expect(outcome.notes.count == 1)
        // Named right, the same limits are judged.
        let fixed = try GateThresholds.load(from: try file("t.yaml", "corpora:\n  chess: {wer: {maxIncrease: 0}}\n"))
        #expect(
            Gate.evaluate(current: Fixture.results(worse: true), baseline: Fixture.results(), thresholds: fixed).status
                == .regression)
        // Where it was read does not change what the thresholds are.
        #expect(
            try GateThresholds.load(from: try file("t.yaml", "wer: {maxIncrease: 1}\n"))
                == GateThresholds(wer: Limit(maxIncrease: 1)))
    }
}
