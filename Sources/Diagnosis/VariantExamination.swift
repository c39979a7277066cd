import Audio
import Formats
import Foundation
import LanguageModel
import Recognition
import Results
import Runner
import Scoring

/// One variant's part of `gambit diagnose`: its errors examined one utterance at a time, then what its fixing
/// weights cost on its anti-context corpora. Each utterance's answer is journaled as it comes, so an
/// interrupted diagnosis resumes; one whose audio cannot be read or decoded is named in ``failures``, and the
/// rest go on.
final class VariantExamination {
    /// What a variant's diagnosis covers: the utterances with boosted-word errors, the anti-context utterances,
    /// and how often the references say each boosted word.
    struct Work {
        var errors: [(corpus: String, record: UtteranceRecord, url: URL, errors: [BoostedWordError])] = []
        var antiContext: [(corpus: String, record: UtteranceRecord, url: URL, boosted: Set<String>)] = []
        var occurrences: [String: Int] = [:]
        /// Where the domain corpora say each boosted word: the utterance, its audio, and the word's place among
        /// its reference words (what a pronunciation is measured on).
        var said: [String: [(corpus: String, id: String, url: URL, reference: [String], index: Int)]] = [:]
        /// The split each corpus was scored on ("all" when it names none).
        var splits: [String: String] = [:]

        init(_ spec: Suite.Variant, in results: RunResults, suite: Suite, allowOutsidePaths: Bool) throws {
            let normalizer = results.run.settings.normalizer
            for system in results.systems
            where system.mode == .customized && system.variant == spec.name && system.recognizer == nil {
                guard let corpus = suite.corpora.first(where: { $0.name == system.corpus }) else { continue }
                let entries = try suite.scoredEntries(of: corpus, allowOutsidePaths: allowOutsidePaths)
                let audio = Dictionary(entries.map { ($0.id, $0.audio) }, uniquingKeysWith: { a, _ in a })
                let global = Set(Aggregation.boostedWords(for: system, in: results))
                let isAntiContext = results.corpus(named: system.corpus)?.role == .antiContext
                splits[system.corpus] = results.corpus(named: system.corpus)?.split ?? "all"
                for record in system.utterances where record.failure == nil {
                    guard let boosted = record.scoredBoostedWords(global: global, normalizer: normalizer)
                    else { continue }
                    let reference = record.alignment.compactMap(\.reference)
                    for word in reference where boosted.contains(word) { occurrences[word, default: 0] += 1 }
                    guard let url = audio[record.id] else { continue }
                    for (index, word) in reference.enumerated() where !isAntiContext && boosted.contains(word) {
                        said[word, default: []].append((system.corpus, record.id, url, reference, index))
                    }
                    if isAntiContext { antiContext.append((system.corpus, record, url, boosted)) }
                    let found = BoostedWordError.errors(in: record.alignment, boosted: boosted)
                    if !found.isEmpty { errors.append((system.corpus, record, url, found)) }
                }
            }
        }
    }

    let spec: Suite.Variant
    let results: RunResults
    let suite: Suite
    let toolchain: Toolchain
    let progress: DiagnosisProgress
    /// The private words of the run's data: what the terminal shows of the variant is masked as the reports mask
    /// it.
    let masker: PrivateTermMasker
    let journal: (done: [String: Diagnoser.JournalEntry], file: Journal)
    let artifact: PreparedArtifact
    let custom: LanguageModelConfiguration
    /// Everything an answer depends on besides the utterance: the model, its weight, the engine's settings.
    let basis: String
    /// Where the run kept its lattices (`gambit run --keep-lattices`).
    let lattices: URL
    let loader = AudioLoader()
    /// Utterances that could not be examined, as "corpus/id: why".
    var failures: [String] = []
    private var made: Diagnostician?

