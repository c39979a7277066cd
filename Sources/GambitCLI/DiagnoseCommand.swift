import ArgumentParser
import Audio
import Foundation
import LanguageModel
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
            nobody said it, the utterance is decoded again keeping its lattice, its reference is force-aligned \
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

    @Option(help: "The suite file (default: the one the run names, from where it ran).")
    var suite: String?

    @Option(help: "The models' cache (default: the run's, as `gambit run` finds it).")
    var cacheDir: String?

    @Flag(help: "Read audio wherever manifests point (as `gambit run --allow-outside-paths`).")
    var allowOutsidePaths = false

    func run() throws {
        let runURL = URL(fileURLWithPath: runFolder)
        let results = try RunResults.load(from: Runner.resultsFile(in: runURL))
        let suiteURL = URL(fileURLWithPath: suite ?? results.run.suite.path)
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
        var report = DiagnosisReport(suite: results.run.suite.name, variants: [])
        for info in results.variants where variant.isEmpty || variant.contains(info.name) {
            guard let spec = suiteFile.variants.first(where: { $0.name == info.name }) else { continue }
            report.variants.append(
                try diagnose(spec, in: results, suite: suiteFile, toolchain: toolchain, progress: progress))
        }
        progress.finish()
        // The diagnosis joins the run's results, and every report is written again with its section.
        var diagnosed = results
        diagnosed.diagnosis = report
        try diagnosed.write(to: Runner.resultsFile(in: runURL))
        _ = try ReportWriter.writeAll(diagnosed, to: runURL)
        for variant in diagnosed.redactingPrivateTerms().diagnosis?.variants ?? [] { print(Self.text(variant)) }
        print("wrote the diagnosis into \(runFolder)/report.html, report.json and summary.md")
    }

    /// One variant's errors, over every corpus it was decoded on.
    func diagnose(
        _ spec: Suite.Variant, in results: RunResults, suite: Suite, toolchain: Toolchain, progress: ProgressLine
    ) throws -> VariantDiagnosis {
        let normalizer = results.run.settings.normalizer
        var work: [(corpus: String, record: UtteranceRecord, url: URL, errors: [BoostedWordError])] = []
        var occurrences: [String: Int] = [:]
        for system in results.systems where system.mode == .customized && system.variant == spec.name {
            guard let corpus = suite.corpora.first(where: { $0.name == system.corpus }) else { continue }
            let entries = try suite.scoredEntries(of: corpus, allowOutsidePaths: allowOutsidePaths)
            let audio = Dictionary(entries.map { ($0.id, $0.audio) }, uniquingKeysWith: { a, _ in a })
            let global = Set(Aggregation.boostedWords(for: system, in: results))
            for record in system.utterances where record.failure == nil {
                guard let boosted = Aggregation.scoredBoostedWords(record, global: global, normalizer: normalizer)
                else { continue }
                for word in record.alignment.compactMap(\.reference) where boosted.contains(word) {
                    occurrences[word, default: 0] += 1
                }
                let errors = BoostedWordError.errors(in: record.alignment, boosted: boosted)
                guard !errors.isEmpty, let url = audio[record.id] else { continue }
                work.append((system.corpus, record, url, errors))
            }
        }
        let weight = spec.weight
        guard !work.isEmpty else {
            return VariantDiagnosis(
                variant: spec.name, weight: weight, utterances: [], terms: [], decodeSeconds: 0, diagnoseSeconds: 0)
        }
        let artifact = try toolchain.prepare(spec.training, options: spec.prepareOptions).artifact
        let lint = try Toolchain.loadTrainingData(spec.training).lint(limits: spec.prepareOptions.limits)
        var clock = Stopwatch()
        let diagnostician = try Diagnostician(
            model: toolchain.model, settings: suite.decoder, custom: Toolchain.configuration(artifact, weight: weight),
            flaggedPronunciations: artifact.manifest.vocabulary.wordsWithOnlyFlaggedPronunciations(lint))
        let loader = AudioLoader()
        var clips: [Diagnostician.Utterance] = []
        for item in work {
            let clip = try loader.load(item.url)
            clips.append(
                Diagnostician.Utterance(
                    samples: clip.samples, reference: item.record.alignment.compactMap(\.reference),
                    errors: item.errors))
        }
        let stage = "diagnose: \(spec.name)"
        let found = try diagnostician.diagnose(clips) { done, total in progress.update(stage, done, total) }
        let seconds = clock.lap()
        let utterances = zip(work, found).map { item, diagnoses in
            UtteranceDiagnosis(
                corpus: item.corpus, id: item.record.id, reference: item.record.reference,
                hypothesis: item.record.hypothesis, diagnoses: diagnoses)
        }
        return VariantDiagnosis(
            variant: spec.name, weight: weight, utterances: utterances,
            terms: VariantDiagnosis.terms(utterances, occurrences: occurrences, weight: weight),
            decodeSeconds: work.reduce(0) { $0 + $1.record.decodeSeconds }, diagnoseSeconds: seconds)
    }

    /// A variant's sentence, its terms and its utterances, as the terminal shows them.
    static func text(_ variant: VariantDiagnosis) -> String {
        var lines = ["\(variant.variant) (weight \(variant.weight)): \(variant.sentence)"]
        guard !variant.terms.isEmpty else { return lines.joined(separator: "\n") }
        let width = max(4, variant.terms.map(\.word.count).max() ?? 0)
        lines.append("  " + "term".padding(toLength: width, withPad: " ", startingAt: 0) + "  said  errors  causes")
        for term in variant.terms {
            lines.append(
                "  " + term.word.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(term.occurrences).leftPadded(to: 6) + String(term.errors).leftPadded(to: 8) + "  "
                    + ([term.causes] + (term.smallestFix.map { [$0] } ?? [])).joined(separator: "; "))
        }
        lines.append(
            "  \(variant.examined) in \(Output.seconds(variant.diagnoseSeconds)) "
                + "(their customized decode: \(Output.seconds(variant.decodeSeconds)))")
        return lines.joined(separator: "\n")
    }
}
