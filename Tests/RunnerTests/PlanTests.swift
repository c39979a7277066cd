import Corpus
import Foundation
import Recognition
import Results
import Scoring
import Testing

@testable import Runner

/// The plan is a pure function of the suite and its prepared artifacts: these tests build both in memory and
/// start no engine, synthesiser or worker.
@Suite struct PlanTests {
    static let folder = URL(fileURLWithPath: "/suites/plan")

    static func corpus(_ name: String, _ role: CorpusRole) -> Suite.Corpus {
        Suite.Corpus(name: name, manifest: folder.appendingPathComponent("\(name).jsonl"), role: role)
    }

    static func variant(_ name: String, corpora: [String]) -> Suite.Variant {
        Suite.Variant(
            name: name, training: folder.appendingPathComponent("\(name).yaml"), weight: 0.5, corpora: corpora)
    }

    /// Two domain corpora, one anti-context corpus, a variant for each domain, every mode, streaming of the
    /// first utterance and an external recognizer on one corpus.
    static func suite(decoder: DecoderSettings = .standard) -> Suite {
        var suite = Suite(
            name: "plan", file: folder.appendingPathComponent("suite.yaml"),
            corpora: [corpus("chess", .domain), corpus("medical", .domain), corpus("everyday", .antiContext)],
            variants: [variant("chess-full", corpora: ["chess"]), variant("medical-full", corpora: ["medical"])],
            modes: [.baseline, .customized, .oracle], streaming: .init(utterances: 1, chunkMilliseconds: 100),
            contentHash: "suite")
        suite.recognizers = [
            ExternalRecognizer(name: "cli", command: ["cli", "{audio}"], onDevice: true, corpora: ["chess"])
        ]
        suite.decoder = decoder
        return suite
    }

    static let entries: [String: [CorpusEntry]] = [
        "chess": (0..<4).map { entry("chess-\($0)", "knight to e four") },
        "medical": (0..<3).map { entry("medical-\($0)", "metoprolol twice daily") },
        "everyday": (0..<5).map { entry("everyday-\($0)", "the birch canoe slid") },
    ]

    static func entry(_ id: String, _ text: String) -> CorpusEntry {
        CorpusEntry(id: id, audio: folder.appendingPathComponent("audio/\(id).wav"), text: text)
    }

    static func configuration(_ name: String) -> LanguageModelConfiguration {
        LanguageModelConfiguration(
            languageModel: folder.appendingPathComponent("\(name).lm.bin"),
            vocabulary: folder.appendingPathComponent("\(name).dic"), weight: 0.5, fingerprint: "sha256:\(name)")
    }

    static let variants: [String: RunPlan.PreparedVariant] = [
        "chess-full": .init(
            fingerprint: "sha256:chess", boostedTerms: ["knight"], configuration: configuration("chess")),
        "medical-full": .init(
            fingerprint: "sha256:medical", boostedTerms: ["metoprolol"], configuration: configuration("medical")),
    ]

    static var oracles: [String: LanguageModelConfiguration] {
        var chess = configuration("oracle-chess")
        chess.grammar = "#JSGF V1.0;"
        var medical = configuration("oracle-medical")
        medical.grammar = "#JSGF V1.0;"
        return ["chess": chess, "medical": medical]
    }

    static var hashes: [String: String] {
        Dictionary(uniqueKeysWithValues: entries.values.joined().map { ($0.audio.path, "hash-\($0.id)") })
    }

    static func plan(_ suite: Suite = suite(), shard: Shard? = nil) throws -> RunPlan {
        try RunPlan.make(
            suite: suite, entries: entries, variants: variants, oracles: oracles, audioHashes: hashes,
            modelFingerprint: "model", shard: shard)
    }

