import Foundation
import Testing
import TrainingData

/// The contacts corpus's training data is what an app gathers at run time from a call history with
/// `insert(phrase:count:)`; the shipped YAML is that data written down. Expected counts are written
/// out by hand from `call_history.tsv` (call = calls, text = calls / 2, facetime = calls / 4, rounded
/// half to even, at least 1), not computed by the test.
@Suite("Training data built at run time from a call history")
struct CallHistoryTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpora/contacts")

    /// Hand-computed from the call history's first two rows, "mom 90" and "siobhan o'shaughnessy 62".
    static let expected: [String: Int] = [
        "call mom": 90, "text mom": 45, "facetime mom": 22,
        "call siobhan o'shaughnessy": 62, "text siobhan o'shaughnessy": 31, "facetime siobhan o'shaughnessy": 16,
        "call siobhan": 62, "text siobhan": 31, "facetime siobhan": 16,
    ]

    @Test("Phrases inserted at run time survive export and import with their counts and privacy")
    func runTimeInsertionRoundTrips() throws {
        var data = CustomLanguageModelData(
            locale: Locale(identifier: "en_US"), identifier: "com.example.contacts", version: "1.0", isPrivate: true)
        for (phrase, count) in Self.expected.sorted(by: { $0.key < $1.key }) {
            data.insert(phrase: phrase, count: count)
        }
        #expect(data.totalSamples == 375)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gambit-call-history-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("contacts.json")
        try data.export(to: file)
        let read = try CustomLanguageModelData(contentsOf: file)
        #expect(read.isPrivate)
        #expect(read.localeIdentifier == "en-US")
        #expect(Dictionary(uniqueKeysWithValues: read.phraseCounts.map { ($0.phrase, $0.count) }) == Self.expected)
        #expect(read == data)
    }

    @Test("The shipped training data holds the call history's counts and is marked private")
    func shippedDataMatchesHistory() throws {
        let shipped = try CustomLanguageModelData(yamlFile: Self.corpus.appendingPathComponent("training/full.yaml"))
        #expect(shipped.isPrivate)
        let counts = Dictionary(shipped.phraseCounts.map { ($0.phrase, $0.count) }, uniquingKeysWith: +)
        for (phrase, count) in Self.expected { #expect(counts[phrase] == count, "\(phrase)") }
        // "xochitl 48": a one-word name gets no first-name phrases, so exactly three.
        #expect(
            counts.keys.filter { $0.hasSuffix(" xochitl") }.sorted() == [
                "call xochitl", "facetime xochitl", "text xochitl",
            ])
        #expect(counts["facetime xochitl"] == 12)
    }
}
