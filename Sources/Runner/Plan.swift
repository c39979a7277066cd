import Corpus
import Crypto
import Foundation
import LanguageModel
import Recognition
import Results
import TrainingData

/// What a run will decode, worked out before anything is decoded: every system (a corpus under the baseline, a
/// variant, the oracle or an external recognizer), every keyed work item (one utterance under one system, with
/// its streaming pass when it has one), and the checks that will judge the results.
///
/// ``make(suite:entries:variants:oracles:audioHashes:modelFingerprint:shard:crashOnceForTesting:)`` is a pure
/// function of what the suite and its prepared artifacts already say: it reads no file, starts no engine, and
/// gives the same plan (the same keys, in the same order) every time. `gambit run --plan` prints it.
public struct RunPlan: Sendable {
    /// One system to decode a corpus with.
    public struct System: Sendable {
        public var corpus: Suite.Corpus
        public var mode: SystemMode
        public var variant: Suite.Variant?
        public var configuration: LanguageModelConfiguration?
        /// What the work keys name as the system: `baseline`, `<artifact fingerprint>@<weight>`, `oracle:…`,
        /// `external:…`.
        public var fingerprint: String
        /// Words whose first correct emission time streaming measures.
        public var terms: [String]
        public var external: ExternalRecognizer?
        /// What the external recognizer's customized decodes are given; nil for its baseline and for PocketSphinx.
        public var externalInputs: ExternalCustomization.Inputs?
        /// Why the external recognizer's prepare failed for this variant: its utterances fail with it, undecoded.
        public var preparationFailure: String?
        /// The file this system's transcripts are imported from (made outside the run); nil when it is decoded.
        public var importedFile: URL?
        /// The phrase list of a list system (an external recognizer's ``PhraseListLever``); nil for every other.
        public var list: PhraseListUse?
        /// A local list system's terms (the variant's, ranked) and distractor pool, from which each utterance's own
        /// list is drawn; nil for every other system.
        var localList: PreparedList?

        /// A worker decodes its utterances: it is neither imported nor failed in its preparation.
        public var isDecoded: Bool { preparationFailure == nil && importedFile == nil }

        /// How a person reads it: `baseline`, `customized chess-full`, `oracle`, `external pocketsphinx-cli`,
        /// `external pocketsphinx-cli customized chess-full`.
        public var label: String {
            let own = variant.map { "\(mode.rawValue) \($0.name)" } ?? mode.rawValue
            guard let external else { return own }
            return "external \(external.name)" + (variant == nil ? "" : " \(own)")
                + (list.map { " with its \($0.name) phrase list" } ?? "")
        }
    }

    /// What the plan needs of a variant to derive its phrase lists for one recognizer (``PhraseListLever``).
    public struct PreparedList: Sendable, Equatable {
        /// The variant's terms, ranked by their counts in its training data (``PhraseList/ranked(_:in:limits:)``).
        public var ranked: [String]
        /// Where distractors are drawn from: other variants' terms, or the lines of the lever's file.
        public var pool: [String]
        /// `other variants' terms` or the file, as the results say it.
        public var poolSource: String
        public var locale: String

        public init(ranked: [String], pool: [String], poolSource: String, locale: String) {
            self.ranked = ranked
            self.pool = pool
            self.poolSource = poolSource
            self.locale = locale
        }

        /// The list of a system in `mode` under `lever`: global, the ranking cut at the limit plus distractors drawn
        /// for the variant; local, the terms `entry` says (or its manifest's list) cut likewise, plus distractors
        /// drawn for the utterance.
        func list(_ mode: PhraseListLever.Mode, lever: PhraseListLever, variant: String, entry: CorpusEntry?) -> (
            list: [String], terms: Int
        ) {
            let own = entry.map { $0.boosted ?? PhraseList.said(ranked, in: $0.text) } ?? ranked
            let terms = PhraseList.cut(own, limit: lever.limit, countingWords: lever.countsWords)
            let seed = variant + (entry.map { "/" + $0.id } ?? "")
            let drawn = PhraseList.distractors(mode.distractors, from: pool, excluding: Set(ranked + terms), seed: seed)
            return (PhraseList.mixed(terms, drawn, seed: seed), terms.count)
        }
    }

