import Audio
import Formats
import Foundation
import LanguageModel
import PocketSphinx
import Recognition
import Runner
import TrainingData

// Benchmarks print figures; they never pass or fail. Medians over repeated runs, because the
// machines are shared and noisy. Usage: gambit-bench decode [--runs N]

/// This process's own peak (not counting what its parent held before `exec`).
func peakRSSMegabytes() -> Double { peakResidentMegabytes() }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func option(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return Int(arguments[index + 1]) ?? value
}

/// Wall time and peak memory of one child process, from `wait4`.
func measureProcess(_ executable: String, _ arguments: [String]) throws -> Measurement {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawn(&pid, executable, &actions, nil, &argv, environ) == 0 else {
        throw BenchmarkError("could not start \(executable)")
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard status == 0 else { throw BenchmarkError("\(executable) failed with status \(status)") }
    let cpu =
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        / 1e6
    return Measurement(seconds: elapsed, cpuSeconds: cpu, peakMB: Double(usage.ru_maxrss) / 1024)
}

struct Measurement {
    var seconds: Double
    var cpuSeconds: Double
    var peakMB: Double
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The same job from the command line, end to end (model load, reading every file, decoding, writing
/// transcripts), by `gambit decode` and by the stock `pocketsphinx_batch` with the same settings.
func decodeBenchmark() throws {
    let runs = option("--runs", default: 5)
    let files = try realRecordings()
    let audioSeconds = try files.reduce(0) { $0 + (try AudioLoader().load($1)).duration }
    let gambit = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("gambit").path
    guard FileManager.default.isExecutableFile(atPath: gambit) else {
        throw BenchmarkError("build the CLI first: swift build -c release --product gambit")
    }
    let control = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-decode.ctl")
    try files.map { String($0.deletingPathExtension().path.dropFirst()) }.joined(separator: "\n")
        .write(to: control, atomically: true, encoding: .utf8)
    let model = AcousticModel.englishUS
    let batchArguments =
        [
            "-hmm", model.hmm.path, "-lm", model.languageModel.path, "-dict", model.dictionary.path,
            "-adcin", "yes", "-adchdr", "44", "-cepext", ".wav", "-cepdir", "/", "-ctl", control.path,
            "-hyp", "/dev/null",
        ] + DecoderSettings.standard.commandLine

    var ours: [Measurement] = []
    var theirs: [Measurement] = []
    for _ in 0..<runs {
        ours.append(try measureProcess(gambit, ["decode", "--alternatives", "0"] + files.map(\.path)))
        theirs.append(try measureProcess("/usr/bin/pocketsphinx_batch", batchArguments))
    }
    print(
        "decode benchmark: \(files.count) files, \(String(format: "%.1f", audioSeconds)) s of audio, median of \(runs) runs"
    )
    for (name, runs) in [("gambit decode", ours), ("pocketsphinx_batch", theirs)] {
        let wall = median(runs.map(\.seconds))
        let cpu = median(runs.map(\.cpuSeconds))
        print(
            name.padding(toLength: 20, withPad: " ", startingAt: 0)
                + String(
                    format: "wall %.2f s (RTF %.3f, RTFx %.1f)  CPU %.2f s (RTF %.3f)  peak RSS %.0f MB", wall,
                    wall / audioSeconds, audioSeconds / wall, cpu, cpu / audioSeconds, median(runs.map(\.peakMB))))
    }
    let cpuOverhead = median(ours.map(\.cpuSeconds)) / median(theirs.map(\.cpuSeconds)) - 1
    let wallOverhead = median(ours.map(\.seconds)) / median(theirs.map(\.seconds)) - 1
    print(
        String(
            format: "wrapper overhead    CPU %+.1f%%, wall %+.1f%% (target: at most +5%%)", cpuOverhead * 100,
            wallOverhead * 100))
}

/// The seed's chess data (10,000 template samples), or a synthetic set of about 1,000,000 samples.
func benchmarkData(_ name: String) throws -> CustomLanguageModelData {
    var data = CustomLanguageModelData(
        locale: Locale(identifier: "en_US"), identifier: "bench.\(name)", version: "1")
    data.insert(phrase: "play the albin counter gambit", count: 10)
    data.insert(phrase: "play the winawer variation", count: 10)
    data.insert(term: CustomPronunciation(grapheme: "winawer", phonemes: ["w I n aU @r"]))
    let pieces = ["pawn", "rook", "knight", "bishop", "queen", "king"]
    let ranks = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
    if name == "chess" {
        data.insert(
            template: "<piece> to <royal> <piece> <rank>", count: 10_000,
            classes: ["piece": pieces, "royal": ["queen", "king"], "rank": ranks])
    } else {
        // 1,000,000 samples over 200,000 distinct expansions of real dictionary words, plus phrases.
        let dictionary = try PronunciationDictionary(contentsOf: AcousticModel.englishUS.dictionary)
        let words = dictionary.words.lazy.filter { $0.allSatisfy { $0.isLetter } }
        let pool = Array(words.prefix(2_000))
        for index in 0..<980 { data.insert(phrase: "call \(pool[index]) \(pool[index + 1000])", count: 10) }
        data.insert(
            template: "<verb> the <a> <b>", count: 990_180,
            classes: [
                "verb": ["play", "open", "show"], "a": Array(pool[0..<250]), "b": Array(pool[250..<520]),
            ])
    }
    return data
}

/// Runs one prepare in this process (called by `prepare` in a child, so each case's peak memory is its own).
func prepareCase(_ name: String) throws {
    let data = try benchmarkData(name)
    let toolchain = Toolchain(
        cacheFolder: FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench"))
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-\(name)")
    let options = PrepareOptions(limits: TrainingDataLimits(sampleBudget: 2_000_000))
    let (artifact, _) = try toolchain.compiler.prepare(data, output: output, options: options, ignoreCache: true)
    let t = artifact.manifest.timings
    print(
        String(
            format: "%.6f %.6f %.6f %.6f %.6f %.6f %ld %ld", t.count, t.estimate, t.writeARPA, t.compileBinary,
            t.vocabulary, t.total, artifact.manifest.samples, artifact.manifest.sentences))
}

/// Prepare time and peak memory for the seed's chess data and for 1,000,000 samples.
func prepareBenchmark() throws {
    let runs = option("--runs", default: 3)
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    print("prepare benchmark: median of \(runs) runs, each in a fresh process")
    for name in ["chess", "million"] {
        var walls: [Double] = []
        var peaks: [Double] = []
        var totals: [Double] = []
        var detail = ""
        for _ in 0..<runs {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-\(name).out")
            let measured = try measureProcess("/bin/sh", ["-c", "'\(me)' prepare-case \(name) > '\(output.path)'"])
            walls.append(measured.seconds)
            peaks.append(measured.peakMB)
            let fields = try String(contentsOf: output, encoding: .utf8).split(separator: " ").map { String($0) }
            totals.append(Double(fields[5].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
            detail = String(
                format:
                    "samples %@, sentences %@; count %.0f ms, estimate %.0f ms, ARPA %.0f ms, binary %.0f ms, vocabulary %.0f ms",
                fields[6], fields[7].trimmingCharacters(in: .whitespacesAndNewlines), (Double(fields[0]) ?? 0) * 1000,
                (Double(fields[1]) ?? 0) * 1000, (Double(fields[2]) ?? 0) * 1000, (Double(fields[3]) ?? 0) * 1000,
                (Double(fields[4]) ?? 0) * 1000)
        }
        print(
            String(
                format: "  %-8@ prepare %.2f s (process %.2f s incl. start-up)  peak RSS %.0f MB", name,
                median(totals), median(walls), median(peaks)))
        print("           \(detail)")
    }
}

/// Reads the base model's n-grams in this process (called by `base-ngrams` in a child, so that its
/// peak memory is the read's own): prints the first read's seconds, then a second read's (the
/// process cache), and the peak RSS.
func baseNGramsCase() throws {
    let file = AcousticModel.englishUS.languageModel
    let first = try BaseModelStore.load(languageModel: file)
    let again = try BaseModelStore.load(languageModel: file)
    print(
        String(
            format: "%.6f %.6f %.1f %ld %ld %ld", first.seconds, again.seconds, peakRSSMegabytes(),
            first.ngrams.counts[0], first.ngrams.counts[1], first.ngrams.counts[2]))
}

/// Time and peak memory of reading Debian's en-us.lm.bin into ``TrigramTables``, each run in a
/// fresh process (nothing cached), then read again in the same process.
func baseNGramsBenchmark() throws {
    let runs = option("--runs", default: 3)
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-base-\(getpid()).out")
    defer { try? FileManager.default.removeItem(at: output) }
    var firsts: [Double] = []
    var agains: [Double] = []
    var peaks: [Double] = []
    var walls: [Double] = []
    var counts = ""
    for _ in 0..<runs {
        let measured = try measureProcess("/bin/sh", ["-c", "'\(me)' base-ngrams-case > '\(output.path)'"])
        let fields = try String(contentsOf: output, encoding: .utf8).split(whereSeparator: \.isWhitespace)
            .map(String.init)
        guard fields.count == 6 else { throw BenchmarkError("base-ngrams-case printed '\(fields)'") }
        firsts.append(Double(fields[0]) ?? .nan)
        agains.append(Double(fields[1]) ?? .nan)
        peaks.append(measured.peakMB)
        walls.append(measured.seconds)
        counts = fields[3...5].joined(separator: " / ")
    }
    print("base n-grams benchmark: \(AcousticModel.englishUS.languageModel.path), median of \(runs) fresh processes")
    print("  n-grams read: \(counts)")
    print(
        String(
            format: "  first read %.2f s (process %.2f s incl. start-up), peak RSS %.0f MB", median(firsts),
            median(walls), median(peaks)))
    print(String(format: "  read again in the same process (cache hit): %.3f s", median(agains)))
}

let command = CommandLine.arguments.dropFirst().first ?? "help"
switch command {
case "decode":
    try decodeBenchmark()
case "prepare":
    try prepareBenchmark()
case "prepare-case":
    try prepareCase(CommandLine.arguments[2])
case "base-ngrams":
    try baseNGramsBenchmark()
case "base-ngrams-case":
    try baseNGramsCase()
case "prepare-mix":
    try prepareMixBenchmark()
case "prepare-mix-case":
    try prepareMixCase(CommandLine.arguments[2], CommandLine.arguments[3])
case "decode-mix":
    try decodeMixBenchmark()
case "decode-mix-case":
    try decodeMixCase(CommandLine.arguments[2], CommandLine.arguments[3])
case "worker-memory":
    try workerMemoryBenchmark()
case "decode-floor":
    try decodeFloorBenchmark()
default:
    print(
        "usage: gambit-bench decode|prepare|base-ngrams|prepare-mix|decode-mix|worker-memory|decode-floor "
            + "[--runs N] [--suite FILE] [--variant NAME] [--mix MIX] [--corpora A,B] [--workers N]")
}
