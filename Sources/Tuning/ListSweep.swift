import Foundation
import Recognition
import Results
import Runner
import TrainingData

/// What `gambit sweep --lists` sweeps.
public struct ListSweepOptions: Sendable {
    /// The list-taking recognizer (one with `phraseLists:`).
    public var recognizer: String
    /// The variant whose list is swept; nil for the first the recognizer's lists take.
    public var variant: String?
    /// List lengths, in the lever's unit.
    public var lengths: [Int]
    /// Distractors drawn into each list.
    public var distractors: [Int]
    public var workers: Int
    public var workerExecutable: URL
    public var allowOutsidePaths = false
    public var fresh = false

    public init(
        recognizer: String, variant: String? = nil, lengths: [Int] = [10, 25, 50, 100],
        distractors: [Int] = [0, 100, 500], workers: Int, workerExecutable: URL
    ) {
        self.recognizer = recognizer
        self.variant = variant
        self.lengths = lengths
        self.distractors = distractors
        self.workers = workers
        self.workerExecutable = workerExecutable
    }
}

/// How long a recognizer's phrase list should be, and how many unrelated terms it tolerates: "tuning phrase counts
/// against the budget" for the list lever.
///
/// Each length is one run of the recognizer alone (``Suite/decodesBuiltIn`` off) on the dev split of the variant's
/// domain corpus and of the suite's anti-context corpora, with one global list system per distractor count; the
/// runs share a journal, so the baseline is decoded once and a stopped sweep resumes. Distractors are rare words
/// of the base dictionary that no reference of those corpora says (as the custom model's scaling curve draws
/// them), so every one heard is a false alarm. The length chosen on dev is then decoded once on the test split.
public final class ListSweep {
    let suite: Suite
    let options: ListSweepOptions
    let toolchain: Toolchain
    /// Where the sweep's runs keep their journals and files (inside the output's data folder).
    let folder: URL
    /// Called with (stage, done, total) as a run decodes.
    public var progress: (@Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void)?
    public var log: (String) -> Void = { _ in }
    /// The output folders decoded into so far: `--fresh` forgets a folder's journal once, before its first run,
    /// not before every length (the baseline would be decoded again each time).
    var started: Set<String> = []

    public init(suite: Suite, options: ListSweepOptions, toolchain: Toolchain = Toolchain(), folder: URL) {
        self.suite = suite
        self.options = options
        self.toolchain = toolchain
        self.folder = folder
    }

    /// What the sweep decodes: the recognizer and its lever, the variant, its domain corpus, the anti-context ones.
    struct Target {
        var recognizer: ExternalRecognizer
        var lever: PhraseListLever
        var variant: Suite.Variant
        var domain: Suite.Corpus
        var antiContext: [Suite.Corpus]
    }

    func target() throws -> Target {
        guard let recognizer = suite.recognizers.first(where: { $0.name == options.recognizer }) else {
            throw ListSweepError(
                "the suite has no recognizer '\(options.recognizer)' (it has "
                    + "\(suite.recognizers.map(\.name).joined(separator: ", ")))")
        }
        guard let lever = recognizer.phraseLists, recognizer.transcripts == nil else {
            throw ListSweepError("recognizer '\(recognizer.name)' takes no phrase list: give it 'phraseLists:'")
        }
        let decoded = suite.corpora.filter { recognizer.corpora?.contains($0.name) ?? true }
        let candidates = suite.variants.filter { variant in
            (lever.variants?.contains(variant.name) ?? true)
                && decoded.contains { $0.role == .domain && suite.variants(for: $0).contains(variant) }
        }
        guard let variant = options.variant.map({ name in candidates.first { $0.name == name } }) ?? candidates.first
        else {
            throw ListSweepError(
                options.variant.map {
                    "variant '\($0)' is not one whose lists \(recognizer.name) takes on a domain "
                        + "corpus it decodes (those are: \(candidates.map(\.name).joined(separator: ", ")))"
                }
                    ?? "\(recognizer.name) takes no variant's list on a domain corpus it decodes")
        }
        let domain = decoded.first { $0.role == .domain && suite.variants(for: $0).contains(variant) }!
        return Target(
            recognizer: recognizer, lever: lever, variant: variant, domain: domain,
            antiContext: decoded.filter { $0.role == .antiContext })
    }