    /// What the plan needs of a variant prepared for an external recognizer.
    public struct PreparedExternal: Sendable, Equatable {
        /// The files and values its customized decodes are given (without an utterance's biasing list).
        public var inputs: ExternalCustomization.Inputs
        /// Names everything its decodes depend on: the training data's and phrase list's bytes, the weight, the
        /// locale, the prepare command and the prepared artifact's content.
        public var fingerprint: String
        /// Why its prepare failed; nil when it did not.
        public var failure: String?
        /// The variant's private training data went to a recognizer off the device, as the suite allowed.
        public var privateDataSentOffDevice: Bool

        public init(
            inputs: ExternalCustomization.Inputs, fingerprint: String, failure: String? = nil,
            privateDataSentOffDevice: Bool = false
        ) {
            self.inputs = inputs
            self.fingerprint = fingerprint
            self.failure = failure
            self.privateDataSentOffDevice = privateDataSentOffDevice
        }
    }

    /// The key of ``make(suite:entries:variants:oracles:audioHashes:modelFingerprint:externals:shard:crashOnceForTesting:)``'s
    /// `externals`.
    public static func externalKey(recognizer: String, variant: String) -> String { "\(recognizer)\u{1F}\(variant)" }

    /// One utterance under one system.
    public struct Item: Sendable {
        /// Index into ``RunPlan/systems``.
        public var system: Int
        /// The utterance's place in its corpus.
        public var index: Int
        public var entry: CorpusEntry
        public var request: WorkRequest
    }

    /// What the plan needs of a prepared variant.
    public struct PreparedVariant: Sendable, Equatable {
        /// The artifact's content fingerprint.
        public var fingerprint: String
        public var boostedTerms: [String]
        public var configuration: LanguageModelConfiguration

        public init(fingerprint: String, boostedTerms: [String], configuration: LanguageModelConfiguration) {
            self.fingerprint = fingerprint
            self.boostedTerms = boostedTerms
            self.configuration = configuration
        }

        public init(_ artifact: PreparedArtifact, weight: Double) {
            self.init(
                fingerprint: artifact.manifest.fingerprint, boostedTerms: artifact.manifest.boostedTerms,
                configuration: Toolchain.configuration(artifact, weight: weight))
        }
    }

    /// A check the results will be judged by (``Checks``), named as the report names it.
    public struct PlannedCheck: Sendable, Equatable, Codable {
        public var kind: CheckKind
        public var name: String
    }

    public var systems: [System]
    /// Every work item, systems in order and each system's utterances in corpus order.
    public var items: [Item]
    public var checks: [PlannedCheck]

