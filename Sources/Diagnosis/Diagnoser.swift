import Foundation
import Recognition
import Results
import Runner

/// What `gambit diagnose` asks: which run, which variants, and how.
public struct DiagnosisRequest {
    /// The output folder of `gambit run` (or of a merge).
    public var runFolder: URL
    /// Only these variants; empty for every variant of the run.
    public var variants: [String] = []
    /// The suite file; nil for the one the run names, found from its folder.
    public var suite: URL?
    /// The models' cache; nil for the run's, as `gambit run` finds it.
    public var cacheFolder: URL?
    /// Read audio wherever manifests point.
    public var allowOutsidePaths = false
    /// Ignore the diagnosis journal and examine every utterance again.
    public var fresh = false
    /// Work out suggestions (pronunciations heard in the audio, phrase counts) and write them as patches.
    public var suggest = true

    public init(runFolder: URL) {
        self.runFolder = runFolder
    }
}

/// What a diagnosis wrote and found.
public struct DiagnosisOutcome {
    /// The run's results as written, the diagnosis joined to them.
    public var results: RunResults
    /// The variants this diagnosis examined, in the run's order, private terms masked as the reports mask them.
    public var examined: [VariantDiagnosis]
    /// The suggestion files written, as a terminal names them.
    public var suggestionFiles: [String]
}

/// What a diagnosis leaves in the run's folder, for the one type that writes a run folder's files (`RunFolder`
/// in Publishing): the results with the diagnosis joined, and each examined variant's suggestions as a patch.
public struct DiagnosisPublication: Sendable {
    /// One variant's suggestions as a training-data patch.
    public struct SuggestionFile: Sendable, Equatable {
        /// Where it goes: `suggestions/VARIANT.yaml`, or under `.gambit/` for private data (never in a report).
        public var file: URL
        /// The patch (`gambit lint --apply` merges it).
        public var text: String
        /// Whether the variant's data is private.
        public var isPrivate: Bool
    }

    /// The run's results, the diagnosis joined to them.
    public var results: RunResults
    /// The patches to write.
    public var suggestions: [SuggestionFile]
    /// Files of an earlier diagnosis of the examined variants to remove first (a variant now without
    /// suggestions, or whose data became private or public, keeps no stale patch).
    public var replaced: [URL]

    /// The suggestion files as a terminal names them (a private variant's by its folder only).
    public var shownSuggestionFiles: [String] {
        suggestions.map {
            $0.isPrivate ? "\($0.file.deletingLastPathComponent().path)/ (private data)" : $0.file.path
        }
    }
}

/// Why a diagnosis could not start: each names what to give instead.
public enum DiagnosisError: Error, CustomStringConvertible, Equatable {
    /// The folder is missing, a file, or holds no run's results.
    case notARun(path: String, what: String)
    /// The suite, or a file it names, changed since the run.
    case suiteChanged(path: String, suiteHash: String, runHash: String)
    /// A `--variant` the run does not have.
    case unknownVariants([String], known: [String])

    public var description: String {
        switch self {
        case .notARun(let path, let what):
            "\(path): \(what); gambit diagnose takes the output folder of `gambit run` (its --output, "
                + "which holds .gambit/results.json)"
        case .suiteChanged(let path, let suiteHash, let runHash):
            "\(path): the suite or a file it names changed since the run (content hash "
                + "\(suiteHash.prefix(19)) against the run's \(runHash.prefix(19))); "
                + "run it again, or name the run's suite with --suite"
        case .unknownVariants(let unknown, let known):
            "--variant \(unknown.joined(separator: ", ")): not in the run (it has \(known.joined(separator: ", ")))"
        }
    }
}

