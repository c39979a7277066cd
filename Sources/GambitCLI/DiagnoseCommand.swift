import ArgumentParser
import Foundation
import Recognition
import Reporting
import Results
import Runner

/// `gambit diagnose RUN_DIR`: why each boosted-word error of a finished run happened.
struct Diagnose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Explain each boosted-word error of a finished run: unpronounceable, language model, pruned, acoustics.",
        discussion: """
            For every boosted reference word a customized decode got wrong, and every boosted word it put where \
            nobody said it, its lattice is read from the run (gambit run keeps those a diagnosis needs; an \
            utterance without one is decoded again), its reference is force-aligned \
            through PocketSphinx's own search, and the lattice is rescored at other weights: \
            unpronounceable (no pronunciation in the dictionary, or only a guess in place of the ones lint flagged); fixable by count or weight (in the lattice where \
            it was said; the smallest weight that fixes it is given); pruned by search (not in the lattice, yet \
            the reference fits the audio at least as well: widen the beam); pronunciation or acoustics (the \
            reference fits worse). The diagnosis joins the run's results (.gambit/results.json) and its reports \
            (report.html, report.json, summary.md), private terms masked as elsewhere.

            """ + ExitStatus.doneOrRefused)

    @Argument(help: "The output folder of `gambit run` (or of a merge).")
    var runFolder: String

    @Option(help: "Only this variant (repeatable).")
    var variant: [String] = []

    @Option(help: "The suite file (default: the one the run names, found from the run's folder).")
    var suite: String?

    @Option(help: "The models' cache (default: the run's, as `gambit run` finds it).")
    var cacheDir: String?

    @Flag(help: "Read audio wherever manifests point (as `gambit run --allow-outside-paths`).")
    var allowOutsidePaths = false

    @Flag(help: "Ignore the diagnosis journal and examine every utterance again.")
    var fresh = false

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Write suggestions/VARIANT.yaml: pronunciations heard in the audio and phrase counts.",
            discussion:
                "A patch in the training-data format for each variant with something to suggest; "
                + "merge it with `gambit lint --apply`. Learn them on a dev split (gambit run --split dev) "
                + "and judge the new variant on test."))
    var suggest = true

    /// Where a variant's suggestions are written: `suggestions/`, or `.gambit/suggestions/` for private data
    /// (its phrases and names in the clear, kept beside the run's other unmasked files).
    static func suggestionsFile(in run: URL, variant: String, isPrivate: Bool) throws -> URL {
        try OutputPath.file(
            in: run, isPrivate ? [".gambit", "suggestions"] : ["suggestions"], PathComponent(variant),
            pathExtension: "yaml")
    }

    /// The results of the run whose output folder is `run`; a file, or a folder without them, is refused with
    /// what to give instead.
    static func results(in run: URL) throws -> RunResults {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: run.path, isDirectory: &isFolder)
        let file = Runner.resultsFile(in: run)
        guard exists, isFolder.boolValue, FileManager.default.fileExists(atPath: file.path) else {
            let what =
                !exists
                ? "no such folder" : !isFolder.boolValue ? "a file, not a folder" : "no .gambit/results.json in it"
            throw ValidationError(
                "\(run.path): \(what); gambit diagnose takes the output folder of `gambit run` (its --output, "
                    + "which holds .gambit/results.json)")
        }
        return try RunResults.load(from: file)
    }

    /// The journal of an interrupted diagnosis, which the next one resumes from.
    static func journalFile(in run: URL) -> URL {
        run.appendingPathComponent(".gambit/diagnosis.journal")
    }

    func run() throws {
        let runURL = URL(fileURLWithPath: runFolder)
        let resultsURL = Runner.resultsFile(in: runURL)
        let results = try Self.results(in: runURL)
        // Written under the folder's lock, taken once the folder is known to hold a run's results: a run, sweep or
        // merge there meanwhile would overwrite the diagnosis, or be overwritten by it.
        let lock = try OutputFolder.lock(runURL)
        defer { lock.release() }
        // The suite is found from the run's folder, not from this working directory.
        let suiteURL =
            suite.map { URL(fileURLWithPath: $0) } ?? Runner.suiteFile(of: results, readFrom: resultsURL)
            ?? URL(fileURLWithPath: results.run.suite.path)
        var suiteFile = try Suite.load(suiteURL)
        guard suiteFile.contentHash == results.run.suite.contentHash else {
            throw ValidationError(
                "\(suiteURL.path): the suite or a file it names changed since the run (content hash "
                    + "\(suiteFile.contentHash.prefix(19)) against the run's \(results.run.suite.contentHash.prefix(19))); "
                    + "run it again, or name the run's suite with --suite")
        }
        for index in suiteFile.corpora.indices {
            if let split = results.corpus(named: suiteFile.corpora[index].name)?.split, split != "all" {
                suiteFile.corpora[index].split = split
            }
        }
        let unknown = variant.filter { name in !results.variants.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw ValidationError(
                "--variant \(unknown.joined(separator: ", ")): not in the run (it has "
                    + results.variants.map(\.name).joined(separator: ", ") + ")")
        }
        let cacheFolder =
            cacheDir.map { URL(fileURLWithPath: $0) }
            ?? (suiteFile.cacheInOutput ? Runner.outputCacheFolder(in: runURL) : nil)
        let toolchain = Toolchain(cacheFolder: cacheFolder)
        let progress = ProgressLine.standardError()
        defer { progress.finish() }
        let journalURL = Self.journalFile(in: runURL)
        try OutputPath.check(journalURL, isInside: runURL)
        if fresh { try? FileManager.default.removeItem(at: journalURL) }
        let done = Dictionary(
            Journal.entries(journalURL, as: JournalEntry.self).map { ($0.key, $0) },
            uniquingKeysWith: { _, last in last })
        let journal = try Journal(appendingTo: journalURL)
        defer { journal.close() }
        var report = DiagnosisReport(suite: results.run.suite.name, variants: [])
        for info in results.variants where variant.isEmpty || variant.contains(info.name) {
            guard let spec = suiteFile.variants.first(where: { $0.name == info.name }) else { continue }
            report.variants.append(
                try diagnose(
                    spec, in: results, suite: suiteFile, toolchain: toolchain, progress: progress,
                    journal: (done, journal)))
        }
        progress.finish()
        // The diagnosis joins the run's results (beside the variants an earlier `--variant` diagnosed), and every
        // report is written again with its section.
        let kept = (results.diagnosis?.variants ?? []).filter { old in
            !report.variants.contains { $0.variant == old.variant }
        }
        let printed = report.variants.map(\.variant)
        report.variants = results.variants.compactMap { info in
            report.variants.first { $0.variant == info.name } ?? kept.first { $0.variant == info.name }
        }
        var diagnosed = results
        diagnosed.diagnosis = report
        let written = try writeSuggestions(
            report.variants.filter { printed.contains($0.variant) }, suite: suiteFile, in: runURL)
        try diagnosed.write(to: Runner.resultsFile(in: runURL))
        _ = try ReportWriter.writeAll(diagnosed, to: runURL)
        let masked = diagnosed.redactingPrivateTerms().diagnosis?.variants ?? []
        for (variant, name) in zip(masked, report.variants.map(\.variant)) where printed.contains(name) {
            print(Self.text(variant))
        }
        print("wrote the diagnosis into \(runFolder)/report.html, report.json and summary.md")
        for file in written { print("wrote suggestions: \(file)") }
    }

    /// Each diagnosed variant's suggestions as a patch (see ``suggestionsFile(in:variant:isPrivate:)``), replacing an
    /// earlier diagnosis's; the files written, as the terminal names them.
    func writeSuggestions(_ variants: [VariantDiagnosis], suite suiteFile: Suite, in runURL: URL) throws -> [String] {
        var written: [String] = []
        for diagnosis in variants {
            guard let spec = suiteFile.variants.first(where: { $0.name == diagnosis.variant }) else { continue }
            let data = try Toolchain.loadTrainingData(spec.training)
            for isPrivate in [false, true] {
                try? FileManager.default.removeItem(
                    at: try Self.suggestionsFile(in: runURL, variant: diagnosis.variant, isPrivate: isPrivate))
            }
            let file = try Self.suggestionsFile(in: runURL, variant: diagnosis.variant, isPrivate: data.isPrivate)
            guard let suggestions = diagnosis.suggestions, !suggestions.isEmpty else { continue }
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            // The training file as the command line would name it from here.
            let here = FileManager.default.currentDirectoryPath + "/"
            let training =
                spec.training.path.hasPrefix(here)
                ? String(spec.training.path.dropFirst(here.count)) : spec.training.path
            try suggestions.patch(for: data, variant: diagnosis.variant, training: training).write(
                to: file, atomically: true, encoding: .utf8)
            written.append(data.isPrivate ? "\(file.deletingLastPathComponent().path)/ (private data)" : file.path)
        }
        return written
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
    func diagnose(
        _ spec: Suite.Variant, in results: RunResults, suite: Suite, toolchain: Toolchain, progress: ProgressLine,
        journal: (done: [String: JournalEntry], file: Journal)
    ) throws -> VariantDiagnosis {
        let work = try VariantExamination.Work(spec, in: results, suite: suite, allowOutsidePaths: allowOutsidePaths)
        guard !work.errors.isEmpty else {
            return VariantDiagnosis(
                variant: spec.name, weight: spec.weight, utterances: [], terms: [], decodeSeconds: 0,
                diagnoseSeconds: 0)
        }
        let examination = try VariantExamination(
            spec, in: results, run: URL(fileURLWithPath: runFolder), suite: suite, toolchain: toolchain,
            progress: progress, journal: journal)
        var variant = try examination.errors(work)
        variant.antiContext = try examination.cost(of: variant.fixingWeights, on: work.antiContext)
        if suggest { variant.suggestions = examination.suggestions(for: variant, work: work) }
        variant.failures = examination.failures.isEmpty ? nil : examination.failures
        for failure in examination.failures { progress.log("diagnose: \(examination.masker.fragment(failure))") }
        return variant
    }

    /// A variant's sentence, its terms and its utterances, as the terminal shows them.
    static func text(_ variant: VariantDiagnosis) -> String {
        var lines = ["\(variant.variant) (weight \(variant.weight)): \(variant.sentence)"]
        if !variant.terms.isEmpty {
            let width = max(4, variant.terms.map(\.word.count).max() ?? 0)
            lines.append("  " + "term".padding(toLength: width, withPad: " ", startingAt: 0) + "  said  errors  causes")
            for term in variant.terms {
                let fix = term.smallestFix(cost: variant.antiContext)
                lines.append(
                    "  " + term.word.padding(toLength: width, withPad: " ", startingAt: 0)
                        + String(term.occurrences).leftPadded(to: 6) + String(term.errors).leftPadded(to: 8) + "  "
                        + ([term.causes] + (fix.map { [$0] } ?? [])).joined(separator: "; "))
            }
        }
        if !variant.utterances.isEmpty {
            var source = ""
            if let read = variant.latticesRead, let decoded = variant.decodedAgain {
                source = "; \(read) read from the run's lattices, \(decoded) decoded again"
            }
            lines.append(
                "  \(variant.examined) in \(Output.seconds(variant.diagnoseSeconds)) "
                    + "(their customized decode: \(Output.seconds(variant.decodeSeconds))\(source))")
        }
        if let cost = variant.antiContext {
            lines.append(
                "  cost of the fixing weights: \(cost.utterances) anti-context utterances rescored in "
                    + "\(Output.seconds(cost.seconds)) (their customized decode: \(Output.seconds(cost.decodeSeconds)))"
            )
        }
        if let suggestions = variant.suggestions {
            lines.append("  suggestions (\(suggestions.provenance)): \(suggestions.tally)")
            for found in suggestions.pronunciations {
                let phones = found.phones.isEmpty ? "" : " (\(found.phones.joined(separator: " ")))"
                lines.append("    \(found.word): \(found.xsampa)\(phones), \(found.evidence)")
            }
            for word in suggestions.examined.keys.sorted() {
                lines.append("    \(word): no pronunciation fits clearly better (\(suggestions.examined[word]!))")
            }
            for count in suggestions.counts {
                lines.append(
                    "    \(count.kind.rawValue) \"\(count.text)\": \(count.from) → \(count.to), \(count.evidence)")
            }
        }
        for failure in variant.failures ?? [] { lines.append("  not examined: \(failure)") }
        return lines.joined(separator: "\n")
    }
}
