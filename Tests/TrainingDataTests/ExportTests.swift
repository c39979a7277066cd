import Foundation
import Testing

@testable import TrainingData

@Suite("Export and YAML")
struct ExportTests {
    @Test("YAML and the Swift builder export identical bytes")
    func yamlMatchesSwift() throws {
        let fromSwift = ChessFixture.swiftData()
        let fromYAML = try CustomLanguageModelData(yaml: ChessFixture.yaml, file: "chess.yaml")
        let swiftBytes = try fromSwift.exportData()
        let yamlBytes = try fromYAML.exportData()
        #expect(swiftBytes == yamlBytes)
        #expect(fromSwift == fromYAML)
    }

    @Test("export → import → export gives identical bytes")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var data = ChessFixture.swiftData()
        data.isPrivate = true
        data.insert(phrase: "call Zoë O’Brien-Smith", count: 3)
        let first = directory.appendingPathComponent("first.json")
        let second = directory.appendingPathComponent("second.json")
        try data.export(to: first)
        let imported = try CustomLanguageModelData(contentsOf: first)
        try imported.export(to: second)
        let firstBytes = try Data(contentsOf: first)
        #expect(firstBytes == (try Data(contentsOf: second)))
        #expect(imported == data)
        #expect(imported.isPrivate)
        let text = try #require(String(data: firstBytes, encoding: .utf8))
        #expect(text.contains("\"formatVersion\" : 1"))
        #expect(text.contains("\"locale\" : \"en-US\""))
    }

    @Test("an export with another format version is refused")
    func otherFormatVersion() throws {
        var json = try #require(String(data: try ChessFixture.swiftData().exportData(), encoding: .utf8))
        json = json.replacingOccurrences(of: "\"formatVersion\" : 1", with: "\"formatVersion\" : 2")
        let error = #expect(throws: TrainingDataError.self) {
            try CustomLanguageModelData(exportData: Data(json.utf8))
        }
        #expect(error?.description.contains("formatVersion 2") == true)
    }

    @Test("an export without formatVersion is refused")
    func missingFormatVersion() throws {
        let error = #expect(throws: TrainingDataError.self) {
            try CustomLanguageModelData(exportData: Data("{\"locale\": \"en-US\"}".utf8))
        }
        #expect(error?.description.contains("formatVersion") == true)
    }

    @Test("YAML optional keys and single-string phonemes")
    func yamlOptionalKeys() throws {
        let data = try CustomLanguageModelData(
            yaml: """
                locale: en-US
                identifier: x
                version: 2
                private: true
                pronunciations:
                  - {grapheme: Tuolumne, phonemes: "t u \\"A l @ m i"}
                """)
        #expect(data.isPrivate)
        #expect(data.version == "2")
        #expect(data.phraseCounts.isEmpty)
        #expect(data.pronunciations.first?.cmuPhones == [["T", "UW", "AA", "L", "AH", "M", "IY"]])
    }
}

@Suite("An export that is not JSON")
struct MalformedExportTests {
    @Test("says where the JSON breaks, in the parser's words, not Foundation's 'could not be read'")
    func parserWords() throws {
        do {
            _ = try CustomLanguageModelData(exportData: Data("{\"formatVersion\": 1,,}".utf8), file: "t.json")
            Issue.record("a broken export was read")
        } catch let error as TrainingDataError {
            #expect(!error.description.contains("couldn’t be read"), "\(error)")
            #expect(!error.description.contains("couldn't be read"), "\(error)")
            #expect(error.description.contains("not a JSON object (Invalid value around character 20.)"), "\(error)")
        }
    }
}
