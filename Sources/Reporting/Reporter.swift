import Formats
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
    /// `trn/<corpus>.ref.trn` and `trn/<corpus>.<mode>[.<variant>].trn`, names made safe by ``PathComponent``;
    /// for a corpus whose manifest gives biasing lists, also `trn/<corpus>.ref.tsv` in the biasing-list format.
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
    /// - Throws: ``ReportError`` when a file cannot be written, ``OutputPathError`` when a file would land
    ///   outside `directory` (a symbolic link inside it that leads out), or an encoding error.
    @discardableResult
    public static func write(
        _ results: RunResults, formats: [ReportFormat], to directory: URL, audioBase: URL? = nil
    ) throws -> [URL] {
        let redacted = results.redactingPrivateTerms()
        var written: [URL] = []
        // Every file goes through one check that it stays inside `directory`: names become paths.
        func put(_ data: Data, _ name: PathComponent, _ pathExtension: String, in subfolders: [String] = []) throws {
            let url = try OutputPath.file(in: directory, subfolders, name, pathExtension: pathExtension)
            try AtomicFile.write(data, to: url)
            written.append(url)
        }
        func put(_ text: String, _ name: PathComponent, _ pathExtension: String, in subfolders: [String] = []) throws {
            try put(Data(text.utf8), name, pathExtension, in: subfolders)
        }
        for format in formats {
            switch format {
            case .html:
                var options = HTMLReport.Options()
                if let audioBase { options.audioPrefix = RelativePath.from(directory, to: audioBase) }
                try put(HTMLReport(redacted, options: options).render(), PathComponent("report"), "html")
            case .junit:
                try put(JUnitReport(redacted).render(), PathComponent("junit"), "xml")
            case .json:
                try put(try JSONReport(redacted).render(), PathComponent("report"), "json")
            case .markdown:
                try put(MarkdownReport(redacted).render(), PathComponent("summary"), "md")
            case .trn:
                for corpus in redacted.corpora {
                    if let reference = redacted.systems.first(where: { $0.corpus == corpus.name }) {
                        try put(
                            TranscriptReport.referenceTRN(reference), TranscriptReport.referenceName(corpus.name),
                            "trn",
                            in: ["trn"])
                        if let lists = TranscriptReport.referenceBiasingTSV(
                            reference, normalizer: redacted.run.settings.normalizer)
                        {
                            try put(lists, TranscriptReport.referenceName(corpus.name), "tsv", in: ["trn"])
                        }
                    }
                }
                for system in redacted.systems {
                    try put(
                        TranscriptReport.hypothesisTRN(system), TranscriptReport.baseName(system), "trn", in: ["trn"])
                }
            case .ctm:
                for system in redacted.systems {
                    try put(
                        TranscriptReport.hypothesisCTM(system), TranscriptReport.baseName(system), "ctm", in: ["ctm"])
                }
            }
        }
        return written
    }
}