/// Why each boosted-word error of a finished run happened, what the fixing weights would cost on anti-context
/// speech, and what to change in the training data: `gambit diagnose` as a library.
///
/// For each variant, its errors are examined one utterance at a time (``VariantExamination``), then its fixing
/// weights are priced on its anti-context corpora, then suggestions are drawn from both. The diagnosis joins the
/// run's results and its reports are written again, all under the output folder's lock; each utterance's answer is
/// journaled (`.gambit/diagnosis.journal`) as it comes, so an interrupted diagnosis resumes.
public enum Diagnoser {
    /// Diagnoses a run and writes the diagnosis into its folder.
    /// - Parameters:
    ///   - progress: Where progress and per-utterance failures go (masked).
    ///   - publish: Writes what the diagnosis leaves into the run's folder: results, reports and suggestions
    ///     (called under the folder's lock).
    public static func diagnose(
        _ request: DiagnosisRequest, progress: DiagnosisProgress, publish: (DiagnosisPublication) throws -> Void
    ) throws -> DiagnosisOutcome {
        let runURL = request.runFolder
        let results = try Self.results(in: runURL)
        // Written under the folder's lock, taken once the folder is known to hold a run's results: a run, sweep or
        // merge there meanwhile would overwrite the diagnosis, or be overwritten by it.
        let lock = try OutputFolder.lock(runURL)
        defer { lock.release() }
        let suiteFile = try suite(of: results, request: request)
        let unknown = request.variants.filter { name in !results.variants.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw DiagnosisError.unknownVariants(unknown, known: results.variants.map(\.name))
        }
        let cacheFolder =
            request.cacheFolder ?? (suiteFile.cacheInOutput ? Runner.outputCacheFolder(in: runURL) : nil)
        let toolchain = Toolchain(cacheFolder: cacheFolder)
        let journalURL = journalFile(in: runURL)
        try OutputPath.check(journalURL, isInside: runURL)
        if request.fresh { try? FileManager.default.removeItem(at: journalURL) }
        let done = Dictionary(
            Journal.entries(journalURL, as: JournalEntry.self).map { ($0.key, $0) },
            uniquingKeysWith: { _, last in last })
        let journal = try Journal(appendingTo: journalURL)
        defer { journal.close() }
        var report = DiagnosisReport(suite: results.run.suite.name, variants: [])
        for info in results.variants where request.variants.isEmpty || request.variants.contains(info.name) {
            guard let spec = suiteFile.variants.first(where: { $0.name == info.name }) else { continue }
            report.variants.append(
                try diagnose(
                    spec, in: results, suite: suiteFile, request: request, toolchain: toolchain, progress: progress,
                    journal: (done, journal)))
        }
        progress.finish()
        let examined = report.variants.map(\.variant)
        let diagnosed = joined(report, to: results)
        let publication = try publication(
            of: diagnosed, variants: (diagnosed.diagnosis?.variants ?? []).filter { examined.contains($0.variant) },
            suite: suiteFile, in: runURL)
        try publish(publication)
        let written = publication.shownSuggestionFiles
        let masked = diagnosed.redactingPrivateTerms().diagnosis?.variants ?? []
        let shown = zip(masked, diagnosed.diagnosis?.variants ?? []).filter { examined.contains($0.1.variant) }
        return DiagnosisOutcome(results: diagnosed, examined: shown.map(\.0), suggestionFiles: written)
    }

    /// The suite the run was made from (the request's, else the one the run names, found from its folder), checked
    /// unchanged since, with each corpus at the split the run scored.
    static func suite(of results: RunResults, request: DiagnosisRequest) throws -> Suite {
        let resultsURL = Runner.resultsFile(in: request.runFolder)
        // The suite is found from the run's folder, not from this working directory.
        let suiteURL =
            request.suite ?? Runner.suiteFile(of: results, readFrom: resultsURL)
            ?? URL(fileURLWithPath: results.run.suite.path)
        var suiteFile = try Suite.load(suiteURL)
        guard suiteFile.contentHash == results.run.suite.contentHash else {
            throw DiagnosisError.suiteChanged(
                path: suiteURL.path, suiteHash: suiteFile.contentHash, runHash: results.run.suite.contentHash)
        }
        for index in suiteFile.corpora.indices {
            if let split = results.corpus(named: suiteFile.corpora[index].name)?.split, split != "all" {
                suiteFile.corpora[index].split = split
            }
        }
        return suiteFile
    }

    /// The run's results with `report` as their diagnosis, beside the variants an earlier `--variant` diagnosed, in
    /// the run's order.
    public static func joined(_ report: DiagnosisReport, to results: RunResults) -> RunResults {
        var report = report
        let kept = (results.diagnosis?.variants ?? []).filter { old in
            !report.variants.contains { $0.variant == old.variant }
        }
        report.variants = results.variants.compactMap { info in
            report.variants.first { $0.variant == info.name } ?? kept.first { $0.variant == info.name }
        }
        var diagnosed = results
        diagnosed.diagnosis = report
        return diagnosed
    }

    /// Where a variant's suggestions are written: `suggestions/`, or `.gambit/suggestions/` for private data
    /// (its phrases and names in the clear, kept beside the run's other unmasked files).
    public static func suggestionsFile(in run: URL, variant: String, isPrivate: Bool) throws -> URL {
        try OutputPath.file(
            in: run, isPrivate ? [".gambit", "suggestions"] : ["suggestions"], PathComponent(variant),
            pathExtension: "yaml")
    }

