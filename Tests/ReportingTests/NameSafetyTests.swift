import CXMLSchema
import Foundation
import Reporting
import Results
import ResultsFixtures
import Testing

/// The fixture run with its `chess` corpus and `chess-full` variant renamed, everywhere a name appears.
func renamed(corpus: String, variant: String, suite: String = "demo") -> RunResults {
    var results = Fixture.renaming(Fixture.results(), corpora: ["chess": corpus], variants: ["chess-full": variant])
    results.run.suite.name = suite
    return results
}

/// Every regular file under `folder`, as real paths.
private func files(under folder: URL) -> [String] {
    let manager = FileManager.default
    var out: [String] = []
    for case let url as URL in manager.enumerator(at: folder, includingPropertiesForKeys: nil) ?? .init() {
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
            out.append(url.resolvingSymlinksInPath().path)
        }
    }
    return out
}

@Suite("Names in reports")
struct NameSafetyTests {
    static let hostile = [
        "../x", "../../escaped", "/abs", "/tmp/gambit-abs-name", "a/b", "..", ".", "", " ", "con|fuse",
        "two\nlines", "tab\there", "café", "字", "<script>alert(1)</script>", "\"quoted\" & 'single'",
        "**bold** _it_ [link](http://x) `code`",
    ]

    @Test("a corpus or variant name never writes outside the output folder", arguments: hostile)
    func staysInside(name: String) throws {
        let root = try temporaryDirectory("names")
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appendingPathComponent("deep/out")
        let results = renamed(corpus: name, variant: name + "-v")
        let written = try Reporter.write(results, formats: ReportFormat.allCases, to: output)
        let outputPath = output.resolvingSymlinksInPath().path + "/"
        for url in written { #expect(url.resolvingSymlinksInPath().path.hasPrefix(outputPath), "\(url.path)") }
        // Nothing was written beside the output folder, above it, or at an absolute path.
        #expect(files(under: root).allSatisfy { $0.hasPrefix(outputPath) })
        #expect(!FileManager.default.fileExists(atPath: "/tmp/gambit-abs-name.ref.trn"))
        #expect(!FileManager.default.fileExists(atPath: "/abs.ref.trn"))
        // Every system has its own files: no two names shared one.
        #expect(Set(written.map(\.path)).count == written.count)
        let trn = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("trn").path)
        #expect(trn.count == results.corpora.count + results.systems.count)
        #expect(trn.contains("\(PathComponent(joining: [name, "ref"])).trn"))
    }

    @Test("names that differ only in what is encoded still get files of their own")
    func noCollisions() throws {
        let folder = try temporaryDirectory("collide")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Old rule: every one of these became `a_b`.
        var results = renamed(corpus: "a/b", variant: "v")
        for corpus in ["a b", "a_b", "a.b", "a%2Fb"] {
            results.systems += renamed(corpus: corpus, variant: "v").systems.filter { $0.corpus == corpus }
        }
        let written = try Reporter.write(results, formats: [.trn, .ctm], to: folder)
        #expect(Set(written.map(\.path)).count == written.count)
        #expect(written.count == files(under: folder).count)
        #expect(written.count == 3 + 2 * results.systems.count)
    }

    @Test("a link inside the output folder that leads out is refused, naming the file")
    func linkOut() throws {
        let root = try temporaryDirectory("link-out")
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appendingPathComponent("out")
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: output.appendingPathComponent("trn"), withDestinationURL: elsewhere)
        let error = try #require(throws: OutputPathError.self) {
            try Reporter.write(Fixture.results(), formats: [.trn], to: output)
        }
        #expect(error.description.contains("trn/chess.ref.trn"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    @Test("a | or a line break in a name does not break the Markdown tables or headings")
    func markdown() throws {
        let markdown = MarkdownReport(
            renamed(corpus: "con|fuse\nnext", variant: "var|iant", suite: "su|ite\n# injected")
                .redactingPrivateTerms()
        ).render()
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines.first == "## ✅ Gambit — su\\|ite \\# injected" || lines.first == "## ❌ Gambit — su\\|ite \\# injected"
        )
        #expect(markdown.contains("### con\\|fuse next · domain"))
        #expect(!lines.contains { $0.hasPrefix("# injected") || $0 == "next" })
        // Each table row has as many unescaped cell separators as its header.
        var columns: Int?
        for line in lines {
            guard line.hasPrefix("|") else {
                columns = nil
                continue
            }
            let count = line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count
            if let columns { #expect(count == columns, "\(line)") } else { columns = count }
        }
        #expect(markdown.contains("| var\\|iant |"))
    }

    @Test("summary.md's checks table escapes HTML and Markdown in names as every other line does")
    func checksTableEscapes() throws {
        var results = renamed(corpus: "<b>chess</b>", variant: "<script>alert(1)</script>")
        // A check's name and message are stored when the run judges it, so they are renamed here as a run
        // with these names would have written them.
        for index in results.checks.indices {
            for (old, new) in [("chess-full", "<script>alert(1)</script>"), ("chess", "<b>chess</b>")] {
                results.checks[index].name = results.checks[index].name.replacingOccurrences(of: old, with: new)
                results.checks[index].message = results.checks[index].message.replacingOccurrences(
                    of: old, with: new)
            }
        }
        let markdown = MarkdownReport(results.redactingPrivateTerms()).render()
        #expect(!markdown.contains("<script>"), "\(markdown)")
        #expect(!markdown.contains("<b>"), "\(markdown)")
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains("\\<script\\>") }
        #expect(rows.contains { $0.contains("| \\<b\\>chess\\</b\\>/\\<script\\>alert(1)\\</script\\> WER gate |") })
    }

    @Test("names are escaped in HTML and round-trip through JUnit attributes")
    func htmlAndJUnit() throws {
        let name = "<b>x</b> & \"q\"\n\ttab"
        let results = renamed(corpus: name, variant: name + "|v").redactingPrivateTerms()
        let html = HTMLReport(results).render()
        #expect(!html.contains("<b>x</b>"))
        #expect(html.contains("&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;"))
        // The Markdown summary's folded breakdowns put the corpus name inside raw HTML, where Markdown's
        // escapes do not apply: it is escaped as HTML there.
        let markdown = MarkdownReport(results).render()
        #expect(!markdown.contains("<b>x</b>"))
        #expect(markdown.contains("<details><summary>&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;  tab: by speaker"))

        let directory = try temporaryDirectory("junit-names")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("junit.xml")
        let xml = JUnitReport(results).render()
        try Data(xml.utf8).write(to: url)
        var messages = [CChar](repeating: 0, count: 4096)
        let status = gambit_xml_validate(url.path, Fixture.junitSchema, &messages, messages.count)
        #expect(
            status == 0, "\(String(decoding: messages.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
        )
        // A line break or tab in an attribute is a character reference, so that a parser reads it back.
        let attributes = xml.matches(of: /="([^"]*)"/).map { String($0.output.1) }
        #expect(attributes.allSatisfy { !$0.contains("\n") && !$0.contains("\t") })
        #expect(attributes.contains { $0.contains("&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;&#10;&#9;tab") })
    }
}
