// A small synthetic run shared by the Results, Reporting and Gate tests.
import Foundation
import Results
import Scoring

public enum Fixture {
    public static let settings = RunSettings(
        workers: 2, normalizer: .standard, alignmentMode: .sclite, bootstrap: BootstrapOptions(resamples: 200, seed: 7))

    /// Terms of the private variant; no report may show them.
    public static let privateTerms = [
        "siobhan", "okonkwo", "aurelio", "nakamura", "siobhan okonkwo", "aurelio nakamura",
    ]

    public static let chess = VariantInfo(
        name: "chess-full", trainingDataFile: "training/chess-full.json", weight: 0.7, samplesUsed: 4_000,
        sampleBudget: 5_000, artifactFingerprint: "sha256:9f2c41d0",
        prepareSeconds: PrepareTimings(expand: 0.25, estimate: 1.5, write: 0.125, compileBinary: 0.5),
        boostedWords: ["albin", "gambit", "najdorf", "nimzowitsch", "kingside"],
        multiWordTerms: ["albin counter gambit"])

    public static let contacts = VariantInfo(
        name: "contacts", trainingDataFile: "training/contacts.json", weight: 0.5, isPrivate: true,
        samplesUsed: 800, artifactFingerprint: "sha256:0b77e5aa",
        prepareSeconds: PrepareTimings(expand: 0.125, estimate: 0.5, write: 0.125, compileBinary: 0.25),
        boostedWords: ["siobhan", "okonkwo", "aurelio", "nakamura"],
        multiWordTerms: ["siobhan okonkwo", "aurelio nakamura"],
        templates: SlotTemplates(
            templates: [["call", "<contact>"], ["text", "<contact>", "on", "mobile"]],
            classes: ["contact": ["siobhan okonkwo", "aurelio nakamura"]]))

    /// (reference, baseline, customized, oracle) per corpus; `nil` customized = the decoder failed.
    public static let chessLines: [(String, String, String?, String)] = [
        ("knight to queen bishop three", "night to queen bishop three", "knight to queen bishop three", ""),
        (
            "the albin counter gambit is sharp", "the all been counter gambit is sharp",
            "the albin counter gambit is sharp", ""
        ),
        (
            "najdorf sicilian with bishop to g five", "nine dorf sicilian with bishop to g five",
            "najdorf sicilian with bishop to g five", ""
        ),
        ("nimzowitsch defence", "names which defence", "nimzowitsch defence", ""),
        ("castle kingside", "castle king side", "castle kingside", ""),
        ("pawn takes on e four", "pawn takes on e four", "pawn takes on e for", ""),
        ("queen takes rook", "queen takes rook", nil, ""),
        ("the king's gambit accepted", "the kings gambit accepted", "the king's gambit accepted", ""),
    ]

    public static let contactLines: [(String, String, String?, String)] = [
        ("call siobhan okonkwo", "call shivaun ok on quo", "call siobhan okonkwo", ""),
        ("text aurelio nakamura on mobile", "text a relio naka mura on mobile", "text aurelio nakamura on mobile", ""),
        ("call aurelio nakamura", "call or really oh nakamura", "call aurelio nakamura", ""),
        ("call siobhan", "call shove on", "call siobhan", ""),
        ("what time is it", "what time is it", "what time is it", ""),
    ]

    /// (reference, baseline, with chess-full, with contacts).
    public static let generalLines: [(String, String, String, String)] = [
        (
            "the weather will be sunny tomorrow", "the weather will be sunny tomorrow",
            "the weather will be sunny tomorrow", "the weather will be sunny tomorrow"
        ),
        (
            "please turn off the lights", "please turn off the light", "please turn off the light",
            "please turn off the light"
        ),
        (
            "i want to book a table for two", "i want to book a table for two", "i want to book a table for to",
            "i want to book a table for two"
        ),
        ("how far is the station", "how far is the station", "how far is the station", "how far is siobhan station"),
    ]

