import Audio
import Formats
import Foundation
import Synchronization

/// Makes test audio from text with synthetic voices, deterministically.
///
/// Each utterance is spoken by flite or espeak-ng, brought to 16 kHz mono 16-bit by ``AudioLoader`` (the same
/// code the recognizer reads audio with), degraded by its ``Condition`` (noise in Swift with a seeded generator;
/// tempo and the telephone channel by sox, always with `-R` so sox's dither is repeatable) and written as a plain
/// WAV file. The same text, voice, condition and utterance id give the same bytes on every run.
///
/// Programs are looked up on ``searchPath``; a missing one is an error naming the package to install. Nothing is
/// ever installed.
public struct Synthesizer: Sendable {
    /// The sample rate of every file written.
    public static let sampleRate = 16_000

    /// Folders searched for `flite`, `espeak-ng` and `sox`, colon-separated like `PATH`.
    public var searchPath: String
    /// Utterances synthesized at once by ``build(texts:output:plan:)``.
    public var jobs: Int
    /// Called with (done, total) as ``buildCorpus(texts:output:plan:)`` finishes each utterance it synthesises
    /// (reused ones are not counted).
    public var progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    /// Bumped whenever a change here changes the audio, so stamped corpora are synthesized afresh.
    static let recipeVersion = "gambit-synth-1"

