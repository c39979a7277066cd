import ArgumentParser
import Foundation
import Gate
import LanguageModel
import NGram
import Publishing
import Recognition
import Reporting
import Results
import Runner

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a suite: decode every corpus with and without each variant's custom model, and measure.",
        discussion: ExitStatus.help([
            .success: "every check passed and every utterance decoded",
            .checkFailed: "a check failed (FAIL in the summary), whatever else happened",
            .refused: "refused input or usage (suite, manifest, audio, option) or an error that stopped the run",
            .utterancesFailed: "every other check passed, but some utterances failed to decode",
        ])
    )

    @Argument(help: "Suite file (default: the shipped Corpora/suite.yaml).")
    var suite: String = "Corpora/suite.yaml"

    @Option(help: "Output folder for results, journal and reports.")
    var output = "Reports"

    @Option(parsing: .unconditional, help: "Decoder worker processes (default: one per core).")
    var workers = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Run one deterministic slice: I/N (0-based), e.g. 0/4.")
    var shard: String?

    @Flag(help: "Ignore the journal and decode everything again.")
    var fresh = false

    @Option(
        help: ArgumentHelp(
            "Keep PocketSphinx's answers in this folder, across runs, and take from it what this run's journal lacks.",
            discussion:
                "An answer is reused only for the same audio, model, acoustic model and decoder settings; a run after "
                + "changing one variant decodes only that variant's work. Failed decodes and external recognizers' "
                + "answers are never kept. Off by default.",
            valueName: "folder"))
    var decodeCache: String?

    @Flag(inversion: .prefixedNo, help: "Run decoders in a network namespace when the machine allows it.")
    var denyNetwork = true

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Keep the word lattices gambit diagnose reads (OUTPUT/.gambit/lattices).",
            discussion:
                "The lattices of customized decodes with a boosted-word error, and of every anti-context one: "
                + "gambit diagnose reads them instead of decoding those utterances again."))
    var keepLattices = true

    @Flag(
        help: ArgumentHelp(
            "Read audio wherever manifests point.",
            discussion:
                "By default a manifest may name audio only inside the suite's folder and the folders its corpus "
                + "lists under allow-outside-paths; anything else (../../etc/passwd, /home/…) is an error naming "
                + "the line."))
    var allowOutsidePaths = false

    @Option(
        help: ArgumentHelp(
            "Keep prepared and oracle models in this folder.",
            discussion:
                "Default: the suite's `cache: output` (OUTPUT/.gambit/cache), else $GAMBIT_CACHE, "
                + "$XDG_CACHE_HOME/gambit or ~/.cache/gambit. See `gambit cache`."))
    var cacheDir: String?

    @Option(
        help:
            "Combine every variant with the base model this way: merged or set (default: each variant's own, merged unless it says mix: set)."
    )
    var mix: LanguageModelMix?

    @Option(
        help:
            "Merged variants: weighted (the set's own score, w · Pc^lw + (1 − w) · Pb^lw, in one model; the default), history (λ from how well each side explains the history) or constant (SRILM's static λ = weight)."
    )
    var interpolation: MergeOptions.Interpolation?

    @Option(
        help: ArgumentHelp(
            "Frame every variant's phrases as fragments or as sentences (default: each variant's own).",
            valueName: "fragments|sentences"))
    var phrases: PhraseFraming?

    @Option(
        help: ArgumentHelp(
            "Score every corpus that names a split on this one instead (e.g. dev, to compare settings without "
                + "looking at test).", valueName: "split"))
    var split: String?

    @Option(
        help: ArgumentHelp(
            "Decode with these named engine settings, set over the suite's decoder: block: "
                + DecoderSettings.profiles.map(\.name).joined(separator: " or ") + ".",
            discussion: DecoderSettings.profiles.map { "\($0.name): \($0.summary)." }.joined(separator: "\n"),
            valueName: "profile"))
    var decoderProfile: String?

    @Flag(
        help: ArgumentHelp(
            "Print what the run would decode, and stop.",
            discussion:
                "Counts per corpus and stage (baseline, customized, oracle, external, streamed), what the journal "
                + "already holds, and the checks that will judge the results. Prepares variants not in the cache; "
                + "decodes nothing and writes nothing in the output folder."))
    var plan = false

    @Flag(help: "With --plan: print the whole plan as JSON, every work item with its key.")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Prepare every variant and oracle into the cache (and synthesise corpora that need it), and stop.",
            discussion:
                "A cluster's first job (see `gambit slurm`), so that its shards find every model prepared. "
                + "Decodes nothing and writes nothing in the output folder."))
    var prepareOnly = false

    func run() throws {
        guard workers >= 1 else { throw ValidationError("--workers is \(workers); it must be at least 1") }
        guard plan || !json else { throw ValidationError("--json goes with --plan") }
        var parsedShard: Shard?
        if let shard {
            let parts = shard.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] > 0, (0..<parts[1]).contains(parts[0]) else {
                throw ValidationError("--shard takes I/N with 0 ≤ I < N, e.g. 0/4")
            }
            parsedShard = Shard(index: parts[0], count: parts[1])
        }
        let suiteFile = try loadSuite()
        let outputURL = URL(fileURLWithPath: output)
        let cacheFolder =
            cacheDir.map { URL(fileURLWithPath: $0) }
            ?? (suiteFile.cacheInOutput ? Runner.outputCacheFolder(in: outputURL) : nil)
        if plan { return try printPlan(suiteFile, shard: parsedShard, cacheFolder: cacheFolder) }
        if prepareOnly { return try prepareModels(suiteFile, cacheFolder: cacheFolder) }
        let progress = ProgressLine.standardError()
        let toolchain = Toolchain(cacheFolder: cacheFolder)
        // A terminal's output ends up in CI logs: the suite's name and the corpora synthesised are masked where its
        // data is private, as the summary and the reports mask them.
        let masker = try Runner.privateTermMasker(of: suiteFile, toolchain: toolchain)
        var options = RunOptions(
            output: outputURL, workers: workers, shard: parsedShard, workerExecutable: Self.executable(),
            fresh: fresh, denyNetwork: denyNetwork,
            progress: { stage, done, total in progress.update(masker.fragment(stage), done, total) })
        options.allowOutsidePaths = allowOutsidePaths
        options.keepLattices = keepLattices
        options.decodeCache = decodeCache.map { URL(fileURLWithPath: $0) }
        options.longDecode = { utterance, audioSeconds, seconds in
            progress.stillRunning(
                "decoding", item: masker.fragment(utterance), audioSeconds: audioSeconds, seconds: seconds)
        }
        let banner =
            "running \(Summary.printable(masker.fragment(suiteFile.name))): \(suiteFile.corpora.count) corpora, "
            + "\(suiteFile.variants.count) variants, \(workers) workers"
        progress.log(banner)
        defer { progress.finish() }
        var results = try Runner(suite: suiteFile, options: options, toolchain: toolchain).run()
        progress.finish()
        print(Summary.text(results))
        var timer = StageTimer(stages: results.timings?.stages ?? [])
        let folder = RunFolder(outputURL)
        // The results first: a report that cannot be written leaves them for `gambit report`.
        try folder.writeResults(results)
        let written = try timer.measure("reports") { try folder.writeReports(results) }
        if results.timings != nil {
            // The reports' own time goes into the results and the reports that show it, written once more.
            results.timings?.stages = timer.stages
            try folder.writeResults(results)
            try folder.writeReports(results, formats: [.json, .html])
        }
        let top = written.filter { $0.deletingLastPathComponent().path == outputURL.standardizedFileURL.path }
        print(
            "wrote \(top.map { "\(output)/\($0.lastPathComponent)" }.joined(separator: ", ")) and "
                + "\(written.count - top.count) transcript files (sclite trn and ctm"
                + (written.contains { $0.pathExtension == "tsv" } ? ", biasing-list tsv" : "") + ") under \(output)/")
        if let timings = results.timings { print(Summary.timings(timings)) }
        try ExitStatus.end(with: results)
    }

    /// The suite with this command's overrides (mix, interpolation, phrase framing, split, decoder profile) applied, its gate
    /// section checked.
    func loadSuite() throws -> Suite {
        var suiteFile = try Suite.load(URL(fileURLWithPath: suite))
        // A typo in the suite's gate section is caught now, not when CI gates on the results.
        let gate = try GateThresholds.load(from: suiteFile.file)
        let corpora = suiteFile.corpora.map(\.name)
        if let unknown = gate.unknownCorpora(known: corpora, in: "the suite").first { throw unknown }
        for index in suiteFile.variants.indices {
            if let mix { suiteFile.variants[index].mix = mix }
            if let interpolation { suiteFile.variants[index].interpolation = interpolation }
            if let phrases { suiteFile.variants[index].phrases = phrases }
        }
        if let split { try suiteFile.replaceSplits(with: split) }
        if let decoderProfile {
            do {
                suiteFile.decoder = try suiteFile.decoder.applying(profile: decoderProfile)
            } catch {
                throw ValidationError("--decoder-profile: \(error.message)")
            }
        }
        return suiteFile
    }

    /// `--prepare-only`: prepares every model into the cache and says what is there.
    func prepareModels(_ suiteFile: Suite, cacheFolder: URL?) throws {
        guard shard == nil, !fresh else { throw ValidationError("--prepare-only goes without --shard and --fresh") }
        let toolchain = Toolchain(cacheFolder: cacheFolder)
        var options = RunOptions(
            output: URL(fileURLWithPath: output), workers: workers, workerExecutable: Self.executable(),
            denyNetwork: denyNetwork)
        options.allowOutsidePaths = allowOutsidePaths
        var clock = Stopwatch()
        let prepared = try Runner(suite: suiteFile, options: options, toolchain: toolchain).prepareOnly()
        let seconds = clock.lap()
        print(
            "prepared \(prepared.variants.count) variants"
                + (prepared.oracles.isEmpty ? "" : " and \(prepared.oracles.count) oracles")
                + " into \(toolchain.cacheFolder.path) in \(Output.seconds(seconds))")
        // A cluster's shards would each try a failed prepare again, at once: the prepare job fails instead.
        guard prepared.externalFailures.isEmpty else {
            for failure in prepared.externalFailures { Output.error(failure) }
            throw ExitCode(ExitStatus.refused.rawValue)
        }
    }

    /// `--plan`: prints what the run would decode, as a table or (`--json`) every item.
    func printPlan(_ suiteFile: Suite, shard: Shard?, cacheFolder: URL?) throws {
        let outputURL = URL(fileURLWithPath: output)
        var options = RunOptions(
            output: outputURL, workers: workers, shard: shard, workerExecutable: Self.executable(), fresh: fresh)
        options.allowOutsidePaths = allowOutsidePaths
        // A cache in the output folder (`cache: output`) is not written by a plan: it prepares into a temporary
        // folder instead (the keys depend on the models' contents, not where they are).
        var planCache = cacheFolder
        var temporary: URL?
        if let folder = cacheFolder, (try? OutputPath.check(folder, isInside: outputURL)) != nil {
            temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
                "gambit-plan-\(ProcessInfo.processInfo.processIdentifier)")
            planCache = temporary
        }
        defer { temporary.map { try? FileManager.default.removeItem(at: $0) } }
        let listing = try Runner(
            suite: suiteFile, options: options, toolchain: Toolchain(cacheFolder: planCache)
        ).listing()
        print(json ? try Output.json(listing) : Self.text(listing, workers: workers))
    }

    /// The plan as a table: one row per corpus, one column per stage.
    static func text(_ listing: RunPlan.Listing, workers: Int) -> String {
        let columns = ["utterances", "baseline", "customized", "oracle", "external", "streamed", "journaled"]
        let width = max(8, listing.corpora.map { Summary.printable($0.corpus).count }.max() ?? 0) + 2
        func row(_ name: String, _ values: [Int]) -> String {
            name.padding(toLength: width, withPad: " ", startingAt: 0)
                + zip(columns, values).map { column, value in
                    let text = String(value)
                    return String(repeating: " ", count: max(0, column.count + 2 - text.count)) + text
                }.joined()
        }
        func values(_ c: RunPlan.CorpusCounts) -> [Int] {
            [c.utterances, c.baseline, c.customized, c.oracle, c.external, c.streamed, c.journaled]
        }
        var lines = [
            "plan of \(Summary.printable(listing.suite))"
                + (listing.shard.map { ", shard \($0.index)/\($0.count)" } ?? "")
                + ", decoder: \(listing.decoderArguments.isEmpty ? "defaults" : listing.decoderArguments.joined(separator: " "))",
            "corpus".padding(toLength: width, withPad: " ", startingAt: 0)
                + columns.map { "  " + $0 }.joined(),
        ]
        for corpus in listing.corpora { lines.append(row(Summary.printable(corpus.corpus), values(corpus))) }
        let totals = listing.corpora.map(values).reduce(Array(repeating: 0, count: columns.count)) {
            zip($0, $1).map(+)
        }
        lines.append(row("total", totals))
        let items = listing.items.count
        let journaled = listing.items.filter(\.journaled).count
        lines.append(
            "\(items) work items: \(journaled) journaled, \(listing.toDecode) to decode on \(workers) "
                + (workers == 1 ? "worker" : "workers"))
        var kinds: [CheckKind] = []
        for check in listing.checks where !kinds.contains(check.kind) { kinds.append(check.kind) }
        let checkCounts = kinds.map { kind in "\(listing.checks.filter { $0.kind == kind }.count) \(kind.rawValue)" }
        lines.append("\(listing.checks.count) checks: " + checkCounts.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    /// This executable, which the runner starts again as `gambit worker`.
    static func executable() -> URL {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path)
    }
}

struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decoder worker process (started by `gambit run`; reads requests on stdin).", shouldDisplay: false)

    @Option(help: "The engine settings, as JSON (DecoderSettings); the engine's defaults when absent.")
    var decoder: String?

    func run() throws {
        var settings = DecoderSettings.standard
        if let decoder {
            do {
                settings = try JSONDecoder().decode(DecoderSettings.self, from: Data(decoder.utf8))
                try settings.validate()
            } catch {
                throw ValidationError("--decoder: \(error)")
            }
        }
        try WorkerLoop.run(settings: settings)
    }
}

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine the results of shards (gambit run --shard I/N) into the results of one run.",
        discussion: ExitStatus.help([
            .success: "merged; every check passed and every utterance decoded",
            .checkFailed: "merged; a check failed in a shard",
            .refused: "refused: a shard missing (without --partial), shards of different runs, an unreadable file",
            .utterancesFailed: "merged; every other check passed, but some utterances failed to decode",
        ]))

    @Argument(help: "Shard output folders or results.json files.")
    var inputs: [String]

    @Option(help: "Output folder.")
    var output = "Reports"

    @Flag(
        help: ArgumentHelp(
            "Merge even when some of the run's shards are missing.",
            discussion:
                "Without it a merge that lacks a shard is refused, naming the missing ones. With it the results "
                + "record which shards are in and which are missing, every report says so, and `gambit gate` "
                + "refuses them."))
    var partial = false

    func run() throws {
        try Self.merge(
            inputs.map { input in
                var url = URL(fileURLWithPath: input)
                if !url.path.hasSuffix(".json") { url = Runner.resultsFile(in: url) }
                return url
            }, output: URL(fileURLWithPath: output), partial: partial)
    }

    /// Merges the results files of shards into `outputURL`'s results and reports, prints the summary and ends
    /// as the merged results do (`gambit merge`, `gambit slurm merge`).
    static func merge(_ inputs: [URL], output outputURL: URL, partial: Bool) throws {
        // Never into a shard's own folder: the merge would replace the shard's results.
        try OutputFolder.checkSeparate(outputURL, fromResults: inputs)
        let shards = try inputs.map { try RunResults.load(from: $0) }
        var merged = try RunResults.merge(shards, allowPartial: partial)
        merged.checks = Checks.reevaluated(merged)
        // The suite is found from where the shards were read, not from this working directory.
        let suite = zip(shards, inputs).lazy.compactMap { shard, input in
            Runner.suiteFile(of: shard, readFrom: input)
        }.first
        let folder = RunFolder(outputURL)
        merged = folder.rebasing(merged, suite: suite)
        try folder.checkSeparate(from: suite)
        try OutputPath.check(folder.resultsFile, isInside: outputURL)
        let lock = try folder.lock()
        defer { lock.release() }
        try folder.writeResults(merged)
        print(Summary.text(merged))
        try folder.writeReports(merged)
        try ExitStatus.end(with: merged)
    }
}

extension LanguageModelMix: ExpressibleByArgument {}
