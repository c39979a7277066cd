import Foundation
import Testing
import TrainingData

/// The contacts corpus's training data is gathered at run time from a call history, as an app would
/// do with `insert(phrase:count:)`; the shipped YAML is that data written down.
@Suite("Training data built at run time from a call history")
struct CallHistoryTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpora/contacts")

    @Test("Phrase counts follow the call counts (call = calls, text = calls / 2, facetime = calls / 4)")
    func builtFromCallHistory() throws {
        let history = try String(contentsOf: Self.corpus.appendingPathComponent("call_history.tsv"), encoding: .utf8)
        var data = CustomLanguageModelData(
            locale: Locale(identifier: "en_US"), identifier: "com.example.contacts", version: "1.0", isPrivate: true)
        for line in history.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let calls = Int(fields[1]) else { continue }
            let name = String(fields[0])
            var names = [name]
            if let first = name.split(separator: " ").first, first != Substring(name) { names.append(String(first)) }
            for person in names {
                data.insert(phrase: "call \(person)", count: calls)
                data.insert(phrase: "text \(person)", count: max(1, Int((Double(calls) / 2).rounded(.toNearestOrEven))))
                data.insert(
                    phrase: "facetime \(person)", count: max(1, Int((Double(calls) / 4).rounded(.toNearestOrEven))))
            }
        }
        let shipped = try CustomLanguageModelData(yamlFile: Self.corpus.appendingPathComponent("training/full.yaml"))
        #expect(shipped.isPrivate && data.isPrivate)
        let built = Dictionary(data.phraseCounts.map { ($0.phrase, $0.count) }, uniquingKeysWith: +)
        let expected = Dictionary(
            shipped.phraseCounts.filter { built[$0.phrase] != nil }.map { ($0.phrase, $0.count) }, uniquingKeysWith: +)
        #expect(!expected.isEmpty)
        for (phrase, count) in expected { #expect(built[phrase] == count, "\(phrase)") }
        #expect(Double(expected.count) >= 0.9 * Double(built.count), "most run-time phrases are in the shipped data")
    }
}