    /// - Parameters:
    ///   - searchPath: Where to find the programs; nil for the `PATH` environment variable.
    ///   - jobs: Utterances to synthesize at once; nil for one per processor.
    public init(searchPath: String? = nil, jobs: Int? = nil) {
        self.searchPath =
            searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        self.jobs = max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Speaks one text into a 16 kHz mono 16-bit WAV file.
    ///
    /// - Parameters:
    ///   - text: What to say.
    ///   - voice: Who says it.
    ///   - condition: How the speech is degraded.
    ///   - utteranceID: Seeds the noise of ``Condition/noise(snr:)``; the same id gives the same noise.
    ///   - url: The WAV file to write.
    /// - Returns: The samples written.
    /// - Throws: ``CorpusError`` when a program is missing or fails, or the voice is not installed.
    @discardableResult
    public func synthesize(
        _ text: String, voice: Voice, condition: Condition, utteranceID: String, to url: URL
    ) throws(CorpusError) -> AudioClip {
        let tools = try SynthesisTools(searchPath: searchPath, voices: [voice], conditions: [condition])
        let samples = try render(text, voice: voice, condition: condition, utteranceID: utteranceID, tools: tools)
        try WAVFile.write(samples: samples, sampleRate: Self.sampleRate, to: url)
        return AudioClip(samples: samples, sampleRate: Self.sampleRate)
    }

    /// Synthesizes a corpus folder from a texts file; see ``buildCorpus(texts:output:plan:)``.
    ///
    /// - Returns: The corpus entries, as written to `output/manifest.jsonl`.
    public func build(texts: URL, output: URL, plan: SynthesisPlan = .standard) throws(CorpusError)
        -> [CorpusEntry]
    {
        try buildCorpus(texts: texts, output: output, plan: plan).entries
    }

    /// Synthesizes a corpus folder from a texts file: `output/audio/<id>.wav` for every rendition the plan
    /// assigns, and `output/manifest.jsonl` listing them (relative paths; `speaker` is the voice, `split` comes
    /// from the texts file, `condition` is the condition).
    ///
    /// `output/audio/.stamp` records a hash of each utterance's text, voice, condition, id, tool versions and
    /// this code's recipe version. An utterance whose file exists with a matching stamp is reused, so running
    /// the build again is quick and changes nothing; files of utterances no longer in the plan are removed.
    ///
    /// - Parameters:
    ///   - texts: A `texts.tsv` (`id<TAB>text<TAB>split`) or a plain file with one text per line.
    ///   - output: The corpus folder; created if needed.
    ///   - plan: Voices, conditions and renditions per text.
    /// - Returns: The entries, and how many utterances were synthesized and how many reused.
    /// - Throws: ``CorpusError`` for a bad texts file or plan, a missing program (before any work starts), or the
    ///   first utterance that failed (after the others have been made and stamped).
    public func buildCorpus(texts: URL, output: URL, plan: SynthesisPlan = .standard) throws(CorpusError)
        -> CorpusBuild
    {
        try plan.validate()
        let items = try CorpusText.load(texts)
        let tools = try SynthesisTools(searchPath: searchPath, voices: plan.voices, conditions: plan.conditions)
        let jobs = try Self.jobs(for: items, plan: plan, tools: tools, texts: texts)

        let audioFolder = output.appendingPathComponent("audio")
        do {
            try FileManager.default.createDirectory(at: audioFolder, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(
                path: audioFolder.path, detail: FileSystemReason.writing(audioFolder, error, expecting: .folder))
        }
        let stampURL = audioFolder.appendingPathComponent(".stamp")
        let previous = Stamp.read(stampURL)

        var frames = [Int?](repeating: nil, count: jobs.count)
        for (index, job) in jobs.enumerated() {
            guard let old = previous[job.id], old.key == job.key else { continue }
            let file = audioFolder.appendingPathComponent(job.id + ".wav")
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
            if size == WAVFile.fileSize(frames: old.frames) { frames[index] = old.frames }
        }
        let reused = frames.count { $0 != nil }
        let pending = jobs.indices.filter { frames[$0] == nil }

        let results = parallelMap(count: pending.count, workers: self.jobs, progress: progress) {
            slot -> Result<Int, CorpusError> in
            let job = jobs[pending[slot]]
            do throws(CorpusError) {
                let samples = try render(
                    job.text.text, voice: job.rendition.voice, condition: job.rendition.condition,
                    utteranceID: job.id, tools: tools)
                try WAVFile.write(
                    samples: samples, sampleRate: Self.sampleRate,
                    to: audioFolder.appendingPathComponent(job.id + ".wav"))
                return .success(samples.count)
            } catch {
                return .failure(error)
            }
        }
        var firstFailure: CorpusError?
        for (slot, result) in results.enumerated() {
            switch result {
            case .success(let count): frames[pending[slot]] = count
            case .failure(let error): firstFailure = firstFailure ?? error
            }
        }

        // Stamp what was made even when something failed, so the next run only redoes the failures.
        var stamp: [Stamp.Line] = []
        for (index, job) in jobs.enumerated() {
            if let count = frames[index] { stamp.append(Stamp.Line(id: job.id, key: job.key, frames: count)) }
        }
        try Stamp.write(stamp, to: stampURL)
        let current = Set(jobs.map(\.id))
        for id in previous.keys where !current.contains(id) {
            try? FileManager.default.removeItem(at: audioFolder.appendingPathComponent(id + ".wav"))
        }
        if let firstFailure { throw firstFailure }

        let entries = jobs.enumerated().map { index, job in
            CorpusEntry(
                id: job.id, audio: audioFolder.appendingPathComponent(job.id + ".wav"), text: job.text.text,
                speaker: job.rendition.voice.description, split: job.text.split,
                condition: job.rendition.condition.description,
                duration: Self.milliseconds(frames[index] ?? 0))
        }
        let manifest = output.appendingPathComponent("manifest.jsonl")
        try CorpusManifest.write(entries, to: manifest)
        return CorpusBuild(
            entries: entries, manifest: manifest, synthesized: pending.count, reused: reused, plan: plan)
    }

    /// The utterances ``buildCorpus(texts:output:plan:)`` would write, with the ids, texts and splits it gives
    /// them, without synthesising any (so without durations): what a run will score before its corpus is built.
    ///
    /// - Throws: ``CorpusError`` for a bad texts file or plan.
    public static func plannedEntries(texts: URL, output: URL, plan: SynthesisPlan = .standard) throws(CorpusError)
        -> [CorpusEntry]
    {
        try plan.validate()
        let audioFolder = output.appendingPathComponent("audio")
        return try CorpusText.load(texts).enumerated().flatMap { index, item in
            plan.renditions(forText: index).map { rendition in
                let id = SynthesisPlan.utteranceID(textID: item.id, rendition: rendition)
                return CorpusEntry(
                    id: id, audio: audioFolder.appendingPathComponent(id + ".wav"), text: item.text,
                    speaker: rendition.voice.description, split: item.split,
                    condition: rendition.condition.description)
            }
        }
    }

    /// Seconds to the millisecond, as the manifest stores them, so built and reloaded entries are equal.
    private static func milliseconds(_ frames: Int) -> Double {
        (Double(frames) * 1000 / Double(sampleRate)).rounded() / 1000
    }

    // MARK: - Rendering

    private struct Job: Sendable {
        var id: String
        var text: CorpusText
        var rendition: SynthesisPlan.Rendition
        var key: String
    }

    private static func jobs(for items: [CorpusText], plan: SynthesisPlan, tools: SynthesisTools, texts: URL)
        throws(CorpusError) -> [Job]
    {
        var jobs: [Job] = []
        var textOfID: [String: String] = [:]
        for (index, item) in items.enumerated() {
            for rendition in plan.renditions(forText: index) {
                let id = SynthesisPlan.utteranceID(textID: item.id, rendition: rendition)
                if let other = textOfID[id] {
                    throw .invalidPlan(
                        detail: "\(texts.path): texts \"\(other)\" and \"\(item.id)\" both give utterance id "
                            + "\"\(id)\"; make the text ids differ in letters or digits")
                }
                textOfID[id] = item.id
                var used = [recipeVersion, tools.versions[engine(of: rendition.voice)] ?? ""]
                if rendition.condition.needsSox { used.append(tools.versions["sox"] ?? "") }
                let fields = used + [item.text, rendition.voice.description, rendition.condition.description, id]
                jobs.append(
                    Job(
                        id: id, text: item, rendition: rendition,
                        key: StableHash.hex(fields.joined(separator: "\u{1F}"))))
            }
        }
        return jobs
    }

    private static func engine(of voice: Voice) -> String {
        switch voice {
        case .flite: "flite"
        case .espeak: "espeak-ng"
        }
    }

    /// Speaks, converts and degrades one utterance in a private scratch folder.
    private func render(
        _ text: String, voice: Voice, condition: Condition, utteranceID: String, tools: SynthesisTools
    ) throws(CorpusError) -> [Int16] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gambit-synth-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(path: scratch.path, detail: FileSystemReason.writing(scratch, error, expecting: .folder))
        }
        defer { try? FileManager.default.removeItem(at: scratch) }

        let spoken = scratch.appendingPathComponent("voice.wav")
        switch voice {
        case .flite(let name):
            try tools.tool("flite", package: "flite").run(["-voice", name, "-t", text, "-o", spoken.path])
        case .espeak(let name):
            // From a file, so that a text starting with "-" is never taken for an option.
            let textFile = scratch.appendingPathComponent("text.txt")
            do {
                try Data(text.utf8).write(to: textFile)
            } catch {
                throw .unwritable(path: textFile.path, detail: FileSystemReason.writing(textFile, error))
            }
            try tools.tool("espeak-ng", package: "espeak-ng").run(
                ["-v", name, "-w", spoken.path, "-f", textFile.path])
        }
        let clean = try load(spoken)

        switch condition {
        case .clean:
            return clean
        case .noise(let snr):
            return WhiteNoise.add(to: clean, snr: snr, seed: utteranceID)
        case .speed(let factor):
            return try sox(clean, effects: ["tempo", "-s", String(factor)], in: scratch, tools: tools)
        case .telephone:
            return try sox(
                clean, effects: ["sinc", "300-3400", "rate", "8000", "rate", "\(Self.sampleRate)"], in: scratch,
                tools: tools)
        }
    }

