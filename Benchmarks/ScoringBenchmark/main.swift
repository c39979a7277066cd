// Times `Scorer.score` on a generated test set read from trn files (parsing included).
//
//     swift run -c release ScoringBenchmark [--utterances 100000] [--runs 5] [--sclite] [--no-cer] [--agreement]
//         [--biasing] [--keywords] [--gambit PATH]
//
// Also times the report's JSON (what `gambit score --json` adds), and says where the time goes: the median of
// each stage of `Scorer.score`. `--biasing` also writes the same set as per-utterance biasing lists
// (tab-separated, JSON lists) against Kaldi text hypotheses and times that. `--keywords` also scores the plain
// set with 50 boosted words and 10 two-word terms (keywords by position, false alarms). `--gambit PATH` times the
// `gambit score --json` command itself on the plain set, output to /dev/null, as a user runs it.
//
// `--agreement` also checks every utterance against sclite (S, D, I, N from its SGML alignment) and the
// minimal mode against a plain Levenshtein distance, and prints the mismatches.

import Formats
import Foundation
import Scoring

#if canImport(Glibc)
    import Glibc
#endif

struct Arguments {
    var utterances = 100_000
    var runs = 5
    var sclite = false
    var characterErrorRate = true
    var agreement = false
    var biasing = false
    var keywords = false
    var gambit: String?

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--utterances": utterances = try Self.number(iterator.next(), for: argument)
            case "--runs": runs = try Self.number(iterator.next(), for: argument)
            case "--sclite": sclite = true
            case "--no-cer": characterErrorRate = false
            case "--agreement": agreement = true
            case "--biasing": biasing = true
            case "--keywords": keywords = true
            case "--gambit":
                guard let path = iterator.next() else { throw UsageError(message: "--gambit needs a path") }
                gambit = path
            default:
                throw UsageError(
                    message: "unknown argument \(argument)\n"
                        + "usage: ScoringBenchmark [--utterances N] [--runs N] [--sclite] [--no-cer] [--agreement] "
                        + "[--biasing] [--keywords] [--gambit PATH]")
            }
        }
    }

    static func number(_ value: String?, for name: String) throws -> Int {
        guard let value, let number = Int(value), number > 0 else {
            throw UsageError(message: "\(name) needs a positive number")
        }
        return number
    }
}

struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Deterministic test data: ~20 reference words per utterance from a 5,000-word vocabulary, about 12% word
/// errors; one hypothesis in 10,000 is empty and one in 25,000 is garbage (a 200-word run of a non-word).
func generate(utterances: Int, in directory: URL) throws -> (reference: URL, hypothesis: URL, words: Int) {
    var rng = SplitMix64(seed: 2024)
    let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pu", "ga", "be", "do", "fi", "hu"]
    var vocabulary: [String] = []
    while vocabulary.count < 5000 {
        let count = 1 + Int(rng.next(below: 3))
        vocabulary.append((0..<count).map { _ in syllables[Int(rng.next(below: UInt64(syllables.count)))] }.joined())
    }
    func word() -> String { vocabulary[Int(rng.next(below: UInt64(vocabulary.count)))] }
    var reference = ""
    var hypothesis = ""
    reference.reserveCapacity(utterances * 140)
    hypothesis.reserveCapacity(utterances * 140)
    var words = 0
    for index in 0..<utterances {
        let id = "spk\(index % 200)_utt\(index)"
        let length = 10 + Int(rng.next(below: 21))
        var refWords: [String] = []
        var hypWords: [String] = []
        for _ in 0..<length {
            let ref = word()
            refWords.append(ref)
            switch rng.next(below: 100) {
            case 0..<6: hypWords.append(word())
            case 6..<9: break
            case 9..<12:
                hypWords.append(ref)
                hypWords.append(word())
            default: hypWords.append(ref)
            }
        }
        if index % 10_000 == 5_000 { hypWords = [] }
        if index % 25_000 == 12_345 { hypWords = Array(repeating: "xqzzv", count: 200) }
        words += length
        reference += refWords.joined(separator: " ") + " (\(id))\n"
        hypothesis += hypWords.joined(separator: " ") + " (\(id))\n"
    }
    lastGenerated = (reference, hypothesis)
    let referenceURL = directory.appendingPathComponent("ref.trn")
    let hypothesisURL = directory.appendingPathComponent("hyp.trn")
    try reference.write(to: referenceURL, atomically: true, encoding: .utf8)
    try hypothesis.write(to: hypothesisURL, atomically: true, encoding: .utf8)
    return (referenceURL, hypothesisURL, words)
}

