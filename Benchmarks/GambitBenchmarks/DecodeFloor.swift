import Audio
import Corpus
import Foundation
import LanguageModel
import Recognition
import Runner

// MARK: - Decode floor

/// One system's share of the work: its model (nil for the base model alone) and the audio it decodes.
private struct FloorGroup {
    var name: String
    var configuration: LanguageModelConfiguration?
    var audio: [URL]
}

/// The suite's baseline and customized decodes, as a run plans them: each chosen corpus's entries (of its split),
/// with the base model and with every variant that applies to it, prepared in the benchmark's cache.
private func floorGroups(_ suite: Suite, corpora names: Set<String>?) throws -> [FloorGroup] {
    let toolchain = benchmarkToolchain()
    var configurations: [String: LanguageModelConfiguration] = [:]
    var groups: [FloorGroup] = []
    var baseline = FloorGroup(name: "baseline", configuration: nil, audio: [])
    for corpus in suite.corpora where names?.contains(corpus.name) ?? true {
        if let texts = corpus.texts {
            _ = try Synthesizer().build(texts: texts, output: corpus.manifest.deletingLastPathComponent())
        }
        let entries = try suite.entries(of: corpus, allowOutsidePaths: false).filter {
            corpus.split == nil || $0.split == corpus.split
        }
        baseline.audio += entries.map(\.audio)
        for variant in suite.variants(for: corpus) {
            if configurations[variant.name] == nil {
                let artifact = try toolchain.prepare(variant.training, options: variant.prepareOptions).artifact
                guard artifact.manifest.containsBaseModel else {
                    throw BenchmarkError(
                        "\(variant.name) is a set: pocketsphinx_batch has no run-time interpolation to compare with")
                }
                configurations[variant.name] = Toolchain.configuration(artifact, weight: variant.weight)
            }
            if let index = groups.firstIndex(where: { $0.name == variant.name }) {
                groups[index].audio += entries.map(\.audio)
            } else {
                groups.append(
                    FloorGroup(
                        name: variant.name, configuration: configurations[variant.name], audio: entries.map(\.audio)))
            }
        }
    }
    return [baseline] + groups
}

/// What `pocketsphinx_batch` needs for one group: its audio as raw samples (read by Gambit's loader, so that both
/// sides decode the same samples), a control file per lane, and the dictionary with the variant's words.
private struct BatchLane {
    var control: URL
    var audioSeconds: Double
    var hypotheses: URL
    var utterances: [String]
}

