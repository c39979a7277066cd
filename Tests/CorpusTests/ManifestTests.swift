import Corpus
import Foundation
import GambitTestSupport
import Testing

/// Writes `text` to `name` in a new temporary folder and returns the file.
func fixture(_ name: String, _ text: String, in folder: URL? = nil) throws -> URL {
    let folder = try folder ?? TestSupport.temporaryDirectory("corpus")
    let url = folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
    return url
}

@Suite("Manifests")
struct ManifestTests {
    @Test func jsonLinesWithOptionalKeysAndRelativeAudio() throws {
        let url = try fixture(
            "corpus/manifest.jsonl",
            """
            {"id": "a", "audio": "audio/a.wav", "text": "play the winawer", "speaker": "slt", "split": "dev", \
            "condition": "noise:15", "duration": 1.5}

            {"id": "b", "audio": "/srv/b.flac", "text": "", "extra": [1, 2]}\r

            """)
        let entries = try CorpusManifest.load(url)
        let folder = url.deletingLastPathComponent()
        #expect(
            entries == [
                CorpusEntry(
                    id: "a", audio: folder.appendingPathComponent("audio/a.wav").standardizedFileURL,
                    text: "play the winawer", speaker: "slt", split: "dev", condition: "noise:15", duration: 1.5),
                CorpusEntry(id: "b", audio: URL(fileURLWithPath: "/srv/b.flac"), text: ""),
            ])
    }

    @Test func shippedGeneralManifestPointsAtRealRecordings() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Corpora/general/manifest.jsonl")
        try #require(FileManager.default.fileExists(atPath: url.path), "run from the Gambit package")
        let entries = try CorpusManifest.load(url)
        #expect(entries.count == 10)
        #expect(entries.allSatisfy { FileManager.default.fileExists(atPath: $0.audio.path) })
        #expect(
            entries.first?.text == "and mister john dashwood had then leisure to consider how much there "
                + "might be prudently in his power to do for them")
        #expect(Set(entries.compactMap(\.split)) == ["dev", "test"])
    }

    @Test func nemoLinesTakeTheirIdFromTheFileName() throws {
        let url = try fixture(
            "nemo.json",
            """
            {"audio_filepath": "wavs/utt_01.wav", "text": "call siobhan", "duration": 1.25}
            {"audio_filepath": "/data/utt_02.flac", "text": "text nguyen", "duration": 2}
            """)
        let entries = try CorpusManifest.load(url)
        #expect(entries.map(\.id) == ["utt_01", "utt_02"])
        #expect(entries[0].audio.path == url.deletingLastPathComponent().appendingPathComponent("wavs/utt_01.wav").path)
        #expect(entries.map(\.duration) == [1.25, 2])
        #expect(try CorpusManifest.load(url, format: .nemo) == entries)
    }

    @Test func nemoIdsFromTheSameFileNameCollide() throws {
        let url = try fixture(
            "nemo.json",
            """
            {"audio_filepath": "a/x.wav", "text": "one", "duration": 1}
            {"audio_filepath": "b/x.wav", "text": "two", "duration": 1}
            """)
        #expect(throws: CorpusError.duplicateID(path: url.path, line: 2, id: "x", firstLine: 1)) {
            try CorpusManifest.load(url)
        }
    }

    @Test func trnWithAnAudioFolderPrefersWavThenFlac() throws {
        let folder = try TestSupport.temporaryDirectory("trn")
        let audio = folder.appendingPathComponent("audio")
        _ = try fixture("b.flac", "not really flac", in: audio)
        let url = try fixture(
            "ref.trn",
            """
            play   the winawer variation (a)
            knight to queen bishop three (b)
            (c)
            """, in: folder)
        let entries = try CorpusManifest.load(url, audioFolder: audio)
        #expect(entries.map(\.id) == ["a", "b", "c"])
        #expect(entries.map(\.text) == ["play the winawer variation", "knight to queen bishop three", ""])
        #expect(entries.map(\.audio.lastPathComponent) == ["a.wav", "b.flac", "c.wav"])
        #expect(entries[0].audio.deletingLastPathComponent().path == audio.path)
    }

    @Test func trnDefaultsToTheManifestFolderAndIsDetectedByContent() throws {
        let url = try fixture("ref.txt", "hello world (u1)\n")
        let entries = try CorpusManifest.load(url)
        #expect(
            entries == [
                CorpusEntry(
                    id: "u1", audio: url.deletingLastPathComponent().appendingPathComponent("u1.wav"),
                    text: "hello world")
            ])
    }

    @Test func malformedJSONNamesFileAndLine() throws {
        let url = try fixture(
            "m.jsonl",
            """
            {"id": "a", "audio": "a.wav", "text": "one"}

            {"id": "b", "audio": "b.wav", "text": "two"
            """)
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(url) }
        guard case .malformedLine(let path, let line, let detail) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(path == url.path)
        #expect(line == 3)
        #expect(detail.hasPrefix("malformed JSON"))
        #expect(error.description.hasPrefix("\(url.path):3: malformed JSON"))
    }

    @Test(arguments: [
        ("{\"audio\": \"a.wav\", \"text\": \"x\"}", CorpusError.missingKey(path: "", line: 2, key: "id")),
        ("{\"id\": \"b\", \"text\": \"x\"}", .missingKey(path: "", line: 2, key: "audio")),
        ("{\"id\": \"b\", \"audio\": \"b.wav\"}", .missingKey(path: "", line: 2, key: "text")),
        (
            "{\"id\": \"b\", \"audio\": \"b.wav\", \"text\": null}",
            .wrongType(path: "", line: 2, key: "text", expected: "a string")
        ),
        (
            "{\"id\": 7, \"audio\": \"b.wav\", \"text\": \"x\"}",
            .wrongType(path: "", line: 2, key: "id", expected: "a string")
        ),
        ("{\"id\": \"\", \"audio\": \"b.wav\", \"text\": \"x\"}", .emptyValue(path: "", line: 2, key: "id")),
        (
            "{\"id\": \"b\", \"audio\": \"b.wav\", \"text\": \"x\", \"duration\": \"long\"}",
            .wrongType(path: "", line: 2, key: "duration", expected: "a number of seconds")
        ),
        (
            "{\"id\": \"b\", \"audio\": \"b.wav\", \"text\": \"x\", \"duration\": true}",
            .wrongType(path: "", line: 2, key: "duration", expected: "a number of seconds")
        ),
        (
            "[\"b\", \"b.wav\", \"x\"]",
            .malformedLine(path: "", line: 2, detail: "expected a JSON object: [\"b\", \"b.wav\", \"x\"]")
        ),
        (
            "{\"id\": \"a\", \"audio\": \"b.wav\", \"text\": \"x\"}",
            .duplicateID(path: "", line: 2, id: "a", firstLine: 1)
        ),
    ])
    func badSecondLine(line: String, expected: CorpusError) throws {
        let url = try fixture("bad.jsonl", "{\"id\": \"a\", \"audio\": \"a.wav\", \"text\": \"one\"}\n" + line + "\n")
        #expect(throws: Self.at(expected, url.path)) { try CorpusManifest.load(url, format: .jsonl) }
    }

    @Test func trnLineWithoutIdIsAnError() throws {
        let url = try fixture("ref.trn", "one two (a)\nthree four\n")
        #expect(
            throws: CorpusError.malformedLine(
                path: url.path, line: 2, detail: "expected \"text (id)\", the sclite trn format")
        ) {
            try CorpusManifest.load(url)
        }
    }

    @Test func missingManifestAndUnknownFormat() throws {
        let folder = try TestSupport.temporaryDirectory("missing")
        let missing = folder.appendingPathComponent("none.jsonl")
        #expect(throws: CorpusError.unreadable(path: missing.path, detail: "no such file")) {
            try CorpusManifest.load(missing)
        }
        let prose = try fixture("notes.txt", "just some words\n")
        let error = try #require(throws: CorpusError.self) { try CorpusManifest.load(prose) }
        #expect(error.description.contains("pass --format jsonl, nemo or trn"))
    }

    @Test func writerUsesStableKeysAndRelativePathsAndRoundTrips() throws {
        let folder = try TestSupport.temporaryDirectory("write")
        let entries = [
            CorpusEntry(
                id: "x-1", audio: folder.appendingPathComponent("audio/x-1.wav"), text: "say \"hi\"\tnow",
                speaker: "flite:slt", split: "test", condition: "clean", duration: 1.23456),
            CorpusEntry(id: "x-2", audio: URL(fileURLWithPath: "/usr/share/sounds/x.wav"), text: "naïve café"),
        ]
        let url = folder.appendingPathComponent("manifest.jsonl")
        try CorpusManifest.write(entries, to: url)
        let written = try String(contentsOf: url, encoding: .utf8)
        #expect(
            written == """
                {"id": "x-1", "audio": "audio/x-1.wav", "text": "say \\"hi\\"\\tnow", "speaker": "flite:slt", \
                "split": "test", "condition": "clean", "duration": 1.235}
                {"id": "x-2", "audio": "/usr/share/sounds/x.wav", "text": "naïve café"}

                """)
        var expected = entries
        expected[0].duration = 1.235
        #expect(try CorpusManifest.load(url) == expected)
    }

    /// The expected error with the fixture's real path filled in.
    static func at(_ error: CorpusError, _ path: String) -> CorpusError {
        switch error {
        case .missingKey(_, let line, let key): .missingKey(path: path, line: line, key: key)
        case .wrongType(_, let line, let key, let expected):
            .wrongType(path: path, line: line, key: key, expected: expected)
        case .emptyValue(_, let line, let key): .emptyValue(path: path, line: line, key: key)
        case .malformedLine(_, let line, let detail): .malformedLine(path: path, line: line, detail: detail)
        case .duplicateID(_, let line, let id, let first):
            .duplicateID(path: path, line: line, id: id, firstLine: first)
        default: error
        }
    }
}
