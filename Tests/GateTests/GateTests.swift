import CXMLSchema
import Foundation
import Gate
import Reporting
import Results
import ResultsFixtures
import Scoring
import Testing

@Suite("Gate")
struct GateTests {
    /// `results` with the customized chess-full hypothesis of one utterance replaced, aggregates recomputed.
    func changing(_ results: RunResults, corpus: String, utterance: Int, to hypothesis: String) throws -> RunResults {
        var changed = results
        let index = try #require(changed.systems.firstIndex { $0.corpus == corpus && $0.variant == "chess-full" })
        let old = changed.systems[index].utterances[utterance]
        var record = Aggregation.record(
            id: old.id, index: old.index, audioPath: old.audioPath, speaker: old.speaker, reference: old.reference,
            hypothesis: hypothesis, settings: changed.run.settings)
        record.audioSeconds = old.audioSeconds
        record.decodeSeconds = old.decodeSeconds
        record.latency = old.latency
        record.customization = old.customization
        changed.systems[index].utterances[utterance] = record
        return changed.recomputingAggregates()
    }

    @Test("unchanged results pass")
    func unchanged() {
        let outcome = Gate.evaluate(current: Fixture.results(), baseline: Fixture.results())
        #expect(outcome.status == .pass)
        #expect(outcome.exitCode == 0)
        #expect(outcome.findings.count > 10)
        #expect(outcome.failures.isEmpty)
    }

