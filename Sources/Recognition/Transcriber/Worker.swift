import Audio
import Formats
import Foundation
import Hashing

/// One utterance to decode under one system, as sent to a worker process (one JSON line).
public struct WorkRequest: Codable, Sendable, Hashable {
    /// Content hash naming the work: audio bytes, system and settings.
    public var key: String
    public var audio: String
    /// The customized model (or oracle grammar); nil for the baseline.
    public var configuration: LanguageModelConfiguration?
    /// Also stream the audio this way to measure latency; nil: no streaming.
    public var streaming: StreamingSetup?
    /// Words whose first correct emission time is measured while streaming.
    public var terms: [String]
    /// Test hook: crash the worker on this request (exercises crash isolation and retries).
    public var crashForTesting: Bool?
    /// Transcribe with this external recognizer instead of PocketSphinx.
    public var external: ExternalRecognizer?
    /// Decode with the external recognizer's customization, given these inputs; nil for its baseline.
    public var externalInputs: ExternalCustomization.Inputs?
    /// Write the word lattice of a customized decode into this folder, as `<key>.lat` (``latticeFile(key:in:)``), for
    /// `gambit diagnose` to read instead of decoding again. Not part of the key: it changes no answer.
    public var latticeFolder: String?

    public init(
        key: String, audio: String, configuration: LanguageModelConfiguration?, streaming: StreamingSetup? = nil,
        terms: [String] = [], crashForTesting: Bool? = nil, external: ExternalRecognizer? = nil
    ) {
        self.key = key
        self.audio = audio
        self.configuration = configuration
        self.streaming = streaming
        self.terms = terms
        self.crashForTesting = crashForTesting
        self.external = external
    }
}

extension WorkRequest {
    /// The file a decode's kept lattice is in (see ``latticeFolder``): named by the key alone, so it never leaves
    /// the folder.
    public static func latticeFile(key: String, in folder: URL) -> URL {
        folder.appendingPathComponent("\(key).lat")
    }

    /// The key a decoded utterance is journaled and resumed under: everything that can change its hypothesis
    /// (the audio's bytes, the system's model, the acoustic model, the engine settings and how it is streamed).
    /// The engine's default settings give the key they gave before settings could be changed.
    ///
    /// - Parameters:
    ///   - audioHash: ``hashFile(_:)`` of the audio.
    ///   - systemFingerprint: What decodes it: `baseline`, `<artifact fingerprint>@<weight>`, an oracle's or an
    ///     external recognizer's own.
    public static func key(
        audioHash: String, systemFingerprint: String, modelFingerprint: String, decoder: DecoderSettings,
        streamed: StreamingSetup?
    ) -> String {
        sha256(
            Data(
                [
                    audioHash, systemFingerprint, modelFingerprint, decoder.commandLine.joined(separator: " "),
                    streamed?.keyText ?? "0",
                ].joined(separator: "|").utf8))
    }

    /// The SHA-256 of a file's bytes, or `missing:<path>` when it cannot be read (its decode then fails by name).
    public static func hashFile(_ url: URL) -> String {
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return "missing:\(url.path)" }
        return sha256(data)
    }

    private static func sha256(_ data: Data) -> String {
        ContentHash.sha256Hex(data)
    }
}

/// What a worker sends back for a request (one JSON line); also the journal's line format.
public struct WorkResponse: Codable, Sendable, Equatable {
    public var key: String
    public var hypothesis: String
    public var words: [DecodedWord]
    public var decodeSeconds: Double
    public var audioSeconds: Double
    public var customization: CustomizationUse
    /// The artifact fingerprint the decoder reported as applied.
    public var appliedFingerprint: String?
    /// Why an external recognizer said it ignored its customization, when it said.
    public var customizationNote: String?
    public var latency: DecodeLatency?
    /// How long the streaming pass took (nil when the request was not streamed).
    public var streamingSeconds: Double?
    public var failure: String?
    /// What kind of failure ``failure`` is (nil in journals of a Gambit that did not record it).
    public var failureKind: DecodeFailureKind?
    /// How long the worker took to load this request's model (the first time it used it; later requests with
    /// the same model repeat the figure, see ``loadedModel``).
    public var modelLoadSeconds: Double
    /// Whether the worker loaded the model for this request (so that summing ``modelLoadSeconds`` over the
    /// requests that did counts each load once); nil from a Gambit that did not record it.
    public var loadedModel: Bool?
    public var peakResidentMegabytes: Double
    public var retries: Int
    public var crashed: Bool
    /// How the worker that decoded this was cut off from the network (set by the pool).
    public var networkIsolation: String?
    /// Whether that worker proved its network was unreachable.
    public var networkDenied: Bool?
    /// Whether an external recognizer's long-lived program (`serve:`) answered, rather than a command started for
    /// this utterance: its ``decodeSeconds`` is then the time over the whole utterance a user would wait.
    public var served: Bool?