    /// The plan of `suite`.
    ///
    /// - Parameters:
    ///   - entries: Each corpus's scored entries, by corpus name.
    ///   - variants: Each variant prepared, by name.
    ///   - oracles: Each domain corpus's oracle grammar, by corpus name (when the suite's modes include it).
    ///   - audioHashes: ``WorkRequest/hashFile(_:)`` of every entry's audio, by path.
    ///   - modelFingerprint: The acoustic model's (``AcousticModel/fingerprint``).
    ///   - externals: Each variant prepared for each customized external recognizer, by ``externalKey(recognizer:variant:)``.
    ///   - shard: Keep only this shard's utterances (assigned by a hash of their id).
    /// - Throws: ``RunnerError/nothingToDecode(shard:utterances:)`` when the plan holds nothing to decode (results over no utterance
    ///   would read as a perfect run).
    public static func make(
        suite: Suite, entries: [String: [CorpusEntry]], variants: [String: PreparedVariant],
        oracles: [String: LanguageModelConfiguration], audioHashes: [String: String], modelFingerprint: String,
        externals: [String: PreparedExternal] = [:], lists: [String: PreparedList] = [:], shard: Shard? = nil,
        crashOnceForTesting: Set<String> = []
    ) throws -> RunPlan {
        let systems = Self.systems(
            suite: suite, entries: entries, variants: variants, oracles: oracles, externals: externals, lists: lists)
        var items: [Item] = []
        for (s, system) in systems.enumerated() {
            for (index, entry) in (entries[system.corpus.name] ?? []).enumerated() {
                if let shard, shardIndex(entry.id, count: shard.count) != shard.index { continue }
                let audioHash = audioHashes[entry.audio.path] ?? "missing:\(entry.audio.path)"
                let streamed =
                    system.mode != .oracle && system.external == nil && index < suite.streaming.utterances
                    ? suite.streaming.setup : nil
                var request = Transcriber.request(
                    audio: entry.audio, audioHash: audioHash, configuration: system.configuration,
                    systemFingerprint: system.fingerprint, streaming: streamed, terms: system.terms,
                    settings: suite.decoder, modelFingerprint: modelFingerprint)
                if let external = system.external {
                    var fingerprint = system.fingerprint
                    if var inputs = system.externalInputs {
                        inputs.boosted = entry.boosted
                        if let local = system.localList, let lever = external.phraseLists,
                            let mode = system.list.flatMap({ PhraseListLever.Mode($0.name) })
                        {
                            // A local list is the utterance's own, and its decode depends on it.
                            inputs.list =
                                local.list(mode, lever: lever, variant: system.variant?.name ?? "", entry: entry)
                                .list
                            fingerprint += "|list:" + ExternalCustomization.Inputs.jsonList(inputs.list ?? [])
                        }
                        request.externalInputs = inputs
                        // A decode given the utterance's own list depends on it.
                        if external.decodeCommand(inputs).contains(where: {
                            $0.contains(CommandPlaceholder.boosted.name)
                        }) ?? false {
                            fingerprint += "|boosted:" + ExternalCustomization.Inputs.jsonList(entry.boosted ?? [])
                        }
                    }
                    // An imported transcript is the utterance's own line of its file, found by the utterance's id:
                    // two utterances of one recording have two answers, so the key names the utterance, not only
                    // its audio.
                    if system.importedFile != nil { fingerprint += "|utterance:" + entry.id }
                    // An external recognizer is not PocketSphinx: the engine's settings do not change its output,
                    // so changing them does not run its (perhaps slow, perhaps off-device) command again.
                    request.key = WorkRequest.key(
                        audioHash: audioHash, systemFingerprint: fingerprint, modelFingerprint: modelFingerprint,
                        decoder: .standard, streamed: nil)
                    request.external = external
                }
                if crashOnceForTesting.contains(entry.id) { request.crashForTesting = true }
                items.append(Item(system: s, index: index, entry: entry, request: request))
            }
        }
        if items.isEmpty {
            throw RunnerError.nothingToDecode(shard: shard, utterances: entries.values.map(\.count).reduce(0, +))
        }
        return RunPlan(
            systems: systems, items: items, checks: checks(suite: suite, systems: systems, externals: externals))
    }

