import Foundation
import Results
import ResultsFixtures
import Testing

@Suite("Where a run's time went")
struct TimingsTests {
    static let timings = RunTimings(
        stages: [
            .init(name: "prepare", wallSeconds: 2, cpuSeconds: 1.5),
            .init(name: "decoding", wallSeconds: 60, cpuSeconds: 110),
        ],
        workers: [
            .init(name: "model loads", seconds: 4, count: 6),
            .init(name: "decoding: customized", seconds: 96, count: 40),
            .init(name: RunTimings.externalPrefix + "siobhan-asr", seconds: 30, count: 10),
        ],
        workerCount: 2, decoded: 50, journaled: 0)

    @Test("The decode floor is the workers' PocketSphinx time over the workers; an external recognizer is not in it")
    func floor() {
        #expect(Self.timings.decodeFloorSeconds == 50)
        #expect(Self.timings.wallSeconds == 62)
    }

    @Test("A recognizer named after a private term is masked in the workers' time too")
    func redacted() throws {
        var results = Fixture.results()
        results.run.externalRecognizers = [
            ExternalRecognizerInfo(
                name: "siobhan-asr", command: ["asr"], onDevice: true, decodings: 10, networkDenied: 10)
        ]
        results.timings = Self.timings
        let json = String(decoding: try results.redactingPrivateTerms().jsonData(), as: UTF8.self)
        #expect(!json.contains("siobhan"))
        #expect(json.contains(RunTimings.externalPrefix))
    }

    @Test("Results without timings (older, or merged) still read")
    func older() throws {
        var results = Fixture.results()
        results.timings = nil
        let json = String(decoding: try results.jsonData(), as: UTF8.self)
        #expect(!json.contains("\"timings\""))
        #expect(try RunResults.decode(Data(json.utf8)).timings == nil)
        results.timings = Self.timings
        #expect(try RunResults.decode(results.jsonData()).timings == Self.timings)
    }
}
