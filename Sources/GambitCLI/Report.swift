import ArgumentParser
import Foundation
import Reporting
import Results
import Runner

/// Writes every report format of a run into its output folder.
enum ReportWriter {
    /// Writes every format of `results` into `folder`, the output folder whose `.gambit/results.json` they are.
    static func writeAll(_ results: RunResults, to folder: URL) throws -> [URL] {
        try Reporter.write(
            results, formats: ReportFormat.allCases, to: folder, audioBase: audioBase(of: results, in: folder))
    }

    /// The suite's folder, which the results' audio paths are relative to: that of the suite file found from the
    /// output folder the results are written in (``Runner/suiteFile(of:readFrom:)``), else the one `suite.path`
    /// names from here.
    static func audioBase(of results: RunResults, in folder: URL) -> URL {
        (Runner.suiteFile(of: results, readFrom: Runner.resultsFile(in: folder))
            ?? URL(fileURLWithPath: results.run.suite.path)).deletingLastPathComponent()
    }

    /// Refuses an output folder that is, or holds, the folder of the suite the results came from (when
    /// that suite was found), as `gambit run` does: reports must never overwrite a user's inputs.
    static func checkSeparate(_ output: URL, from suite: URL?) throws {
        guard let suite, let loaded = try? Suite.load(suite) else { return }
        try OutputFolder.checkSeparate(output, from: loaded)
    }

    /// `results` as they are written into `output`: with ``SuiteInfo/pathFromOutput`` from there to `suite`, so
    /// that the next command given that folder finds the suite (none when it was not found).
    static func rebased(_ results: RunResults, suite: URL?, to output: URL) -> RunResults {
        var rebased = results
        rebased.run.suite.pathFromOutput = suite.map { Runner.pathFromOutput(output, to: $0) }
        return rebased
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
        let file = try Self.resultsFile(results)
        let outputURL = URL(fileURLWithPath: output)
        // Aggregates are recomputed from the records, so that a file written by an older Gambit shows
        // today's rules (a rate over nothing is no data).
        let read = try RunResults.load(from: file).recomputingAggregates()
        // The suite is found from where the results were read, not from this working directory.
        let suite = Runner.suiteFile(of: read, readFrom: file)
        let loaded = ReportWriter.rebased(read, suite: suite, to: outputURL)
        try ReportWriter.checkSeparate(outputURL, from: suite)
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
        let lock = try OutputFolder.lock(outputURL)
        defer { lock.release() }
        let written = try Reporter.write(
            loaded, formats: formats, to: outputURL, audioBase: ReportWriter.audioBase(of: loaded, in: outputURL))
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