/// The trn text `generate` wrote last, for `--biasing` to rewrite in the other formats.
nonisolated(unsafe) var lastGenerated = (reference: "", hypothesis: "")

/// The benchmark set as per-utterance biasing lists (two of each reference's words biased, with 18
/// distractors from the vocabulary: lists of 20) against Kaldi text hypotheses.
func writeBiasingLists(in directory: URL) throws -> (reference: URL, hypothesis: URL) {
    var rng = SplitMix64(seed: 7)
    func split(_ line: Substring) -> (id: String, words: [Substring]) {
        let read = try! TRNLine.read(String(line))
        return (read.id, Substring(read.text).split(separator: " "))
    }
    func quoted(_ words: [Substring]) -> String { "[" + words.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
    let vocabulary = Array(Set(lastGenerated.reference.split(separator: "\n").flatMap { split($0).words }))
    var references = ""
    var hypotheses = ""
    for line in lastGenerated.reference.split(separator: "\n") {
        let (id, words) = split(line)
        let biased = Array(Set((0..<2).map { _ in words[Int(rng.next(below: UInt64(words.count)))] }))
        let distractors = (0..<(20 - biased.count)).map { _ in
            vocabulary[Int(rng.next(below: UInt64(vocabulary.count)))]
        }
        references += "\(id)\t\(words.joined(separator: " "))\t\(quoted(biased))\t\(quoted(biased + distractors))\n"
    }
    for line in lastGenerated.hypothesis.split(separator: "\n") {
        let (id, words) = split(line)
        hypotheses += "\(id) \(words.joined(separator: " "))\n"
    }
    let referenceURL = directory.appendingPathComponent("refs.tsv")
    let hypothesisURL = directory.appendingPathComponent("hyps.txt")
    try references.write(to: referenceURL, atomically: true, encoding: .utf8)
    try hypotheses.write(to: hypothesisURL, atomically: true, encoding: .utf8)
    return (referenceURL, hypothesisURL)
}

/// Scores `runs` times and prints the median time of each stage (in the order the stages ran).
func stageMedians(
    _ runs: Int, reference: URL, hypothesis: URL, options: ScoringOptions, label: String
) throws -> ScoreReport {
    var stages: [String: [Double]] = [:]
    var order: [String] = []
    var report: ScoreReport?
    for _ in 0..<runs {
        var last = DispatchTime.now().uptimeNanoseconds
        report = try Scorer.score(reference: reference, hypothesis: hypothesis, options: options, audioLength: nil) {
            stage in
            let now = DispatchTime.now().uptimeNanoseconds
            if stages[stage] == nil { order.append(stage) }
            stages[stage, default: []].append(Double(now - last) / 1e9)
            last = now
        }
    }
    print("Where the time goes (\(label), medians of \(runs)):")
    for stage in order {
        let times = stages[stage]!.sorted()
        print("  \(String(format: "%6.3f", times[times.count / 2])) s  \(stage)")
    }
    return report!
}

/// The median of `runs` timings of `body`.
func medianSeconds(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs { times.append(try seconds(body)) }
    return times.sorted()[times.count / 2]
}

func peakResidentMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Per-utterance S, D, I and N from sclite's SGML alignment (each entry's first letter: C, S, D or I).
func scliteCounts(reference: URL, hypothesis: URL, in directory: URL) throws -> [String: [Int]] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/lib/sctk/bin/sclite")
    process.arguments = [
        "-r", reference.path, "trn", "-h", hypothesis.path, "trn", "-i", "rm", "-o", "sgml", "-O", directory.path,
        "-n", "agreement",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let sgml = try String(contentsOf: directory.appendingPathComponent("agreement.sgml"), encoding: .utf8)
    var counts: [String: [Int]] = [:]
    var current: String?
    for line in sgml.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("<PATH id=\"(") {
            current = String(line.dropFirst("<PATH id=\"(".count).prefix { $0 != ")" })
            counts[current!] = [0, 0, 0, 0]
        } else if line.hasPrefix("</PATH>") {
            current = nil
        } else if let id = current, !line.isEmpty {
            for entry in line.split(separator: ":") {
                switch entry.first {
                case "S":
                    counts[id]![0] += 1
                    counts[id]![3] += 1
                case "D":
                    counts[id]![1] += 1
                    counts[id]![3] += 1
                case "I": counts[id]![2] += 1
                case "C": counts[id]![3] += 1
                default: break
                }
            }
        }
    }
    return counts
}