/// The decoding of a run's baseline and customized work by Gambit's workers and by the stock `pocketsphinx_batch`,
/// side by side on the same audio and machine, each with as many processes as workers: the decode floor.
///
/// Both load each model once per process and decode every utterance of it; `pocketsphinx_batch` reads raw samples
/// that Gambit's loader wrote, so that both decode the same samples. Prints wall time, engine time per second of
/// audio for the baseline and the customized decodes, and how many hypotheses agree.
func decodeFloorBenchmark() throws {
    let file = URL(fileURLWithPath: stringOption("--suite", default: "Corpora/suite.yaml"))
    let suite = try Suite.load(file)
    let names = CommandLine.arguments.firstIndex(of: "--corpora").map {
        Set(CommandLine.arguments[$0 + 1].split(separator: ",").map(String.init))
    }
    let workers = option("--workers", default: 2)
    let gambit = URL(fileURLWithPath: benchmarkExecutable).deletingLastPathComponent().appendingPathComponent("gambit")
    guard FileManager.default.isExecutableFile(atPath: gambit.path) else {
        throw BenchmarkError("build the CLI first: swift build -c release --product gambit")
    }
    let groups = try floorGroups(suite, corpora: names)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-bench-floor-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    // The raw samples, once per audio file.
    var raw: [URL: (url: URL, seconds: Double)] = [:]
    for url in Set(groups.flatMap(\.audio)).sorted(by: { $0.path < $1.path }) {
        let clip = try AudioLoader().load(url)
        let out = folder.appendingPathComponent("audio-\(raw.count).raw")
        try clip.samples.withUnsafeBytes { try Data($0).write(to: out) }
        raw[url] = (out, clip.duration)
    }
    let utterances = groups.reduce(0) { $0 + $1.audio.count }
    let audioSeconds = groups.reduce(0) { total, group in total + group.audio.reduce(0) { $0 + raw[$1]!.seconds } }
    print(
        String(
            format: "decode floor: %ld decodes of %.0f s of audio in %ld systems (%@), %ld processes each side",
            utterances, audioSeconds, groups.count, groups.map(\.name).joined(separator: ", "), workers))

    // pocketsphinx_batch: each group's files dealt to the lanes by length, longest first; each lane runs its groups
    // one after another, the lanes at once.
    let model = AcousticModel.englishUS
    let baseDictionary = try String(contentsOf: model.dictionary, encoding: .utf8)
    var lanes: [[(group: Int, lane: BatchLane, arguments: [String])]] = Array(repeating: [], count: workers)
    for (index, group) in groups.enumerated() {
        var dealt = Array(repeating: [URL](), count: workers)
        var load = Array(repeating: 0.0, count: workers)
        for url in group.audio.sorted(by: { raw[$0]!.seconds > raw[$1]!.seconds }) {
            let lane = load.indices.min { load[$0] < load[$1] }!
            dealt[lane].append(url)
            load[lane] += raw[url]!.seconds
        }
        var dictionary = model.dictionary
        var languageModel = model.languageModel
        if let configuration = group.configuration {
            dictionary = folder.appendingPathComponent("group-\(index).dict")
            let words = try String(contentsOf: configuration.vocabulary, encoding: .utf8)
            try (baseDictionary + (baseDictionary.hasSuffix("\n") ? "" : "\n") + words).write(
                to: dictionary, atomically: true, encoding: .utf8)
            languageModel = configuration.languageModel
        }
        for (laneIndex, files) in dealt.enumerated() where !files.isEmpty {
            let control = folder.appendingPathComponent("group-\(index)-lane-\(laneIndex).ctl")
            let ids = files.map { String(raw[$0]!.url.deletingPathExtension().path.dropFirst()) }
            try ids.joined(separator: "\n").write(to: control, atomically: true, encoding: .utf8)
            let hypotheses = folder.appendingPathComponent("group-\(index)-lane-\(laneIndex).hyp")
            let lane = BatchLane(
                control: control, audioSeconds: load[laneIndex], hypotheses: hypotheses,
                utterances: files.map(\.path))
            let arguments =
                [
                    "-hmm", model.hmm.path, "-lm", languageModel.path, "-dict", dictionary.path, "-adcin", "yes",
                    "-adchdr", "0", "-cepext", ".raw", "-cepdir", "/", "-ctl", control.path, "-hyp", hypotheses.path,
                ] + suite.decoder.commandLine
            lanes[laneIndex].append((index, lane, arguments))
        }
    }
    let results = ResultBox()
    let jobs = lanes
    let batchWall = try seconds {
        DispatchQueue.concurrentPerform(iterations: workers) { laneIndex in
            do {
                for job in jobs[laneIndex] {
                    let measured = try measureProcess("/usr/bin/pocketsphinx_batch", job.arguments)
                    results.add(group: job.group, cpu: measured.cpuSeconds)
                }
            } catch {
                results.fail("\(error)")
            }
        }
        if let failure = results.failure { throw BenchmarkError(failure) }
    }
    var batchHypotheses: [String: [String: String]] = [:]  // group → audio path → words
    for lane in lanes.joined() {
        let lines = (try? String(contentsOf: lane.lane.hypotheses, encoding: .utf8))?.split(separator: "\n") ?? []
        for (line, path) in zip(lines, lane.lane.utterances) {
            let text = line.range(of: " (", options: .backwards).map { String(line[..<$0.lowerBound]) } ?? String(line)
            batchHypotheses[groups[lane.group].name, default: [:]][path] = text.trimmingCharacters(in: .whitespaces)
        }
    }

    // Gambit's workers, given all of it at once as a run gives them its plan.
    let transcriber = try Transcriber(
        settings: suite.decoder, model: model, mode: .workers(executable: gambit, count: workers))
    var requests: [(group: Int, request: WorkRequest)] = []
    for (index, group) in groups.enumerated() {
        for url in group.audio {
            requests.append((index, transcriber.request(audio: url, configuration: group.configuration)))
        }
    }
    var answers: [String: WorkResponse] = [:]
    let gambitWall = try seconds { answers = try transcriber.transcribe(requests.map(\.request)) }
    var gambitEngine = Array(repeating: 0.0, count: groups.count)
    var loads = 0.0
    var agree = 0
    for (index, request) in requests {
        guard let answer = answers[request.key] else { throw BenchmarkError("no answer for \(request.audio)") }
        if let failure = answer.failure { throw BenchmarkError("\(request.audio): \(failure)") }
        gambitEngine[index] += answer.decodeSeconds
        if answer.loadedModel == true { loads += answer.modelLoadSeconds }
        if batchHypotheses[groups[index].name]?[request.audio] == answer.hypothesis { agree += 1 }
    }

    func perAudioSecond(_ seconds: [Double], _ range: Range<Int>) -> Double {
        let audio = groups[range].reduce(0) { total, group in total + group.audio.reduce(0) { $0 + raw[$1]!.seconds } }
        return seconds[range].reduce(0, +) / max(audio, 1e-9)
    }
    let batchCPU = results.cpuByGroup(groups.count)
    let customized = 1..<groups.count
    print(
        String(
            format: "  pocketsphinx_batch  wall %7.1f s  (CPU per audio second: baseline %.3f, customized %.3f, %.2f×)",
            batchWall, perAudioSecond(batchCPU, 0..<1), perAudioSecond(batchCPU, customized),
            perAudioSecond(batchCPU, customized) / perAudioSecond(batchCPU, 0..<1)))
    print(
        String(
            format:
                "  gambit workers      wall %7.1f s  (engine per audio second: baseline %.3f, customized %.3f, %.2f×; "
                + "model loads %.1f s)", gambitWall, perAudioSecond(gambitEngine, 0..<1),
            perAudioSecond(gambitEngine, customized),
            perAudioSecond(gambitEngine, customized) / perAudioSecond(gambitEngine, 0..<1), loads))
    print(
        String(
            format: "  gambit / pocketsphinx_batch: %.2f× the floor's wall time; %ld of %ld hypotheses identical",
            gambitWall / batchWall, agree, requests.count))
}

/// Each lane's measurements, collected from concurrent lanes.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var cpu: [Int: Double] = [:]
    private(set) var failure: String?

    func add(group: Int, cpu seconds: Double) {
        lock.lock()
        cpu[group, default: 0] += seconds
        lock.unlock()
    }

    func fail(_ message: String) {
        lock.lock()
        failure = failure ?? message
        lock.unlock()
    }

    func cpuByGroup(_ count: Int) -> [Double] { (0..<count).map { cpu[$0] ?? 0 } }
}
