import CXMLSchema
import Foundation
import Reporting
import Results
import ResultsFixtures
import Testing

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("Reports")
struct ReportingTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden")

    /// Compares `actual` with a golden file; records it when `GAMBIT_RECORD_GOLDEN=1` or when it is missing.
    func assertGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = Self.goldenDirectory.appendingPathComponent(name)
        let record = ProcessInfo.processInfo.environment["GAMBIT_RECORD_GOLDEN"] == "1"
        if record || !FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url, options: .atomic)
            if !record {
                Issue.record(
                    "Recorded missing golden file \(name); run the tests again.", sourceLocation: sourceLocation)
            }
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        if expected != actual {
            let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let line = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
            Issue.record(
                """
                \(name) differs from its golden file at line \(line + 1):
                  golden: \(line < a.count ? String(a[line].prefix(300)) : "<end>")
                  actual: \(line < b.count ? String(b[line].prefix(300)) : "<end>")
                Re-record with GAMBIT_RECORD_GOLDEN=1 if the change is intended.
                """, sourceLocation: sourceLocation)
        }
    }

    @Test("HTML, JUnit, Markdown and JSON match their golden files")
    func golden() throws {
        let results = Fixture.results().redactingPrivateTerms()
        try assertGolden(HTMLReport(results).render(), "report.html")
        try assertGolden(JUnitReport(results).render(), "junit.xml")
        try assertGolden(MarkdownReport(results).render(), "summary.md")
        try assertGolden(String(decoding: try JSONReport(results).render(), as: UTF8.self), "report.json")
    }

    @Test("no report format shows a private term in clear")
    func privacy() throws {
        let directory = try temporaryDirectory("privacy")
        defer { try? FileManager.default.removeItem(at: directory) }
        var results = Fixture.results()
        // Private words also hide in ids, paths and messages.
        results.systems[3].utterances[0].audioPath = "audio/contacts/Siobhan_Okonkwo.wav"
        results.checks[2].message = "canary phrase “call Aurelio” recognized"
        let files = try Reporter.write(results, formats: ReportFormat.allCases, to: directory)
        #expect(files.count >= 6)
        var masksSeen = false
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for term in Fixture.privateTerms {
                #expect(
                    text.range(of: term, options: .caseInsensitive) == nil,
                    "\(file.lastPathComponent) shows the private term \(term)")
            }
            if text.contains("‹contact-1›") { masksSeen = true }
        }
        #expect(masksSeen)
        // The public variant's terms stay readable.
        let html = try String(contentsOf: directory.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("najdorf"))
        // The utterance whose file name holds private terms says its audio is withheld instead of offering a
        // player pointing at a masked name; the others keep a working player on their real relative path.
        let withheld = html.components(separatedBy: "audio withheld: its file name holds a private term").count - 1
        #expect(withheld == 1)
        #expect(!html.contains("src=\"audio/contacts/%E2%80%B9"))
        #expect(html.contains("<audio controls preload=\"none\" src=\"audio/contacts/contacts-002.wav\">"))
    }

    @Test("masks are consistent: one term, one mask")
    func consistentMasks() throws {
        let redacted = Fixture.results().redactingPrivateTerms()
        let contacts = try #require(redacted.variant(named: "contacts"))
        #expect(contacts.multiWordTerms == ["‹contact-1› ‹contact-2›", "‹contact-3› ‹contact-4›"])
        let reference = try #require(redacted.system(corpus: "contacts", mode: .baseline)?.utterances.first?.reference)
        #expect(reference == "call ‹contact-1› ‹contact-2›")
        let general = try #require(redacted.system(corpus: "general", mode: .customized, variant: "contacts"))
        #expect(general.utterances[3].hypothesis.contains("‹contact-1›"))
        #expect(redacted.comparisons == Fixture.results().comparisons)
    }

    @Test("JUnit output validates against the Jenkins junit-10 schema")
    func junitValidates() throws {
        let directory = try temporaryDirectory("junit")
        defer { try? FileManager.default.removeItem(at: directory) }
        var results = Fixture.results()
        results.checks[0].passed = false
        results.checks[0].message = "network reachable: <connect> & \"quotes\""
        let url = directory.appendingPathComponent("junit.xml")
        try Data(JUnitReport(results.redactingPrivateTerms()).render().utf8).write(to: url)
        let schema = Fixture.junitSchema
        try #require(FileManager.default.fileExists(atPath: schema), "schema missing at \(schema)")
        var messages = [CChar](repeating: 0, count: 4096)
        let status = gambit_xml_validate(url.path, schema, &messages, messages.count)
        #expect(
            status == 0, "\(String(decoding: messages.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
        )
        let xml = try String(contentsOf: url, encoding: .utf8)
        #expect(xml.contains("message=\"network reachable: &lt;connect&gt; &amp; &quot;quotes&quot;"))
        #expect(xml.contains("measured"))
        let times = xml.matches(of: /time="([0-9.]+)"/).map { String($0.output.1) }
        #expect(!times.isEmpty)
        #expect(times.allSatisfy { ($0.split(separator: ".").last?.count ?? 0) <= 3 })
    }

    @Test("trn and ctm files list every utterance of every system")
    func transcripts() throws {
        let results = Fixture.results()
        let system = try #require(results.system(corpus: "chess", mode: .customized, variant: "chess-full"))
        let trn = TranscriptReport.hypothesisTRN(system)
        #expect(trn.split(separator: "\n").count == system.utterances.count)
        #expect(trn.contains("(chess-007)"))
        let ctm = TranscriptReport.hypothesisCTM(system)
        #expect(ctm.contains("chess-001 1 0.000"))
        #expect(TranscriptReport.referenceTRN(system).contains("queen takes rook (chess-007)"))
    }

    @Test("Reporter writes every format atomically into the directory")
    func reporterWritesFiles() throws {
        let directory = try temporaryDirectory("reporter")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try Reporter.write(
            Fixture.results(), formats: [.html, .junit, .json, .markdown], to: directory,
            audioBase: directory.appendingPathComponent("../suite"))
        #expect(files.map(\.lastPathComponent) == ["report.html", "junit.xml", "report.json", "summary.md"])
        let html = try String(contentsOf: files[0], encoding: .utf8)
        #expect(html.contains("src=\"../suite/audio/chess/chess-001.wav\""))
        let json = try RunResults.load(from: files[2])
        #expect(json.systems.count == Fixture.results().systems.count)
    }

    @Test("summary.md shows the oracle's WER when no variant was decoded beside it (modes: [baseline, oracle])")
    func oracleWithoutVariant() throws {
        var results = Fixture.results()
        results.systems.removeAll { $0.mode == .customized }
        results = results.recomputingAggregates()
        #expect(results.comparisons.isEmpty)
        // The fixture's oracle says every reference word for word.
        #expect(results.system(corpus: "chess", mode: .oracle)?.metrics.rates.wordErrorRate == 0)
        let markdown = MarkdownReport(results).render()
        #expect(
            markdown.contains(
                "Oracle (a grammar of the corpus's own sentences: the acoustic floor) WER 0.00%; no variant was "
                    + "decoded here"),
            "\(markdown)")
        // With a variant, the oracle is shown as the share of its gain, as before.
        #expect(!MarkdownReport(Fixture.results()).render().contains("no variant was decoded here"))
    }

    @Test("summary.md shows each corpus decoded without a baseline (modes: [customized]) instead of leaving it out")
    func corpusWithoutBaseline() throws {
        var results = Fixture.results()
        results.systems.removeAll { $0.mode == .baseline && $0.recognizer == nil }
        results = results.recomputingAggregates()
        let markdown = MarkdownReport(results).render()
        #expect(markdown.contains("### chess · domain · "), "\(markdown)")
        #expect(markdown.contains("no baseline decoded"), "\(markdown)")
        #expect(markdown.contains("customized chess-full WER "), "\(markdown)")
        #expect(markdown.contains("oracle WER 0.00%"), "\(markdown)")
        let html = HTMLReport(results).render()
        #expect(html.contains("<h3>chess</h3>") && html.contains("no baseline decoded"))
        #expect(html.contains("customized chess-full WER "))
    }
}