    /// Every system, corpus by corpus (baseline, each variant, the oracle), then the external recognizers' (each
    /// one's baseline, then each variant it is customized with).
    static func systems(
        suite: Suite, entries: [String: [CorpusEntry]], variants: [String: PreparedVariant],
        oracles: [String: LanguageModelConfiguration], externals: [String: PreparedExternal] = [:],
        lists: [String: PreparedList] = [:]
    ) -> [System] {
        var systems: [System] = []
        for corpus in suite.corpora where suite.decodesBuiltIn {
            let corpusVariants = suite.variants(for: corpus).filter { variants[$0.name] != nil }
            let allTerms = Array(Set(corpusVariants.flatMap { variants[$0.name]!.boostedTerms })).sorted()
            if suite.modes.contains(.baseline) {
                systems.append(
                    System(
                        corpus: corpus, mode: .baseline, variant: nil, configuration: nil, fingerprint: "baseline",
                        terms: allTerms))
            }
            if suite.modes.contains(.customized) {
                for variant in corpusVariants {
                    let prepared = variants[variant.name]!
                    systems.append(
                        System(
                            corpus: corpus, mode: .customized, variant: variant,
                            configuration: prepared.configuration,
                            fingerprint: "\(prepared.fingerprint)@\(variant.weight)", terms: prepared.boostedTerms))
                }
            }
            // The oracle measures how much of the possible gain a variant captures; anti-context speech has no
            // gain to capture, so it is not decoded against its own grammar.
            if suite.modes.contains(.oracle), corpus.role == .domain, !(entries[corpus.name] ?? []).isEmpty,
                let oracle = oracles[corpus.name]
            {
                systems.append(
                    System(
                        corpus: corpus, mode: .oracle, variant: nil, configuration: oracle,
                        fingerprint: "oracle:\(oracle.fingerprint ?? "")", terms: allTerms))
            }
        }
        for corpus in suite.corpora {
            for recognizer in suite.recognizers where recognizer.corpora?.contains(corpus.name) ?? true {
                systems += externalSystems(
                    recognizer, corpus: corpus, suite: suite, variants: variants, externals: externals)
                systems += listSystems(recognizer, corpus: corpus, suite: suite, entries: entries, lists: lists)
            }
        }
        return systems
    }

    /// An external recognizer's systems on one corpus: its baseline, then (when it is customized and the suite
    /// decodes customized systems) each variant evaluated on the corpus that it is customized with.
    static func externalSystems(
        _ recognizer: ExternalRecognizer, corpus: Suite.Corpus, suite: Suite, variants: [String: PreparedVariant],
        externals: [String: PreparedExternal]
    ) -> [System] {
        if let transcripts = recognizer.transcripts {
            return importedSystems(recognizer, transcripts, corpus: corpus, suite: suite, variants: variants)
        }
        let version = recognizer.version.map { ":version \($0)" } ?? ""
        var systems = [
            System(
                corpus: corpus, mode: .baseline, variant: nil, configuration: nil,
                fingerprint: "external:\(recognizer.name):\(recognizer.onDevice):"
                    + recognizer.command.joined(separator: "\u{1F}") + version,
                terms: [], external: recognizer)
        ]
        guard suite.modes.contains(.customized), let customization = recognizer.customization else { return systems }
        for variant in suite.variants(for: corpus) where customization.variants?.contains(variant.name) ?? true {
            guard let prepared = externals[externalKey(recognizer: recognizer.name, variant: variant.name)],
                let info = variants[variant.name]
            else { continue }
            systems.append(
                System(
                    corpus: corpus, mode: .customized, variant: variant, configuration: nil,
                    fingerprint: "external-customized:\(recognizer.name):\(recognizer.onDevice):"
                        + customization.decode.joined(separator: "\u{1F}") + version + ":" + prepared.fingerprint,
                    terms: info.boostedTerms, external: recognizer, externalInputs: prepared.inputs,
                    preparationFailure: prepared.failure))
        }
        return systems
    }

