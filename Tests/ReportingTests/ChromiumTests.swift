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
}
