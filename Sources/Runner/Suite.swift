import Corpus
import Formats
import Foundation
import Hashing
import LanguageModel
import NGram
import Recognition
import Results
import Scoring
import StrictYAML
import TrainingData
import Yams

/// An experiment: which corpora to decode, which training-data variants to compare against the
/// baseline, in which modes, and the thresholds CI gates on. Read from YAML; paths are relative to
/// the suite file.
///
/// ```yaml
/// name: shipped
/// corpora:
///   - {name: chess, manifest: chess/manifest.jsonl, role: domain, split: test, texts: chess/texts.tsv}
///   - {name: general, manifest: general/manifest.jsonl, role: anti-context}
/// variants:
///   - {name: chess-full, training: chess/training/full.yaml, weight: 0.5, corpora: [chess]}
/// modes: [baseline, customized, oracle]
/// recognizers:
///   - {name: cli, command: [scripts/recognizers/pocketsphinx-cli.sh, "{audio}"], onDevice: true}
/// streaming: {utterances: 10, chunkMilliseconds: 100, pacing: realTime}   # pacing: simulated by default
/// decoder: {beam: 1e-60, languageWeight: 8}   # optional: engine settings; the engine's defaults otherwise
/// cache: output        # optional: models in the output folder, not the user's cache
/// ```
public struct Suite: Sendable, Equatable {
    public struct Corpus: Sendable, Equatable, Codable {
        public var name: String
        /// JSONL, NeMo or trn manifest.
        public var manifest: URL
        public var role: CorpusRole
        /// Only entries of this split (`dev`, `test`); nil for all.
        public var split: String?
        /// Texts to synthesise the audio from when it is missing (`gambit corpus synth`).
        public var texts: URL?
        /// Audio folder for trn manifests.
        public var audioFolder: URL?
        /// Folders outside the suite's own that this corpus's manifest may name audio in
        /// (`allow-outside-paths:`, a folder or a list), e.g. Debian's test recordings under /usr/share.
        public var allowedOutsideFolders: [URL] = []
    }

    public struct Variant: Sendable, Equatable, Codable {
        public var name: String
        public var training: URL
        /// Domain corpora this variant is evaluated on (anti-context corpora always are); nil for all.
        public var corpora: [String]?
        /// The options as the suite gives them (its keys from ``PrepareOptions/settings``, the defaults for the
        /// others, and the suite's decoder language weight, which a weighted merge is built for), before
        /// ``PrepareOptions/normalized`` resets what the mix does not use: what ``PrepareOptions/validate()``
        /// checks.
        public var requestedOptions: PrepareOptions

        public init(
            name: String, training: URL, weight: Double = PrepareOptions.defaults.weight, corpora: [String]? = nil,
            options: PrepareOptions = PrepareOptions.defaults
        ) {
            self.name = name
            self.training = training
            self.corpora = corpora
            self.requestedOptions = options
            self.requestedOptions.weight = weight
        }

        /// Compiler options for this variant. The merged mix builds the weight into the model.
        public var prepareOptions: PrepareOptions { requestedOptions.normalized }

        /// The custom side's weight (`weight:`).
        public var weight: Double {
            get { requestedOptions.weight }
            set { requestedOptions.weight = newValue }
        }

        /// How the customization is combined with the base model (`mix: merged` or `mix: set`).
        public var mix: LanguageModelMix {
            get { requestedOptions.mix }
            set { requestedOptions.mix = newValue }
        }

        /// Merged mix: how the two sides are interpolated (`interpolation:`).
        public var interpolation: MergeOptions.Interpolation {
            get { requestedOptions.interpolation }
            set { requestedOptions.interpolation = newValue }
        }

        /// How phrases are framed (`phrases:`); nil for the mix's default.
        public var phrases: PhraseFraming? {
            get { requestedOptions.phrases }
            set { requestedOptions.phrases = newValue }
        }
    }

    /// How many utterances to stream for latency, and how (`streaming:`).
    public struct Streaming: Sendable, Equatable, Codable {
        /// Utterances per corpus and system to stream (the first ones of the corpus); 0 turns it off.
        public var utterances: Int
        public var chunkMilliseconds: Int
        /// `realTime` or `simulated` (the default, as every earlier suite streamed).
        public var pacing: StreamPacing = .simulated
        /// Background noise appended after each streamed utterance, milliseconds (``StreamingSetup``).
        public var trailingSilenceMilliseconds = 0

