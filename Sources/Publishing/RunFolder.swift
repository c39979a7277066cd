public import Diagnosis
public import Foundation
public import Reporting
public import Results
public import Runner

/// A run's output folder, and the one way to write into it once a run, merge, sweep or diagnosis has results: the
/// results file, every report with its audio players pointed at the suite's audio, the sweep, the diagnosis with
/// its suggestion files; and the gate's baseline made from results.
///
/// The commands (and the tests' runs) parse their options, call this and print; none of them writes a run
/// folder's results or reports itself, and neither do the runner and the diagnoser, which return what they found.
/// What they keep while they work (the journals, the lock, kept lattices) is theirs.
public struct RunFolder: Sendable {
    /// The output folder (`Reports/`).
    public let url: URL

    public init(_ url: URL) {
        self.url = url
    }

    /// `.gambit/results.json`: the run's raw results.
    public var resultsFile: URL { Runner.resultsFile(in: url) }

    /// `.gambit/sweep.json`: the last sweep's results.
    public var sweepFile: URL { url.appendingPathComponent(Runner.dataFolder).appendingPathComponent("sweep.json") }

    /// Takes the folder's lock for as long as the returned lock is held (see ``OutputFolder/lock(_:)``): a run,
    /// merge, sweep or diagnosis writing there meanwhile would mix its files with these.
    public func lock() throws -> OutputFolder.Lock { try OutputFolder.lock(url) }

    /// The folder the results' audio paths are relative to: that of the suite file found from this folder
    /// (``Runner/suiteFile(of:readFrom:)``), else the one `suite.path` names from the working directory.
    public func audioBase(of results: RunResults) -> URL {
        (Runner.suiteFile(of: results, readFrom: resultsFile) ?? URL(fileURLWithPath: results.run.suite.path))
            .deletingLastPathComponent()
    }

    /// Writes `formats` of `results` into the folder, the HTML report's audio players pointed at the suite's audio
    /// (``audioBase(of:)``).
    /// - Returns: The files written, in format order.
    @discardableResult
    public func writeReports(_ results: RunResults, formats: [ReportFormat] = ReportFormat.allCases) throws -> [URL] {
        try Reporter.write(results, formats: formats, to: url, audioBase: audioBase(of: results))
    }

    /// Writes `results` as the folder's results file.
    public func writeResults(_ results: RunResults) throws {
        try OutputPath.check(resultsFile, isInside: url)
        try OutputFolder.prepare(resultsFile.deletingLastPathComponent())
        try results.write(to: resultsFile)
    }

    /// Refuses this folder when it is, or holds, the folder of `suite` (when that suite was found and reads), as
    /// `gambit run` does: reports must never overwrite a user's inputs.
    public func checkSeparate(from suite: URL?) throws {
        guard let suite, let loaded = try? Suite.load(suite) else { return }
        try OutputFolder.checkSeparate(url, from: loaded)
    }

    /// `results` as they are written into this folder: with ``SuiteInfo/pathFromOutput`` from here to `suite`, so
    /// that the next command given this folder finds the suite (none when it was not found).
    public func rebasing(_ results: RunResults, suite: URL?) -> RunResults {
        var rebased = results
        rebased.run.suite.pathFromOutput = suite.map { Runner.pathFromOutput(url, to: $0) }
        return rebased
    }

    /// Keeps a sweep's results: writes ``sweepFile`` and, when the folder holds a run's results, adds the sweep to
    /// them and renders every report again (with the audio links a run's reports have).
    /// - Returns: Whether a run's results were there and its reports were written again.
    @discardableResult
    public func record(sweep: SweepResults) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputPath.check(sweepFile, isInside: url)
        try OutputFolder.prepare(sweepFile.deletingLastPathComponent())
        try encoder.encode(sweep).write(to: sweepFile, options: .atomic)
        guard FileManager.default.fileExists(atPath: resultsFile.path) else { return false }
        var run = try RunResults.load(from: resultsFile)
        run.sweep = sweep
        try writeResults(run)
        try writeReports(run)
        return true
    }

    /// `.gambit/list-sweep.json`: the last list sweep's results.
    public var listSweepFile: URL {
        url.appendingPathComponent(Runner.dataFolder).appendingPathComponent("list-sweep.json")
    }

    /// Keeps a list sweep's results (`gambit sweep --lists`) as ``record(sweep:)`` keeps a sweep's.
    /// - Returns: Whether a run's results were there and its reports were written again.
    @discardableResult
    public func record(listSweep: ListSweepResults) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputPath.check(listSweepFile, isInside: url)
        try OutputFolder.prepare(listSweepFile.deletingLastPathComponent())
        try encoder.encode(listSweep).write(to: listSweepFile, options: .atomic)
        guard FileManager.default.fileExists(atPath: resultsFile.path) else { return false }
        var run = try RunResults.load(from: resultsFile)
        run.listSweep = listSweep
        try writeResults(run)
        try writeReports(run)
        return true
    }

    /// Keeps a diagnosis: removes the examined variants' earlier suggestion files, writes their new ones (each
    /// checked to be inside this folder), the results with the diagnosis joined, and every report again.
    public func record(diagnosis publication: DiagnosisPublication) throws {
        for file in publication.replaced {
            try OutputPath.check(file, isInside: url)
            try? FileManager.default.removeItem(at: file)
        }
        for suggestion in publication.suggestions {
            try OutputPath.check(suggestion.file, isInside: url)
            try OutputFolder.prepare(suggestion.file.deletingLastPathComponent())
            try suggestion.text.write(to: suggestion.file, atomically: true, encoding: .utf8)
        }
        try writeResults(publication.results)
        try writeReports(publication.results)
    }

    /// Writes the results in `resultsFile` (a run's, or a report.json), private terms masked, as the baseline
    /// `gambit gate` compares later runs with, at `file` (a file the user names, anywhere). Results of a partial run
    /// are refused: every later gate would refuse such a baseline.
    /// - Returns: The results the baseline was made from.
    @discardableResult
    public static func writeBaseline(of resultsFile: URL, to file: URL) throws -> RunResults {
        let results = try RunResults.load(from: resultsFile)
        if let partial = results.run.partial {
            throw UnusableBaseline(
                description: "\(resultsFile.path) has \(partial.summary); `gambit gate` compares complete runs only "
                    + "and would refuse this baseline. Merge every shard (`gambit merge` without --partial) and "
                    + "update the baseline from that; \(file.path) is left as it was")
        }
        try results.redactingPrivateTerms().write(to: file)
        return results
    }
}

/// Results `gambit baseline update` refuses to store, with why and what to give instead.
public struct UnusableBaseline: Error, CustomStringConvertible {
    public var description: String
}
