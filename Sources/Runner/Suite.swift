import Corpus
import Crypto
import Foundation
import LanguageModel
import NGram
import Recognition
import Results
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
/// streaming: {utterances: 10, chunkMilliseconds: 100}
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
        public var weight: Double
        /// Domain corpora this variant is evaluated on (anti-context corpora always are); nil for all.
        public var corpora: [String]?
        /// Overrides the compiler's background mass for this variant (see `PrepareOptions`).
        public var backgroundMass: Double?
        /// Overrides whether the compiler joins fixed expressions into compounds (see `PrepareOptions`).
        public var compounds: Bool?
        /// How the customization is combined with the base model (`mix: set` or `mix: merged`);
        /// nil for the compiler's default, the set.
        public var mix: LanguageModelMix?
        /// `phrases: fragments | sentences`: how the compiler frames each phrase (see `PhraseFraming`);
        /// nil for the mix's default.
        public var phrases: PhraseFraming?
        /// Overrides the boundary share of phrases framed as fragments (see `PrepareOptions`).
        public var boundaryShare: Double?
        /// Merged mix: `interpolation: constant` for SRILM's static λ = weight (default `history`).
        public var interpolation: MergeOptions.Interpolation?

        /// Compiler options for this variant. The merged mix builds the weight into the model.
        public var prepareOptions: PrepareOptions { requestedOptions.normalized }

        /// The options as the suite gives them, before ``PrepareOptions/normalized`` resets what the
        /// mix does not use: what ``PrepareOptions/validate()`` checks.
        public var requestedOptions: PrepareOptions {
            var options = PrepareOptions()
            if let backgroundMass { options.backgroundMass = backgroundMass }
            if let compounds { options.compounds = compounds }
            if let mix { options.mix = mix }
            if let phrases { options.phrases = phrases }
            if let boundaryShare { options.boundaryShare = boundaryShare }
            if let interpolation { options.interpolation = interpolation }
            options.weight = weight
            return options
        }
    }

    /// How much streaming simulation to run.
    public struct Streaming: Sendable, Equatable, Codable {
        /// Utterances per corpus and system to stream (the first ones of the corpus); 0 turns it off.
        public var utterances: Int
        public var chunkMilliseconds: Int
    }

    public var name: String
    public var file: URL
    public var corpora: [Corpus]
    public var variants: [Variant]
    public var modes: [SystemMode]
    /// Recognizers evaluated beside PocketSphinx, uncustomized (see ``ExternalRecognizer``).
    public var recognizers: [ExternalRecognizer] = []
    public var streaming: Streaming
    /// How PocketSphinx searches (`decoder:`), for every decode of the run, the sweep and the scaling curve;
    /// part of every decoded utterance's cache key.
    public var decoder: DecoderSettings = .standard
    /// SHA-256 of the suite file's bytes.
    public var contentHash: String
    /// `cache: output`: keep prepared and oracle models in the run's output folder (`.gambit/cache`) rather
    /// than the user's cache, so a private suite's models stay with its results and go when they go.
    public var cacheInOutput = false

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
            throw RunnerError.corpus(
                "corpus \(corpus.name): \(corpus.manifest.path) lists no utterance; a corpus needs at least one")
        }
        // A corpus that names no split scores every entry: nothing is dropped, whatever the splits say.
        let known = knownSplits
        if corpus.split != nil, let stray = entries.first(where: { $0.split.map { !known.contains($0) } ?? false }) {
            throw RunnerError.corpus(
                "corpus \(corpus.name): utterance \(stray.id) in \(corpus.manifest.path) has split "
                    + "'\(stray.split ?? "")', which this suite does not know (known: "
                    + known.sorted().joined(separator: ", ")
                    + "); fix the entry's split, or name the split on a corpus of the suite")
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

    /// The entries a run scores for a corpus: those of its split, when it names one (entries without
    /// a split belong to every split), else all of them.
    ///
    /// - Throws: ``RunnerError/corpus(_:)`` when the manifest is empty, an entry names a split the
    ///   suite does not know, or the split matches no entry (naming the splits the manifest has), or
    ///   what ``entries(of:allowOutsidePaths:)`` throws.
    public func scoredEntries(of corpus: Corpus, allowOutsidePaths: Bool) throws -> [CorpusEntry] {
        let all = try entries(of: corpus, allowOutsidePaths: allowOutsidePaths)
        guard let split = corpus.split else { return all }
        let chosen = all.filter { $0.split == nil || $0.split == split }
        guard !chosen.isEmpty else {
            let counts = Dictionary(grouping: all.compactMap(\.split), by: { $0 }).mapValues(\.count)
            let have = counts.keys.sorted().map { "\($0): \(counts[$0]!)" }.joined(separator: ", ")
            throw RunnerError.corpus(
                "corpus \(corpus.name): no utterance of \(corpus.manifest.path) is in split '\(split)' (the "
                    + "manifest has \(have)); choose one of those splits")
        }
        return chosen
    }

    /// How reports name an audio file: relative to the suite's folder, never an absolute path of the machine.
    public func reportedPath(_ audio: URL) -> String {
        RunResults.relativePath(from: folder, to: audio)
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
            .mapping([
                "name": .value, "training": .value, "weight": .value, "corpora": .value, "backgroundMass": .value,
                "compounds": .value, "mix": .value, "phrases": .value, "boundaryShare": .value,
                "interpolation": .value,
            ])),
        "modes": .value,
        "recognizers": .list(
            .mapping(["name": .value, "command": .value, "onDevice": .value, "timeout": .value, "corpora": .value])),
        "streaming": .mapping(["utterances": .value, "chunkMilliseconds": .value]),
        "decoder": .mapping(Dictionary(uniqueKeysWithValues: DecoderSettings.settings.map { ($0.name, .value) })),
        "cache": .value,
        "gate": .value,
    ])

    /// Reads a suite file.
    ///
    /// - Throws: ``RunnerError/invalidSuite(path:line:message:)`` naming the line of the problem.
    public static func load(_ url: URL) throws -> Suite {
        guard let data = try? Data(contentsOf: url) else {
            throw RunnerError.invalidSuite(path: url.path, line: nil, message: "cannot read the suite file")
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
        guard let node, let root = node.mapping else {
            throw RunnerError.invalidSuite(path: url.path, line: 1, message: "expected a mapping at the top level")
        }
        do {
            try schema.check(node)
        } catch {
            throw RunnerError.invalidSuite(path: url.path, line: error.line, message: error.description)
        }
        let folder = url.deletingLastPathComponent()
        func fail(_ node: Node?, _ message: String) -> RunnerError {
            .invalidSuite(path: url.path, line: node.flatMap { $0.mark.map { $0.line } }, message: message)
        }
        func string(_ mapping: Node.Mapping, _ key: String, required: Bool = true) throws -> String? {
            guard let value = mapping[key] else {
                if required { throw fail(Node.mapping(mapping), "missing key '\(key)'") }
                return nil
            }
            guard let scalar = value.scalar?.string else { throw fail(value, "'\(key)' must be a string") }
            return scalar
        }
        func flag(_ mapping: Node.Mapping, _ key: String) throws -> Bool? {
            guard let text = try string(mapping, key, required: false) else { return nil }
            guard let value = Bool(text) else { throw fail(mapping[key], "'\(key)' must be true or false") }
            return value
        }
        func path(_ text: String) -> URL {
            text.hasPrefix("/") ? URL(fileURLWithPath: text) : folder.appendingPathComponent(text).standardizedFileURL
        }

        /// A folder, or a list of folders, under `key`.
        func folders(_ mapping: Node.Mapping, _ key: String) throws -> [URL] {
            guard let value = mapping[key] else { return [] }
            if let text = value.scalar?.string { return [path(text)] }
            guard let list = value.sequence else { throw fail(value, "'\(key)' must be a folder or a list of folders") }
            return try list.map { node in
                guard let text = node.scalar?.string else { throw fail(node, "'\(key)' must list folders") }
                return path(text)
            }
        }

        /// The items of a list under `key`: none when the key is absent, an error when it is there but
        /// is not a list (a `variants:` with nothing after it is a slip more often than a wish; `[]` says
        /// "none" on purpose), or when it is empty and `allowEmpty` is off.
        func list(_ key: String, _ what: String, allowEmpty: Bool = true) throws -> [Node] {
            guard let value = root[key] else { return [] }
            guard let items = value.sequence else {
                throw fail(value, "'\(key)' must be a list of \(what)" + (allowEmpty ? " (write [] for none)" : ""))
            }
            if items.isEmpty && !allowEmpty {
                throw fail(value, "'\(key)' lists no \(what); list at least one, or remove the key")
            }
            return Array(items)
        }

        var corpora: [Corpus] = []
        for item in try list("corpora", "corpora", allowEmpty: false) {
            guard let mapping = item.mapping else { throw fail(item, "each corpus is a mapping") }
            let roleText = try string(mapping, "role", required: false) ?? "domain"
            let role: CorpusRole
            switch roleText {
            case "domain": role = .domain
            case "anti-context", "antiContext", "anticontext": role = .antiContext
            default: throw fail(mapping["role"], "role must be domain or anti-context, not '\(roleText)'")
            }
            corpora.append(
                Corpus(
                    name: try string(mapping, "name")!, manifest: path(try string(mapping, "manifest")!), role: role,
                    split: try string(mapping, "split", required: false),
                    texts: try string(mapping, "texts", required: false).map(path),
                    audioFolder: try string(mapping, "audio", required: false).map(path),
                    allowedOutsideFolders: try folders(mapping, "allow-outside-paths")))
        }
        if corpora.isEmpty { throw fail(root["corpora"] ?? Node.mapping(root), "the suite lists no corpora") }
        let names = Set(corpora.map(\.name))
        if names.count != corpora.count { throw fail(root["corpora"], "corpus names must be unique") }

        /// A `corpora:` list of an entry, each name checked; nil when the entry has none.
        func corpusNames(_ list: Node?) throws -> [String]? {
            guard let list else { return nil }
            return try (list.sequence ?? []).map { node in
                guard let name = node.scalar?.string, names.contains(name) else {
                    throw fail(node, "unknown corpus '\(node.scalar?.string ?? "?")' (have: \(names.sorted()))")
                }
                return name
            }
        }

        var variants: [Variant] = []
        for item in try list("variants", "variants") {
            guard let mapping = item.mapping else { throw fail(item, "each variant is a mapping") }
            let weightText = try string(mapping, "weight", required: false) ?? "0.5"
            guard let weight = Double(weightText) else { throw fail(mapping["weight"], "weight must be a number") }
            let applies = try corpusNames(mapping["corpora"])
            var backgroundMass: Double?
            if let text = try string(mapping, "backgroundMass", required: false) {
                guard let value = Double(text) else {
                    throw fail(mapping["backgroundMass"], "backgroundMass must be a number")
                }
                backgroundMass = value
            }
            var mix: LanguageModelMix?
            if let text = try string(mapping, "mix", required: false) {
                guard let value = LanguageModelMix(rawValue: text) else {
                    throw fail(mapping["mix"], "mix must be set or merged, not '\(text)'")
                }
                mix = value
            }
            var boundaryShare: Double?
            if let text = try string(mapping, "boundaryShare", required: false) {
                guard let value = Double(text) else {
                    throw fail(mapping["boundaryShare"], "boundaryShare must be a number")
                }
                boundaryShare = value
            }
            var phrases: PhraseFraming?
            if let text = try string(mapping, "phrases", required: false) {
                guard let value = PhraseFraming(rawValue: text) else {
                    throw fail(mapping["phrases"], "phrases must be fragments or sentences, not '\(text)'")
                }
                phrases = value
            }
            var interpolation: MergeOptions.Interpolation?
            if let text = try string(mapping, "interpolation", required: false) {
                guard let value = MergeOptions.Interpolation(rawValue: text) else {
                    throw fail(mapping["interpolation"], "interpolation must be history or constant, not '\(text)'")
                }
                interpolation = value
            }
            var variant = Variant(
                name: try string(mapping, "name")!, training: path(try string(mapping, "training")!),
                weight: weight, corpora: applies, backgroundMass: backgroundMass,
                compounds: try flag(mapping, "compounds"), mix: mix, boundaryShare: boundaryShare)
            variant.interpolation = interpolation
            variant.phrases = phrases
            do {
                try variant.requestedOptions.validate()
            } catch {
                throw fail(mapping[error.setting] ?? item, error.description)
            }
            variants.append(variant)
        }
        if Set(variants.map(\.name)).count != variants.count {
            throw fail(root["variants"], "variant names must be unique")
        }

        var modes: [SystemMode] = [.baseline, .customized, .oracle]
        if root["modes"] != nil {
            modes = try list("modes", "modes (baseline, customized, oracle)", allowEmpty: false).map { node in
                guard let mode = node.scalar.flatMap({ SystemMode(rawValue: $0.string) }) else {
                    throw fail(node, "modes are baseline, customized and oracle")
                }
                return mode
            }
        }
        var recognizers: [ExternalRecognizer] = []
        for item in try list("recognizers", "recognizers") {
            guard let mapping = item.mapping else { throw fail(item, "each recognizer is a mapping") }
            let name = try string(mapping, "name")!
            if name == "pocketsphinx" || recognizers.contains(where: { $0.name == name }) {
                throw fail(mapping["name"], "recognizer name '\(name)' is taken")
            }
            let command: [String]
            switch mapping["command"] {
            case .some(let node) where node.sequence != nil:
                command = try node.sequence!.map { argument in
                    guard let text = argument.scalar?.string else { throw fail(argument, "arguments are strings") }
                    return text
                }
            case .some(let node) where node.scalar != nil:
                command = node.scalar!.string.split(whereSeparator: \.isWhitespace).map(String.init)
            default: throw fail(Node.mapping(mapping), "missing key 'command' (a list of arguments with {audio})")
            }
            guard let onDeviceText = try string(mapping, "onDevice"), let onDevice = Bool(onDeviceText) else {
                throw fail(mapping["onDevice"], "onDevice must be true or false")
            }
            var timeout = 120.0
            if let text = try string(mapping, "timeout", required: false) {
                guard let value = Double(text), value > 0 else { throw fail(mapping["timeout"], "timeout is seconds") }
                timeout = value
            }
            let applies = try corpusNames(mapping["corpora"])
            var program = command.first ?? ""
            if program.contains("/") && !program.hasPrefix("/") { program = path(program).path }
            let recognizer = ExternalRecognizer(
                name: name, command: command.isEmpty ? [] : [program] + command.dropFirst(), onDevice: onDevice,
                timeoutSeconds: timeout, corpora: applies)
            if let problem = recognizer.problem { throw fail(mapping["command"], problem) }
            recognizers.append(recognizer)
        }
        var streaming = Streaming(utterances: 10, chunkMilliseconds: 100)
        if let value = root["streaming"] {
            guard let mapping = value.mapping else {
                throw fail(value, "'streaming' must be a mapping with utterances and chunkMilliseconds")
            }
            if let count = try string(mapping, "utterances", required: false) {
                guard let value = Int(count), value >= 0 else { throw fail(mapping["utterances"], "a whole number") }
                streaming.utterances = value
            }
            if let chunk = try string(mapping, "chunkMilliseconds", required: false) {
                guard let value = Int(chunk), value > 0 else { throw fail(mapping["chunkMilliseconds"], "a number") }
                streaming.chunkMilliseconds = value
            }
        }
        var decoder = DecoderSettings.standard
        if let value = root["decoder"] {
            guard let mapping = value.mapping else {
                throw fail(
                    value,
                    "'decoder' must be a mapping of engine settings ("
                        + DecoderSettings.settings.map(\.name).joined(separator: ", ") + ")")
            }
            for (key, node) in mapping {
                let name = key.scalar?.string ?? ""
                guard let text = node.scalar?.string else { throw fail(node, "decoder setting '\(name)' is one value") }
                do {
                    try decoder.set(name, to: text)
                } catch {
                    throw fail(node, error.message)
                }
            }
        }
        var cacheInOutput = false
        switch try string(root, "cache", required: false) {
        case nil, "user": break
        case "output": cacheInOutput = true
        case let other?: throw fail(root["cache"], "cache must be output or user, not '\(other)'")
        }
        let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        var suite = Suite(
            name: try string(root, "name", required: false) ?? url.deletingPathExtension().lastPathComponent,
            file: url, corpora: corpora, variants: variants, modes: modes, recognizers: recognizers,
            streaming: streaming, contentHash: digest)
        suite.cacheInOutput = cacheInOutput
        suite.decoder = decoder
        suite.declaredSplits = corpora.compactMap(\.split)
        return suite
    }

    /// The variants evaluated on a corpus: those naming it (or naming none) for a domain corpus, all
    /// of them for an anti-context corpus.
    public func variants(for corpus: Corpus) -> [Variant] {
        corpus.role == .antiContext ? variants : variants.filter { $0.corpora?.contains(corpus.name) ?? true }
    }
}

/// Why a run could not start or finish.
public enum RunnerError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidSuite(path: String, line: Int?, message: String)
    case corpus(String)
    /// A cache entry that could not be removed.
    case cache(String)
    case worker(String)
    case shard(String)

    public var description: String {
        switch self {
        case .invalidSuite(let path, let line, let message):
            "\(path)\(line.map { ":\($0)" } ?? ""): error: \(message)"
        case .corpus(let message): message
        case .cache(let message): message
        case .worker(let message): "decoder worker: \(message)"
        case .shard(let message): message
        }
    }
}