    /// An external recognizer's list systems on one corpus (when it takes phrase lists and the suite decodes
    /// customized systems): for each variant evaluated on the corpus that it is given lists of, one system per
    /// mode of its ``PhraseListLever``.
    static func listSystems(
        _ recognizer: ExternalRecognizer, corpus: Suite.Corpus, suite: Suite, entries: [String: [CorpusEntry]],
        lists: [String: PreparedList]
    ) -> [System] {
        guard suite.modes.contains(.customized), recognizer.transcripts == nil, let lever = recognizer.phraseLists
        else { return [] }
        let version = recognizer.version.map { ":version \($0)" } ?? ""
        var systems: [System] = []
        for variant in suite.variants(for: corpus) where lever.variants?.contains(variant.name) ?? true {
            guard let prepared = lists[externalKey(recognizer: recognizer.name, variant: variant.name)] else {
                continue
            }
            for mode in lever.modes {
                let global = mode.kind == .global
                let (list, terms) = prepared.list(mode, lever: lever, variant: variant.name, entry: nil)
                let corpusEntries = entries[corpus.name] ?? []
                let lengths =
                    global
                    ? [list.count]
                    : corpusEntries.map {
                        prepared.list(mode, lever: lever, variant: variant.name, entry: $0).list.count
                    }
                var system = System(
                    corpus: corpus, mode: .customized, variant: variant, configuration: nil,
                    fingerprint: "external-list:\(recognizer.name):\(recognizer.onDevice):"
                        + lever.decode.joined(separator: "\u{1F}") + version + ":\(mode):locale \(prepared.locale)"
                        + (global ? ":" + ExternalCustomization.Inputs.jsonList(list) : ""),
                    terms: prepared.ranked, external: recognizer,
                    externalInputs: ExternalCustomization.Inputs(
                        training: "", phrases: "", artifact: nil, weight: variant.weight, locale: prepared.locale,
                        list: global ? list : []))
                system.list = PhraseListUse(
                    mode: mode.kind.rawValue, distractors: mode.distractors, limit: lever.limit,
                    unit: lever.countsWords ? "words" : "phrases", distractorSource: prepared.poolSource,
                    terms: global ? terms : nil, termsBeforeCut: prepared.ranked.count,
                    meanLength: lengths.isEmpty ? 0 : Double(lengths.reduce(0, +)) / Double(lengths.count))
                if !global { system.localList = prepared }
                systems.append(system)
            }
        }
        return systems
    }

    /// An imported recognizer's systems on one corpus: its baseline's file, then each variant's.
    static func importedSystems(
        _ recognizer: ExternalRecognizer, _ transcripts: ImportedTranscripts, corpus: Suite.Corpus, suite: Suite,
        variants: [String: PreparedVariant]
    ) -> [System] {
        func system(_ variant: Suite.Variant?) -> System? {
            guard let file = transcripts.file(corpus: corpus.name, variant: variant?.name, in: suite.folder) else {
                return nil
            }
            var system = System(
                corpus: corpus, mode: variant == nil ? .baseline : .customized, variant: variant, configuration: nil,
                fingerprint: "imported:\(recognizer.name):\(file.path)",
                terms: variant.flatMap { variants[$0.name]?.boostedTerms } ?? [], external: recognizer)
            system.importedFile = file
            return system
        }
        var systems = [system(nil)!]
        guard suite.modes.contains(.customized), transcripts.customized != nil else { return systems }
        for variant in suite.variants(for: corpus) where transcripts.variants?.contains(variant.name) ?? true {
            systems += [system(variant)].compactMap { $0 }
        }
        return systems
    }

