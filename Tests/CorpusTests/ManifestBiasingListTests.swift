import Corpus
import Foundation
import Testing

/// A manifest entry's `boosted`: the utterance's own biasing list, as the contextual-biasing literature
/// publishes its test sets.
@Suite("Manifest biasing lists")
struct ManifestBiasingListTests {
    static let lines = """
        {"id": "u1", "audio": "a/u1.wav", "text": "play the albin counter gambit", "boosted": ["albin", "gambit", "winawer"]}
        {"id": "u2", "audio": "a/u2.wav", "text": "call maria now", "boosted": ["maria", "albin"]}
        {"id": "u3", "audio": "a/u3.wav", "text": "see you later", "boosted": []}

        """

    @Test func listsAreReadInOrderAndWrittenBack() throws {
        let url = try fixture("corpus/manifest.jsonl", Self.lines)
        let entries = try CorpusManifest.load(url)
        #expect(entries.map(\.boosted) == [["albin", "gambit", "winawer"], ["maria", "albin"], []])
        let written = url.deletingLastPathComponent().appendingPathComponent("written.jsonl")
        try CorpusManifest.write(entries, to: written)
        #expect(try CorpusManifest.load(written) == entries)
        #expect(try String(contentsOf: written, encoding: .utf8).contains(#""boosted": ["maria", "albin"]"#))
    }

    @Test func aListOnSomeLinesOnlyNamesTheLineWithout() throws {
        let url = try fixture(
            "m.jsonl",
            """
            {"id": "u1", "audio": "u1.wav", "text": "a b", "boosted": ["a"]}
            {"id": "u2", "audio": "u2.wav", "text": "c d"}

            """)
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url) }
        #expect(error.description.hasPrefix("\(url.path):2: no \"boosted\" list, while line 1 has one"))
        // The other way round names the first line, which lacks the list.
        let reversed = try fixture(
            "r.jsonl",
            """
            {"id": "u1", "audio": "u1.wav", "text": "a b"}
            {"id": "u2", "audio": "u2.wav", "text": "c d", "boosted": []}

            """)
        let other = try #require(throws: CorpusError.self) { try CorpusManifest.load(reversed) }
        #expect(other.description.hasPrefix("\(reversed.path):1: no \"boosted\" list, while line 2 has one"))
    }

    @Test(arguments: [
        (#""boosted": "albin""#, "key \"boosted\" must be a list of strings"),
        (#""boosted": ["albin", 3]"#, "key \"boosted\" must be a list of strings (entry 2 is not)"),
        (#""boosted": ["albin", " "]"#, "entry 2 of \"boosted\" is empty; a biasing list holds words"),
        (#""bosted": ["albin"]"#, "unknown key \"bosted\"; did you mean \"boosted\"?"),
    ])
    func badListsNameTheLine(field: String, message: String) throws {
        let url = try fixture("m.jsonl", "{\"id\": \"u1\", \"audio\": \"u1.wav\", \"text\": \"a\", \(field)}\n")
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url) }
        #expect(error.description.hasPrefix("\(url.path):1: \(message)"))
    }
}
