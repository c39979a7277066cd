import ArgumentParser
import Foundation
import LanguageModel
import NGram
import Runner
import TrainingData

struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Compile training data into a custom language model and vocabulary (Apple's prepareCustomLanguageModel).",
        discussion: ExitStatus.doneOrRefused
    )

    @Argument(help: "Training data: YAML, or a file exported by Gambit.")
    var training: String

    @Option(help: "Artifact folder (default: the cache).")
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("order").help))
    var order = PrepareOptions.defaults.order

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("budget").help))
    var budget = PrepareOptions.defaults.limits.sampleBudget

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(PrepareOptions.setting("spellingAlternates").help))
    var spellingAlternates = PrepareOptions.defaults.spellingAlternates

    @Option(help: ArgumentHelp(PrepareOptions.setting("mix").help))
    var mix = PrepareOptions.defaults.mix

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("weight").help))
    var weight = PrepareOptions.defaults.weight

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("unigramWeight").help))
    var unigramWeight = PrepareOptions.defaults.unigramWeight

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("tempering").help))
    var tempering = PrepareOptions.defaults.tempering

    @Option(help: ArgumentHelp(PrepareOptions.setting("interpolation").help))
    var interpolation = PrepareOptions.defaults.interpolation

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("languageWeight").help))
    var languageWeight = PrepareOptions.defaults.languageWeight

    @Option(
        help: ArgumentHelp(
            PrepareOptions.setting("phrases").help,
            discussion: "Default: sentences for the set and the weighted merge, fragments for the other merges.",
            valueName: "fragments|sentences"))
    var phrases: PhraseFraming?

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("boundaryShare").help))
    var boundaryShare = PrepareOptions.defaults.boundaryShare

    @Flag(help: ArgumentHelp(PrepareOptions.setting("keepMergedARPA").help))
    var keepArpa = PrepareOptions.defaults.keepMergedARPA

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("backgroundMass").help))
    var backgroundMass = PrepareOptions.defaults.backgroundMass

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(PrepareOptions.setting("compounds").help))
    var compounds = PrepareOptions.defaults.compounds

    @Flag(help: "Rebuild even when a matching artifact is cached.")
    var ignoreCache = false

    @Option(help: "Held-out text (one sentence a line) to report the custom model's perplexity on.")
    var eval: String?

    @Option(help: "Also write the training data's export file (the file prepare consumes on Apple's platforms).")
    var export: String?

    @Option(
        help: ArgumentHelp(
            "Also write the expanded phrase list: every phrase and template expansion with its sample count.",
            discussion: "What a recognizer's phrase-list API takes; its format is in docs/training-data.md."))
    var phraseList: String?

    @Flag(help: "Print the manifest as JSON.")
    var json = false

    func run() throws {
        let url = URL(fileURLWithPath: training)
        let toolchain = Toolchain()
        let options = PrepareOptions(
            order: order, spellingAlternates: spellingAlternates, limits: TrainingDataLimits(sampleBudget: budget),
            backgroundMass: backgroundMass, compounds: compounds, mix: mix, weight: weight,
            unigramWeight: unigramWeight, tempering: tempering, boundaryShare: boundaryShare, keepMergedARPA: keepArpa,
            interpolation: interpolation, phrases: phrases, languageWeight: languageWeight)
        try options.validateAsOptions()
        if let export {
            try Toolchain.loadTrainingData(url).export(to: URL(fileURLWithPath: export), limits: options.limits)
        }
        if let phraseList {
            let list = try Toolchain.loadTrainingData(url).phraseListData(limits: options.limits)
            try list.write(to: URL(fileURLWithPath: phraseList), options: .atomic)
        }
        let (artifact, cached) = try toolchain.prepare(
            url, output: output.map { URL(fileURLWithPath: $0) }, options: options, ignoreCache: ignoreCache)
        if json {
            print(try Output.json(artifact.manifest))
        } else {
            print(Self.describe(artifact, cached: cached))
        }
        if let eval { try printPerplexity(of: artifact, on: eval) }
    }

    /// What was prepared, a line per part: the model, how it is mixed, the vocabulary, samples, compounds, timings.
    static func describe(_ artifact: PreparedArtifact, cached: Bool) -> String {
        let manifest = artifact.manifest
        var lines: [String] = []
        lines.append(
            "prepared \(manifest.identifier) \(manifest.version) → \(artifact.folder.path)\(cached ? " (cached)" : "")"
        )
        lines.append(
            "  language model: \(artifact.languageModel.lastPathComponent) (+ \(PreparedModel.arpaName)), "
                + "\(manifest.order)-gram, n-grams \(manifest.ngramCounts.map(String.init).joined(separator: "/"))")
        if let merge = manifest.merge, let statistics = manifest.mergeStatistics {
            let lambda = statistics.trigramLambda.map { String(format: "%.3f", $0) }.joined(separator: " / ")
            switch merge.interpolation {
            case .weighted:
                let weighted = statistics.weighted
                lines.append(
                    "  merged with the base model: the set's score at weight \(merge.weight) after language weight "
                        + "\(merge.languageWeight); listed beyond both sides: \(weighted?.completedBigrams ?? 0) bigrams and "
                        + "\(weighted?.completedTrigrams ?? 0) trigrams of data words, \(weighted?.correctedBigrams ?? 0) "
                        + "bigrams corrected")
            case .constant:
                lines.append(
                    "  merged with the base model: constant λ \(merge.weight) at every history (SRILM's static "
                        + "interpolation); \(statistics.mixedHistories.map(String.init).joined(separator: "/")) histories mixed"
                )
            case .historyDependent:
                lines.append(
                    "  merged with the base model: weight π \(merge.weight), unigram weight π₀ \(merge.unigramWeight), "
                        + "tempering \(merge.tempering); "
                        + "\(statistics.mixedHistories.map(String.init).joined(separator: "/")) histories mixed, "
                        + "λ(h) min/median/max \(lambda)")
            }
        } else {
            lines.append("  set mix: interpolated with the base model at decode time")
        }
        lines.append(
            manifest.boundaryShare.map { "  phrases as fragments: boundary n-grams count \($0) of each phrase" }
                ?? "  phrases as sentences: every phrase is a whole utterance")
        lines.append(
            "  vocabulary: \(artifact.vocabulary.lastPathComponent), \(manifest.vocabulary.entries.count) entries, "
                + "\(manifest.vocabulary.outOfVocabulary.count) new words")
        lines.append("  samples: \(manifest.samples) of \(manifest.sampleBudget), \(manifest.sentences) sentences")
        if !manifest.compounds.isEmpty {
            lines.append("  compounds (one token each): \(manifest.compounds.joined(separator: ", "))")
        }
        let t = manifest.timings
        lines.append(
            "  timings: validate \(Output.seconds(t.validate)), count \(Output.seconds(t.count)), estimate "
                + "\(Output.seconds(t.estimate)), ARPA \(Output.seconds(t.writeARPA)), binary "
                + "\(Output.seconds(t.compileBinary)), vocabulary \(Output.seconds(t.vocabulary))"
                + (manifest.mix == .merged
                    ? ", base n-grams \(Output.seconds(t.readBase)), merge \(Output.seconds(t.merge))" : "")
                + "; total "
                + Output.seconds(t.total))
        lines.append("  fingerprint: \(manifest.fingerprint.prefix(16))…")
        return lines.joined(separator: "\n")
    }

    /// The perplexity of the model the decoder loads on held-out text.
    func printPerplexity(of artifact: PreparedArtifact, on eval: String) throws {
        let manifest = artifact.manifest
        let text = try String(contentsOf: URL(fileURLWithPath: eval), encoding: .utf8)
        // Held-out text is read the way the model was counted: compounds joined. A compound is one
        // token but several words, so the perplexity is given per word, comparable with or without them.
        let compounds = Compounds(phrases: manifest.compounds.map { $0.split(separator: " ").map(String.init) })
        let words = text.split(separator: "\n").map { WordTokenizer.tokenize(String($0)) }.filter { !$0.isEmpty }
        let sentences = words.map(compounds.join)
        // The model the decoder loads: the merged model, or the custom model alone for the set mix.
        let result: BackoffModel.Perplexity
        if manifest.containsBaseModel {
            result = try SphinxLanguageModel(contentsOf: artifact.languageModel).perplexity(of: sentences)
        } else {
            result = try BackoffModel(arpaFile: artifact.arpa).perplexity(of: sentences)
        }
        let joined = zip(words, sentences).reduce(0) { $0 + $1.0.count - $1.1.count }
        let scored = result.words - result.oovs + result.sentences + joined
        let perWord = scored > 0 ? pow(10, -result.logProb / Double(scored)) : .nan
        print(
            String(
                format: "perplexity on %@: %.2f per word over %ld sentences, %ld words (%ld tokens), "
                    + "%ld out-of-vocabulary", eval, perWord, result.sentences, result.words + joined, result.words,
                result.oovs))
    }
}

extension MergeOptions.Interpolation: ExpressibleByArgument {}
extension PhraseFraming: ExpressibleByArgument {}

extension PrepareOptions {
    /// Checks the options as `prepare`, `decode` and `lint` take them: a setting out of its range is a usage error,
    /// shown with the command's usage, whose message names the setting, its value, its range and its option.
    func validateAsOptions() throws {
        do {
            try validate()
        } catch {
            throw ValidationError(error.description)
        }
    }
}