    @Test func systemsAndItemsPerCorpusAndStage() throws {
        let plan = try Self.plan()
        #expect(
            plan.systems.map { "\($0.corpus.name): \($0.label)" } == [
                "chess: baseline", "chess: customized chess-full", "chess: oracle",
                "medical: baseline", "medical: customized medical-full", "medical: oracle",
                // Anti-context speech is decoded with every variant and has no oracle.
                "everyday: baseline", "everyday: customized chess-full", "everyday: customized medical-full",
                "chess: external cli",
            ])
        let counts = plan.counts(journaled: [])
        #expect(counts.map(\.corpus) == ["chess", "medical", "everyday"])
        #expect(counts.map(\.utterances) == [4, 3, 5])
        #expect(counts.map(\.baseline) == [4, 3, 5])
        #expect(counts.map(\.customized) == [4, 3, 10])
        #expect(counts.map(\.oracle) == [4, 3, 0])
        #expect(counts.map(\.external) == [4, 0, 0])
        // The first utterance of each PocketSphinx system but the oracle is also streamed.
        #expect(counts.map(\.streamed) == [2, 2, 3])
        #expect(plan.items.count == 4 * 4 + 3 * 3 + 5 * 3)
    }

    @Test func keysAreTheTranscribersKeys() throws {
        let plan = try Self.plan()
        let first = plan.items[0]
        #expect(first.entry.id == "chess-0")
        #expect(first.request.streaming == StreamingSetup(chunkMilliseconds: 100))
        #expect(
            first.request.key
                == WorkRequest.key(
                    audioHash: "hash-chess-0", systemFingerprint: "baseline", modelFingerprint: "model",
                    decoder: .standard, streamed: StreamingSetup(chunkMilliseconds: 100)))
        let customized = try #require(plan.items.first { plan.systems[$0.system].mode == .customized && $0.index == 1 })
        #expect(
            customized.request.key
                == WorkRequest.key(
                    audioHash: "hash-chess-1", systemFingerprint: "sha256:chess@0.5", modelFingerprint: "model",
                    decoder: .standard, streamed: nil))
        #expect(customized.request.terms == ["knight"])
        #expect(Set(plan.items.map(\.request.key)).count == plan.items.count)
        // The same inputs give the same plan.
        #expect(try Self.plan().items.map(\.request.key) == plan.items.map(\.request.key))
    }

    @Test func otherDecoderSettingsChangeEveryEngineKeyButNotAnExternalRecognizers() throws {
        var settings = DecoderSettings.standard
        settings.beam = 1e-40
        let standard = try Self.plan()
        let narrow = try Self.plan(Self.suite(decoder: settings))
        for (a, b) in zip(standard.items, narrow.items) {
            if standard.systems[a.system].external == nil {
                #expect(a.request.key != b.request.key)
            } else {
                #expect(a.request.key == b.request.key)
                #expect(b.request.external?.name == "cli")
            }
        }
    }

    @Test func shardsSplitTheItemsWithoutOverlap() throws {
        let whole = Set(try Self.plan().items.map(\.request.key))
        var union = Set<String>()
        var total = 0
        for index in 0..<3 {
            let part = try Self.plan(shard: Shard(index: index, count: 3)).items.map(\.request.key)
            total += part.count
            union.formUnion(part)
        }
        #expect(total == whole.count)
        #expect(union == whole)
        // An utterance's systems stay together in one shard.
        let shard = try Self.plan(shard: Shard(index: 0, count: 3))
        let ids = Set(shard.items.map(\.entry.id))
        #expect(
            shard.items.count
                == ids.reduce(0) { count, id in
                    count + (try! Self.plan()).items.filter { $0.entry.id == id }.count
                })
    }

    @Test func aShardWithNothingIsRefused() throws {
        #expect(throws: RunnerError.self) {
            try Self.plan(shard: Shard(index: 0, count: 1000))
        }
    }

    @Test func theJournalSetsWhatIsLeft() throws {
        let plan = try Self.plan()
        let journaled = Set(plan.items.prefix(10).map(\.request.key))
        #expect(plan.pending(journaled: journaled).count == plan.items.count - 10)
        #expect(plan.counts(journaled: journaled).map(\.journaled).reduce(0, +) == 10)
        let listing = plan.listing(suite: Self.suite(), shard: nil, journaled: journaled)
        #expect(listing.toDecode == plan.items.count - 10)
        #expect(listing.items.filter(\.journaled).count == 10)
        #expect(listing.items[0].audio == "audio/chess-0.wav")
    }

    @Test("A private word is masked wherever the listing names it: corpora, systems, utterances, audio, checks")
    func privateWordsMaskedInTheListing() throws {
        let plan = try Self.plan()
        let masker = PrivateTermMasker(
            variants: [
                VariantInfo(
                    name: "medical-full", trainingDataFile: "medical-full.yaml", isPrivate: true,
                    boostedWords: ["metoprolol", "medical"])
            ], normalizer: .standard)
        let listing = plan.listing(suite: Self.suite(), shard: nil, journaled: []).redacting(masker)
        let json = String(decoding: try JSONEncoder().encode(listing), as: UTF8.self)
        #expect(json.range(of: "medical", options: .caseInsensitive) == nil, "\(json)")
        #expect(listing.corpora.map(\.corpus).contains("‹term-2›"), "\(listing.corpora)")
        #expect(
            listing.items.contains { $0.system == "customized ‹term-2›-full" && $0.audio == "audio/‹term-2›-0.wav" })
        #expect(listing.checks.contains { $0.name == "canary: ‹term-2›-full" })
        // Only the private words go: counts, keys and the other names stay as they are.
        let plain = plan.listing(suite: Self.suite(), shard: nil, journaled: [])
        #expect(listing.items.map(\.key) == plain.items.map(\.key))
        #expect(listing.corpora.map(\.utterances) == plain.corpora.map(\.utterances))
        let chess = plain.items.filter { $0.corpus == "chess" }.map(\.utterance)
        #expect(listing.items.filter { $0.corpus == "chess" }.map(\.utterance) == chess)
        #expect(plain.redacting(PrivateTermMasker(variants: [], normalizer: .standard)).suite == plain.suite)
    }

    @Test func checksNamedAsTheReportNamesThem() throws {
        let plan = try Self.plan()
        #expect(
            plan.checks.map(\.name) == [
                "network denied while decoding", "external recognizer on-device: cli",
                "customization applied on-device: chess / chess-full",
                "customization applied on-device: medical / medical-full",
                "customization applied on-device: everyday / chess-full",
                "customization applied on-device: everyday / medical-full",
                "canary: chess-full", "canary: medical-full",
                "boosted-word gain: chess / chess-full", "boosted-word gain: medical / medical-full",
                "anti-context WER: everyday / chess-full", "anti-context WER: everyday / medical-full",
                "every utterance decoded",
            ])
    }
}