func levenshtein(_ a: [Substring], _ b: [Substring]) -> Int {
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...max(1, a.count) where !a.isEmpty {
        current[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return a.isEmpty ? b.count : previous[b.count]
}

/// Compares every utterance with sclite (sclite mode) and with Levenshtein (minimal mode).
func checkAgreement(_ files: (reference: URL, hypothesis: URL, words: Int), in directory: URL) throws {
    let sclite = try scliteCounts(reference: files.reference, hypothesis: files.hypothesis, in: directory)
    let ours = try Scorer.score(
        reference: files.reference, hypothesis: files.hypothesis, options: ScoringOptions(mode: .sclite))
    var mismatches: [String] = []
    for utterance in ours.utterances {
        let c = utterance.counts
        let mine = [c.substitutions, c.deletions, c.insertions, c.referenceWords]
        if sclite[utterance.id] != mine {
            mismatches.append("\(utterance.id): sclite \(sclite[utterance.id] ?? []) ours \(mine)")
        }
    }
    print(
        "sclite mode vs sclite: \(ours.utterances.count - mismatches.count) of \(ours.utterances.count) utterances "
            + "with the same S, D, I, N (sclite aligned \(sclite.count))"
            + (mismatches.isEmpty ? "" : "; first mismatches: \(mismatches.prefix(3))"))

    func texts(_ url: URL) throws -> [String: [Substring]] {
        var result: [String: [Substring]] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            guard let read = try? TRNLine.read(String(line)) else { continue }
            result[read.id] = Substring(read.text).split(separator: " ")
        }
        return result
    }
    let references = try texts(files.reference)
    let hypotheses = try texts(files.hypothesis)
    let minimal = try Scorer.score(
        reference: files.reference, hypothesis: files.hypothesis, options: ScoringOptions(mode: .minimal))
    let wrong = minimal.utterances.filter {
        $0.counts.errors != levenshtein(references[$0.id] ?? [], hypotheses[$0.id] ?? [])
    }
    print(
        "minimal mode vs Levenshtein distance: \(minimal.utterances.count - wrong.count) of \(minimal.utterances.count) "
            + "utterances equal" + (wrong.isEmpty ? "" : "; first: \(wrong.prefix(3).map(\.id))"))
}

do {
    let arguments = try Arguments(CommandLine.arguments)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scoring-benchmark-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let files = try generate(utterances: arguments.utterances, in: directory)
    let memoryBefore = peakResidentMegabytes()
    print("Generated \(arguments.utterances) utterances, \(files.words) reference words in \(directory.path)")
    print("Peak RSS after generating: \(String(format: "%.1f", memoryBefore)) MB")

    let options = ScoringOptions(mode: .sclite, characterErrorRate: arguments.characterErrorRate)
    var times: [Double] = []
    var cpu: [Double] = []
    var report: ScoreReport?
    for _ in 0..<arguments.runs {
        let cpuBefore = cpuSeconds()
        defer { cpu.append(cpuSeconds() - cpuBefore) }
        times.append(
            try seconds {
                report = try Scorer.score(reference: files.reference, hypothesis: files.hypothesis, options: options)
            })
    }
    times.sort()
    cpu.sort()
    let median = times[times.count / 2]
    if let report {
        let totals = report.totals
        print(
            String(
                format: "WER %.2f%%  (S %ld, D %ld, I %ld, N %ld)  CER %.2f%%", totals.wordErrorRate * 100,
                totals.counts.substitutions, totals.counts.deletions, totals.counts.insertions,
                totals.counts.referenceWords, totals.characterErrorRate * 100))
    }
    print(
        "Scorer.score (.sclite, parse included\(arguments.characterErrorRate ? ", with CER" : ", no CER")): "
            + "median \(String(format: "%.3f", median)) s of \(arguments.runs) runs "
            + "(min \(String(format: "%.3f", times.first!)), max \(String(format: "%.3f", times.last!))); "
            + "CPU time (user+sys) median \(String(format: "%.3f", cpu[cpu.count / 2])) s")
    print("Peak RSS (ru_maxrss): \(String(format: "%.1f", peakResidentMegabytes())) MB")

    if let report {
        let json = try medianSeconds(arguments.runs) { _ = try report.jsonData() }
        print(
            "Report as JSON (gambit score --json): median \(String(format: "%.3f", json)) s; scoring and JSON "
                + "\(String(format: "%.2f", (median + json) / median))× scoring alone")
    }

    _ = try stageMedians(
        arguments.runs, reference: files.reference, hypothesis: files.hypothesis, options: options, label: "plain")

    if arguments.keywords {
        // 50 words of the vocabulary as boosted words, and 10 of their pairs as terms.
        let vocabulary = Array(
            Set(
                lastGenerated.reference.split(separator: "\n").prefix(200).flatMap { line in
                    (try? TRNLine.read(String(line)))?.text.split(separator: " ").map(String.init) ?? []
                })
        ).sorted()
        let boosted = Array(vocabulary.prefix(50))
        let terms = (0..<10).map { "\(boosted[2 * $0]) \(boosted[2 * $0 + 1])" }
        var keywordOptions = options
        keywordOptions.boostedWords = boosted
        keywordOptions.terms = terms
        let report = try stageMedians(
            arguments.runs, reference: files.reference, hypothesis: files.hypothesis, options: keywordOptions,
            label: "50 boosted words, 10 terms")
        let keywords = report.keywords!
        print(
            String(
                format: "  keyword F1 %.3f over %ld said, %ld false alarms (%.2f per 100 utterances)",
                keywords.overall.f1 ?? -1, keywords.overall.said, keywords.overall.falseAlarms,
                keywords.falseAlarmsPer100Utterances ?? -1))
    }

    if let gambit = arguments.gambit {
        let command = try medianSeconds(arguments.runs) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: gambit)
            process.arguments = ["score", "--ref", files.reference.path, "--hyp", files.hypothesis.path, "--json"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
        print("gambit score --json (the command, output to /dev/null): median \(String(format: "%.3f", command)) s")
    }

    if arguments.biasing {
        let lists = try writeBiasingLists(in: directory)
        var biasingReport: ScoreReport?
        let biasing = try medianSeconds(arguments.runs) {
            biasingReport = try Scorer.score(reference: lists.reference, hypothesis: lists.hypothesis, options: options)
        }
        let json = try medianSeconds(arguments.runs) { _ = try biasingReport!.jsonData() }
        _ = try stageMedians(
            arguments.runs, reference: lists.reference, hypothesis: lists.hypothesis, options: options,
            label: "per-utterance biasing lists")
        let boosted = biasingReport!.boosted!
        print(
            "Per-utterance biasing lists (refs.tsv, lists of 20, against Kaldi text): median "
                + "\(String(format: "%.3f", biasing)) s (\(String(format: "%.2f", biasing / median))× plain scoring), "
                + "with JSON \(String(format: "%.3f", biasing + json)) s "
                + "(\(String(format: "%.2f", (biasing + json) / median))×); "
                + String(
                    format: "B-WER %.2f%% over %ld words, U-WER %.2f%%", (boosted.boostedWordErrorRate ?? 0) * 100,
                    boosted.boostedReferenceWords, (boosted.unboostedWordErrorRate ?? 0) * 100))
    }

    if arguments.agreement { try checkAgreement(files, in: directory) }

    if arguments.sclite {
        let sclite = "/usr/lib/sctk/bin/sclite"
        guard FileManager.default.isExecutableFile(atPath: sclite) else {
            throw UsageError(message: "--sclite: \(sclite) not found (install the Debian package sctk)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sclite)
        process.arguments = [
            "-r", files.reference.path, "trn", "-h", files.hypothesis.path, "trn", "-i", "rm", "-o", "sum", "-O",
            directory.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let elapsed = try seconds {
            try process.run()
            process.waitUntilExit()
        }
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        print(
            "sclite -o sum: \(String(format: "%.2f", elapsed)) s, peak RSS "
                + "\(String(format: "%.1f", Double(usage.ru_maxrss) / 1024)) MB (exit \(process.terminationStatus))")
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
