import Foundation
import GambitTestSupport
import LanguageModel
import NGram
import Recognition
import Results
import Runner
import RunnerTestSupport
import Testing

@Suite("The runner", .serialized)
struct RunnerTests {
    @Test("A run decodes every corpus with and without customization and measures the gain")
    func endToEnd() throws {
        let suite = try MiniSuite(oracle: true, streaming: true)
        // This test is of the decoding itself: nothing comes from the decodes other tests share.
        let results = try suite.run(sharedDecodes: false)
        let baseline = try #require(results.system(corpus: "chess", mode: .baseline))
        let customized = try #require(results.system(corpus: "chess", mode: .customized, variant: "chess-seed"))
        let oracle = try #require(results.system(corpus: "chess", mode: .oracle))
        #expect(baseline.utterances.count == 8 && customized.utterances.count == 8)
        #expect(customized.metrics.rates.wordErrorRate < baseline.metrics.rates.wordErrorRate / 2)
        #expect(oracle.metrics.rates.wordErrorRate <= customized.metrics.rates.wordErrorRate)
        #expect(customized.utterances.allSatisfy { $0.customization == .applied })
        #expect(baseline.utterances.prefix(2).allSatisfy { $0.latency?.finalLatencySeconds != nil })
        let comparison = try #require(results.comparison(corpus: "chess", variant: "chess-seed"))
        #expect(comparison.deltaWER.observedDelta < 0)
        #expect(results.checks.contains { $0.kind == .canary && $0.passed }, "\(results.checks.map(\.message))")
        let onDevice = results.checks.filter { $0.kind == .onDevice && $0.name.hasPrefix("customization") }
        #expect(!onDevice.isEmpty && onDevice.allSatisfy { $0.passed })
        // The plan named these checks, and every key it planned is journaled now.
        let (plan, journaled) = try suite.plan()
        #expect(plan.checks.map(\.name) == results.checks.map(\.name))
        #expect(plan.checks.map(\.kind) == results.checks.map(\.kind))
        #expect(journaled.isSuperset(of: plan.items.map(\.request.key)))
        #expect(plan.pending(journaled: journaled).isEmpty)

        // Where the time went: each stage, and the workers' time by kind of work over what this run decoded.
        let timings = try #require(results.timings)
        #expect(timings.stages.map(\.name) == ["synthesis", "prepare", "audio hashes", "plan", "decoding", "scoring"])
        #expect(timings.decoded == plan.items.count && timings.journaled == 0 && timings.workerCount == 2)
        let parts = Dictionary(uniqueKeysWithValues: timings.workers.map { ($0.name, $0) })
        #expect(parts["decoding: baseline"]?.count == 11 && parts["decoding: customized"]?.count == 11)
        #expect(parts["decoding: oracle"]?.count == 8 && parts["streaming"]?.count == 8)
        // A worker loads a model when its work moves to another system: each of the three models at least once.
        #expect((3...timings.decoded).contains(parts["model loads"]?.count ?? 0), "\(timings.workers)")
        let decoding = try #require(timings.stages.first { $0.name == "decoding" })
        #expect(timings.decodeFloorSeconds > 0 && timings.decodeFloorSeconds <= decoding.wallSeconds)
        // Run again: everything comes from the journal, and nothing is counted as decoded.
        let again = try #require(try suite.run(sharedDecodes: false).timings)
        #expect(again.decoded == 0 && again.journaled == plan.items.count && again.workers.isEmpty)
    }

    @Test("gambit run --plan prints what a run would decode, per corpus and stage, and writes no output")
    func planThroughTheCLI() throws {
        let suite = try MiniSuite(oracle: true, streaming: true)
        let output = suite.folder.appendingPathComponent("planned")
        let cache = suite.folder.appendingPathComponent("cache").path
        let text = try TestSupport.gambit(
            ["run", "--plan", suite.suiteFile.path, "--output", output.path, "--cache-dir", cache, "--workers", "2"])
        #expect(text.status == 0, "\(text.output)")
        let rows = text.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        // corpus, utterances, baseline, customized, oracle, external, streamed, journaled
        #expect(rows.contains(["chess", "8", "8", "8", "8", "0", "4", "0"]), "\(text.output)")
        #expect(rows.contains(["general", "3", "3", "3", "0", "0", "4", "0"]), "\(text.output)")
        #expect(text.output.contains("30 work items: 0 journaled, 30 to decode on 2 workers"), "\(text.output)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let json = try TestSupport.gambit(
            ["run", "--plan", "--json", suite.suiteFile.path, "--output", output.path, "--cache-dir", cache])
        #expect(json.status == 0, "\(json.output)")
        let listing = try JSONDecoder().decode(RunPlan.Listing.self, from: Data(json.output.utf8))
        #expect(listing.items.count == 30 && listing.toDecode == 30)
        #expect(listing.items.allSatisfy { $0.key.count == 64 && !$0.audio.hasPrefix(suite.folder.path) })
        #expect(listing.checks.last?.name == "every utterance decoded")