    /// The checks ``Checks/evaluate(_:artifacts:responses:items:)`` will make of these systems' results, in its
    /// order. Some may come out as "no data" (a shard without a corpus's utterances, a corpus without boosted
    /// words); each is still judged.
    static func checks(suite: Suite, systems: [System], externals: [String: PreparedExternal] = [:])
        -> [PlannedCheck]
    {
        var checks = [PlannedCheck(kind: .onDevice, name: Checks.networkName)]
        for recognizer in suite.recognizers where recognizer.onDevice {
            checks.append(PlannedCheck(kind: .onDevice, name: Checks.externalOnDeviceName(recognizer.name)))
        }
        let customized = systems.filter { $0.mode == .customized && $0.external == nil }
        for system in customized {
            checks.append(
                PlannedCheck(
                    kind: .onDevice, name: Checks.customizationName(system.corpus.name, system.variant!.name)))
        }
        for variant in suite.variants {
            checks.append(PlannedCheck(kind: .canary, name: Checks.canaryName(variant.name)))
        }
        for recognizer in suite.recognizers {
            for variant in suite.variants {
                var lists: [String?] = []
                for system in systems where system.external == recognizer && system.variant?.name == variant.name {
                    if !lists.contains(system.list?.name) { lists.append(system.list?.name) }
                }
                for list in lists {
                    checks.append(
                        PlannedCheck(
                            kind: .customizationEffect,
                            name: Checks.customizationEffectName(variant.name, recognizer: recognizer.name, list: list)
                        ))
                }
            }
        }
        for recognizer in suite.recognizers {
            for variant in suite.variants
            where externals[externalKey(recognizer: recognizer.name, variant: variant.name)]?
                .privateDataSentOffDevice ?? false
            {
                checks.append(
                    PlannedCheck(kind: .privacy, name: Checks.privacyName(variant.name, recognizer: recognizer.name)))
            }
        }
        // A comparison pairs a corpus's customized system with its recognizer's baseline (an external recognizer's
        // is always decoded).
        for system in systems
        where system.mode == .customized && (system.external != nil || suite.modes.contains(.baseline)) {
            let corpus = system.corpus.name
            let variant = Checks.label(system.variant!.name, recognizer: system.external?.name, list: system.list?.name)
            checks.append(
                system.corpus.role == .antiContext
                    ? PlannedCheck(kind: .antiContext, name: Checks.antiContextName(corpus, variant))
                    : PlannedCheck(kind: .boostedGain, name: Checks.boostedGainName(corpus, variant)))
        }
        checks.append(PlannedCheck(kind: .failures, name: Checks.failuresName))
        return checks
    }

    /// The items whose keys `journaled` does not hold: what executing the plan will decode.
    public func pending(journaled: Set<String>) -> [Item] {
        items.filter { !journaled.contains($0.request.key) }
    }

    /// The shard an utterance belongs to: a hash of its id, so that it does not depend on the corpus's order.
    static func shardIndex(_ id: String, count: Int) -> Int {
        Int(shardHash(id) % UInt64(count))
    }

