import Audio
import Foundation
import Recognition

// Benchmarks print figures; they never pass or fail. Medians over repeated runs, because the
// machines are shared and noisy. Usage: gambit-bench decode [--runs N]

func peakRSSMegabytes(_ who: __rusage_who = RUSAGE_SELF) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

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
    let data = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data")
    var files: [URL] = []
    for folder in ["librivox", "cards"] {
        let url = data.appendingPathComponent(folder)
        files += try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wav") }.sorted()
            .map { url.appendingPathComponent($0) }
    }
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
        ] + DecoderSettings().commandLine

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

let command = CommandLine.arguments.dropFirst().first ?? "help"
switch command {
case "decode":
    try decodeBenchmark()
default:
    print("usage: gambit-bench decode [--runs N]")
}