        // A suite that keeps its models in the output folder: the plan prepares them elsewhere.
        let own = suite.folder.appendingPathComponent("own-cache.yaml")
        try (String(contentsOf: suite.suiteFile, encoding: .utf8) + "\ncache: output\n").write(
            to: own, atomically: true, encoding: .utf8)
        let ownPlan = try TestSupport.gambit(["run", "--plan", own.path, "--output", output.path])
        #expect(ownPlan.status == 0 && ownPlan.output.contains("30 work items"), "\(ownPlan.output)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let refused = try TestSupport.gambit(["run", "--json", suite.suiteFile.path, "--output", output.path])
        #expect(refused.status == 2 && refused.output.contains("--json goes with --plan"), "\(refused.output)")
    }

    @Test("One and two workers give identical results")
    func workerCountDoesNotMatter() throws {
        let suite = try MiniSuite()
        let one = try suite.run(output: "one", workers: 1)
        let two = try suite.run(output: "two", workers: 2)
        #expect(AccuracyView(one) == AccuracyView(two))
    }

    @Test("Shards merged equal one run")
    func shardsMerge() throws {
        let suite = try MiniSuite()
        let whole = try suite.run(output: "whole")
        let first = try suite.run(output: "s0", shard: Shard(index: 0, count: 2))
        let second = try suite.run(output: "s1", shard: Shard(index: 1, count: 2))
        #expect(
            first.systems.allSatisfy { !$0.utterances.isEmpty } || second.systems.allSatisfy { !$0.utterances.isEmpty })
        let merged = try RunResults.merge([first, second])
        #expect(AccuracyView(merged) == AccuracyView(whole))
    }

    @Test("A worker crash costs one attempt: the utterance is retried and recorded as such")
    func crashIsRetried() throws {
        let suite = try MiniSuite()
        let results = try suite.run(crashOnce: ["chess-1-rms"])
        let record = try #require(
            results.system(corpus: "chess", mode: .baseline)?.utterances.first { $0.id == "chess-1-rms" })
        #expect(record.crashed && record.retries == 1 && record.failure == nil && record.failureKind == nil)
        #expect(!record.hypothesis.isEmpty)
    }

    @Test("One bad audio file is reported against its utterance and the run goes on")
    func badAudio() throws {
        let suite = try MiniSuite(badAudio: true)
        let results = try suite.run()
        let chess = try #require(results.system(corpus: "chess", mode: .baseline))
        let broken = try #require(chess.utterances.first { $0.id == "broken" })
        #expect(broken.failure?.contains("broken.wav") == true)
        #expect(broken.failureKind == .audio && broken.labelledFailure?.hasPrefix("audio: ") == true)
        #expect(chess.utterances.filter { $0.failure == nil }.count == 8)
        #expect(chess.failures.failed == 1)
        let check = try #require(results.checks.first { $0.kind == .failures })
        #expect(!check.passed && check.message.contains("2 utterance"))
    }

    @Test("Killing a run with SIGKILL and running again gives the results of an uninterrupted run")
    func resumeAfterKill() throws {
        let suite = try MiniSuite(streaming: true)
        let reference = try suite.run(output: "reference")
        let work = reference.systems.reduce(0) { $0 + $1.utterances.count }
        let output = suite.folder.appendingPathComponent("killed")
        let journal = output.appendingPathComponent(".gambit/journal.jsonl")
        // Each run stops itself once its N-th journal line is on disk and is killed there: the first
        // after 3 utterances, the resumed one after 6 more.
        for linesThisRun in [3, 6] {
            let process = try startRun(suite, output: output, workers: 2, stopAfterJournalLines: linesThisRun)
            let stopped = waitUntilStopped(process.processIdentifier, whileRunning: process)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try #require(stopped, "the run ended before its journal had \(linesThisRun) new lines")
        }
        let journalLines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").count
        #expect(journalLines == 9)
        #expect(work > 9, "the kills should land part way")
        let resumed = try suite.run(output: "killed")
        #expect(AccuracyView(resumed) == AccuracyView(reference))
    }

    @Test("A journal append that fails half-way stops the run, leaves whole lines only, and the next run resumes")
    func journalWriteFailure() throws {
        let suite = try MiniSuite(streaming: true)
        let reference = try suite.run(output: "reference")
        let journal = suite.folder.appendingPathComponent("full/.gambit/journal.jsonl")
        let error = try #require(throws: JournalError.self) { try suite.run(output: "full", failJournalAfterLines: 3) }
        #expect(error.kept == 3)
        #expect(error.reason == String(cString: strerror(ENOSPC)))
        #expect(error.description.contains(journal.path) && error.description.contains("resume"))
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "torn line: \(line.prefix(80))")
        }
        let resumed = try suite.run(output: "full")
        #expect(AccuracyView(resumed) == AccuracyView(reference))
    }

    @Test("A second run on the same output folder fails at once, naming the folder and the first run's pid")
    func outputFolderLocked() throws {
        let suite = try MiniSuite()
        let output = suite.folder.appendingPathComponent("shared")
        let process = try startRun(suite, output: output, workers: 1, stopAfterJournalLines: 1)
        var reaped = false
        defer {
            // Never signal a pid that has been reaped: it may belong to another process by now.
            if !reaped {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        try #require(waitUntilStopped(process.processIdentifier, whileRunning: process))
        let error = try #require(throws: OutputFolderError.self) { try suite.run(output: "shared") }
        #expect(error.problem == .inUse(pid: process.processIdentifier))
        #expect(
            error.description.contains(output.path) && error.description.contains("pid \(process.processIdentifier)"))
        // Once the first run is gone, its lock goes with it.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        reaped = true
        #expect(throws: Never.self) { try suite.run(output: "shared") }
    }

    /// Starts `gambit run` on `suite` in a child process that stops itself (SIGSTOP) once its
    /// `lines`-th journal line of this run is on disk, so that a test can act at a known point.
    private func startRun(_ suite: MiniSuite, output: URL, workers: Int, stopAfterJournalLines lines: Int) throws
        -> Process
    {
        let process = Process()
        process.executableURL = MiniSuite.executable
        process.arguments = ["run", suite.suiteFile.path, "--output", output.path, "--workers", "\(workers)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.environment = ProcessInfo.processInfo.environment.merging([
            "GAMBIT_CACHE": suite.folder.appendingPathComponent("cache").path,
            Runner.stopAfterJournalLinesVariable: "\(lines)",
        ]) { $1 }
        try process.run()
        return process
    }

    /// Waits until a process is stopped by a signal (state "T" in `/proc/PID/stat`); false if it exits.
    private func waitUntilStopped(_ pid: Int32, whileRunning process: Process) -> Bool {
        while process.isRunning {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // The state follows the command name, which is in parentheses.
            if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "T" { return true }
            usleep(10_000)
        }
        return false
    }
}

