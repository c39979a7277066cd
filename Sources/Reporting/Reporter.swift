import Foundation
import Results

/// A report format.
public enum ReportFormat: String, Sendable, Codable, CaseIterable {
    /// `report.html`: the self-contained report.
    case html
    /// `junit.xml`: one test case per check.
    case junit
    /// `report.json`: the (redacted) results.
    case json
    /// `summary.md`: a pull-request or CI summary.
    case markdown
    /// `trn/<corpus>.ref.trn` and `trn/<corpus>.<mode>[.<variant>].trn`.
    case trn
    /// `ctm/<corpus>.<mode>[.<variant>].ctm`.
    case ctm
}

/// Writes reports of a run.
public enum Reporter {
    /// Masks private terms, renders each format and writes the files atomically.
    /// - Parameters:
    ///   - results: The run's results (unredacted; private terms are masked here, before any rendering).
    ///   - formats: Formats to write.
    ///   - directory: Output directory, created if needed.
    ///   - audioBase: The directory audio paths in the results are relative to (usually the suite's directory);
    ///     the HTML report's players point there with paths relative to `directory`. `nil` keeps paths as they are.
    /// - Returns: The files written, in format order.
    /// - Throws: ``ReportError`` when a file cannot be written, or an encoding error.
    @discardableResult
    public static func write(
        _ results: RunResults, formats: [ReportFormat], to directory: URL, audioBase: URL? = nil
    ) throws -> [URL] {
        let redacted = results.redactingPrivateTerms()
        var written: [URL] = []
        func put(_ text: String, _ name: String) throws {
            let url = directory.appendingPathComponent(name)
            try AtomicFile.write(text, to: url)
            written.append(url)
        }
        for format in formats {
            switch format {
            case .html:
                var options = HTMLReport.Options()
                if let audioBase { options.audioPrefix = RunResults.relativePath(from: directory, to: audioBase) }
                try put(HTMLReport(redacted, options: options).render(), "report.html")
            case .junit:
                try put(JUnitReport(redacted).render(), "junit.xml")
            case .json:
                let url = directory.appendingPathComponent("report.json")
                try AtomicFile.write(try JSONReport(redacted).render(), to: url)
                written.append(url)
            case .markdown:
                try put(MarkdownReport(redacted).render(), "summary.md")
            case .trn:
                for corpus in redacted.corpora {
                    if let reference = redacted.systems.first(where: { $0.corpus == corpus.name }) {
                        try put(TranscriptReport.referenceTRN(reference), "trn/\(corpus.name).ref.trn")
                    }
                }
                for system in redacted.systems {
                    try put(TranscriptReport.hypothesisTRN(system), "trn/\(TranscriptReport.baseName(system)).trn")
                }
            case .ctm:
                for system in redacted.systems {
                    try put(TranscriptReport.hypothesisCTM(system), "ctm/\(TranscriptReport.baseName(system)).ctm")
                }
            }
        }
        return written
    }
}
