import Formats
import Foundation
import GambitTestSupport
import Testing

/// One reader per format: every file Gambit reads in a shared format goes through that format's one reader, so
/// that a file reads by the same rules wherever it is read. Each format is known by the idioms reading it takes
/// (a section marker of ARPA, the id after a trn line's last parenthesis, …); each idiom must be found in its
/// reader's file and nowhere else in Sources, Benchmarks or Fuzz.
@Suite("One reader per format")
struct FormatReaderTests {
    /// A format, its one reader, and the idioms (regular expressions over code, comments dropped) that reading
    /// it takes, each with the files allowed to hold it.
    struct Format {
        var name: String
        var reader: String
        var idioms: [(pattern: String, files: Set<String>)]
    }

    static let formats: [Format] = [
        Format(
            name: "ARPA", reader: "Sources/NGram/ARPAReader.swift",
            idioms: [
                (#"hasSuffix\("-grams:"\)"#, ["Sources/NGram/ARPAReader.swift"]),
                (#"hasPrefix\("ngram "\)"#, ["Sources/NGram/ARPAReader.swift"]),
                (#"== "\\\\data\\\\""#, ["Sources/NGram/ARPAReader.swift"]),
            ]),
        Format(
            name: "trn", reader: "Sources/Formats/TRNLine.swift",
            idioms: [
                // The id after the line's last "(". The CMU dictionary's reader finds an alternate pronunciation's
                // marker, `word(2)`, the same way.
                (
                    #"lastIndex\(of: "\("\)|!= UInt8\(ascii: "\("\)"#,
                    ["Sources/Formats/TRNLine.swift", "Sources/Formats/PronunciationDictionary.swift"]
                )
            ]),
        Format(
            name: "stm", reader: "Sources/Formats/RecordScanner.swift",
            idioms: [(#"ignore_time_segment_in_scoring"#, ["Sources/Formats/RecordScanner.swift"])]),
        Format(
            name: "ctm", reader: "Sources/Formats/RecordScanner.swift",
            idioms: [(#"func ctmWords\("#, ["Sources/Formats/RecordScanner.swift"])]),
        Format(
            name: "Kaldi text", reader: "Sources/Formats/RecordScanner.swift",
            idioms: [(#"func scanKaldi\("#, ["Sources/Formats/RecordScanner.swift"])]),
        Format(
            name: "JSON lines", reader: "Sources/Formats/RecordScanner.swift",
            idioms: [
                (#"FlatJSONParser\("#, ["Sources/Formats/RecordScanner.swift"]),
                // Foundation's JSON readers only for whole JSON documents: the model cache's records, an external
                // recognizer's one answer, and the training-data export's parse error (Linux's JSONDecoder drops the
                // parser's words, so the export asks the parser where the document breaks).
                (
                    #"JSONSerialization\.jsonObject"#,
                    [
                        "Sources/Runner/ModelCache.swift", "Sources/Recognition/Transcriber/ExternalRecognizer.swift",
                        "Sources/TrainingData/Export.swift",
                    ]
                ),
            ]),
        Format(
            name: "CMU dictionary", reader: "Sources/Formats/PronunciationDictionary.swift",
            idioms: [(#"== " " \|\| \$0 == "\\t""#, ["Sources/Formats/PronunciationDictionary.swift"])]),
        Format(
            name: "YAML strict keys", reader: "Sources/StrictYAML/KeySchema.swift",
            idioms: [
                // The message of a key a schema does not allow is made in one place (training data wraps it).
                (
                    #"UnknownKeyError\("#,
                    ["Sources/StrictYAML/KeySchema.swift", "Sources/TrainingData/TrainingDataError.swift"]
                ),
                // A key looked up in what a mapping allows. (Corpus manifests check JSON keys, a format of its own.)
                (#"allowed\[key\]|allowed\.contains\(key\)"#, ["Sources/StrictYAML/KeySchema.swift"]),
            ]),
    ]

    /// Every Swift file under Sources, Benchmarks and Fuzz, by path, with its code lines (comment lines dropped).
    static func sources() throws -> [(path: String, lines: [String])] {
        let root = TestSupport.packageRoot
        var files: [(String, [String])] = []
        for folder in TestSupport.codeFolders {
            let walker = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            for case let url as URL in walker ?? FileManager.DirectoryEnumerator() where url.pathExtension == "swift" {
                let lines = try String(contentsOf: url, encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).map { line in line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : String(line) }
                files.append((String(url.path.dropFirst(root.path.count + 1)), lines))
            }
        }
        return files
    }

    @Test("Each format's idioms are found in its one reader and nowhere else", arguments: formats.map(\.name))
    func oneReader(_ name: String) throws {
        let format = try #require(Self.formats.first { $0.name == name })
        let files = try Self.sources()
        #expect(files.count > 100, "the sources were not found under \(TestSupport.packageRoot.path)")
        var readers: Set<String> = []
        for (pattern, allowed) in format.idioms {
            let expression = try Regex(pattern)
            let found = Set(files.filter { $0.lines.contains { $0.contains(expression) } }.map(\.path))
            #expect(found == allowed, "\(name): \(pattern) is in \(found.sorted()), not only \(allowed.sorted())")
            readers.formUnion(found.intersection([format.reader]))
        }
        // The reader itself holds what it takes: the idioms are not stale.
        #expect(readers == [format.reader], "\(name): the reader \(format.reader) holds none of its idioms")
    }
}
