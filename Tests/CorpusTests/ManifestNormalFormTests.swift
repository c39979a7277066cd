import Corpus
import Foundation
import GambitTestSupport
import Testing

@Suite("Manifest text in Unicode NFC")
struct ManifestNormalFormTests {
    @Test("Reference text written with combining accents is read in NFC, in every manifest format")
    func composed() throws {
        let nfd = "cafe\u{301} cre\u{300}me bru\u{302}le\u{301}e"
        let nfc = "café crème brûlée"
        let manifests = [
            ("m.jsonl", "{\"id\": \"a\", \"audio\": \"a.wav\", \"text\": \"\(nfd)\"}\n"),
            ("m.json", "{\"audio_filepath\": \"a.wav\", \"text\": \"\(nfd)\", \"duration\": 1}\n"),
            ("m.trn", "\(nfd) (a)\n"),
        ]
        for (name, text) in manifests {
            let entries = try CorpusManifest.load(try fixture(name, text))
            #expect(entries.map { Array($0.text.utf8) } == [Array(nfc.utf8)], "\(name)")
        }
    }
}
