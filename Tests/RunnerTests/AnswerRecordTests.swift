import Foundation
import Results
import Testing

@testable import Recognition
@testable import Runner

/// A decode's answer (Recognition's types) and the record the results keep (Results' types) are apart so that
/// decoding does not depend on recording, and correspond one to one: the same cases, the same JSON, so a journal
/// line a worker wrote reads the same as a record.
@Suite("A decode's answer and its record")
struct AnswerRecordTests {
    @Test("Each answer type has its record's JSON, case for case and field for field")
    func sameShape() throws {
        #expect(DecodeFailureKind.allCases.map(\.rawValue) == FailureKind.allCases.map(\.rawValue))
        for kind in DecodeFailureKind.allCases { #expect(FailureKind(kind).rawValue == kind.rawValue) }
        #expect(CustomizationUse.allCases.map(\.rawValue) == Results.CustomizationStatus.allCases.map(\.rawValue))
        for use in CustomizationUse.allCases { #expect(Results.CustomizationStatus(use).rawValue == use.rawValue) }

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let word = DecodedWord(word: "winawer", start: 1.25, duration: 0.5, confidence: 0.75)
        #expect(try encoder.encode(word) == encoder.encode(WordTiming(word)))
        #expect(try JSONDecoder().decode(WordTiming.self, from: encoder.encode(word)) == WordTiming(word))
        let latency = DecodeLatency(
            firstPartialSeconds: 0.2, finalLatencySeconds: 0.1, firstCorrectEmission: ["winawer": 1.5])
        #expect(try encoder.encode(latency) == encoder.encode(StreamingLatency(latency)))
    }
}