        /// How each streamed utterance is streamed.
        public var setup: StreamingSetup {
            StreamingSetup(
                chunkMilliseconds: chunkMilliseconds, pacing: pacing,
                trailingSilenceMilliseconds: trailingSilenceMilliseconds)
        }
    }

    public var name: String
    public var file: URL
    public var corpora: [Corpus]
    public var variants: [Variant]
    public var modes: [SystemMode]
    /// Recognizers evaluated beside PocketSphinx, uncustomized and, when they declare a customization, with
    /// each variant assigned to them (see ``ExternalRecognizer``).
    public var recognizers: [ExternalRecognizer] = []
    /// Decode the built-in PocketSphinx systems; false only for a tool that measures the external recognizers
    /// alone (`gambit sweep --lists`). Not a key of a suite file.
    public var decodesBuiltIn = true
    public var streaming: Streaming
    /// How PocketSphinx searches (`decoder:`), for every decode of the run, the sweep and the scaling curve;
    /// part of every decoded utterance's cache key.
    public var decoder: DecoderSettings = .standard
    /// SHA-256 of the suite file's bytes.
    public var contentHash: String
    /// `cache: output`: keep prepared and oracle models in the run's output folder (`.gambit/cache`) rather
    /// than the user's cache, so a private suite's models stay with its results and go when they go.
    public var cacheInOutput = false
    /// `termForms:` surface form → term (`albin's: albin`, `nimzoindian: nimzo indian`): each form counts as its
    /// term in every rate (see ``Scoring/Normalizer/withTermForms(_:)``).
    public var termForms: [String: String] = [:]
    /// Recognizer programs that will not be found when they run, each an error with its line, found when the suite
    /// was read. A run refuses the first before anything is prepared or decoded (``checkPrograms()``); reading the
    /// suite does not, so that one can be reported, exported or sent to Slurm from a machine that lacks them.
    public var missingPrograms: [RunnerError] = []

    /// Refuses a suite whose recognizer programs will not be found (``missingPrograms``).
    ///
    /// - Throws: ``RunnerError/invalidSuite(path:line:message:)`` naming the line, the rule and where it looked.
    public func checkPrograms() throws {
        if let missing = missingPrograms.first { throw missing }
    }

    /// `normalize:`, the rules every figure is scored under before term forms: `standard` (the default),
    /// `english` or `whisper` (Whisper's `EnglishTextNormalizer`, as the leaderboards score).
    public var normalization: Normalizer = .standard

    /// The normalizer every figure of a run of this suite is scored under: ``normalization``, with the suite's
    /// term forms.
    public var normalizer: Normalizer { normalization.withTermForms(termForms) }

    /// The folder holding the suite file: manifests may name audio inside it, and reports show paths
    /// relative to it.
    public var folder: URL { file.deletingLastPathComponent().standardizedFileURL }

    /// Reads a corpus's manifest, refusing audio outside the suite's folder and the corpus's
    /// `allow-outside-paths:` unless the run allows any path.
    ///
    /// - Throws: ``CorpusError/outsideAllowedFolders(path:line:audio:allowed:)`` naming the manifest line, or
    ///   what ``CorpusManifest/load(_:format:audioFolder:allowedFolders:)`` throws.
    public func entries(of corpus: Corpus, allowOutsidePaths: Bool) throws -> [CorpusEntry] {
        let entries = try CorpusManifest.load(
            corpus.manifest, audioFolder: corpus.audioFolder,
            allowedFolders: allowOutsidePaths ? nil : [folder] + corpus.allowedOutsideFolders)
        guard !entries.isEmpty else {
            throw RunnerError.emptyManifest(corpus: corpus.name, manifest: corpus.manifest.path)
        }
        // A corpus that names no split scores every entry: nothing is dropped, whatever the splits say.
        let known = knownSplits
        if corpus.split != nil, let stray = entries.first(where: { $0.split.map { !known.contains($0) } ?? false }) {
            throw RunnerError.unknownSplit(
                corpus: corpus.name, manifest: corpus.manifest.path, utterance: stray.id, split: stray.split ?? "",
                known: known.sorted())
        }
        return entries
    }

