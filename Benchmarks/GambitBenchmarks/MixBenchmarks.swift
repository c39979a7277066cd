import Audio
import Foundation
import LanguageModel
import NGram
import Recognition
import Runner

// The cost of each way to combine a variant with the base model: `mix: set` (a small model
// interpolated at decode time) against `mix: merged` (one static model per variant, with either
// interpolation). Three figures: prepare time and memory, decode speed, a worker's memory over
// all six shipped variants.

/// One way to combine a variant with the base model, as the benchmarks name it.
enum MixCase: String, CaseIterable {
    case set
    case history = "merged-history"
    case constant = "merged-constant"
    case weighted = "merged-weighted"

    var mix: LanguageModelMix { self == .set ? .set : .merged }
    var interpolation: MergeOptions.Interpolation {
        switch self {
        case .constant: .constant
        case .weighted: .weighted
        case .set, .history: .historyDependent
        }
    }

    func options(for variant: Suite.Variant) -> PrepareOptions {
        var variant = variant
        variant.mix = mix
        // The set mix uses no interpolation: normalization gives it the default.
        variant.requestedOptions.interpolation = interpolation
        return variant.prepareOptions
    }
}

func stringOption(_ name: String, default value: String) -> String {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return arguments[index + 1]
}

var benchmarkExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}

/// The shipped suite's variants (or `--suite`'s).
func suiteVariants() throws -> [Suite.Variant] {
    let file = URL(fileURLWithPath: stringOption("--suite", default: "Corpora/suite.yaml"))
    guard FileManager.default.fileExists(atPath: file.path) else {
        throw BenchmarkError("no suite at \(file.path): run from the project root or pass --suite FILE")
    }
    return try Suite.load(file).variants
}

/// A toolchain whose cache is the benchmark's own, so that nothing of a user's cache is touched.
func benchmarkToolchain() -> Toolchain {
    Toolchain(cacheFolder: FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-cache"))
}

/// Runs `gambit-bench <arguments>` in a fresh process and returns its measurement and the numbers
/// it printed (whitespace-separated).
func runCase(_ arguments: [String]) throws -> (Measurement, [Double]) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-\(getpid()).out")
    defer { try? FileManager.default.removeItem(at: output) }
    let quoted = ([benchmarkExecutable] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let measured = try measureProcess("/bin/sh", ["-c", "\(quoted) > '\(output.path)'"])
    let printed = try String(contentsOf: output, encoding: .utf8).split(whereSeparator: \.isWhitespace)
    return (measured, printed.map { Double($0) ?? .nan })
}

// MARK: - Prepare (merge) time and memory

/// Prepares one variant in this process. For a merged mix the base model's n-grams are read first,
/// so that the figures are those of a merge with the base model cached, as in a run after its first
/// variant. Prints: base read s, prepare s, merge s, binary s, peak RSS MB before the prepare, peak
/// RSS MB, model MB on disk.
func prepareMixCase(_ name: String, _ mixName: String) throws {
    guard let mix = MixCase(rawValue: mixName) else { throw BenchmarkError("unknown mix \(mixName)") }
    guard let variant = try suiteVariants().first(where: { $0.name == name }) else {
        throw BenchmarkError("no variant \(name) in the suite")
    }
    let toolchain = benchmarkToolchain()
    var baseSeconds = 0.0
    if mix.mix == .merged {
        baseSeconds = try BaseModelStore.load(languageModel: toolchain.model.languageModel).seconds
    }
    // The pronunciation dictionary too: a run's compiler reads it for its first variant and keeps it.
    _ = try toolchain.compiler.dictionary()
    let before = peakRSSMegabytes()
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
        "gambit-bench-prepare-\(name)-\(mixName)")
    var prepared: PreparedArtifact?
    let elapsed = try seconds {
        prepared = try toolchain.prepare(
            variant.training, output: output, options: mix.options(for: variant), ignoreCache: true
        )
        .artifact
    }
    guard let artifact = prepared else { return }
    let size = (try? FileManager.default.attributesOfItem(atPath: artifact.languageModel.path)[.size] as? Int) ?? 0
    let timings = artifact.manifest.timings
    print(
        String(
            format: "%.6f %.6f %.6f %.6f %.1f %.1f %.2f", baseSeconds, elapsed, timings.merge, timings.compileBinary,
            before, peakRSSMegabytes(), Double(size) / 1_048_576))
}

/// Prepare time per shipped variant for each mix, each run in a fresh process.
func prepareMixBenchmark() throws {
    let runs = option("--runs", default: 3)
    let variants = try suiteVariants()
    print(
        "prepare per variant (median of \(runs) fresh processes; the pronunciation dictionary and, merged, the base "
            + "model's n-grams read first, as in a run after its first variant)")
    print(
        "  variant            mix               prepare   of it merge  binary   peak RSS  (before)  model on disk")
    let only = stringOption("--mix", default: "")
    for variant in variants {
        for mix in MixCase.allCases where only.isEmpty || mix.rawValue == only {
            var rows: [[Double]] = []
            for _ in 0..<runs {
                let (_, numbers) = try runCase(["prepare-mix-case", variant.name, mix.rawValue])
                guard numbers.count == 7 else { throw BenchmarkError("prepare-mix-case printed \(numbers)") }
                rows.append(numbers)
            }
            let column = { (index: Int) in median(rows.map { $0[index] }) }
            print(
                "  " + variant.name.padding(toLength: 19, withPad: " ", startingAt: 0)
                    + mix.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(
                        format: "%7.2f s  %7.2f s  %6.2f s  %6.0f MB  (%4.0f MB)  %7.1f MB", column(1), column(2),
                        column(3), column(5), column(4), column(6)))
        }
    }
}