    private static func shardHash(_ id: String) -> UInt64 {
        SHA256.hash(data: Data(id.utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The shards of `count` that would hold none of the utterances whose ``shardHash(_:)`` are `hashes`.
    private static func emptyShards(hashes: [UInt64], count: Int) -> [Int] {
        guard count > 0 else { return [] }
        var held = [Bool](repeating: false, count: count)
        for hash in hashes { held[Int(hash % UInt64(count))] = true }
        return held.indices.filter { !held[$0] }
    }

    /// Checks that every one of `count` shards holds one of the utterances `ids`: a shard with none has nothing
    /// to decode, and its job fails (``RunnerError/nothingToDecode(shard:utterances:)``).
    ///
    /// - Throws: ``RunnerError/emptyShards(count:shards:utterances:fewer:)`` naming the empty shards, the number of
    ///   utterances and the largest shard count below `count` that leaves none empty.
    public static func checkShards(of ids: [String], count: Int) throws {
        let hashes = Set(ids).map(shardHash)
        let empty = emptyShards(hashes: hashes, count: count)
        guard !empty.isEmpty else { return }
        let fewer = stride(from: min(count - 1, hashes.count), to: 0, by: -1).first {
            emptyShards(hashes: hashes, count: $0).isEmpty
        }
        throw RunnerError.emptyShards(count: count, shards: empty, utterances: hashes.count, fewer: fewer ?? 0)
    }
}

extension RunPlan {
    /// How many items one corpus has in each stage, and how many of them the journal holds.
    public struct CorpusCounts: Sendable, Equatable, Codable {
        public var corpus: String
        /// The corpus's utterances in this run (its shard's, with `--shard`).
        public var utterances: Int
        public var baseline = 0
        public var customized = 0
        public var oracle = 0
        public var external = 0
        /// Items that are also streamed in chunks, for latency.
        public var streamed = 0
        public var journaled = 0
        public var items: Int { baseline + customized + oracle + external }
    }

    /// The items of each corpus by stage, in the suite's corpus order; `journaled` holds the keys already
    /// answered (``Transcriber/answeredKeys(in:)``).
    public func counts(journaled: Set<String>) -> [CorpusCounts] {
        var order: [String] = []
        var counts: [String: CorpusCounts] = [:]
        var utterances: [String: Set<String>] = [:]
        for item in items {
            let system = systems[item.system]
            let name = system.corpus.name
            if counts[name] == nil {
                order.append(name)
                counts[name] = CorpusCounts(corpus: name, utterances: 0)
            }
            utterances[name, default: []].insert(item.entry.id)
            if system.external != nil {
                counts[name]!.external += 1
            } else {
                switch system.mode {
                case .baseline: counts[name]!.baseline += 1
                case .customized: counts[name]!.customized += 1
                case .oracle: counts[name]!.oracle += 1
                }
            }
            if item.request.streaming != nil { counts[name]!.streamed += 1 }
            if journaled.contains(item.request.key) { counts[name]!.journaled += 1 }
        }
        return order.map { name in
            var row = counts[name]!
            row.utterances = utterances[name]?.count ?? 0
            return row
        }
    }

    /// The whole plan as `gambit run --plan --json` writes it: every item with its key.
    public struct Listing: Sendable, Codable {
        public struct Item: Sendable, Codable {
            public var corpus: String
            public var system: String
            public var utterance: String
            /// The audio, relative to the suite's folder (``Suite/reportedPath(_:)``).
            public var audio: String
            public var key: String
            public var streamingChunkMilliseconds: Int?
            public var streamingPacing: StreamPacing?
            public var journaled: Bool
        }
        public var suite: String
        public var shard: Shard?
        public var decoderArguments: [String]
        public var corpora: [CorpusCounts]
        /// Work the workers will do: distinct keys not journaled (two items with one key decode once).
        public var toDecode: Int
        public var checks: [PlannedCheck]
        public var items: [Item]
    }

    public func listing(suite: Suite, shard: Shard?, journaled: Set<String>) -> Listing {
        Listing(
            suite: suite.name, shard: shard, decoderArguments: suite.decoder.commandLine,
            corpora: counts(journaled: journaled),
            toDecode: Set(pending(journaled: journaled).map(\.request.key)).count,
            checks: checks,
            items: items.map { item in
                Listing.Item(
                    corpus: systems[item.system].corpus.name, system: systems[item.system].label,
                    utterance: item.entry.id, audio: suite.reportedPath(item.entry.audio), key: item.request.key,
                    streamingChunkMilliseconds: item.request.streaming?.chunkMilliseconds,
                    streamingPacing: item.request.streaming?.pacing,
                    journaled: journaled.contains(item.request.key))
            })
    }
}

extension RunPlan.Listing {
    /// The listing with every private word masked as the reports mask it: in the suite's name, corpus and system
    /// names, utterance ids, audio paths and check names. Corpora and utterances whose names mask alike stay apart
    /// (see ``PrivateTermMasker/names(_:)``). A plan printed in a CI log names private data no more than a report.
    /// - Parameter masker: The private words of the suite's data (``Runner/privateTermMasker(of:toolchain:)``).
    public func redacting(_ masker: PrivateTermMasker) -> RunPlan.Listing {
        guard !masker.isEmpty else { return self }
        let corpusNames = masker.names(corpora.map(\.corpus) + items.map(\.corpus))
        let utteranceNames = masker.names(items.map(\.utterance))
        func corpus(_ name: String) -> String { corpusNames[name] ?? masker.fragment(name) }
        var copy = self
        copy.suite = masker.fragment(suite)
        for c in copy.corpora.indices { copy.corpora[c].corpus = corpus(corpora[c].corpus) }
        for i in copy.items.indices {
            copy.items[i].corpus = corpus(items[i].corpus)
            copy.items[i].system = masker.fragment(items[i].system)
            copy.items[i].utterance = utteranceNames[items[i].utterance] ?? masker.fragment(items[i].utterance)
            copy.items[i].audio = masker.fragment(items[i].audio)
        }
        for c in copy.checks.indices { copy.checks[c].name = masker.fragment(checks[c].name) }
        return copy
    }
}