    init(
        _ spec: Suite.Variant, in results: RunResults, run: URL, suite: Suite, toolchain: Toolchain,
        progress: DiagnosisProgress, journal: (done: [String: Diagnoser.JournalEntry], file: Journal)
    ) throws {
        self.spec = spec
        self.results = results
        self.suite = suite
        self.toolchain = toolchain
        self.progress = progress
        masker = PrivateTermMasker(results)
        self.journal = journal
        lattices = Runner.latticeFolder(in: run)
        artifact = try toolchain.prepare(spec.training, options: spec.prepareOptions).artifact
        // A weighted merge tries other weights with its set twin.
        custom = Toolchain.reweightableConfiguration(artifact, weight: spec.weight)
        basis = [
            spec.name, artifact.manifest.fingerprint, "\(spec.weight)", "\(custom.containsBaseModel)",
            results.run.engine.decoderArguments.joined(separator: " "), results.run.engine.acousticModelFingerprint,
            results.run.suite.contentHash,
        ].joined(separator: "|")
    }

    /// The variant's name on the progress lines, its private words masked.
    var shownName: String { masker.fragment(spec.name) }

    func key(_ kind: String, _ corpus: String, _ record: UtteranceRecord, _ extra: String = "") -> String {
        [kind, basis, corpus, record.id, record.hypothesis, extra].joined(separator: "|")
    }

    /// The lattice the run kept of `record`'s decode, when it recorded its key.
    func lattice(of record: UtteranceRecord) -> URL? {
        record.key.map { WorkRequest.latticeFile(key: $0, in: lattices) }
    }

    /// The engine's side, made when the first utterance not in the journal needs it.
    func diagnostician() throws -> Diagnostician {
        if let made { return made }
        let lint = try Toolchain.loadTrainingData(spec.training).lint(limits: spec.prepareOptions.limits)
        made = try Diagnostician(
            model: toolchain.model, settings: suite.decoder, custom: custom,
            flaggedPronunciations: artifact.manifest.vocabulary.wordsWithOnlyFlaggedPronunciations(lint))
        return made!
    }

    /// The journaled answer under `key`, or `compute`'s, journaled; nil (and a failure named) when it throws.
    private func answer(
        _ key: String, _ name: String, seconds: inout Double, _ compute: () throws -> Diagnoser.JournalEntry
    ) throws -> Diagnoser.JournalEntry? {
        if let done = journal.done[key] {
            seconds += done.seconds
            return done
        }
        var clock = Stopwatch()
        var entry: Diagnoser.JournalEntry
        do {
            entry = try compute()
        } catch {
            failures.append("\(name): \(error)")
            return nil
        }
        entry.seconds = clock.lap()
        seconds += entry.seconds
        try journal.file.append(entry)
        return entry
    }

    /// The causes of every error, utterance by utterance.
    func errors(_ work: Work) throws -> VariantDiagnosis {
        var seconds = 0.0
        var sources: [Bool: Int] = [:]
        var utterances: [UtteranceDiagnosis] = []
        for (index, item) in work.errors.enumerated() {
            defer { progress.update("diagnose: \(shownName)", index + 1, work.errors.count) }
            let itemKey = key("errors", item.corpus, item.record)
            let entry = try answer(itemKey, "\(item.corpus)/\(item.record.id)", seconds: &seconds) {
                let clip = try loader.load(item.url)
                let examiner = try diagnostician()
                let read = examiner.latticesRead
                let diagnoses = try examiner.diagnose(
                    Diagnostician.Utterance(
                        samples: clip.samples, reference: item.record.alignment.compactMap(\.reference),
                        errors: item.errors, hypothesis: item.record.hypothesis, lattice: lattice(of: item.record)))
                return Diagnoser.JournalEntry(
                    key: itemKey, seconds: 0, diagnoses: diagnoses, fromLattice: examiner.latticesRead > read)
            }
            guard let entry else { continue }
            if let fromLattice = entry.fromLattice { sources[fromLattice, default: 0] += 1 }
            utterances.append(
                UtteranceDiagnosis(
                    corpus: item.corpus, id: item.record.id, reference: item.record.reference,
                    hypothesis: item.record.hypothesis, diagnoses: entry.diagnoses ?? []))
        }
        let decoded = Dictionary(
            work.errors.map { ("\($0.corpus)/\($0.record.id)", $0.record.decodeSeconds) }, uniquingKeysWith: +)
        var variant = VariantDiagnosis(
            variant: spec.name, weight: spec.weight, utterances: utterances,
            terms: VariantDiagnosis.terms(utterances, occurrences: work.occurrences, weight: spec.weight),
            decodeSeconds: utterances.reduce(0) { $0 + (decoded["\($1.corpus)/\($1.id)"] ?? 0) },
            diagnoseSeconds: seconds)
        if !sources.isEmpty { (variant.latticesRead, variant.decodedAgain) = (sources[true] ?? 0, sources[false] ?? 0) }
        if artifact.hasSetTwin { variant.weightsTriedWith = LanguageModelMix.set.rawValue }
        return variant
    }

