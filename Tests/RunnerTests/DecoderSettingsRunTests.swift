import Foundation
import Reporting
import Results
import Runner
import RunnerTestSupport
import Testing

/// A suite's `decoder:` block reaches the worker processes: other hypotheses than the defaults', recorded in
/// the results and shown in the HTML report's header.
@Suite("Decoder settings through the runner", .serialized)
struct DecoderSettingsRunTests {
    @Test func decoderBlockChangesHypothesesAndIsRecorded() throws {
        let standard = try MiniSuite(modes: ["baseline"])
        defer { try? FileManager.default.removeItem(at: standard.folder) }
        let narrow = try MiniSuite(modes: ["baseline"], extra: "decoder: {beam: 1e-20, secondPass: false}")
        defer { try? FileManager.default.removeItem(at: narrow.folder) }
        let a = try standard.run()
        let b = try narrow.run()
        #expect(a.run.engine.decoderArguments == ["-remove_silence", "no"])
        #expect(b.run.engine.decoderArguments == ["-beam", "1e-20", "-fwdflat", "no", "-remove_silence", "no"])
        let before = Dictionary(uniqueKeysWithValues: a.systems.flatMap(\.utterances).map { ($0.id, $0.hypothesis) })
        let changed = b.systems.flatMap(\.utterances).filter { before[$0.id] != $0.hypothesis }
        #expect(!changed.isEmpty, "a beam of 1e-20 without the second pass changed no hypothesis")
        #expect(b.systems.allSatisfy { $0.failures.failed == 0 })
        let html = HTMLReport(b).render()
        #expect(html.contains("<p class=\"meta\">decoder: <code>-beam 1e-20 -fwdflat no -remove_silence no</code></p>"))
    }
}