    /// Runs sox effects over 16 kHz samples and reads the result back at 16 kHz.
    private func sox(_ samples: [Int16], effects: [String], in scratch: URL, tools: SynthesisTools) throws(CorpusError)
        -> [Int16]
    {
        let input = scratch.appendingPathComponent("sox-in.wav")
        let output = scratch.appendingPathComponent("sox-out.wav")
        try WAVFile.write(samples: samples, sampleRate: Self.sampleRate, to: input)
        // -R: sox seeds its dither at random otherwise, and the same input would give different bytes.
        // -G: lower the gain rather than clip when a filter overshoots. -V1: only failures on stderr.
        try tools.tool("sox", package: "sox").run(
            ["-R", "-G", "-V1", input.path, "-b", "16", "-c", "1", output.path] + effects)
        return try load(output)
    }

    private func load(_ url: URL) throws(CorpusError) -> [Int16] {
        do {
            return try AudioLoader(targetSampleRate: Self.sampleRate).load(url).samples
        } catch {
            throw .audio(error)
        }
    }
}

/// What ``Synthesizer/buildCorpus(texts:output:plan:)`` made.
public struct CorpusBuild: Sendable {
    /// The utterances, as written to ``manifest``.
    public var entries: [CorpusEntry]
    /// The manifest file written.
    public var manifest: URL
    /// Utterances synthesized by this build.
    public var synthesized: Int
    /// Utterances whose stamped files were reused.
    public var reused: Int
    /// The plan followed.
    public var plan: SynthesisPlan