    /// The sweep: every point on dev, the recommendation, and its test.
    public func run() throws -> ListSweepResults {
        let target = try target()
        let lengths = Array(Set(options.lengths)).sorted()
        let counts = Array(Set(options.distractors)).sorted()
        guard !lengths.isEmpty, lengths.allSatisfy({ $0 >= 1 }), counts.allSatisfy({ $0 >= 0 }) else {
            throw ListSweepError("list lengths must be at least 1 and distractor counts at least 0")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (pool, source) = try distractorPool(target, count: counts.max() ?? 0)
        let devAntiContext = target.antiContext.compactMap { corpus -> Suite.Corpus? in
            var dev = corpus
            dev.split = "dev"
            return (try? suite.scoredEntries(of: dev, allowOutsidePaths: options.allowOutsidePaths)) == nil ? nil : dev
        }
        var devDomain = target.domain
        devDomain.split = "dev"
        var points: [ListSweepPoint] = []
        var available = 0
        for (index, length) in lengths.enumerated() {
            log(
                "list of \(length) \(target.lever.countsWords ? "words" : "phrases") (\(index + 1) of \(lengths.count))"
            )
            let modes = counts.map { PhraseListLever.Mode(.global, distractors: $0) }
            let results = try decode(
                target, domain: devDomain, antiContext: devAntiContext, length: length, modes: modes, pool: pool,
                output: "dev")
            for mode in modes {
                guard let point = point(results, target: target, length: length, mode: mode) else { continue }
                points.append(point)
            }
            available = results.systems.compactMap { $0.list?.termsBeforeCut }.first ?? available
        }
        var sweep = ListSweepResults(
            recognizer: target.recognizer.name, variant: target.variant.name, corpus: target.domain.name,
            split: "dev", unit: target.lever.countsWords ? "words" : "phrases", termsAvailable: available,
            distractorSource: source, points: points)
        if let (chosen, reason) = ListSweepRecommendation.choose(points) {
            log("judging a list of \(chosen.length) on \(target.domain.split ?? "all") utterances")
            let results = try decode(
                target, domain: target.domain, antiContext: target.antiContext, length: chosen.length,
                modes: [PhraseListLever.Mode(.global)], pool: pool, output: "test")
            if let test = point(results, target: target, length: chosen.length, mode: PhraseListLever.Mode(.global)) {
                sweep.recommendation = ListSweepRecommendation(
                    length: chosen.length, reason: reason, testSplit: target.domain.split ?? "all", test: test.domain,
                    testAntiContext: test.antiContext)
            }
        }
        return sweep
    }

    /// The distractors, written to a file of the sweep's folder: rare base-dictionary words no reference of the
    /// swept corpora says and the variant does not boost.
    func distractorPool(_ target: Target, count: Int) throws -> (file: URL?, source: String) {
        guard count > 0 else { return (nil, "none") }
        let data = try Toolchain.loadTrainingData(target.variant.training)
        var excluded = Set(try toolchain.compiler.boosted(data, options: target.variant.prepareOptions).words)
        for corpus in [target.domain] + target.antiContext {
            var all = corpus
            all.split = nil
            for entry in try suite.scoredEntries(of: all, allowOutsidePaths: options.allowOutsidePaths) {
                excluded.formUnion(WordTokenizer.tokenize(entry.text))
            }
        }
        let words = try ScalingCurve.distractors(count: count, excluding: excluded, compiler: toolchain.compiler)
        let file = folder.appendingPathComponent("distractors.txt")
        try (["# rare base-dictionary words no reference says, drawn by gambit sweep --lists"] + words)
            .joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        return (file, "\(words.count) rare words of the base dictionary that no reference says")
    }

    /// One run of the recognizer alone: its baseline and one global list system of `length` per mode.
    func decode(
        _ target: Target, domain: Suite.Corpus, antiContext: [Suite.Corpus], length: Int,
        modes: [PhraseListLever.Mode], pool: URL?, output: String
    ) throws -> RunResults {
        var derived = suite
        derived.decodesBuiltIn = false
        derived.modes = [.baseline, .customized]
        derived.corpora = [domain] + antiContext
        var variant = target.variant
        variant.corpora = [domain.name]
        derived.variants = [variant]
        var recognizer = target.recognizer
        recognizer.customization = nil
        recognizer.corpora = nil
        var lever = target.lever
        lever.limit = length
        lever.modes = modes
        lever.variants = [variant.name]
        lever.distractorFile = pool?.path
        recognizer.phraseLists = lever
        derived.recognizers = [recognizer]
        var run = RunOptions(
            output: folder.appendingPathComponent(output), workers: options.workers,
            workerExecutable: options.workerExecutable, fresh: options.fresh && !started.contains(output),
            progress: progress)
        started.insert(output)
        run.allowOutsidePaths = options.allowOutsidePaths
        run.keepLattices = false
        return try Runner(suite: derived, options: run, toolchain: toolchain).run()
    }

    /// One point of a run: the domain corpus's comparison and each anti-context corpus's.
    func point(_ results: RunResults, target: Target, length: Int, mode: PhraseListLever.Mode) -> ListSweepPoint? {
        let name = mode.description
        guard
            let domain = results.comparison(
                corpus: target.domain.name, variant: target.variant.name, recognizer: target.recognizer.name,
                list: name),
            let system = results.system(
                corpus: target.domain.name, mode: .customized, variant: target.variant.name,
                recognizer: target.recognizer.name, list: name)
        else { return nil }
        let keywords = system.metrics.keywords?.overall
        var antiContext: [ListSweepAntiContext] = []
        for corpus in results.corpora where corpus.role == .antiContext {
            guard
                let comparison = results.comparison(
                    corpus: corpus.name, variant: target.variant.name, recognizer: target.recognizer.name, list: name),
                let check = results.checks.first(where: {
                    $0.kind == .antiContext && $0.corpus == corpus.name
                        && $0.name.hasSuffix(
                            " / "
                                + Comparison.label(target.variant.name, recognizer: target.recognizer.name, list: name))
                })
            else { continue }
            let customized = results.system(
                corpus: corpus.name, mode: .customized, variant: target.variant.name,
                recognizer: target.recognizer.name, list: name)
            antiContext.append(
                ListSweepAntiContext(
                    corpus: corpus.name, wordErrorRate: comparison.customized.wordErrorRate,
                    baselineWordErrorRate: comparison.baseline.wordErrorRate, deltaWER: comparison.deltaWER,
                    falseAlarms: comparison.customized.falseAlarms ?? 0,
                    audioHours: (customized?.utterances.map(\.audioSeconds).reduce(0, +) ?? 0) / 3600,
                    passed: check.passed))
        }
        return ListSweepPoint(
            length: length, distractors: mode.distractors, terms: system.list?.terms ?? 0, recall: keywords?.recall,
            precision: keywords?.precision, f1: keywords?.f1, domain: domain, antiContext: antiContext)
    }
}

/// Why a list sweep cannot run, in a sentence.
public struct ListSweepError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
