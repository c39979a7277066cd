import Foundation
import Reporting
import Results
import ResultsFixtures
import Testing

/// Renders the HTML report in headless Chromium: the script must run without console errors, and a screenshot is
/// left for a person to look at.
@Suite("HTML in Chromium")
struct ChromiumTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.chromium!)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting so a full pipe cannot block Chromium.
        let group = DispatchGroup()
        nonisolated(unsafe) var stdout = Data()
        nonisolated(unsafe) var stderr = Data()
        DispatchQueue.global().async(group: group) { stdout = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { stderr = err.fileHandleForReading.readDataToEndOfFile() }
        group.wait()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)
        )
    }

    @Test(
        "the report's script runs without console errors and the page renders",
        .enabled(if: chromium != nil, "chromium is not installed; install it to check the HTML report in a browser"))
    func rendersWithoutErrors() throws {
        // GAMBIT_KEEP_SCREENSHOT=1 keeps the folder, to look at the screenshot; otherwise it goes.
        let keep = ProcessInfo.processInfo.environment["GAMBIT_KEEP_SCREENSHOT"] != nil
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gambit-chromium-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        let files = try Reporter.write(Fixture.results(), formats: [.html], to: directory)
        let page = files[0].absoluteString
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
        ]
        let dom = try run(common + ["--enable-logging=stderr", "--v=0", "--dump-dom", page])
        #expect(dom.stdout.contains("data-ready=\"1\""), "the inline script did not finish")
        let consoleErrors = dom.stderr.split(separator: "\n").filter {
            $0.contains("CONSOLE") || $0.contains("Uncaught") || $0.contains("SyntaxError")
        }
        #expect(consoleErrors.isEmpty, "console: \(consoleErrors.joined(separator: "\n"))")
        let screenshot = directory.appendingPathComponent("report.png")
        try? FileManager.default.removeItem(at: screenshot)
        let shot = try run(common + ["--screenshot=\(screenshot.path)", "--window-size=1280,2000", page])
        #expect(FileManager.default.fileExists(atPath: screenshot.path), "no screenshot: \(shot.stderr.suffix(500))")
        if keep { print("Screenshot of the HTML report: \(screenshot.path)") }
    }

    /// Measures, in the page as Chromium lays it out, every text of every chart: one running into another, or past
    /// its chart's box (where an inline SVG cuts it off); and which failed or warned checks are on the first screen.
    static let measure = """
        <script>
        (function () {
          var problems = [], texts = 0;
          document.querySelectorAll('svg.chart').forEach(function (svg) {
            var box = svg.getBoundingClientRect(), name = svg.getAttribute('aria-label');
            var items = Array.prototype.slice.call(svg.querySelectorAll('text'))
              .filter(function (t) { return t.textContent.trim() !== ''; })
              .map(function (t) { return { text: t.textContent, r: t.getBoundingClientRect() }; });
            texts += items.length;
            items.forEach(function (a, i) {
              if (a.r.left < box.left - 0.5 || a.r.right > box.right + 0.5 || a.r.top < box.top - 0.5 ||
                  a.r.bottom > box.bottom + 0.5) { problems.push('clipped in ' + name + ': ' + a.text); }
              for (var j = i + 1; j < items.length; j++) {
                var b = items[j].r;
                var w = Math.min(a.r.right, b.right) - Math.max(a.r.left, b.left);
                var h = Math.min(a.r.bottom, b.bottom) - Math.max(a.r.top, b.top);
                if (w > 0.5 && h > 0.5) { problems.push('overlap in ' + name + ': ' + a.text + ' / ' + items[j].text); }
              }
            });
          });
          var screen = [];
          document.querySelectorAll('[data-check]').forEach(function (element) {
            var r = element.getBoundingClientRect();
            if (r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight) {
              screen.push(element.querySelector('.name').textContent.replace(/^[!✗✓–]/, ''));
            }
          });
          document.body.setAttribute('data-layout', JSON.stringify({
            problems: problems, texts: texts, charts: document.querySelectorAll('svg.chart').length, screen: screen
          }));
        })();
        </script>
        """

    struct Layout: Decodable {
        var problems: [String]
        var texts: Int
        var charts: Int
        var screen: [String]
    }

    /// The layout of `results`' report in a 1400×900 window, measured by ``measure``.
    func layout(of results: RunResults, in directory: URL, screenshot: URL? = nil) throws -> Layout {
        let files = try Reporter.write(results, formats: [.html], to: directory)
        let html = try String(contentsOf: files[0], encoding: .utf8)
        let measured = directory.appendingPathComponent("measured.html")
        try html.replacingOccurrences(of: "</body>", with: Self.measure + "</body>").write(
            to: measured, atomically: true, encoding: .utf8)
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--hide-scrollbars", "--window-size=1400,900",
            "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
        ]
        if let screenshot { _ = try run(common + ["--screenshot=\(screenshot.path)", files[0].absoluteString]) }
        let dom = try run(common + ["--dump-dom", measured.absoluteString]).stdout
        guard let start = dom.range(of: "data-layout=\""),
            let end = dom[start.upperBound...].firstIndex(of: "\"")
        else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no layout in the page"])
        }
        let json = String(dom[start.upperBound..<end]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
        return try JSONDecoder().decode(Layout.self, from: Data(json.utf8))
    }

    @Test(
        "At the shipped suite's size no chart text overlaps another or is cut off, and the first screen names every failed or warned check",
        .enabled(if: chromium != nil, "chromium is not installed; install it to check the HTML report in a browser"))
    func layoutAtShippedSize() throws {
        let keep = ProcessInfo.processInfo.environment["GAMBIT_KEEP_SCREENSHOT"] != nil
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gambit-layout-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        let wide = Fixture.wide()
        let screenshot = keep ? directory.appendingPathComponent("top.png") : nil
        let layout = try layout(of: wide, in: directory, screenshot: screenshot)
        // Ten corpora with up to nine systems, forty comparisons, streamed latency for every system.
        #expect(layout.charts >= 12 && layout.texts > 300, "\(layout.charts) charts, \(layout.texts) texts")
        #expect(
            layout.problems.isEmpty,
            "\(layout.problems.count) problems:\n\(layout.problems.prefix(20).joined(separator: "\n"))")
        let attention = CheckSummary(wide.checks).attention.map(\.name)
        #expect(attention.count == 7)
        #expect(Set(layout.screen) == Set(attention), "on the first screen: \(layout.screen)")
        // The small run with its sweep and scaling charts too.
        let smallFolder = directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: smallFolder, withIntermediateDirectories: true)
        let small = try self.layout(of: Fixture.results(), in: smallFolder)
        #expect(small.problems.isEmpty, "\(small.problems.joined(separator: "\n"))")
        if let screenshot { print("Screenshot of the top of the report: \(screenshot.path)") }
    }
}
