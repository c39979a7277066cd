import ArgumentParser
import Foundation
import Publishing
import Reporting
import Results
import Runner

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-render reports from saved results without decoding again.",
        discussion: "Partial results (gambit merge --partial) are rendered with a banner saying so.\n\n"
            + ExitStatus.doneOrRefused)

    @Argument(help: "A results file: Reports/.gambit/results.json, or a report.json; or a run's output folder.")
    var results: String

    @Option(help: "Formats: html, junit, json, markdown, trn, ctm (repeatable; default all).")
    var format: [String] = []

    @Option(help: "Output folder.")
    var output = "Reports"

    func run() throws {
        let file = try Self.resultsFile(results)
        let outputURL = URL(fileURLWithPath: output)
        // Aggregates are recomputed from the records, so that a file written by an older Gambit shows
        // today's rules (a rate over nothing is no data).
        let read = try RunResults.load(from: file).recomputingAggregates()
        // The suite is found from where the results were read, not from this working directory.
        let suite = Runner.suiteFile(of: read, readFrom: file)
        let folder = RunFolder(outputURL)
        let loaded = folder.rebasing(read, suite: suite)
        try folder.checkSeparate(from: suite)
        let formats =
            try format.isEmpty
            ? ReportFormat.allCases
            : format.map { name in
                guard let format = ReportFormat(rawValue: name) else {
                    throw ValidationError("unknown format \(name); use html, junit, json, markdown, trn or ctm")
                }
                return format
            }
        // Under the folder's lock: a run, merge or diagnosis writing there meanwhile would mix its reports with these.
        let lock = try folder.lock()
        defer { lock.release() }
        let written = try folder.writeReports(loaded, formats: formats)
        for url in written { print(url.path) }
    }

    /// The results file a path names: the file itself, or in a run's output folder its raw results
    /// (`.gambit/results.json`), else its `report.json`.
    static func resultsFile(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            return url
        }
        for candidate in [".gambit/results.json", "report.json"] {
            let file = url.appendingPathComponent(candidate)
            if FileManager.default.fileExists(atPath: file.path) { return file }
        }
        throw ValidationError(
            "\(path) is a folder without a run's results (.gambit/results.json or report.json); pass a results file")
    }
}
