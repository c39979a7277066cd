import Foundation
import Testing

@testable import Scoring

/// The `whisper` normalization mode against the reference: openai-whisper 20250625's `EnglishTextNormalizer`,
/// installed by scripts/whisper-normalizer-venv.sh (scripts/install-deps.sh runs it).
@Suite struct WhisperNormalizerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let python = root.appendingPathComponent(".venv/whisper-normalizer/bin/python").path
    static let script = root.appendingPathComponent("scripts/whisper-normalize.py").path

    /// The reference's output for each string, in order.
    static func reference(_ strings: [String]) throws -> [String] {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ReferenceMissing(path: python)
        }
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("strings.jsonl")
        let encoder = JSONEncoder()
        var lines = Data()
        for string in strings {
            lines.append(try encoder.encode(string))
            lines.append(0x0A)
        }
        try lines.write(to: input)
        let output = try run(python, [script], stdin: input)
        let answers = try output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            try JSONDecoder().decode(String.self, from: Data($0.utf8))
        }
        guard answers.count == strings.count else {
            throw ReferenceMissing(path: "\(script) answered \(answers.count) of \(strings.count) strings")
        }
        return answers
    }

    struct ReferenceMissing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "Whisper's reference normalizer is not installed (\(path)): run scripts/whisper-normalizer-venv.sh"
        }
    }

    /// Every string whose output differs from the reference's, with both outputs.
    static func differences(_ strings: [String]) throws -> [String] {
        let expected = try reference(strings)
        let normalizer = WhisperNormalizer()
        return zip(strings, expected).compactMap { string, expected in
            let mine = normalizer(string)
            return mine == expected ? nil : "\(debug(string)): whisper \(debug(expected)), gambit \(debug(mine))"
        }
    }

    static func debug(_ s: String) -> String {
        "\""
            + s.unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 ? String($0) : "\\u{\(String($0.value, radix: 16))}"
            }
            .joined() + "\""
    }

    /// Fails, naming the first 40 strings whose output differs from the reference's.
    static func expectAgreement(_ strings: [String]) throws {
        let differences = try Self.differences(strings)
        #expect(
            differences.isEmpty,
            "\(differences.count) of \(strings.count) differ:\n\(differences.prefix(40).joined(separator: "\n"))")
    }

    @Test func agreesWithTheReferenceOnSeededSentences() throws {
        try Self.expectAgreement(WhisperStrings.sentences(count: 6000, seed: 20_250_625))
    }

    @Test func agreesWithTheReferenceOnCharacterSoup() throws {
        try Self.expectAgreement(WhisperStrings.characterSoup(count: 4000, seed: 76))
    }

    @Test func agreesWithTheReferenceOnRandomCodePoints() throws {
        try Self.expectAgreement(WhisperStrings.randomScalars(count: 3000, seed: 14))
    }

    /// Each fragment alone, so that a fault is named by the smallest string that shows it.
    @Test func agreesWithTheReferenceOnEveryFragment() throws {
        let fragments =
            WhisperStrings.titles + WhisperStrings.contractions + WhisperStrings.spellingSamples
            + WhisperStrings.fillers + WhisperStrings.noise + WhisperStrings.punctuation + WhisperStrings.hyphenated
            + WhisperStrings.symbols + WhisperStrings.accented + WhisperStrings.plainWords
        let differences = try Self.differences(fragments)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    /// The reference's faults, which the mode keeps so that its WER is the leaderboards' (docs/normalization.md).
    @Test func keepsTheReferenceFaults() {
        let normalize = WhisperNormalizer()
        #expect(normalize("O'Brien's queen's gambit") == "0 brien is queen is gambit")
        #expect(normalize("Dr. Smith took 10mg at 3:30pm") == "doctor smith took 10 mg at 3 30 pm")
        #expect(normalize("It's $12.50, E5, the colour") == "it is $12.50 e 5 the color")
        #expect(normalize("the colour of 2 cents") == "the color of ¢2")
        #expect(normalize("1,2,3") == "12 3")
        #expect(normalize("1.5 and $1") == "one.5 and one")
        #expect(normalize("hello.") == "hello")
        #expect(normalize("50% of a%") == "50% of a ")
    }

    @Test func spellingTableIsTheReferenceFile() throws {
        let installed = try FileManager.default.contentsOfDirectory(
            at: Self.root.appendingPathComponent(".venv/whisper-normalizer/lib"), includingPropertiesForKeys: nil)
        let file = try #require(installed.first).appendingPathComponent(
            "site-packages/whisper_normalizers/english.json")
        #expect(try Data(contentsOf: file) == Data(WhisperNormalizer.spellingTableJSON.utf8))
        #expect(WhisperNormalizer.spellings.count == 1739)
    }
}