    /// What the fixing weights cost where nobody says the boosted words: the anti-context lattices rescored at the
    /// variant's own weight and at each fixing weight (a weighted merge's with its set twin). Nil when there is
    /// nothing to price, or the model is a history or constant merge.
    func cost(
        of weights: [Double],
        on antiContext: [(corpus: String, record: UtteranceRecord, url: URL, boosted: Set<String>)]
    )
        throws -> AntiContextCost?
    {
        guard !weights.isEmpty, !antiContext.isEmpty, !custom.containsBaseModel else { return nil }
        let weight = spec.weight
        let extra = ([weight] + weights).map { "\($0)" }.joined(separator: ",")
        var own = AntiContextCost.AtWeight(weight: weight, errors: 0, boostedInsertions: 0)
        var at = weights.map { AntiContextCost.AtWeight(weight: $0, errors: 0, boostedInsertions: 0) }
        var (words, counted, seconds) = (0, 0, 0.0)
        for (index, item) in antiContext.enumerated() {
            defer { progress.update("anti-context cost: \(shownName)", index + 1, antiContext.count) }
            let itemKey = key("anti-context", item.corpus, item.record, extra)
            let entry = try answer(itemKey, "\(item.corpus)/\(item.record.id)", seconds: &seconds) {
                // A kept lattice is all rescoring needs: the audio is read only without one, or when it cannot be read.
                let file = lattice(of: item.record).flatMap {
                    FileManager.default.fileExists(atPath: $0.path) ? $0 : nil
                }
                var found: [Double: String]
                do {
                    let source: Diagnostician.RescoreSource =
                        if let file { .keptLattice(file) } else { .audio(try loader.load(item.url).samples) }
                    found = try diagnostician().rescored(source, weights: [weight] + weights)
                } catch  where file != nil {
                    found = try diagnostician().rescored(
                        .audio(try loader.load(item.url).samples), weights: [weight] + weights)
                }
                let rescored = Dictionary(uniqueKeysWithValues: found.map { ("\($0.key)", $0.value) })
                return Diagnoser.JournalEntry(key: itemKey, seconds: 0, rescored: rescored)
            }
            guard let rescored = entry?.rescored, let ownWords = rescored["\(weight)"] else { continue }
            let reference = item.record.alignment.compactMap(\.reference)
            func measure(_ hypothesis: String, into point: inout AntiContextCost.AtWeight) {
                let pairs = Aligner.align(
                    reference: reference, hypothesis: results.run.settings.normalizer.normalize(hypothesis),
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
        guard counted > 0 else { return nil }
        return AntiContextCost(
            corpora: Array(Set(antiContext.map(\.corpus))).sorted(), utterances: counted, referenceWords: words,
            own: own, weights: at, decodeSeconds: antiContext.reduce(0) { $0 + $1.record.decodeSeconds },
            seconds: seconds)
    }
}