    @Test("runs decoded with other engine settings are compared, with a note that names both settings")
    func otherDecoderSettings() {
        var current = Fixture.results()
        current.run.engine.decoderArguments = ["-beam", "1e-40", "-remove_silence", "no"]
        let outcome = Gate.evaluate(current: current, baseline: Fixture.results())
        #expect(outcome.status == .pass)
        #expect(
            outcome.notes.contains {
                $0.contains("different engine settings") && $0.contains("-beam 1e-40 -remove_silence no")
                    && $0.contains("-beam 1e-60")
            }, "\(outcome.notes)")
        #expect(
            !Gate.evaluate(current: Fixture.results(), baseline: Fixture.results()).notes.contains {
                $0.contains("engine settings")
            })
    }

    @Test("a worse variant fails with a message naming the corpus and the numbers")
    func worseVariantFails() throws {
        let outcome = Gate.evaluate(current: Fixture.results(worse: true), baseline: Fixture.results())
        #expect(outcome.status == .regression)
        #expect(outcome.exitCode == 1)
        let anti = try #require(outcome.failures.first { $0.metric == .antiContextWER })
        #expect(anti.corpus == "general")
        #expect(anti.message.contains("general · chess-full"))
        #expect(anti.message.contains("8.33%"))
        #expect(anti.message.contains("points"))
        let chess = try #require(outcome.failures.first { $0.corpus == "chess" && $0.metric == .wer })
        #expect(chess.currentValue > chess.baselineValue)
        #expect(chess.message.contains(String(format: "%.2f%%", chess.baselineValue * 100)))
        #expect(outcome.summary.contains("Gate failed"))
        // Failing findings come first.
        #expect(outcome.findings.first?.failed == true)
    }

    @Test("a significant rise in false alarms fails, and so does a rate above the ceiling however it came")
    func falseAlarms() throws {
        // `worse` puts "gambit", a boosted word, in front of every general-speech hypothesis of chess-full; 12 of
        // them, since over the fixture's 4 no change is judged.
        let outcome = Gate.evaluate(
            current: Fixture.results(worse: true, generalRepeats: 3), baseline: Fixture.results(generalRepeats: 3))
        let alarms = try #require(outcome.failures.first { $0.metric == .falseAlarmsPerHour && $0.corpus == "general" })
        #expect(alarms.baselineValue == 0 && alarms.currentValue > 0)
        #expect(alarms.significance?.significant == true)
        #expect(alarms.message.contains("false alarms per hour rose from 0.0/h to"), "\(alarms.message)")
        #expect(alarms.message.contains("per hour, significant"), "\(alarms.message)")
        // Unchanged, the rise limit passes; a ceiling below today's rate fails on its own.
        var thresholds = GateThresholds()
        let worse = Fixture.results(worse: true)
        #expect(
            !Gate.evaluate(current: worse, baseline: worse, thresholds: thresholds).findings.contains {
                $0.metric == .falseAlarmsPerHour && $0.failed
            })
        thresholds.corpora["general"] = CorpusThresholds(falseAlarmsPerHour: Limit(ceiling: 1))
        let capped = Gate.evaluate(current: worse, baseline: worse, thresholds: thresholds)
        let ceiling = try #require(capped.failures.first { $0.metric == .falseAlarmsPerHour })
        #expect(ceiling.delta == 0 && ceiling.message.contains("above the ceiling"), "\(ceiling.message)")
        #expect(capped.status == .regression)
    }

    @Test("runs scored under different normalization are compared with a note naming both")
    func otherNormalization() {
        var current = Fixture.results()
        current.run.settings = RunSettings(
            workers: current.run.settings.workers,
            normalizer: current.run.settings.normalizer.withTermForms(["albin's": "albin"]))
        var older = Fixture.results()
        older.run.settings.normalizerRulesVersion = nil
        for (now, then, expected) in [
            (current, Fixture.results(), "1 term form, rules version 2"),
            (Fixture.results(), older, "rules version 1"),
        ] {
            let outcome = Gate.evaluate(current: now, baseline: then)
            #expect(
                outcome.notes.contains { $0.contains("scored under different normalization") && $0.contains(expected) },
                "\(outcome.notes)")
        }
        #expect(
            !Gate.evaluate(current: Fixture.results(), baseline: Fixture.results()).notes.contains {
                $0.contains("normalization")
            })
    }

    @Test("a run of another suite is bad input, not a regression")
    func otherSuite() {
        var other = Fixture.results(worse: true)
        other.run.suite.name = "other"
        let outcome = Gate.evaluate(current: other, baseline: Fixture.results())
        #expect(outcome.status == .badInput)
        #expect(outcome.exitCode == 2)
        #expect(outcome.findings.isEmpty)
        #expect(
            outcome.summary.contains(
                "suite \"other\" and the baseline of suite \"\(Fixture.results().run.suite.name)\""))
    }

    @Test("a corpus with other utterances or other references under the same name is bad input")
    func otherUtterances() throws {
        var renamed = Fixture.results(worse: true)
        let index = try #require(renamed.systems.firstIndex { $0.corpus == "chess" && $0.variant == "chess-full" })
        let first = renamed.systems[index].utterances[0].id
        renamed.systems[index].utterances[0].id = "elsewhere-001"
        let outcome = Gate.evaluate(current: renamed, baseline: Fixture.results())
        #expect(outcome.status == .badInput)
        #expect(outcome.summary.contains("only in this run: elsewhere-001"), "\(outcome.summary)")
        #expect(outcome.summary.contains("only in the baseline: \(first)"), "\(outcome.summary)")

        // A baseline stored with its private terms masked still matches the unmasked run.
        #expect(
            Gate.comparability(current: Fixture.results(), baseline: Fixture.results().redactingPrivateTerms()) == [])

        var edited = Fixture.results()
        edited.systems[index].utterances[1].reference += " please"
        let id = edited.systems[index].utterances[1].id
        let changed = Gate.evaluate(current: edited, baseline: Fixture.results())
        #expect(changed.status == .badInput)
        #expect(changed.summary.contains("reference text changed: \(id)"), "\(changed.summary)")

        // A biasing list decides which words B-WER counts: a list given or changed since the baseline makes the
        // runs incomparable too.
        var listed = Fixture.results()
        listed.systems[index].utterances[2].biasingList = ["najdorf", "winawer"]
        let listedID = listed.systems[index].utterances[2].id
        let relisted = Gate.evaluate(current: listed.recomputingAggregates(), baseline: Fixture.results())
        #expect(relisted.status == .badInput)
        #expect(relisted.summary.contains("biasing list changed: \(listedID)"), "\(relisted.summary)")
        #expect(Gate.comparability(current: listed, baseline: listed.redactingPrivateTerms()) == [])
    }

    /// `results` with every streamed utterance's final latency of the chess baseline changed by `change`.
    func slowing(_ results: RunResults, _ change: (Int, Double) -> Double) throws -> RunResults {
        var slowed = results
        let index = try #require(slowed.systems.firstIndex { $0.corpus == "chess" && $0.mode == .baseline })
        for u in slowed.systems[index].utterances.indices {
            if let value = slowed.systems[index].utterances[u].latency?.finalLatencySeconds {
                slowed.systems[index].utterances[u].latency?.finalLatencySeconds = change(u, value)
            }
        }
        return slowed.recomputingAggregates()
    }

    /// The fixture's chess corpus has 8 streamed utterances, too few to judge; twelve copies of each make 96.
    func manyStreamed() throws -> RunResults {
        var many = Fixture.results()
        let index = try #require(many.systems.firstIndex { $0.corpus == "chess" && $0.mode == .baseline })
        let originals = many.systems[index].utterances
        many.systems[index].utterances = (0..<12).flatMap { copy in
            originals.map { record in
                var record = record
                record.id += "-\(copy)"
                record.index += copy * originals.count
                record.latency?.finalLatencySeconds? += Double(copy) * 0.001
                return record
            }
        }
        return many.recomputingAggregates()
    }

    @Test("A p95 final latency regression fails only when significant and above the relative limit")
    func latencyRegression() throws {
        let base = try manyStreamed()
        func finding(_ outcome: GateOutcome) throws -> GateFinding {
            try #require(outcome.findings.first { $0.metric == .finalLatencyP95 && $0.system == "chess/baseline" })
        }
        // Every utterance 60% slower: significant and above +25%.
        let slow = try finding(Gate.evaluate(current: try slowing(base) { $1 * 1.6 }, baseline: base))
        #expect(slow.failed)
        #expect(slow.significance?.significant == true)
        #expect(slow.message.contains("95% CI [+"), "\(slow.message)")
        // 10% slower, significant but within +25%.
        let within = try finding(Gate.evaluate(current: try slowing(base) { $1 * 1.1 }, baseline: base))
        #expect(within.significance?.significant == true)
        #expect(!within.exceedsLimit && !within.failed)
        // Tripled, but over eight utterances, too few to judge: above the limit, not a regression.
        let few = try finding(
            Gate.evaluate(current: try slowing(Fixture.results()) { $1 * 3 }, baseline: Fixture.results()))
        #expect(few.exceedsLimit && !few.failed)
        #expect(few.message.contains("too few utterances to judge (8 compared"), "\(few.message)")
    }

    @Test("noise below the thresholds passes")
    func noiseBelowThreshold() throws {
        var noisy = Fixture.results()
        for s in noisy.systems.indices {
            for u in noisy.systems[s].utterances.indices {
                noisy.systems[s].utterances[u].latency?.finalLatencySeconds? += 0.01
                noisy.systems[s].utterances[u].decodeSeconds *= 1.05
            }
        }
        noisy = noisy.recomputingAggregates()
        #expect(Gate.evaluate(current: noisy, baseline: Fixture.results()).status == .pass)
        // One wrong word on 34 is +2.9 points: within a corpus limit of +5 points.
        let oneWord = try changing(Fixture.results(), corpus: "chess", utterance: 0, to: "knight to queen bishop tree")
        var thresholds = GateThresholds()
        thresholds.corpora["chess"] = CorpusThresholds(wer: Limit(maxIncrease: 5), boostedWER: Limit(maxIncrease: 5))
        #expect(Gate.evaluate(current: oneWord, baseline: Fixture.results(), thresholds: thresholds).status == .pass)
        #expect(Gate.evaluate(current: oneWord, baseline: Fixture.results()).status == .regression)
    }

    @Test("requiring significance suppresses an insignificant regression")
    func significanceSuppresses() throws {
        let oneWord = try changing(Fixture.results(), corpus: "chess", utterance: 0, to: "knight to queen bishop tree")
        let strict = Gate.evaluate(current: oneWord, baseline: Fixture.results())
        let finding = try #require(strict.failures.first { $0.metric == .wer })
        #expect(finding.significance?.significant == false)
        var thresholds = GateThresholds()
        thresholds.wer.requireSignificance = true
        let lenient = Gate.evaluate(current: oneWord, baseline: Fixture.results(), thresholds: thresholds)
        #expect(lenient.status == .pass)
        let suppressed = try #require(
            lenient.findings.first { $0.metric == .wer && $0.corpus == "chess" && $0.variant != nil })
        #expect(suppressed.exceedsLimit)
        #expect(!suppressed.failed)
        // The fixture's chess corpus has 8 utterances: too few to judge, which is never significant.
        #expect(suppressed.message.contains("too few utterances to judge (8 compared; at least 10 needed)"))
        #expect(suppressed.message.hasSuffix("above the limit, but too few utterances to judge, so not a regression"))
    }

    @Test("thresholds decode from a partial gate section with defaults for the rest")
    func thresholdsDecode() throws {
        let json =
            #"{"wer": {"maxIncrease": 0.5, "requireSignificance": true}, "corpora": {"general": {"antiContextWER": {"maxIncreasePercent": 20}}}}"#
        let thresholds = try JSONDecoder().decode(GateThresholds.self, from: Data(json.utf8))
        #expect(thresholds.wer == Limit(maxIncrease: 0.5, requireSignificance: true))
        #expect(thresholds.antiContextWER == GateThresholds.default.antiContextWER)
        #expect(thresholds.corpora["general"]?.antiContextWER?.maxIncreasePercent == 20)
        let empty = try JSONDecoder().decode(GateThresholds.self, from: Data("{}".utf8))
        #expect(empty == .default)
    }

    @Test("bad input exits with 2")
    func badInput() throws {
        var thresholds = GateThresholds()
        thresholds.wer.maxIncrease = -1
        let negative = Gate.evaluate(current: Fixture.results(), baseline: Fixture.results(), thresholds: thresholds)
        #expect(negative.exitCode == 2)
        #expect(negative.notes.first?.contains("gate.wer.maxIncrease") == true)
        let missing = Gate.evaluate(
            current: URL(fileURLWithPath: "/nonexistent/results.json"),
            baseline: URL(fileURLWithPath: "/nonexistent/base.json"))
        #expect(missing.exitCode == 2)
        var other = Fixture.results()
        other.systems = []
        #expect(Gate.evaluate(current: other, baseline: Fixture.results()).exitCode == 2)
    }

    @Test("gate findings become JUnit test cases that validate against junit-10.xsd")
    func junit() throws {
        let outcome = Gate.evaluate(current: Fixture.results(worse: true), baseline: Fixture.results())
        let xml = GateJUnitReport(outcome, name: "demo").render()
        #expect(xml.contains("<failure"))
        #expect(xml.contains("general · chess-full"))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-gate-\(UUID()).xml")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(xml.utf8).write(to: url)
        var messages = [CChar](repeating: 0, count: 4096)
        let status = gambit_xml_validate(
            url.path, Fixture.junitSchema, &messages, messages.count)
        #expect(
            status == 0, "\(String(decoding: messages.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
        )
    }
}