    /// The failure as results and reports record it: every absolute path in the message (the audio file, a
    /// model, an adapter) written relative to the suite's folder, as ``Suite/reportedPath(_:)`` writes audio
    /// paths, so that no report shows where the machine keeps its files.
    ///
    /// The worker and the pool name files by absolute path (they must find them); this is the one place their
    /// messages become what a report may print. The journal keeps the message as it came.
    /// - Parameter folder: The suite's folder.
    /// - Returns: The message with its paths made relative; `nil` when nothing failed.
    public func reportedFailure(relativeTo folder: URL) -> String? {
        failure.map { Self.relativePaths(in: $0, to: folder) }
    }

    /// Rewrites each absolute path in `message` relative to `folder`. A path starts with `/` at the start of
    /// the message or after a space, quote, bracket or `=`, and runs to the next space, quote or bracket; a
    /// `:` or `.` that ends it is punctuation (`/a/b.wav: no such audio file`). The folder itself, and paths
    /// under it, are found first whole, so that a folder name with spaces is replaced too.
    public static func relativePaths(in message: String, to folder: URL) -> String {
        var message = message
        let base = folder.standardizedFileURL.path
        let resolved = folder.resolvingSymlinksInPath().path
        for prefix in Set([base, resolved]).sorted(by: { $0.count > $1.count }) where prefix.count > 1 {
            message = message.replacingOccurrences(of: prefix + "/", with: "")
        }
        let pattern = #"(?<=^|[\s'"(\[<=])/[^\s'"()\[\]<>]*"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return message }
        var out = ""
        var last = message.startIndex
        for match in expression.matches(in: message, range: NSRange(message.startIndex..., in: message)) {
            guard let range = Range(match.range, in: message) else { continue }
            var path = message[range]
            while let end = path.last, end == ":" || end == "." || end == "," || end == ";", path.count > 1 {
                path.removeLast()
            }
            out += message[last..<range.lowerBound]
            out += RelativePath.from(folder, to: URL(fileURLWithPath: String(path)))
            last = path.endIndex
        }
        return out + message[last...]
    }
}

extension WorkResponse {
    /// The answer of a transcript made outside the run: its words, and nothing measured.
    public static func imported(key: String, hypothesis: String, customization: CustomizationUse)
        -> WorkResponse
    {
        WorkResponse(
            key: key, hypothesis: hypothesis, words: [], decodeSeconds: 0, audioSeconds: 0,
            customization: customization, appliedFingerprint: nil, latency: nil, failure: nil, modelLoadSeconds: 0,
            peakResidentMegabytes: 0, retries: 0, crashed: false)
    }

    /// The answer to a request that was never decoded: it failed with `failure`, of `kind`.
    public static func undecoded(
        key: String, failure: String, kind: DecodeFailureKind, customization: CustomizationUse
    ) -> WorkResponse {
        WorkResponse(
            key: key, hypothesis: "", words: [], decodeSeconds: 0, audioSeconds: 0, customization: customization,
            appliedFingerprint: nil, latency: nil, failure: failure, failureKind: kind, modelLoadSeconds: 0,
            peakResidentMegabytes: 0, retries: 0, crashed: false)
    }
}

/// The first line a worker prints: whether its network is denied, and how that was checked.
public struct WorkerHello: Codable, Sendable {
    public var networkDenied: Bool
    public var detail: String
}

/// The decoding side of a worker process: reads requests from standard input, decodes, and writes
/// responses to standard output. Runs in its own process so that an engine crash costs one
/// utterance, not the run.
public enum WorkerLoop {
    public static func run(settings: DecoderSettings = .standard) throws {
        // A worker moves through variants: each model's memory must go back when the next loads.
        SpeechRecognizer.returnFreedModelMemory()
        let hello = WorkerHello(networkDenied: NetworkProbe.isDenied(), detail: NetworkProbe.detail())
        emit(hello)
        let decoder = try RequestDecoder(model: nil, settings: settings)
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            guard let request = try? JSONDecoder().decode(WorkRequest.self, from: Data(line.utf8)) else {
                FileHandle.standardError.write(Data("worker: malformed request\n".utf8))
                continue
            }
            if request.crashForTesting == true { abort() }
            emit(decoder.respond(to: request))
        }
    }

    private static func emit<Value: Encodable>(_ value: Value) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard var data = try? encoder.encode(value) else { return }
        data.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(data)
    }
}