    /// Splits a manifest entry may name: the usual three, any split a corpus of the suite file names,
    /// and any a corpus names now (`--split`).
    public var knownSplits: Set<String> {
        Set(["train", "dev", "test"] + declaredSplits + corpora.compactMap(\.split))
    }

    /// The splits the suite file names, kept when `--split` replaces them for a run.
    public var declaredSplits: [String] = []

    /// The split ``replaceSplits(with:)`` put in place of every corpus's own (`gambit run --split`); nil when the
    /// suite file's splits stand.
    public private(set) var replacedSplit: String?

    /// Scores every corpus that names a split on `split` instead (`gambit run --split`).
    ///
    /// - Throws: ``RunnerError/splitReplacesNothing(split:suite:)`` when no corpus names a split: the option would
    ///   change nothing, and the run would score every utterance.
    public mutating func replaceSplits(with split: String) throws {
        guard corpora.contains(where: { $0.split != nil }) else {
            throw RunnerError.splitReplacesNothing(split: split, suite: file.path)
        }
        for index in corpora.indices where corpora[index].split != nil { corpora[index].split = split }
        replacedSplit = split
    }

    /// Checks that the split ``replaceSplits(with:)`` put in place is one a corpus has. Entries that name no split
    /// belong to every split, so a split no entry names (`--split validation`) would score every one of them:
    /// the whole corpus, as if no split had been asked for.
    ///
    /// - Parameter entries: Every entry of each corpus, by corpus name, before its split chooses among them.
    /// - Throws: ``RunnerError/splitNotInCorpora(split:available:)`` naming the splits the corpora have.
    public func checkReplacedSplit(_ entries: [String: [CorpusEntry]]) throws {
        guard let split = replacedSplit else { return }
        let labels = corpora.filter { $0.split != nil }.flatMap { entries[$0.name] ?? [] }.compactMap(\.split)
        guard !labels.contains(split) else { return }
        throw RunnerError.splitNotInCorpora(
            split: split, available: Dictionary(grouping: labels, by: { $0 }).mapValues(\.count))
    }

    /// The entries a run scores for a corpus: those of its split, when it names one (entries without
    /// a split belong to every split), else all of them.
    ///
    /// - Throws: ``RunnerError/emptyManifest(corpus:manifest:)``, ``RunnerError/unknownSplit(corpus:manifest:utterance:split:known:)``
    ///   or ``RunnerError/emptySplit(corpus:manifest:split:available:)``, or
    ///   what ``entries(of:allowOutsidePaths:)`` throws.
    public func scoredEntries(of corpus: Corpus, allowOutsidePaths: Bool) throws -> [CorpusEntry] {
        try scored(try entries(of: corpus, allowOutsidePaths: allowOutsidePaths), of: corpus)
    }

    /// The ids of the utterances a run of this suite scores, found without synthesising or decoding anything: from
    /// each corpus's manifest or, for a corpus made from texts, from the utterances its synthesis will write. A split
    /// ``replaceSplits(with:)`` put in place is checked as a run checks it.
    ///
    /// - Throws: What ``entries(of:allowOutsidePaths:)``, ``checkReplacedSplit(_:)`` and ``scored(_:of:)`` throw,
    ///   or a ``CorpusError`` for a bad texts file.
    public func scoredUtteranceIDs(allowOutsidePaths: Bool) throws -> [String] {
        var all: [String: [CorpusEntry]] = [:]
        for corpus in corpora {
            if let texts = corpus.texts {
                all[corpus.name] = try Synthesizer.plannedEntries(
                    texts: texts, output: corpus.manifest.deletingLastPathComponent())
            } else {
                all[corpus.name] = try entries(of: corpus, allowOutsidePaths: allowOutsidePaths)
            }
        }
        try checkReplacedSplit(all)
        return try corpora.flatMap { try scored(all[$0.name] ?? [], of: $0).map(\.id) }
    }