    /// The results of the run whose output folder is `run`; a file, or a folder without them, is refused with
    /// what to give instead.
    public static func results(in run: URL) throws -> RunResults {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: run.path, isDirectory: &isFolder)
        let file = Runner.resultsFile(in: run)
        guard exists, isFolder.boolValue, FileManager.default.fileExists(atPath: file.path) else {
            let what =
                !exists
                ? "no such folder" : !isFolder.boolValue ? "a file, not a folder" : "no .gambit/results.json in it"
            throw DiagnosisError.notARun(path: run.path, what: what)
        }
        return try RunResults.load(from: file)
    }

    /// The journal of an interrupted diagnosis, which the next one resumes from.
    public static func journalFile(in run: URL) -> URL {
        run.appendingPathComponent(".gambit/diagnosis.journal")
    }

    /// What the diagnosis leaves: `diagnosed`, and each of `variants`' suggestions as a patch (see
    /// ``suggestionsFile(in:variant:isPrivate:)``) replacing an earlier diagnosis's, public or private.
    static func publication(
        of diagnosed: RunResults, variants: [VariantDiagnosis], suite suiteFile: Suite, in runURL: URL
    ) throws -> DiagnosisPublication {
        var publication = DiagnosisPublication(results: diagnosed, suggestions: [], replaced: [])
        for diagnosis in variants {
            guard let spec = suiteFile.variants.first(where: { $0.name == diagnosis.variant }) else { continue }
            let data = try Toolchain.loadTrainingData(spec.training)
            for isPrivate in [false, true] {
                publication.replaced.append(
                    try suggestionsFile(in: runURL, variant: diagnosis.variant, isPrivate: isPrivate))
            }
            guard let suggestions = diagnosis.suggestions, !suggestions.isEmpty else { continue }
            // The training file as the command line would name it from here.
            let here = FileManager.default.currentDirectoryPath + "/"
            let training =
                spec.training.path.hasPrefix(here)
                ? String(spec.training.path.dropFirst(here.count)) : spec.training.path
            publication.suggestions.append(
                DiagnosisPublication.SuggestionFile(
                    file: try suggestionsFile(in: runURL, variant: diagnosis.variant, isPrivate: data.isPrivate),
                    text: suggestions.patch(for: data, variant: diagnosis.variant, training: training),
                    isPrivate: data.isPrivate))
        }
        return publication
    }

    /// One line of the diagnosis journal (`.gambit/diagnosis.journal`): what one utterance gave, under a key
    /// that holds everything the answer depends on, so that a changed run, model or setting is examined again.
    struct JournalEntry: Codable {
        var key: String
        var seconds: Double
        /// A domain or anti-context utterance with errors: their causes.
        var diagnoses: [ErrorDiagnosis]?
        /// An anti-context utterance rescored at the fixing weights: its best path at each ("0.7" → words).
        var rescored: [String: String]?
        /// Whether the utterance was read from the lattice the run kept (else decoded again).
        var fromLattice: Bool?
    }

    /// One variant's errors, over every corpus it was decoded on; then what its fixing weights cost on its
    /// anti-context corpora (see ``VariantExamination``).
    static func diagnose(
        _ spec: Suite.Variant, in results: RunResults, suite: Suite, request: DiagnosisRequest, toolchain: Toolchain,
        progress: DiagnosisProgress, journal: (done: [String: JournalEntry], file: Journal)
    ) throws -> VariantDiagnosis {
        let work = try VariantExamination.Work(
            spec, in: results, suite: suite, allowOutsidePaths: request.allowOutsidePaths)
        guard !work.errors.isEmpty else {
            return VariantDiagnosis(
                variant: spec.name, weight: spec.weight, utterances: [], terms: [], decodeSeconds: 0,
                diagnoseSeconds: 0)
        }
        let examination = try VariantExamination(
            spec, in: results, run: request.runFolder, suite: suite, toolchain: toolchain, progress: progress,
            journal: journal)
        var variant = try examination.errors(work)
        variant.antiContext = try examination.cost(of: variant.fixingWeights, on: work.antiContext)
        if request.suggest { variant.suggestions = examination.suggestions(for: variant, work: work) }
        variant.failures = examination.failures.isEmpty ? nil : examination.failures
        for failure in examination.failures { progress.log("diagnose: \(examination.masker.fragment(failure))") }
        return variant
    }
}