/// Turns one ``WorkRequest`` into its ``WorkResponse``: what a worker process does with each line it reads, and
/// what a ``Transcriber`` running in-process does with each request. One recognizer, kept loaded with the model
/// of the current system only (work arrives grouped by system).
final class RequestDecoder {
    let recognizer: SpeechRecognizer
    private let loader = AudioLoader()
    private var loaded: [LanguageModelConfiguration?: Double] = [:]
    /// The external recognizer programs that stay loaded, by their command, the most recently used last. Work
    /// arrives grouped by system, but systems of one recognizer alternate by corpus (baseline, then each variant,
    /// corpus after corpus), and a baseline's command is the same on every corpus: so a few are kept, not one.
    private var served: [(command: [String], process: ServedProcess)] = []
    /// How many served programs a worker keeps at most (each holds a model in memory).
    static let servedProcessesKept = 4

    /// - Parameter model: The acoustic model; nil for the installed en-US model.
    init(model: AcousticModel?, settings: DecoderSettings) throws(RecognitionError) {
        recognizer = try SpeechRecognizer(locale: model?.locale ?? "en-US", model: model, settings: settings)
    }

    func respond(to request: WorkRequest) -> WorkResponse {
        var response = WorkResponse(
            key: request.key, hypothesis: "", words: [], decodeSeconds: 0, audioSeconds: 0,
            customization: request.configuration == nil ? .notRequested : .ignored, appliedFingerprint: nil,
            latency: nil, failure: nil, modelLoadSeconds: 0, peakResidentMegabytes: 0, retries: 0, crashed: false)
        if let external = request.external { return respond(to: request, with: external, response) }
        do {
            if loaded[request.configuration] == nil {
                // Work arrives grouped by system: keep only the current customized model loaded.
                recognizer.releaseDecoders(except: request.configuration, includingBase: true)
                loaded = [:]
                let start = DispatchTime.now().uptimeNanoseconds
                try recognizer.preload(request.configuration)
                loaded[request.configuration] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                response.loadedModel = true
            }
            response.modelLoadSeconds = loaded[request.configuration] ?? 0
            let clip = try loader.load(URL(fileURLWithPath: request.audio))
            response.audioSeconds = clip.duration
            let options = RecognitionOptions(
                shouldReportPartialResults: true, requiresOnDeviceRecognition: true,
                customizedLanguageModel: request.configuration, maximumAlternatives: 0)
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try recognizer.recognize(clip, options: options)
            response.decodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            response.hypothesis = result.bestTranscription.formattedString
            response.words = result.bestTranscription.segments.map {
                DecodedWord(word: $0.substring, start: $0.timestamp, duration: $0.duration, confidence: $0.confidence)
            }
            if let folder = request.latticeFolder, request.configuration?.grammar == nil, request.configuration != nil {
                keepLattice(of: request, in: URL(fileURLWithPath: folder))
            }
            switch result.customization {
            case .none: response.customization = .notRequested
            case .applied(let fingerprint):
                response.customization = .applied
                response.appliedFingerprint = fingerprint
            case .ignored: response.customization = .ignored
            }
            if let setup = request.streaming {
                let start = DispatchTime.now().uptimeNanoseconds
                response.latency = Self.stream(
                    clip, setup: setup, options: options, terms: request.terms, recognizer: recognizer,
                    clock: MonotonicClock())
                response.streamingSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
        } catch {
            response.failure = "\(error)"
            response.failureKind = Self.kind(of: error)
        }
        response.peakResidentMegabytes = peakResidentMegabytes()
        return response
    }

    /// The response to a request for an external recognizer: its command run, or its served program asked.
    private func respond(to request: WorkRequest, with external: ExternalRecognizer, _ response: WorkResponse)
        -> WorkResponse
    {
        var response = response
        response.customization = .notRequested
        do {
            let audio = URL(fileURLWithPath: request.audio)
            // Load the audio too: a bad file is the same named error as for PocketSphinx.
            response.audioSeconds = try loader.load(audio).duration
            let output = try transcribe(request, with: external, audio: audio, into: &response)
            if request.externalInputs != nil {
                // Its own word is all there is: silence reads as applied, and the no-effect check compares
                // its hypotheses with its baseline's.
                response.customization = output.customization ?? .applied
                response.customizationNote =
                    output.customization == CustomizationUse.ignored ? output.reason : nil
            }
            response.hypothesis = output.transcript
            response.words = output.words
            response.decodeSeconds = output.seconds
        } catch {
            response.failure = "\(error)"
            response.failureKind = Self.kind(of: error)
        }
        response.peakResidentMegabytes = peakResidentMegabytes(of: RUSAGE_CHILDREN)
        return response
    }

    /// One external decode: through the recognizer's served program when it has one for this system (started on
    /// its first request and kept with the few used last, ``servedProcessesKept``), else its command.
    private func transcribe(
        _ request: WorkRequest, with external: ExternalRecognizer, audio: URL, into response: inout WorkResponse
    ) throws -> ExternalRecognizer.Output {
        guard let command = external.servedCommand(inputs: request.externalInputs) else {
            return try external.transcribe(audio, audioSeconds: response.audioSeconds, inputs: request.externalInputs)
        }
        let process: ServedProcess
        if let index = served.firstIndex(where: { $0.command == command }) {
            process = served.remove(at: index).process
        } else {
            process = ServedProcess(arguments: command)
            if served.count >= Self.servedProcessesKept { served.removeFirst().process.stop() }
        }
        served.append((command, process))
        let starts = process.starts
        let answer = try external.transcribe(
            audio, key: request.key, audioSeconds: response.audioSeconds, inputs: request.externalInputs,
            process: process)
        response.retries = answer.retried ? 1 : 0
        response.served = true
        // A start is a model load; its time is part of the first request's.
        response.loadedModel = process.starts > starts ? true : nil
        return answer.output
    }

    /// Writes the lattice of the batch decode just made. A lattice that cannot be written
    /// costs nothing but time: the diagnosis decodes that utterance again. It is written under a temporary name and
    /// renamed, so a worker killed half-way leaves no partial lattice under the key's name.
    private func keepLattice(of request: WorkRequest, in folder: URL) {
        let file = WorkRequest.latticeFile(key: request.key, in: folder)
        let partial = folder.appendingPathComponent(".\(request.key).\(getpid()).partial")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try recognizer.writeLattice(of: request.configuration, to: partial)
            _ = try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: partial, to: file)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            FileHandle.standardError.write(Data("worker: lattice of \(request.audio) not kept: \(error)\n".utf8))
        }
    }

    /// The kind of a failure the worker caught: the audio, the engine, or an external recognizer's answer.
    static func kind(of error: any Error) -> DecodeFailureKind {
        switch error {
        case is AudioError: .audio
        case RecognitionFailure.audio: .audio
        case let external as ExternalRecognizerError: external.timedOut ? .timeout : .recognizerOutput
        default: .engine
        }
    }

    /// Streams the clip in chunks as `setup` says (with any trailing silence appended) and times it
    /// (``StreamTimer``); speech onset and end are ``SpeechActivity``'s estimate from the audio itself. A stream that
    /// fails gives a latency with no final and the failure: the batch decode's answer stands, and the missing final
    /// is counted.
    static func stream(
        _ clip: AudioClip, setup: StreamingSetup, options: RecognitionOptions, terms: [String],
        recognizer: SpeechRecognizer, clock: any StreamClock
    ) -> DecodeLatency {
        var audio = clip
        audio.samples += SpeechActivity.trailingNoise(
            after: clip.samples, seconds: Double(setup.trailingSilenceMilliseconds) / 1000, sampleRate: clip.sampleRate)
        let chunks = AudioBufferRecognitionRequest.chunks(of: audio, milliseconds: setup.chunkMilliseconds)
        let speech = SpeechActivity.span(of: clip.samples, sampleRate: clip.sampleRate)
        var stream: RecognitionStream?
        do {
            let started = try recognizer.stream(options)
            stream = started
            return try StreamTimer(clock: clock, pacing: setup.pacing).measure(
                chunks: chunks, sampleRate: clip.sampleRate, speech: speech, terms: terms,
                feed: { try started.feed(chunks[$0]) }, finish: { try started.finish() })
        } catch {
            // An utterance left open would refuse the next one's start (ps_start_utt): every later stream of this
            // worker would fail too.
            stream?.cancel()
            return DecodeLatency(pacing: setup.pacing, speech: speech, failure: "\(error)")
        }
    }

}

/// Peak resident memory of this process (or of the largest child it waited for).
///
/// For this process it is the kernel's high-water mark of its own address space (`VmHWM`):
/// `getrusage`'s `ru_maxrss` also counts the parent's memory before `exec`, so a worker started by
/// a runner that had just read the base model's n-grams would report the runner's size as its own.
public func peakResidentMegabytes(of who: __rusage_who = RUSAGE_SELF) -> Double {
    if who == RUSAGE_SELF, let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    {
        return kilobytes / 1024
    }
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// Checks whether this process can reach the network: a connect to a loopback port fails with
/// ENETUNREACH inside a network namespace whose loopback is down. Loopback only; nothing leaves
/// the machine.
enum NetworkProbe {
    static func isDenied() -> Bool { probe() == ENETUNREACH }

    static func detail() -> String {
        let code = probe()
        return code == ENETUNREACH
            ? "connect(127.0.0.1:9) failed with ENETUNREACH: no network interface is up in this process"
            : "connect(127.0.0.1:9) returned \(code == 0 ? "success" : String(cString: strerror(code))): network reachable"
    }

    private static func probe() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(9).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0 ? 0 : errno
    }
}
