import ArgumentParser
import Foundation
import Reporting
import Results
import Runner

/// Writes every report format of a run into its output folder.
enum ReportWriter {
    static func writeAll(_ results: RunResults, to folder: URL) throws -> [URL] {
        try Reporter.write(results, formats: ReportFormat.allCases, to: folder, audioBase: audioBase(of: results))
    }

    /// The suite's folder, which the results' audio paths are relative to (`suite.path` is relative to the
    /// working directory the run started in, as this command's is).
    static func audioBase(of results: RunResults) -> URL {
        URL(fileURLWithPath: results.run.suite.path).deletingLastPathComponent()
    }

    /// Refuses an output folder that is, or holds, the folder of the suite the results came from (when
    /// that suite is still there), as `gambit run` does: reports must never overwrite a user's inputs.
    static func checkSeparate(_ output: URL, from results: RunResults) throws {
        guard let suite = try? Suite.load(URL(fileURLWithPath: results.run.suite.path)) else { return }
        try OutputFolder.checkSeparate(output, from: suite)
    }
}

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
        // Aggregates are recomputed from the records, so that a file written by an older Gambit shows
        // today's rules (a rate over nothing is no data).
        let loaded = try RunResults.load(from: Self.resultsFile(results)).recomputingAggregates()
        try ReportWriter.checkSeparate(URL(fileURLWithPath: output), from: loaded)
        let formats =
            try format.isEmpty
            ? ReportFormat.allCases
            : format.map { name in
                guard let format = ReportFormat(rawValue: name) else {
                    throw ValidationError("unknown format \(name); use html, junit, json, markdown, trn or ctm")
                }
                return format
            }
        let written = try Reporter.write(
            loaded, formats: formats, to: URL(fileURLWithPath: output), audioBase: ReportWriter.audioBase(of: loaded))
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