@Suite("Suite files")
struct SuiteFileTests {
    @Test("A variant's compiler switches are read, and a bad value names its line")
    func variantSwitches() throws {
        let folder = try TestSupport.temporaryDirectory("suite-switches")
        let file = folder.appendingPathComponent("suite.yaml")
        func write(_ variant: String) throws {
            try """
            name: switches
            corpora:
              - {name: general, manifest: general.jsonl, role: anti-context}
            variants:
              - {name: v, training: chess.yaml, \(variant)}
            """.write(to: file, atomically: true, encoding: .utf8)
        }
        try write("compounds: false, backgroundMass: 0.5")
        let options = try #require(try Suite.load(file).variants.first).prepareOptions
        #expect(!options.compounds && options.backgroundMass == 0.5)
        try write("compounds: maybe")
        #expect {
            _ = try Suite.load(file)
        } throws: { error in
            "\(error)".contains("'compounds' must be true or false") && "\(error)".contains("suite.yaml:5")
        }
        try write("mix: merged, interpolation: constant, weight: 0.7")
        let merged = try #require(try Suite.load(file).variants.first).prepareOptions
        #expect(merged.mix == .merged && merged.mergeOptions == MergeOptions(weight: 0.7, interpolation: .constant))
        // The weighted merge keeps the set's custom side (its background mass and sentence framing) and
        // is built for the suite's decoder language weight.
        try write("mix: merged, interpolation: weighted, weight: 0.4, backgroundMass: 0.8")
        var weighted = try #require(try Suite.load(file).variants.first).prepareOptions
        #expect(
            weighted.mergeOptions == MergeOptions(weight: 0.4, interpolation: .weighted, languageWeight: 6.5)
                && weighted.backgroundMass == 0.8 && weighted.phraseFraming == .sentences)
        try (try String(contentsOf: file, encoding: .utf8) + "\ndecoder: {languageWeight: 8}\n").write(
            to: file, atomically: true, encoding: .utf8)
        weighted = try #require(try Suite.load(file).variants.first).prepareOptions
        #expect(weighted.languageWeight == 8)
        try write("mix: merged, interpolation: static")
        #expect {
            _ = try Suite.load(file)
        } throws: { error in
            "\(error)".contains("interpolation must be history, constant or weighted")
                && "\(error)".contains("suite.yaml:5")
        }
        // Phrases: each mix has its default framing, and either mix takes the other.
        try write("phrases: fragments, boundaryShare: 0.3")
        let fragments = try #require(try Suite.load(file).variants.first).prepareOptions
        #expect(fragments.phraseFraming == .fragments && fragments.effectiveBoundaryShare == 0.3)
        try write("mix: merged, phrases: sentences, boundaryShare: 0.3")
        let sentences = try #require(try Suite.load(file).variants.first).prepareOptions
        #expect(sentences.phraseFraming == .sentences && sentences.effectiveBoundaryShare == 1)
        #expect(sentences.normalized == PrepareOptions(mix: .merged, weight: 0.5, phrases: .sentences).normalized)
        try write("weight: 0.5")
        #expect(try #require(try Suite.load(file).variants.first).prepareOptions.phraseFraming == .sentences)
        try write("phrases: paragraphs")
        #expect {
            _ = try Suite.load(file)
        } throws: { error in
            "\(error)".contains("phrases must be fragments or sentences") && "\(error)".contains("suite.yaml:5")
        }
    }
}