    public static func records(
        corpus: String, lines: [(reference: String, hypothesis: String?)], mode: SystemMode, variant: VariantInfo?
    ) -> [UtteranceRecord] {
        lines.enumerated().map { index, line in
            let id = "\(corpus)-\(String(format: "%03ld", index + 1))"
            var record = Aggregation.record(
                id: id, index: index, audioPath: "audio/\(corpus)/\(id).wav",
                // Two synthetic voices and a recorded speaker named after a private term, so breakdowns by
                // speaker, voice and condition all have groups, and a label has something to mask.
                speaker: ["flite:slt", "espeak:en-us+f3", "siobhan"][index % 3],
                condition: index % 2 == 0 ? "clean" : "telephone", reference: line.reference,
                hypothesis: line.hypothesis ?? "", settings: settings)
            record.audioSeconds = 1.5 + Double(index % 4) * 0.5
            record.decodeSeconds = record.audioSeconds * (mode == .customized ? 0.375 : 0.25)
            let emission: [String: Double] =
                mode == .customized
                ? Dictionary(
                    uniqueKeysWithValues: (variant?.boostedWords ?? []).filter {
                        line.reference.contains($0) && (line.hypothesis ?? "").contains($0)
                    }.map { ($0, 0.75 + Double(index) * 0.125) }) : [:]
            record.latency = StreamingLatency(
                firstPartialSeconds: 0.25 + Double(index % 3) * 0.125,
                finalLatencySeconds: (mode == .customized ? 0.25 : 0.125) + Double(index % 5) * 0.0625,
                firstCorrectEmission: emission, pacing: "realTime", speechOnsetSeconds: 0.125,
                speechEndSeconds: 1.5, speechSource: "energy",
                firstPartialAfterOnsetSeconds: 0.125 + Double(index % 3) * 0.125,
                endpointSeconds: index % 2 == 0 ? 2.0 : nil, endpointLatencySeconds: index % 2 == 0 ? 0.5 : nil)
            record.customization = mode == .customized ? .applied : .notRequested
            if line.hypothesis == nil {
                record.failure = "decoder returned no hypothesis (ps_get_hyp)"
                record.retries = 1
                record.crashed = true
            }
            return record
        }
    }

    public static func system(
        _ corpus: String, _ mode: SystemMode, _ variant: VariantInfo?, _ lines: [(String, String?)]
    ) -> SystemResults {
        let records = records(
            corpus: corpus, lines: lines.map { (reference: $0.0, hypothesis: $0.1) }, mode: mode, variant: variant)
        return SystemResults(
            corpus: corpus, mode: mode, variant: variant?.name,
            metrics: Aggregation.metrics(of: records, normalizer: settings.normalizer), utterances: records,
            timing: SystemTiming(
                modelLoadSeconds: mode == .customized ? 1.25 : 1, decodeWallSeconds: 4,
                peakResidentMegabytes: mode == .customized ? 212 : 180),
            failures: FailureCounts(records))
    }

    /// The run. `worse` makes chess-full lose on the general (anti-context) corpus and on chess; `generalRepeats`
    /// says the general corpus's sentences that many times (4 utterances are too few to judge a change, 12 are
    /// not), with contacts' one changed word in the first copy only.
    public static func results(worse: Bool = false, generalRepeats: Int = 1) -> RunResults {
        let generalLines =
            Self.generalLines
            + (1..<max(1, generalRepeats)).flatMap { _ in Self.generalLines.map { ($0.0, $0.1, $0.2, $0.1) } }
        var systems: [SystemResults] = []
        systems.append(system("chess", .baseline, nil, chessLines.map { ($0.0, $0.1) }))
        systems.append(
            system(
                "chess", .customized, chess,
                chessLines.map { worse ? ($0.0, $0.1 + " pawn") : ($0.0, $0.2) }))
        systems.append(system("chess", .oracle, nil, chessLines.map { ($0.0, $0.0) }))
        systems.append(system("contacts", .baseline, nil, contactLines.map { ($0.0, $0.1) }))
        systems.append(system("contacts", .customized, contacts, contactLines.map { ($0.0, $0.2) }))
        systems.append(system("general", .baseline, nil, generalLines.map { ($0.0, $0.1) }))
        systems.append(
            system(
                "general", .customized, chess,
                generalLines.map { worse ? ($0.0, "gambit " + $0.2) : ($0.0, $0.2) }))
        systems.append(system("general", .customized, contacts, generalLines.map { ($0.0, $0.3) }))
        let corpora = [
            CorpusInfo(name: "chess", role: .domain, utteranceCount: chessLines.count, audioSeconds: 18),
            CorpusInfo(name: "contacts", role: .domain, utteranceCount: contactLines.count, audioSeconds: 11),
            CorpusInfo(name: "general", role: .antiContext, utteranceCount: generalLines.count, audioSeconds: 9),
        ]
        var results = RunResults(
            run: RunInfo(
                gambitVersion: "0.1.0", createdAt: "2025-05-01T12:00:00Z",
                suite: SuiteInfo(name: "demo", path: "suites/demo.yaml", contentHash: "sha256:5d41402abc4b2a76"),
                settings: settings,
                engine: EngineInfo(
                    name: "PocketSphinx", version: "5.0.3", acousticModelPath: "/usr/share/pocketsphinx/model/en-us",
                    acousticModelFingerprint: "sha256:e3b0c442", decoderArguments: ["-beam", "1e-60"])),
            networkDenial: NetworkDenialEvidence(
                method: "network namespace (unshare -n)", verified: true,
                detail: "connect(1.1.1.1:53) failed with ENETUNREACH inside the decoder namespace"),
            variants: [chess, contacts], corpora: corpora, systems: systems
        ).recomputingAggregates()
        results.checks = checks(results)
        results.sweep = sweep
        return results
    }