    /// Total length of the audio in seconds.
    public var seconds: Double { entries.reduce(0) { $0 + ($1.duration ?? 0) } }
}

/// The record in `audio/.stamp` of which utterance files are up to date.
///
/// One line per utterance: `id<TAB>key<TAB>frames`, where the key hashes everything the audio depends on and
/// the frame count lets a truncated file be noticed.
enum Stamp {
    struct Line: Equatable {
        var id: String
        var key: String
        var frames: Int
    }

    static let header = "# gambit corpus synth stamp: id, key, frames"

    /// The stamp's lines by id; empty when there is no stamp or it cannot be read.
    static func read(_ url: URL) -> [String: Line] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var lines: [String: Line] = [:]
        for row in text.split(separator: "\n") where !row.hasPrefix("#") {
            let fields = row.split(separator: "\t").map(String.init)
            guard fields.count == 3, let frames = Int(fields[2]) else { continue }
            lines[fields[0]] = Line(id: fields[0], key: fields[1], frames: frames)
        }
        return lines
    }

    static func write(_ lines: [Line], to url: URL) throws(CorpusError) {
        let text = ([header] + lines.map { "\($0.id)\t\($0.key)\t\($0.frames)" }).joined(separator: "\n") + "\n"
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .unwritable(path: url.path, detail: FileSystemReason.writing(url, error))
        }
    }
}

/// Runs `work` for every index in `0..<count` on up to `workers` threads and returns the results in index order.
///
/// The build API is synchronous because `gambit`'s root command is, so this uses `concurrentPerform` rather than
/// a task group. Each call of `work` runs its own child processes in its own scratch folder; nothing is shared
/// but the result slots, which a mutex guards.
func parallelMap<T: Sendable>(
    count: Int, workers: Int, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
    _ work: @Sendable (Int) -> T
) -> [T] {
    guard count > 0 else { return [] }
    let slots = Mutex((next: 0, done: 0, values: [T?](repeating: nil, count: count)))
    progress?(0, count)
    DispatchQueue.concurrentPerform(iterations: min(max(1, workers), count)) { _ in
        while let index = slots.withLock({ slots -> Int? in
            guard slots.next < count else { return nil }
            defer { slots.next += 1 }
            return slots.next
        }) {
            let value = work(index)
            // Reported under the lock, so that counts arrive in order.
            slots.withLock {
                $0.values[index] = value
                $0.done += 1
                progress?($0.done, count)
            }
        }
    }
    return slots.withLock { $0.values.map { $0! } }
}
