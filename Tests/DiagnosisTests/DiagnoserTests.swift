import Diagnosis
import Foundation
import GambitTestSupport
import Reporting
import Results
import ResultsFixtures
import Runner
import Testing

/// `gambit diagnose` as a library: what it refuses before any work, and how a diagnosis joins a run's results.
@Suite("The diagnoser")
struct DiagnoserTests {
    static func refusal(_ folder: URL, variants: [String] = []) -> DiagnosisError? {
        var request = DiagnosisRequest(runFolder: folder)
        request.variants = variants
        do {
            _ = try Diagnoser.diagnose(request, progress: .silent) { _ in
                Issue.record("reports written for a refused diagnosis")
            }
        } catch let error as DiagnosisError {
            return error
        } catch {
            Issue.record("not a DiagnosisError: \(error)")
        }
        return nil
    }

    @Test("A folder that holds no run is refused with what it is and what to give instead")
    func notARun() throws {
        let folder = try TestSupport.temporaryDirectory("diagnoser")
        let file = folder.appendingPathComponent("results.json")
        try Data("{}".utf8).write(to: file)
        let cases: [(URL, String)] = [
            (folder.appendingPathComponent("missing"), "no such folder"),
            (file, "a file, not a folder"),
            (folder, "no .gambit/results.json in it"),
        ]
        for (url, what) in cases {
            let error = try #require(Self.refusal(url))
            #expect(error == .notARun(path: url.path, what: what))
            #expect(error.description.hasPrefix("\(url.path): \(what); gambit diagnose takes the output folder"))
        }
    }

    @Test("A variant the run does not have is refused, naming the run's variants")
    func unknownVariant() {
        let error = DiagnosisError.unknownVariants(["chess-ful"], known: ["chess", "contacts"])
        #expect(error.description == "--variant chess-ful: not in the run (it has chess, contacts)")
    }

    @Test("A diagnosis joins the run's results beside what an earlier --variant diagnosed, in the run's order")
    func joins() throws {
        let results = Fixture.results()
        let names = results.variants.map(\.name)
        try #require(names.count == 2)
        func diagnosis(_ name: String, seconds: Double) -> VariantDiagnosis {
            VariantDiagnosis(
                variant: name, weight: 0.5, utterances: [], terms: [], decodeSeconds: seconds, diagnoseSeconds: 0)
        }
        var earlier = results
        earlier.diagnosis = DiagnosisReport(
            suite: results.run.suite.name, variants: [diagnosis(names[0], seconds: 1), diagnosis(names[1], seconds: 1)])
        // Diagnosing the second variant again replaces its diagnosis and keeps the first's.
        let joined = Diagnoser.joined(
            DiagnosisReport(suite: results.run.suite.name, variants: [diagnosis(names[1], seconds: 2)]), to: earlier)
        #expect(joined.diagnosis?.variants.map(\.variant) == names)
        #expect(joined.diagnosis?.variants.map(\.decodeSeconds) == [1, 2])
        // A variant the run no longer has is dropped.
        let stray = Diagnoser.joined(
            DiagnosisReport(suite: "s", variants: [diagnosis("gone", seconds: 3), diagnosis(names[0], seconds: 4)]),
            to: results)
        #expect(stray.diagnosis?.variants.map(\.variant) == [names[0]])
    }
}