    /// The entries of `all` (a corpus's, from ``entries(of:allowOutsidePaths:)``) that a run scores.
    ///
    /// - Throws: ``RunnerError/emptySplit(corpus:manifest:split:available:)`` when the corpus's split has none.
    public func scored(_ all: [CorpusEntry], of corpus: Corpus) throws -> [CorpusEntry] {
        guard let split = corpus.split else { return all }
        let chosen = all.filter { $0.split == nil || $0.split == split }
        guard !chosen.isEmpty else {
            throw RunnerError.emptySplit(
                corpus: corpus.name, manifest: corpus.manifest.path, split: split,
                available: Dictionary(grouping: all.compactMap(\.split), by: { $0 }).mapValues(\.count))
        }
        return chosen
    }

    /// How reports name an audio file: relative to the suite's folder, never an absolute path of the machine.
    public func reportedPath(_ audio: URL) -> String {
        RelativePath.from(folder, to: audio)
    }

    /// The keys a suite may have. `gate:` belongs to ``GateThresholds``, which checks its own keys
    /// (`gambit run` and `gambit gate` both read it).
    public static let schema = KeySchema.mapping([
        "name": .value,
        "corpora": .list(
            .mapping([
                "name": .value, "manifest": .value, "role": .value, "split": .value, "texts": .value, "audio": .value,
                "allow-outside-paths": .value,
            ])),
        "variants": .list(
            .mapping(
                Dictionary(
                    uniqueKeysWithValues: (["name", "training", "corpora"]
                        + PrepareOptions.settings.filter(\.inSuite).map(\.name)).map { ($0, .value) }))),
        "modes": .value,
        "recognizers": .list(
            .mapping([
                "name": .value, "command": .value, "onDevice": .value, "timeout": .value, "corpora": .value,
                "version": .value, "serve": .value,
                "customization": .mapping([
                    "prepare": .value, "decode": .value, "variants": .value, "allowPrivate": .value,
                    "prepareTimeout": .value, "serve": .value,
                ]),
                "transcripts": .mapping([
                    "baseline": .value, "customized": .value, "variants": .value, "format": .value,
                ]),
                "phraseLists": .mapping([
                    "decode": .value, "serve": .value, "limit": .value, "unit": .value, "modes": .value,
                    "variants": .value, "distractors": .value,
                ]),
            ])),
        "streaming": .mapping([
            "utterances": .value, "chunkMilliseconds": .value, "pacing": .value, "trailingSilenceMilliseconds": .value,
        ]),
        "decoder": .mapping(
            Dictionary(uniqueKeysWithValues: (DecoderSettings.settings.map(\.name) + ["profile"]).map { ($0, .value) })),
        "cache": .value,
        "termForms": .namedEntries(.value),
        "normalize": .value,
        "gate": .value,
    ])

    /// Reads a suite file.
    ///
    /// - Throws: ``RunnerError/invalidSuite(path:line:message:)`` naming the line of the problem.
    public static func load(_ url: URL) throws -> Suite {
        let (data, node) = try mapping(url, what: "the suite file")
        do {
            try schema.check(node)
        } catch {
            throw RunnerError.invalidSuite(path: url.path, line: error.line, message: error.description)
        }
        let file: SuiteFile
        do {
            file = try YAMLDecoder().decode(SuiteFile.self, from: node)
        } catch {
            throw RunnerError.invalidSuite(path: url.path, line: node.mark?.line, message: "\(error)")
        }
        let digest = ContentHash.sha256Hex(data)
        return try SuiteReader(url: url, rootLine: node.mark?.line).suite(file, contentHash: digest)
    }

    /// Reads a file of term forms, a YAML mapping of surface forms to their terms (`albin's: albin`), checked as a
    /// suite's `termForms:` is.
    ///
    /// - Throws: ``RunnerError/invalidSuite(path:line:message:)`` naming the line of the problem.
    public static func loadTermForms(_ url: URL) throws -> [String: String] {
        let (_, node) = try mapping(url, what: "the term forms file")
        let forms: Lined<OrderedEntries>
        do {
            forms = try YAMLDecoder().decode(Lined<OrderedEntries>.self, from: node)
        } catch {
            throw RunnerError.invalidSuite(path: url.path, line: node.mark?.line, message: "\(error)")
        }
        return try SuiteReader(url: url, rootLine: node.mark?.line).termForms(forms)
    }

