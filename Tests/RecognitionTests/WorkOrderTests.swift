import Foundation
import Testing

@testable import Recognition

/// A worker keeps one model loaded: the work it is given goes model by model, not corpus by corpus.
@Suite struct WorkOrderTests {
    @Test("Requests are grouped by model, models and requests each in the order they came")
    func groupedByModel() {
        let a = LanguageModelConfiguration(
            languageModel: URL(fileURLWithPath: "/a.lm"), vocabulary: URL(fileURLWithPath: "/a.dic"))
        let b = LanguageModelConfiguration(
            languageModel: URL(fileURLWithPath: "/b.lm"), vocabulary: URL(fileURLWithPath: "/b.dic"))
        // Two corpora, each decoded with the base model, then variant a, then variant b.
        let requests = [
            ("c1-base-1", nil), ("c1-base-2", nil), ("c1-a-1", a), ("c1-a-2", a), ("c1-b-1", b),
            ("c2-base-1", nil), ("c2-a-1", a), ("c2-b-1", b), ("c2-b-2", b),
        ].map { WorkRequest(key: $0.0, audio: "/\($0.0).wav", configuration: $0.1) }
        #expect(
            Transcriber.groupedByModel(requests).map(\.key) == [
                "c1-base-1", "c1-base-2", "c2-base-1", "c1-a-1", "c1-a-2", "c2-a-1", "c1-b-1", "c2-b-1", "c2-b-2",
            ])
    }
}
