import ArgumentParser
import Audio
import Foundation
import LanguageModel
import Recognition
import Reporting
import Results
import Runner
import Scoring

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

    @Flag(help: "Ignore the diagnosis journal and examine every utterance again.")
    var fresh = false

    /// The journal of an interrupted diagnosis, which the next one resumes from.
    static func journalFile(in run: URL) -> URL {
        run.appendingPathComponent(".gambit/diagnosis.journal")
    }

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
        try diagnosed.write(to: Runner.resultsFile(in: runURL))
        _ = try ReportWriter.writeAll(diagnosed, to: runURL)
        let masked = diagnosed.redactingPrivateTerms().diagnosis?.variants ?? []
        for (variant, name) in zip(masked, report.variants.map(\.variant)) where printed.contains(name) {
            print(Self.text(variant))
        }
        print("wrote the diagnosis into \(runFolder)/report.html, report.json and summary.md")
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
    }

    /// One variant's errors, over every corpus it was decoded on; then what its fixing weights cost on its
    /// anti-context corpora. Each utterance's answer is journaled as it comes, so an interrupted diagnosis
    /// resumes; one whose audio cannot be read or decoded is reported and counted, and the rest go on.
    func diagnose(
        _ spec: Suite.Variant, in results: RunResults, suite: Suite, toolchain: Toolchain, progress: ProgressLine,
        journal: (done: [String: JournalEntry], file: Journal)
    ) throws -> VariantDiagnosis {
        let normalizer = results.run.settings.normalizer
        var work: [(corpus: String, record: UtteranceRecord, url: URL, errors: [BoostedWordError])] = []
        var antiContext: [(corpus: String, record: UtteranceRecord, url: URL, boosted: Set<String>)] = []
        var occurrences: [String: Int] = [:]
        for system in results.systems where system.mode == .customized && system.variant == spec.name {
            guard let corpus = suite.corpora.first(where: { $0.name == system.corpus }) else { continue }
            let entries = try suite.scoredEntries(of: corpus, allowOutsidePaths: allowOutsidePaths)
            let audio = Dictionary(entries.map { ($0.id, $0.audio) }, uniquingKeysWith: { a, _ in a })
            let global = Set(Aggregation.boostedWords(for: system, in: results))
            let isAntiContext = results.corpus(named: system.corpus)?.role == .antiContext
            for record in system.utterances where record.failure == nil {
                guard let boosted = Aggregation.scoredBoostedWords(record, global: global, normalizer: normalizer)
                else { continue }
                for word in record.alignment.compactMap(\.reference) where boosted.contains(word) {
                    occurrences[word, default: 0] += 1
                }
                guard let url = audio[record.id] else { continue }
                if isAntiContext { antiContext.append((system.corpus, record, url, boosted)) }
                let errors = BoostedWordError.errors(in: record.alignment, boosted: boosted)
                if !errors.isEmpty { work.append((system.corpus, record, url, errors)) }
            }
        }
        let weight = spec.weight
        guard !work.isEmpty else {
            return VariantDiagnosis(
                variant: spec.name, weight: weight, utterances: [], terms: [], decodeSeconds: 0, diagnoseSeconds: 0)
        }
        let artifact = try toolchain.prepare(spec.training, options: spec.prepareOptions).artifact
        let custom = Toolchain.configuration(artifact, weight: weight)
        // Everything an answer depends on besides the utterance: the model, its weight, the engine's settings.
        let basis = [
            spec.name, artifact.manifest.fingerprint, "\(weight)", "\(custom.containsBaseModel)",
            results.run.engine.decoderArguments.joined(separator: " "), results.run.engine.acousticModelFingerprint,
            results.run.suite.contentHash,
        ].joined(separator: "|")
        func key(_ kind: String, _ corpus: String, _ record: UtteranceRecord, _ extra: String = "") -> String {
            [kind, basis, corpus, record.id, record.hypothesis, extra].joined(separator: "|")
        }
        var made: Diagnostician?
        func diagnostician() throws -> Diagnostician {
            if let made { return made }
            let lint = try Toolchain.loadTrainingData(spec.training).lint(limits: spec.prepareOptions.limits)
            made = try Diagnostician(
                model: toolchain.model, settings: suite.decoder, custom: custom,
                flaggedPronunciations: artifact.manifest.vocabulary.wordsWithOnlyFlaggedPronunciations(lint))
            return made!
        }
        let loader = AudioLoader()
        var failures: [String] = []
        var seconds = 0.0
        var utterances: [UtteranceDiagnosis] = []
        let stage = "diagnose: \(spec.name)"
        for (index, item) in work.enumerated() {
            defer { progress.update(stage, index + 1, work.count) }
            let itemKey = key("errors", item.corpus, item.record)
            var diagnoses = journal.done[itemKey]?.diagnoses
            if let done = journal.done[itemKey] {
                seconds += done.seconds
            } else {
                var clock = Stopwatch()
                do {
                    let clip = try loader.load(item.url)
                    diagnoses = try diagnostician().diagnose(
                        Diagnostician.Utterance(
                            samples: clip.samples, reference: item.record.alignment.compactMap(\.reference),
                            errors: item.errors))
                } catch {
                    failures.append("\(item.corpus)/\(item.record.id): \(error)")
                    continue
                }
                let lap = clock.lap()
                seconds += lap
                try journal.file.append(JournalEntry(key: itemKey, seconds: lap, diagnoses: diagnoses))
            }
            utterances.append(
                UtteranceDiagnosis(
                    corpus: item.corpus, id: item.record.id, reference: item.record.reference,
                    hypothesis: item.record.hypothesis, diagnoses: diagnoses ?? []))
        }
        var variant = VariantDiagnosis(
            variant: spec.name, weight: weight, utterances: utterances,
            terms: VariantDiagnosis.terms(utterances, occurrences: occurrences, weight: weight),
            decodeSeconds: utterances.reduce(0) { total, u in
                total + (work.first { $0.corpus == u.corpus && $0.record.id == u.id }?.record.decodeSeconds ?? 0)
            }, diagnoseSeconds: seconds)
        // What the fixing weights cost where nobody says the boosted words.
        let weights = variant.fixingWeights
        if !weights.isEmpty, !antiContext.isEmpty, !custom.containsBaseModel {
            let extra = ([weight] + weights).map { "\($0)" }.joined(separator: ",")
            var own = AntiContextCost.AtWeight(weight: weight, errors: 0, boostedInsertions: 0)
            var at = weights.map { AntiContextCost.AtWeight(weight: $0, errors: 0, boostedInsertions: 0) }
            var words = 0
            var counted = 0
            var costSeconds = 0.0
            let costStage = "anti-context cost: \(spec.name)"
            for (index, item) in antiContext.enumerated() {
                defer { progress.update(costStage, index + 1, antiContext.count) }
                let itemKey = key("anti-context", item.corpus, item.record, extra)
                var rescored = journal.done[itemKey]?.rescored
                if let done = journal.done[itemKey] {
                    costSeconds += done.seconds
                } else {
                    var clock = Stopwatch()
                    do {
                        let clip = try loader.load(item.url)
                        let found = try diagnostician().rescored(clip.samples, weights: [weight] + weights)
                        rescored = Dictionary(uniqueKeysWithValues: found.map { ("\($0.key)", $0.value) })
                    } catch {
                        failures.append("\(item.corpus)/\(item.record.id): \(error)")
                        continue
                    }
                    let lap = clock.lap()
                    costSeconds += lap
                    try journal.file.append(JournalEntry(key: itemKey, seconds: lap, rescored: rescored))
                }
                guard let rescored, let ownWords = rescored["\(weight)"] else { continue }
                let reference = item.record.alignment.compactMap(\.reference)
                func measure(_ hypothesis: String, into point: inout AntiContextCost.AtWeight) {
                    let pairs = Aligner.align(
                        reference: reference, hypothesis: normalizer.normalize(hypothesis),
                        mode: results.run.settings.alignmentMode
                    ).pairs
                    point.errors += pairs.filter { $0.reference != $0.hypothesis }.count
                    point.boostedInsertions +=
                        BoostedWordError.errors(in: pairs, boosted: item.boosted).filter { $0.kind == .inserted }.count
                }
                measure(ownWords, into: &own)
                for i in at.indices { measure(rescored["\(at[i].weight)"] ?? "", into: &at[i]) }
                words += reference.count
                counted += 1
            }
            if counted > 0 {
                variant.antiContext = AntiContextCost(
                    corpora: Array(Set(antiContext.map(\.corpus))).sorted(), utterances: counted, referenceWords: words,
                    own: own, weights: at, decodeSeconds: antiContext.reduce(0) { $0 + $1.record.decodeSeconds },
                    seconds: costSeconds)
            }
        }
        variant.failures = failures.isEmpty ? nil : failures
        for failure in failures { progress.log("diagnose: \(failure)") }
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
            lines.append(
                "  \(variant.examined) in \(Output.seconds(variant.diagnoseSeconds)) "
                    + "(their customized decode: \(Output.seconds(variant.decodeSeconds)))")
        }
        if let cost = variant.antiContext {
            lines.append(
                "  cost of the fixing weights: \(cost.utterances) anti-context utterances rescored in "
                    + "\(Output.seconds(cost.seconds)) (their customized decode: \(Output.seconds(cost.decodeSeconds)))"
            )
        }
        for failure in variant.failures ?? [] { lines.append("  not examined: \(failure)") }
        return lines.joined(separator: "\n")
    }
}
