import Corpus
import Formats
import Foundation
import GambitTestSupport
import Testing

/// Ids are written into sclite `trn` (`text (id)`) and `ctm` (`id channel start duration word`) files; an id those
/// files cannot hold must be refused where the corpus is read, with the file, the line and the character.
@Suite("Utterance ids that sclite files cannot hold")
struct UtteranceIDTests {
    @Test(
        "A JSON-lines id with whitespace, a parenthesis or a control character is refused with its line",
        arguments: [
            ("utt 7", "a space (U+0020) at character 4"),
            ("utt(7)", "a parenthesis \"(\" (U+0028) at character 4"),
            ("utt7)", "a parenthesis \")\" (U+0029) at character 5"),
            ("utt\t7", "a tab (U+0009) at character 4"),
            ("utt\u{7}7", "a control character (U+0007) at character 4"),
            ("utt\u{A0}7", "a whitespace character (U+00A0) at character 4"),
            (" utt7", "a space (U+0020) at character 1"),
        ])
    func jsonLinesID(id: String, problem: String) throws {
        let line = "{\"id\": \(Self.json(id)), \"audio\": \"b.wav\", \"text\": \"two\"}"
        let url = try fixture("ids.jsonl", "{\"id\": \"a\", \"audio\": \"a.wav\", \"text\": \"one\"}\n\(line)\n")
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url) }
        #expect(error == .unwritableID(path: url.path, line: 2, id: id, problem: "holds " + problem, source: nil))
        #expect(error.description.hasPrefix("\(url.path):2: id "))
        #expect(error.description.contains("Rename it with letters, digits"))
    }

    @Test("An id starting with ;; (a ctm comment) is refused")
    func commentID() throws {
        let url = try fixture("ids.jsonl", "{\"id\": \";;a\", \"audio\": \"a.wav\", \"text\": \"one\"}\n")
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url) }
        #expect(error.description.contains("starts with \";;\""))
    }

    @Test("A NeMo id taken from a file name with a space names the file and says to rename it")
    func nemoID() throws {
        let url = try fixture(
            "nemo.json",
            """
            {"audio_filepath": "wavs/ok_1.wav", "text": "one", "duration": 1}
            {"audio_filepath": "wavs/my take (2).wav", "text": "two", "duration": 1}
            """)
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url, format: .nemo) }
        #expect(
            error
                == .unwritableID(
                    path: url.path, line: 2, id: "my take (2)", problem: "holds a space (U+0020) at character 3",
                    source: "wavs/my take (2).wav"))
        #expect(error.description.contains("Rename the audio file"))
    }

    @Test("A trn manifest id with a space or a parenthesis is refused, not read as a shorter id")
    func trnID() throws {
        let spaced = try fixture("ref.trn", "one (a)\ntwo words (b c)\n")
        #expect(throws: CorpusError.self) { try CorpusManifest.load(spaced) }
        let nested = try fixture("ref.trn", "one (a)\ntwo words (utt(1))\n")
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(nested) }
        #expect(
            error
                == .unwritableID(
                    path: nested.path, line: 2, id: "utt(1)", problem: "holds a parenthesis \"(\"", source: nil))
        // Parentheses that close inside the text are text, not part of the id.
        let balanced = try fixture("ref.trn", "um (%hesitation) yes (a)\n")
        #expect(try CorpusManifest.load(balanced).map(\.id) == ["a"])
    }

    @Test("Ids every format holds are accepted: letters of any script, digits and punctuation other than ( )")
    func acceptedIDs() throws {
        let ids = ["chess-007-slt-noise15", "utt_01", "café.3", "分-1", "a:b", "x[1]", "y{2}", "a,b;c", "q'1"]
        for id in ids { #expect(CorpusEntry.idProblem(id) == nil, "\(id)") }
        let folder = try TestSupport.temporaryDirectory("ids")
        let entries = ids.map { CorpusEntry(id: $0, audio: folder.appendingPathComponent("\($0).wav"), text: "x") }
        let url = folder.appendingPathComponent("m.jsonl")
        try CorpusManifest.write(entries, to: url)
        #expect(try CorpusManifest.load(url).map(\.id) == ids)
    }

    @Test("Every shipped corpus's ids are accepted: the general manifest's and those synthesis gives the texts")
    func shippedIDs() throws {
        let root = TestSupport.packageRoot.appendingPathComponent("Corpora")
        #expect(try CorpusManifest.load(root.appendingPathComponent("general/manifest.jsonl")).count == 10)
        let texts = [
            "chess", "contacts", "medical", "everyday", "soundalike", "carrier/chess", "carrier/contacts",
            "carrier/medical",
        ]
        var checked = 0
        for name in texts {
            for text in try CorpusText.load(root.appendingPathComponent("\(name)/texts.tsv")) {
                for index in 0..<3 {
                    for rendition in SynthesisPlan.standard.renditions(forText: index) {
                        let id = SynthesisPlan.utteranceID(textID: text.id, rendition: rendition)
                        #expect(CorpusEntry.idProblem(id) == nil, "\(id)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 300)
    }

    static func json(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), as: UTF8.self)
    }
}