    public static func checks(_ results: RunResults) -> [Check] {
        var checks = [
            Check(
                name: "on-device", kind: .onDevice, passed: true, message: "network denied and verified (ENETUNREACH)"),
            Check(
                name: "canary chess-full", kind: .canary, passed: true, variant: "chess-full",
                message: "canary phrase recognized only with the custom model"),
            Check(
                name: "canary contacts", kind: .canary, passed: true, variant: "contacts",
                message: "canary phrase recognized only with the custom model"),
        ]
        for comparison in results.comparisons {
            let delta = comparison.customized.wordErrorRate - comparison.baseline.wordErrorRate
            let anti = results.corpus(named: comparison.corpus)?.role == .antiContext
            checks.append(
                Check(
                    name: "\(comparison.corpus)/\(comparison.variant) \(anti ? "anti-context" : "WER gate")",
                    kind: anti ? .antiContext : .werGate, passed: delta <= 0.01, measured: delta, threshold: 0.01,
                    unit: "fraction", corpus: comparison.corpus, variant: comparison.variant,
                    message: String(format: "ΔWER %+.2f points (limit +1.00)", delta * 100)))
        }
        let p95 = results.system(corpus: "chess", mode: .customized, variant: "chess-full")?.timing.finalLatency?.p95
        checks.append(
            Check(
                name: "chess/chess-full p95 final latency", kind: .latency, passed: (p95 ?? 0) <= 0.5, measured: p95,
                threshold: 0.5, unit: "seconds", corpus: "chess", variant: "chess-full",
                message: String(format: "p95 final latency %.3f s (limit 0.500 s)", p95 ?? 0)))
        return checks
    }

    public static let sweep = SweepResults(
        variant: "chess-full", corpus: "chess", antiContextCorpus: "general", split: "dev",
        points: [0.3, 0.5, 0.7, 0.9].enumerated().map { index, weight in
            SweepPoint(
                parameters: SweepParameters(weight: weight, budget: 5_000, countScaling: ["openings": 1.5]),
                samplesUsed: 4_000,
                metrics: MetricSummary(
                    wordErrorRate: 0.20 - Double(index) * 0.03, sentenceErrorRate: 0.5,
                    boostedWordErrorRate: 0.5 - Double(index) * 0.1,
                    unboostedWordErrorRate: 0.12 + Double(index) * 0.005),
                antiContext: MetricSummary(wordErrorRate: 0.05 + Double(index * index) * 0.01, sentenceErrorRate: 0.2),
                prepareSeconds: 2.375,
                rescoredWER: 0.20 - Double(index) * 0.03, decodedWER: index == 2 ? 0.115 : nil,
                paretoOptimal: index >= 1)
        },
        recommendation: SweepRecommendation(
            parameters: SweepParameters(weight: 0.7, budget: 5_000, countScaling: ["openings": 1.5]),
            reason: "lowest B-WER whose anti-context WER stays within +1.0 point of the baseline",
            test: MetricSummary(
                wordErrorRate: 0.12, sentenceErrorRate: 0.3, boostedWordErrorRate: 0.2, unboostedWordErrorRate: 0.13),
            testBaseline: MetricSummary(
                wordErrorRate: 0.21, sentenceErrorRate: 0.6, boostedWordErrorRate: 0.6, unboostedWordErrorRate: 0.13),
            testAntiContextWER: 0.06))
}

extension Fixture {
    /// The JUnit schema our reports must validate against, kept beside this file (`Schemas/`, with
    /// its origin and licence in `Schemas/SOURCES.md`).
    public static var junitSchema: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Schemas/jenkins-xunit-junit-10.xsd").path
    }

    /// `results` with corpora and variants renamed everywhere a name appears (corpora, variants, systems,
    /// comparisons, checks); names not in the maps are kept. For tests of what a name does to reports.
    public static func renaming(
        _ results: RunResults, corpora: [String: String] = [:], variants: [String: String] = [:]
    ) -> RunResults {
        var results = results
        func c(_ name: String) -> String { corpora[name] ?? name }
        func v(_ name: String) -> String { variants[name] ?? name }
        for index in results.corpora.indices { results.corpora[index].name = c(results.corpora[index].name) }
        for index in results.variants.indices { results.variants[index].name = v(results.variants[index].name) }
        for index in results.systems.indices {
            results.systems[index].corpus = c(results.systems[index].corpus)
            results.systems[index].variant = results.systems[index].variant.map(v)
        }
        for index in results.comparisons.indices {
            results.comparisons[index].corpus = c(results.comparisons[index].corpus)
            results.comparisons[index].variant = v(results.comparisons[index].variant)
        }
        for index in results.checks.indices {
            results.checks[index].corpus = results.checks[index].corpus.map(c)
            results.checks[index].variant = results.checks[index].variant.map(v)
        }
        return results
    }
}