// MARK: - Decode speed

/// The pocketsphinx test recordings (real speech; also the `general` corpus's audio).
func realRecordings() throws -> [URL] {
    let data = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data")
    var files: [URL] = []
    for folder in ["librivox", "cards"] {
        let url = data.appendingPathComponent(folder)
        files += try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".wav") }.sorted()
            .map { url.appendingPathComponent($0) }
    }
    return files
}

/// Decodes the real recordings in this process with the base model alone (`base`) or with a
/// variant under a mix, after loading the model. Prints: model load s, decode s (load excluded),
/// audio s, peak RSS MB.
func decodeMixCase(_ mode: String, _ variantName: String) throws {
    let transcriber = try Transcriber(mode: .inProcess)
    var configuration: LanguageModelConfiguration?
    if mode != "base" {
        guard let mix = MixCase(rawValue: mode) else { throw BenchmarkError("unknown mode \(mode)") }
        guard let variant = try suiteVariants().first(where: { $0.name == variantName }) else {
            throw BenchmarkError("no variant \(variantName) in the suite")
        }
        let (artifact, cached) = try benchmarkToolchain().prepare(variant.training, options: mix.options(for: variant))
        guard cached else { throw BenchmarkError("\(variantName) \(mode) was not prepared before the decode case") }
        configuration = Toolchain.configuration(artifact, weight: variant.weight)
    }
    // The first answer carries the model's load time; every answer's decode time leaves the load out.
    let requests = try realRecordings().map { transcriber.request(audio: $0, configuration: configuration) }
    let answers = try transcriber.transcribe(requests).values
    if let failure = answers.compactMap(\.failure).first { throw BenchmarkError("decode: \(failure)") }
    print(
        String(
            format: "%.6f %.6f %.6f %.1f", answers.map(\.modelLoadSeconds).max() ?? 0,
            answers.reduce(0) { $0 + $1.decodeSeconds }, answers.reduce(0) { $0 + $1.audioSeconds },
            peakRSSMegabytes()))
}

/// Decode RTF of the base model and of one variant under each mix, on the same files, one process
/// at a time, model load apart.
func decodeMixBenchmark() throws {
    let runs = option("--runs", default: 3)
    let name = stringOption("--variant", default: "chess-full")
    guard let variant = try suiteVariants().first(where: { $0.name == name }) else {
        throw BenchmarkError("no variant \(name) in the suite")
    }
    for mix in MixCase.allCases {  // prepared here, so that the timed cases only load
        _ = try benchmarkToolchain().prepare(variant.training, options: mix.options(for: variant))
    }
    let files = try realRecordings()
    var baseRTF = 0.0
    print("decode speed: \(files.count) real recordings, one process each, median of \(runs); variant \(name)")
    for mode in ["base"] + MixCase.allCases.map(\.rawValue) {
        var rows: [[Double]] = []
        for _ in 0..<runs {
            let (_, numbers) = try runCase(["decode-mix-case", mode, name])
            guard numbers.count == 4 else { throw BenchmarkError("decode-mix-case printed \(numbers)") }
            rows.append(numbers)
        }
        let rtf = median(rows.map { $0[1] / $0[2] })
        if mode == "base" { baseRTF = rtf }
        print(
            "  " + mode.padding(toLength: 17, withPad: " ", startingAt: 0)
                + String(
                    format: "RTF %.3f (%.2f× base)  model load %.2f s  peak RSS %.0f MB", rtf, rtf / baseRTF,
                    median(rows.map { $0[0] }), median(rows.map { $0[3] })))
    }
}

// MARK: - A worker's memory over the variants

/// Starts `gambit worker` and sends it one utterance with the base model, then one with each
/// shipped variant in turn, as a run's work arrives (grouped by system); prints the worker's peak
/// RSS after each, for each mix.
func workerMemoryBenchmark() throws {
    let gambit = URL(fileURLWithPath: benchmarkExecutable).deletingLastPathComponent().appendingPathComponent("gambit")
    guard FileManager.default.isExecutableFile(atPath: gambit.path) else {
        throw BenchmarkError("build the CLI first: swift build -c release --product gambit")
    }
    let variants = try suiteVariants()
    let audio = try realRecordings()[0]
    let toolchain = benchmarkToolchain()
    print("worker peak RSS (MB) after the base model and after each variant, one utterance each")
    print(
        "  mix               base  "
            + variants.map { $0.name.padding(toLength: 17, withPad: " ", startingAt: 0) }.joined())
    for mix in MixCase.allCases {
        let configurations = try variants.map { variant in
            Toolchain.configuration(
                try toolchain.prepare(variant.training, options: mix.options(for: variant)).artifact,
                weight: variant.weight)
        }
        // One worker, given the base model's utterance and then each variant's in turn, as a run's work arrives.
        let transcriber = try Transcriber(mode: .workers(executable: gambit, count: 1))
        let requests = ([nil] + configurations).map { transcriber.request(audio: audio, configuration: $0) }
        let answers = try transcriber.transcribe(requests)
        let peaks = try requests.map { request in
            guard let answer = answers[request.key] else { throw BenchmarkError("worker: no answer") }
            if let failure = answer.failure { throw BenchmarkError("worker: \(failure)") }
            return answer.peakResidentMegabytes
        }
        print(
            "  " + mix.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
                + peaks.map { String(format: "%5.0f", $0).padding(toLength: 17, withPad: " ", startingAt: 0) }
                .joined())
    }
}