    /// A user's YAML file whose top level is a mapping, with its bytes.
    private static func mapping(_ url: URL, what: String) throws -> (Data, Node) {
        guard let data = try? Data(contentsOf: url) else {
            throw RunnerError.invalidSuite(path: url.path, line: nil, message: "cannot read \(what)")
        }
        let text: String
        switch UTF8Text.decode(data) {
        case .success(let decoded): text = decoded
        case .failure(let invalid):
            throw RunnerError.invalidSuite(path: url.path, line: invalid.line, message: invalid.explanation)
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw RunnerError.invalidSuite(path: url.path, line: nil, message: "malformed YAML: \(error)")
        }
        guard let node, node.mapping != nil else {
            throw RunnerError.invalidSuite(path: url.path, line: 1, message: "expected a mapping at the top level")
        }
        return (data, node)
    }

    /// The variants evaluated on a corpus: those naming it (or naming none) for a domain corpus, all
    /// of them for an anti-context corpus.
    public func variants(for corpus: Corpus) -> [Variant] {
        corpus.role == .antiContext ? variants : variants.filter { $0.corpora?.contains(corpus.name) ?? true }
    }
}

/// Why a run (or a sweep) could not start or finish: one case per kind of failure, with what it needs to say so.
public enum RunnerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The suite file cannot be used; `line` is where, when known.
    case invalidSuite(path: String, line: Int?, message: String)
    /// A corpus's manifest lists no utterance.
    case emptyManifest(corpus: String, manifest: String)
    /// A manifest entry names a split the suite does not know.
    case unknownSplit(corpus: String, manifest: String, utterance: String, split: String, known: [String])
    /// The corpus's split matches no entry of its manifest; `available` counts the entries of each split it has.
    case emptySplit(corpus: String, manifest: String, split: String, available: [String: Int])
    /// A sweep's corpus has no entry in the split it tunes or judges on.
    case missingSplit(corpus: String, split: String)
    /// `--split` was given, but no corpus of the suite names a split for it to replace.
    case splitReplacesNothing(split: String, suite: String)
    /// `--split` names a split that no entry of the corpora it applies to has; `available` counts those they have.
    case splitNotInCorpora(split: String, available: [String: Int])
    /// A swept variant applies to no domain corpus.
    case nothingToTune(variant: String)
    /// The tuning corpus's dev split says none of the variant's boosted words, so B-WER has no data.
    case noBoostedReference(corpus: String, variant: String)
    /// The scaling curve asked for more distractor words than there are.
    case tooFewDistractors(available: Int, asked: Int)
    /// A model cache entry could not be removed.
    case cacheEntry(name: String, folder: String, reason: String)
    /// The plan holds nothing to decode: an empty shard (`shard`), or a suite where no system applies.
    case nothingToDecode(shard: Shard?, utterances: Int)
    /// A run cut into `count` shards would leave `shards` with no utterance: `fewer` shards (0: none) leave none empty.
    case emptyShards(count: Int, shards: [Int], utterances: Int, fewer: Int)
    /// A variant's private training data would go to a recognizer that runs off the device, and the suite does not
    /// allow it for that recognizer.
    case privateDataOffDevice(variant: String, recognizer: String)
    /// `gambit export` was given a folder that holds something already.
    case exportFolderNotEmpty(path: String)
    /// A recognizer's imported transcript file cannot be used.
    case importedTranscripts(recognizer: String, file: String, message: String)
    /// A phrase list's distractor file cannot be read, or holds no term.
    case distractorFile(path: String, recognizer: String, reason: String)

    /// A user's name or id as a message prints it: control characters escaped (see ``PrintedName``).
    private static func name(_ text: String) -> String { PrintedName.escaped(text) }

    /// `a`, `a and b`, `a, b and c`; at most ten, then how many more.
    private static func list(_ items: [String]) -> String {
        let shown = items.count > 10 ? Array(items.prefix(9)) + ["\(items.count - 9) more"] : items
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    public var description: String {
        switch self {
        case .invalidSuite(let path, let line, let message):
            "\(path)\(line.map { ":\($0)" } ?? ""): error: \(message)"
        case .emptyManifest(let corpus, let manifest):
            "corpus \(Self.name(corpus)): \(manifest) lists no utterance; a corpus needs at least one"
        case .unknownSplit(let corpus, let manifest, let utterance, let split, let known):
            "corpus \(Self.name(corpus)): utterance \(Self.name(utterance)) in \(manifest) has split '\(Self.name(split))', which this suite does not "
                + "know (known: \(known.sorted().joined(separator: ", "))); fix the entry's split, or name the split on "
                + "a corpus of the suite"
        case .emptySplit(let corpus, let manifest, let split, let available):
            "corpus \(Self.name(corpus)): no utterance of \(manifest) is in split '\(Self.name(split))' (the manifest has "
                + available.keys.sorted().map { "\($0): \(available[$0]!)" }.joined(separator: ", ")
                + "); choose one of those splits"
        case .missingSplit(let corpus, let split):
            "\(Self.name(corpus)) has no \(Self.name(split)) split to tune on (mark entries with \"split\")"
        case .splitReplacesNothing(let split, let suite):
            "--split \(Self.name(split)): no corpus of \(suite) names a split, so every utterance would be scored; give the "
                + "corpora a split: in the suite, or leave out --split"
        case .splitNotInCorpora(let split, let available):
            "--split \(Self.name(split)): no corpus has a '\(Self.name(split))' split, so every utterance would be scored "
                + (available.isEmpty
                    ? "(no manifest entry names a split); mark entries with \"split\", or leave out --split"
                    : "(the corpora have "
                        + available.keys.sorted().map { "\($0): \(available[$0]!)" }.joined(separator: ", ")
                        + "); choose one of those splits")
        case .nothingToTune(let variant): "variant \(Self.name(variant)) has no domain corpus to tune on"
        case .noBoostedReference(let corpus, let variant):
            "\(Self.name(corpus)) dev has no reference word among \(Self.name(variant))'s boosted words, so B-WER has no data to tune on; "
                + "tune on a corpus that says the variant's terms"
        case .tooFewDistractors(let available, let asked):
            "only \(available) distractor words are available, \(asked) were asked for"
        case .cacheEntry(let name, let folder, let reason):
            "cannot remove the cache entry \(name) of \(folder): \(reason)"
        case .nothingToDecode(let shard?, let utterances):
            "shard \(shard.index)/\(shard.count) holds no utterance of this suite's \(utterances); run with fewer shards"
        case .nothingToDecode(nil, _): "the suite has nothing to decode: no system applies to any corpus"
        case .emptyShards(let count, let shards, let utterances, let fewer):
            "\(shards.count == 1 ? "shard" : "shards") \(Self.list(shards.map { "\($0)/\(count)" })) would hold no "
                + "utterance of this suite's \(utterances) (an utterance's shard is a hash of its id), and "
                + "\(shards.count == 1 ? "its job" : "their jobs") would fail; "
                + (fewer > 0 ? "\(fewer) shards leave none empty (--tasks \(fewer))" : "there is nothing to share out")
        case .exportFolderNotEmpty(let path):
            "\(path) is not empty: an export goes into a new folder, so that nothing of another is sent with it"
        case .importedTranscripts(let recognizer, let file, let message):
            // A parser's message names the file and line itself.
            "recognizer \(Self.name(recognizer)): " + (message.hasPrefix(file + ":") ? message : "\(file): \(message)")
        case .distractorFile(let path, let recognizer, let reason):
            "recognizer \(Self.name(recognizer)): the phrase list's distractor file \(path): \(reason)"
        case .privateDataOffDevice(let variant, let recognizer):
            "variant \(Self.name(variant))'s training data is private (private: true) and recognizer \(Self.name(recognizer)) runs off the "
                + "device (onDevice: false): Gambit will not send it there. Leave \(Self.name(variant)) out of the recognizer's "
                + "customization variants, or let it go by name with customization: {allowPrivate: true} on "
                + "\(Self.name(recognizer)) (every report then says it went)"
        }
    }
}
