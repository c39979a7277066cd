import CXMLSchema
import Foundation
import Reporting
import Results
import ResultsFixtures
import Testing

@Suite("Reports of a partial merge")
struct PartialReportTests {
    /// The fixture's results marked as merged from shards 0/4 and 2/4 only.
    var partial: RunResults {
        var results = Fixture.results()
        results.run.partial = PartialRun(shardCount: 4, present: [0, 2], missing: [1, 3])
        return results
    }

    @Test("Every format says the results are partial and which shards are missing")
    func everyFormatSaysPartial() throws {
        let directory = try temporaryDirectory("partial")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try Reporter.write(partial, formats: [.html, .junit, .json, .markdown], to: directory)
        #expect(written.count == 4)
        func read(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        let html = try read("report.html")
        #expect(html.contains("<div class=\"partial-banner\" role=\"alert\">"))
        #expect(html.contains("2 of 4 shards merged (0/4, 2/4); missing 1/4, 3/4"))
        // The banner comes before any number.
        let banner = try #require(html.range(of: "partial-banner\" role"))
        let summary = try #require(html.range(of: "<section id=\"summary\">"))
        #expect(banner.lowerBound < summary.lowerBound)

        let markdown = try read("summary.md")
        #expect(markdown.contains("> ⚠️ **Partial results:** 2 of 4 shards merged (0/4, 2/4); missing 1/4, 3/4"))

        let junit = try read("junit.xml")
        #expect(junit.contains("<property name=\"partial\" value=\"2 of 4 shards merged (0/4, 2/4); missing 1/4, 3/4"))
        #expect(junit.contains("<testcase name=\"every shard merged\""))
        #expect(junit.contains("<skipped message=\"partial results: 2 of 4 shards merged"))

        let json = try RunResults.load(from: directory.appendingPathComponent("report.json"))
        #expect(json.run.partial == PartialRun(shardCount: 4, present: [0, 2], missing: [1, 3]))
    }

    @Test("The partial JUnit report still validates against the Jenkins junit-10 schema")
    func junitValidates() throws {
        let directory = try temporaryDirectory("partial-junit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("junit.xml")
        try Data(JUnitReport(partial).render().utf8).write(to: url)
        var messages = [CChar](repeating: 0, count: 4096)
        let status = gambit_xml_validate(url.path, Fixture.junitSchema, &messages, messages.count)
        #expect(
            status == 0, "\(String(decoding: messages.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
        )
    }

    @Test("A complete run's reports say nothing of partial results")
    func completeSaysNothing() {
        let results = Fixture.results()
        #expect(!HTMLReport(results).render().contains("partial-banner\" role"))
        #expect(!MarkdownReport(results).render().contains("Partial results"))
        #expect(!JUnitReport(results).render().contains("every shard merged"))
    }
}
