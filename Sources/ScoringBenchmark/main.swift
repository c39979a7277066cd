// Times `Scorer.score` on a generated test set read from trn files (parsing included).
//
//     swift run -c release ScoringBenchmark [--utterances 100000] [--runs 5] [--sclite] [--no-cer]

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

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--utterances": utterances = try Self.number(iterator.next(), for: argument)
            case "--runs": runs = try Self.number(iterator.next(), for: argument)
            case "--sclite": sclite = true
            case "--no-cer": characterErrorRate = false
            default:
                throw UsageError(
                    message: "unknown argument \(argument)\n"
                        + "usage: ScoringBenchmark [--utterances N] [--runs N] [--sclite] [--no-cer]")
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

/// Deterministic test data: ~20 reference words per utterance from a 5,000-word vocabulary, about 12% word errors.
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
        words += length
        reference += refWords.joined(separator: " ") + " (\(id))\n"
        hypothesis += hypWords.joined(separator: " ") + " (\(id))\n"
    }
    let referenceURL = directory.appendingPathComponent("ref.trn")
    let hypothesisURL = directory.appendingPathComponent("hyp.trn")
    try reference.write(to: referenceURL, atomically: true, encoding: .utf8)
    try hypothesis.write(to: hypothesisURL, atomically: true, encoding: .utf8)
    return (referenceURL, hypothesisURL, words)
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
                format: "WER %.2f%%  (S %d, D %d, I %d, N %d)  CER %.2f%%", totals.wordErrorRate * 100,
                totals.counts.substitutions, totals.counts.deletions, totals.counts.insertions,
                totals.counts.referenceWords, totals.characterErrorRate * 100))
    }
    print(
        "Scorer.score (.sclite, parse included\(arguments.characterErrorRate ? ", with CER" : ", no CER")): "
            + "median \(String(format: "%.3f", median)) s of \(arguments.runs) runs "
            + "(min \(String(format: "%.3f", times.first!)), max \(String(format: "%.3f", times.last!))); "
            + "CPU time (user+sys) median \(String(format: "%.3f", cpu[cpu.count / 2])) s")
    print("Peak RSS (ru_maxrss): \(String(format: "%.1f", peakResidentMegabytes())) MB")

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
