import Foundation
import GambitTestSupport
import Publishing
import Results
import Runner

/// A small real suite made on the fly: chess commands spoken by two flite voices, the real "cards"
/// recordings and two short LibriVox ones as anti-context speech, and the seed's chess data as the variant.
public struct MiniSuite {
    public let folder: URL
    public let suiteFile: URL

    public static let chessTexts = [
        "play the albin counter gambit", "play the winawer variation", "knight to queen bishop three",
        "play the queen's gambit",
    ]

    /// - Parameters:
    ///   - weight: The variant's interpolation weight.
    ///   - badAudio: Add an utterance whose audio file is not audio.
    ///   - backgroundMass: The variant's background mass; nil for the compiler's default.
    ///   - mix: The variant's mix (`set` or `merged`); nil for the default (the weighted merge).
    ///   - interpolation: The merged variant's interpolation (`weighted`, `history`, `constant`); nil for the default.
    ///   - extra: More suite YAML, appended at the end (e.g. a `recognizers:` list).
    ///   - biasingLists: Give every chess line (the broken one too) the biasing list albin, winawer, gambit,
    ///     najdorf as its `boosted`.
    ///   - streaming: Also stream 2 utterances of each corpus in 100 ms chunks, for the tests of latency and of
    ///     the run's own mechanics; off, a run decodes a third less (streaming in chunks costs twice a batch
    ///     decode).
    public init(
        weight: Double = 0.5, backgroundMass: Double? = nil, mix: String? = nil, interpolation: String? = nil,
        badAudio: Bool = false,
        oracle: Bool = false, modes: [String]? = nil, extra: String = "", biasingLists: Bool = false,
        streaming: Bool = false
    ) throws {
        folder = try TestSupport.temporaryDirectory("suite")
        let audio = folder.appendingPathComponent("audio")
        try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
        var lines: [String] = []
        for (index, text) in Self.chessTexts.enumerated() {
            for voice in ["kal16", "rms"] {
                let id = "chess-\(index)-\(voice)"
                let url = audio.appendingPathComponent("\(id).wav")
                try TestSupport.synthesize(text, voice: voice, to: url)
                let split = index % 2 == 0 ? "dev" : "test"
                let list = biasingLists ? #","boosted":["albin","winawer","gambit","najdorf"]"# : ""
                lines.append(
                    #"{"id":"\#(id)","audio":"audio/\#(id).wav","text":"\#(text)","speaker":"\#(voice)","split":"\#(split)"\#(list)}"#
                )
            }
        }
        if badAudio {
            try Data("not audio at all".utf8).write(to: audio.appendingPathComponent("broken.wav"))
            let list = biasingLists ? #","boosted":["albin","winawer","gambit","najdorf"]"# : ""
            lines.append(
                #"{"id":"broken","audio":"audio/broken.wav","text":"play the winawer variation"\#(list)}"#)
        }
        try (lines.joined(separator: "\n") + "\n").write(
            to: folder.appendingPathComponent("chess.jsonl"), atomically: true, encoding: .utf8)
        let librivox = TestSupport.testData.appendingPathComponent("librivox")
        let general = [
            ("cards-001", TestSupport.cards[0].path, "ten of clubs"),
            (
                "librivox-0880", librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0880.wav").path,
                "he was not an ill disposed young man"
            ),
            (
                "librivox-0930", librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0930.wav").path,
                "he might even have been made amiable himself"
            ),
        ]
        let cards = general.map { id, audio, text in #"{"id":"\#(id)","audio":"\#(audio)","text":"\#(text)"}"# }
        try (cards.joined(separator: "\n") + "\n").write(
            to: folder.appendingPathComponent("general.jsonl"), atomically: true, encoding: .utf8)
        try """
        locale: en-US
        identifier: com.example.chess.seed
        version: "1.0"
        phrases:
          - {phrase: "Play the Albin counter gambit", count: 10}
          - {phrase: "Play the Queen's gambit", count: 10}
          - {phrase: "Play the Winawer variation", count: 10}
        templates:
          - classes: {piece: [pawn, rook, knight, bishop, queen, king], royal: [queen, king], rank: [one, two, three, four, five, six, seven, eight]}
            items:
              - {template: "<piece> to <royal> <piece> <rank>", count: 10000}
        pronunciations:
          - {grapheme: Winawer, phonemes: ["w I n aU @r"]}
        """.write(to: folder.appendingPathComponent("chess.yaml"), atomically: true, encoding: .utf8)
        suiteFile = folder.appendingPathComponent("suite.yaml")
        try """
        name: mini
        corpora:
          - {name: chess, manifest: chess.jsonl, role: domain}
          - {name: general, manifest: general.jsonl, role: anti-context, allow-outside-paths: \(TestSupport.testData.path)}
        variants:
          - {name: chess-seed, training: chess.yaml, weight: \(weight)\(backgroundMass.map { ", backgroundMass: \($0)" } ?? "")\(mix.map { ", mix: \($0)" } ?? "")\(interpolation.map { ", interpolation: \($0)" } ?? "")}
        modes: [\((modes ?? ["baseline", "customized"] + (oracle ? ["oracle"] : [])).joined(separator: ", "))]
        streaming: {utterances: \(streaming ? 2 : 0), chunkMilliseconds: 100}
        \(extra)
        """.write(to: suiteFile, atomically: true, encoding: .utf8)
    }

    /// Private training data that names a contact ("call siobhan okonkwo"), as the privacy and cache tests use it.
    public static let privateContacts = """
        locale: en-US
        identifier: com.example.contacts
        version: "1"
        private: true
        phrases:
          - {phrase: "call siobhan okonkwo", count: 10}

        """

    /// The `gambit` executable built beside this test bundle.
    public static var executable: URL { TestSupport.gambitExecutable }

    /// A decode cache every MiniSuite run of this test process shares (in-process, or `gambit run --decode-cache`): the
    /// suites are made alike, so most of their decodes (every baseline's, for one) are the same work, done once.
    public static let sharedDecodes: URL? = try? TestSupport.temporaryDirectory("decodes")

    /// Runs the suite in-process, as `gambit run` does.
    /// - Parameter sharedDecodes: Take the answers other runs of this process decoded (``RunOptions/decodeCache``);
    ///   false for a test of decoding itself (what the workers do, crash, retry, load or time).
    public func run(
        output: String = "out", workers: Int = 2, shard: Shard? = nil, fresh: Bool = false,
        crashOnce: Set<String> = [], failJournalAfterLines: Int? = nil, sharedDecodes: Bool = true
    ) throws -> RunResults {
        var options = RunOptions(
            output: folder.appendingPathComponent(output), workers: workers, shard: shard,
            workerExecutable: Self.executable, fresh: fresh, crashOnceForTesting: crashOnce)
        options.failJournalAfterLinesForTesting = failJournalAfterLines
        options.decodeCache =
            sharedDecodes && crashOnce.isEmpty && failJournalAfterLines == nil ? Self.sharedDecodes : nil
        let results = try Runner(
            suite: try Suite.load(suiteFile), options: options,
            toolchain: Toolchain(cacheFolder: folder.appendingPathComponent("cache"))
        ).run()
        // As `gambit run` does: the run folder's results are written by the one type that writes its files.
        try RunFolder(options.output).writeResults(results)
        return results
    }
}

extension MiniSuite {
    /// What ``run(output:workers:shard:fresh:crashOnce:failJournalAfterLines:)`` would decode, and what its
    /// journal holds.
    public func plan(output: String = "out") throws -> (plan: RunPlan, journaled: Set<String>) {
        try Runner(
            suite: try Suite.load(suiteFile),
            options: RunOptions(output: folder.appendingPathComponent(output), workerExecutable: Self.executable),
            toolchain: Toolchain(cacheFolder: folder.appendingPathComponent("cache"))
        ).plan()
    }
}

/// What must not depend on how a run was executed: every hypothesis, count and rate (timings excluded).
public struct AccuracyView: Equatable {
    public var utterances: [String: [String]]
    public var rates: [String: [Double]]
    public var comparisons: [String: [Double]]

    public init(_ results: RunResults) {
        var utterances: [String: [String]] = [:]
        var rates: [String: [Double]] = [:]
        for system in results.systems {
            utterances[system.key] = system.utterances.map {
                "\($0.id)|\($0.hypothesis)|\($0.counts.errors)|\($0.failure ?? "")"
            }
            let m = system.metrics
            rates[system.key] = [
                m.rates.wordErrorRate, m.boosted?.boostedWordErrorRate ?? -1, m.boosted?.unboostedWordErrorRate ?? -1,
                m.keywords?.overall.f1 ?? -1, m.keywords?.falseAlarmsPerHour ?? -1,
            ]
        }
        self.utterances = utterances
        self.rates = rates
        comparisons = Dictionary(
            uniqueKeysWithValues: results.comparisons.map {
                (
                    "\($0.corpus)/\($0.variant)" + ($0.recognizer.map { "@\($0)" } ?? ""),
                    [$0.deltaWER.observedDelta, $0.deltaWER.lower, $0.deltaWER.upper]
                )
            })
    }
}
