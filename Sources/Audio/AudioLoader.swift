internal import CSampleRate
internal import CSndFile
import Foundation

/// Mono 16-bit samples at the recognizer's rate, with a note of what the file was.
public struct AudioClip: Sendable, Equatable {
    /// The samples, mono, at `sampleRate`.
    public var samples: [Int16]
    /// Samples per second of `samples`.
    public var sampleRate: Int
    /// The sample rate the file was recorded at.
    public var sourceSampleRate: Int
    /// The number of channels the file had before mixdown.
    public var sourceChannels: Int

    public init(samples: [Int16], sampleRate: Int, sourceSampleRate: Int? = nil, sourceChannels: Int = 1) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.sourceSampleRate = sourceSampleRate ?? sampleRate
        self.sourceChannels = sourceChannels
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }
}

/// Reads audio files through libsndfile, mixes them down to mono and resamples them with
/// libsamplerate to the rate the acoustic model expects.
///
/// WAV, FLAC, OGG/Vorbis and every other container libsndfile knows are read by their headers;
/// headerless files need a ``RawAudioFormat``. A 16 kHz mono 16-bit file is passed through bit for
/// bit, so results match tools that read the PCM directly.
public struct AudioLoader: Sendable {
    /// The rate every clip is converted to.
    public var targetSampleRate: Int

    public init(targetSampleRate: Int = 16_000) {
        self.targetSampleRate = targetSampleRate
    }

    /// Loads a file into a mono clip at ``targetSampleRate``.
    ///
    /// - Parameters:
    ///   - url: The audio file.
    ///   - raw: The layout of a headerless file; nil to read the file's own header.
    /// - Returns: The samples, mixed down and resampled as needed.
    /// - Throws: ``AudioError`` naming the file when it is missing, empty, truncated, not audio or in
    ///   an encoding that cannot be decoded, when `raw` is given for a file with a header, and when its channels
    ///   cancel out in the mix.
    public func load(_ url: URL, raw: RawAudioFormat? = nil) throws(AudioError) -> AudioClip {
        let path = url.path
        let size = try Self.nonEmptyFileSize(path)
        let (file, info) = try Self.openSoundFile(path, raw: raw)
        defer { sf_close(file) }

        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        guard info.frames > 0 else { throw .empty(path: path) }
        if raw == nil, let shortfall = Self.truncation(of: file, info: info, fileSize: size) {
            throw .truncated(path: path, detail: shortfall)
        }

        // Only 16-bit PCM is read as shorts: libsndfile hands float and double samples to
        // `sf_readf_short` unscaled, so a float file in [-1, 1] would become near silence. Every
        // other encoding goes through floats, which libsndfile normalises to [-1, 1].
        let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        if channels == 1 && rate == targetSampleRate && subtype == Int32(SF_FORMAT_PCM_16) {
            let samples = try Self.readShorts(file, frameCount: info.frames, path: path)
            return AudioClip(samples: samples, sampleRate: rate, sourceSampleRate: rate, sourceChannels: 1)
        }

        let mono = try Self.readMono(file, frameCount: info.frames, channels: channels, path: path)
        let resampled = try resample(mono, from: rate, path: path)
        let samples = resampled.map { value -> Int16 in
            let scaled = (value * 32_768).rounded()
            return Int16(max(-32_768, min(32_767, scaled)))
        }
        return AudioClip(
            samples: samples, sampleRate: targetSampleRate, sourceSampleRate: rate, sourceChannels: channels)
    }

    /// A file's length in seconds as its header gives it, without reading its samples: how long an utterance is,
    /// said while it is being decoded. Nil when the file has no header libsndfile reads.
    public static func headerSeconds(_ url: URL) -> Double? {
        guard let (file, info) = try? openSoundFile(url.path, raw: nil) else { return nil }
        sf_close(file)
        guard info.samplerate > 0, info.frames >= 0 else { return nil }
        return Double(info.frames) / Double(info.samplerate)
    }

    /// The size in bytes of the file at `path`, which must exist, be a file and not be empty; checked first so
    /// that the error names what is wrong rather than libsndfile's reading of it.
    private static func nonEmptyFileSize(_ path: String) throws(AudioError) -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .missing(path: path)
        }
        guard !isDirectory.boolValue else { throw .isFolder(path: path) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 { throw .empty(path: path) }
        return size
    }

    /// Opens the file with libsndfile, by its header or by the `raw` layout, and returns it with what libsndfile
    /// read of its format. A raw layout is refused for a file with a readable header; a file libsndfile cannot
    /// open is an unsupported encoding when its container is a known one and not audio otherwise.
    private static func openSoundFile(
        _ path: String, raw: RawAudioFormat?
    ) throws(AudioError) -> (OpaquePointer, SF_INFO) {
        var info = SF_INFO()
        if let raw {
            if let header = readableHeader(path) { throw .headerNotRaw(path: path, header: header) }
            info.samplerate = Int32(raw.sampleRate)
            info.channels = Int32(raw.channels)
            info.format = Int32(SF_FORMAT_RAW) | sndfileSubtype(raw.encoding)
            guard sf_format_check(&info) != 0 else {
                throw .invalidRawFormat(path: path, detail: "libsndfile rejects \(raw)")
            }
        }
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            let code = Int(sf_error(nil))
            let message = String(cString: sf_strerror(nil))
            if code == Int(SF_ERR_UNSUPPORTED_ENCODING) || soundContainer(path) != nil {
                // The container is one libsndfile knows, so what it cannot decode is the content.
                throw .unsupportedEncoding(path: path, detail: message)
            }
            throw .notAudio(path: path, detail: message)
        }
        return (file, info)
    }

    /// Reads a mono 16-bit PCM file's frames as they are, bit for bit; a short read keeps the frames there are.
    private static func readShorts(
        _ file: OpaquePointer, frameCount: sf_count_t, path: String
    ) throws(AudioError) -> [Int16] {
        var samples = [Int16](repeating: 0, count: Int(frameCount))
        let read = samples.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, frameCount) }
        guard read > 0 else { throw .readFailed(path: path, detail: String(cString: sf_strerror(file))) }
        if read < frameCount { samples.removeSubrange(Int(read)...) }
        return samples
    }

    /// Reads the file's frames as floats in [-1, 1] and mixes its channels down to mono. Throws for a sample
    /// that is not a finite number and for channels that cancel out in the mix.
    private static func readMono(
        _ file: OpaquePointer, frameCount: sf_count_t, channels: Int, path: String
    ) throws(AudioError) -> [Float] {
        var interleaved = [Float](repeating: 0, count: Int(frameCount) * channels)
        let read = interleaved.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, frameCount) }
        guard read > 0 else { throw .readFailed(path: path, detail: String(cString: sf_strerror(file))) }
        let frames = Int(read)
        if let bad = interleaved[0..<frames * channels].firstIndex(where: { !$0.isFinite }) {
            throw .readFailed(
                path: path, detail: "sample \(bad / channels) is \(interleaved[bad]), not a number in [-1, 1]")
        }
        if channels == 1 { return Array(interleaved[0..<frames]) }
        return try mixDown(interleaved, frames: frames, channels: channels, path: path)
    }

    /// The mean of each frame's channels, after checking that the channels do not cancel out: a mix far below
    /// the channels' energy is no recording of them (see ``cancellingLoss``).
    private static func mixDown(
        _ interleaved: [Float], frames: Int, channels: Int, path: String
    ) throws(AudioError) -> [Float] {
        var mono = [Float](repeating: 0, count: frames)
        let scale = 1 / Float(channels)
        var channelEnergy = 0.0
        var mixEnergy = 0.0
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels {
                let value = interleaved[frame * channels + channel]
                sum += value
                channelEnergy += Double(value * value)
            }
            mono[frame] = sum * scale
            mixEnergy += Double(mono[frame] * mono[frame])
        }
        if let detail = cancellation(mix: mixEnergy, channels: channelEnergy / Double(channels)) {
            throw .channelsCancel(path: path, detail: detail)
        }
        return mono
    }

    /// Resamples with libsamplerate's best sinc converter.
    private func resample(_ input: [Float], from rate: Int, path: String) throws(AudioError) -> [Float] {
        guard rate != targetSampleRate else { return input }
        let ratio = Double(targetSampleRate) / Double(rate)
        let capacity = Int((Double(input.count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var generated = 0
        let status: Int32 = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var data = SRC_DATA()
                data.data_in = inBuffer.baseAddress
                data.input_frames = inBuffer.count
                data.data_out = outBuffer.baseAddress
                data.output_frames = outBuffer.count
                data.src_ratio = ratio
                data.end_of_input = 1
                let status = src_simple(&data, Int32(SRC_SINC_BEST_QUALITY), 1)
                generated = Int(data.output_frames_gen)
                return status
            }
        }
        guard status == 0 else {
            throw .readFailed(path: path, detail: "resampling failed: " + String(cString: src_strerror(status)))
        }
        return Array(output[0..<generated])
    }

    /// Compares the data length a container's header declares with the bytes actually present.
    ///
    /// libsndfile quietly clamps a truncated WAV or AIFF to the bytes that are there; its log says so. A WAV
    /// written where the writer cannot seek back (a pipe, a recorder stopped abruptly) declares its data chunk's
    /// length as unknown, and libsndfile then reads the data to the end of the file, as sox and ffmpeg do: that
    /// is not truncation, although the log also says the size "should be" the real one.
    private static func truncation(of file: OpaquePointer, info: SF_INFO, fileSize: Int) -> String? {
        var log = [CChar](repeating: 0, count: 4096)
        _ = sf_command(file, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Only plain RIFF WAV: RF64 puts 0xFFFFFFFF in its data chunk by design, with the real length elsewhere.
        let container = info.format & Int32(SF_FORMAT_TYPEMASK)
        if container == Int32(SF_FORMAT_WAV) || container == Int32(SF_FORMAT_WAVEX),
            text.split(separator: "\n").contains(where: isUnknownDataLength)
        {
            return nil
        }
        for line in text.split(separator: "\n") {
            let lowered = line.lowercased()
            if lowered.contains("should be") || lowered.contains("truncated")
                || (lowered.contains("data length") && lowered.contains("file"))
            {
                return line.trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Whether a line of libsndfile's log gives the WAV data chunk's length as one of the values writers use
    /// for "unknown": 0xFFFFFFFF (recorders, ffmpeg and most streaming writers) or 0x7FFFF000 (sox 14.4 writing
    /// to a pipe, measured). The log line reads `data : 4294967295 (should be 35052)`.
    private static func isUnknownDataLength(_ line: Substring) -> Bool {
        let parts = line.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "data" else { return false }
        let value = parts[1].split(separator: " ").first.flatMap { UInt64($0) }
        return value == 0xFFFF_FFFF || value == 0x7FFF_F000
    }

    /// How far below its channels' mean energy a mix may fall before the channels are said to cancel: 30 dB.
    /// Unrelated channels lose 3 dB in the mix, and so does a silent channel beside a live one; channels that lose
    /// more are close to each other's negative (a polarity fault in wiring or export), and their mix is near
    /// silence, which the recognizer reads as a confident word.
    static let cancellingLoss = 1e-3

    /// Why a mix of energy `mix` from channels of mean energy `channels` is no recording of them; nil when it is
    /// (silent channels mix to the silence they hold).
    private static func cancellation(mix: Double, channels: Double) -> String? {
        guard channels > 0, mix < channels * cancellingLoss else { return nil }
        guard mix > 0 else { return "the mix is silent; is one channel the other inverted?" }
        let loss = 10 * log10(channels / mix)
        return String(format: "the mix is %.0f dB below the channels; is one channel the other inverted?", loss)
    }

    /// The container a file's header declares and its layout (`WAV, 16000 Hz, 1 channel`) when the file starts like
    /// a sound container and libsndfile reads it so; nil for headerless data, even data whose first bytes happen
    /// to spell a container's magic number.
    private static func readableHeader(_ path: String) -> String? {
        guard let container = soundContainer(path) else { return nil }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        sf_close(file)
        return "\(container), \(info.samplerate) Hz, \(info.channels) channel" + (info.channels == 1 ? "" : "s")
    }

    /// The container the file starts like (RIFF/RF64 WAV, AIFF, FLAC, Ogg, AU, CAF, NIST), by its magic number.
    private static func soundContainer(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = handle.readData(ofLength: 4)
        let magic = String(decoding: head, as: UTF8.self)
        let containers = [
            "RIFF": "WAV", "RIFX": "WAV", "RF64": "WAV", "FORM": "AIFF", "fLaC": "FLAC", "OggS": "Ogg", ".snd": "AU",
            "caff": "CAF", "NIST": "NIST SPHERE",
        ]
        return containers[magic]
    }

    private static func sndfileSubtype(_ encoding: RawAudioFormat.Encoding) -> Int32 {
        let little = Int32(SF_ENDIAN_LITTLE)
        let big = Int32(SF_ENDIAN_BIG)
        switch encoding {
        case .s8: return Int32(SF_FORMAT_PCM_S8)
        case .u8: return Int32(SF_FORMAT_PCM_U8)
        case .s16le: return Int32(SF_FORMAT_PCM_16) | little
        case .s16be: return Int32(SF_FORMAT_PCM_16) | big
        case .s24le: return Int32(SF_FORMAT_PCM_24) | little
        case .s24be: return Int32(SF_FORMAT_PCM_24) | big
        case .s32le: return Int32(SF_FORMAT_PCM_32) | little
        case .s32be: return Int32(SF_FORMAT_PCM_32) | big
        case .f32le: return Int32(SF_FORMAT_FLOAT) | little
        case .f32be: return Int32(SF_FORMAT_FLOAT) | big
        case .f64le: return Int32(SF_FORMAT_DOUBLE) | little
        case .f64be: return Int32(SF_FORMAT_DOUBLE) | big
        case .ulaw: return Int32(SF_FORMAT_ULAW)
        case .alaw: return Int32(SF_FORMAT_ALAW)
        }
    }
}

/// Audio lengths as a decode measures them (``AudioClip/duration`` of what ``AudioLoader`` loads), each file read
/// once: for rates over audio time (false alarms per hour) of utterances the caller did not decode itself.
public struct AudioLengths {
    private var known: [URL: Double] = [:]
    private let loader = AudioLoader()

    public init() {}

    /// The file's length in seconds; 0 when it cannot be read (its events then count, its time does not).
    public mutating func seconds(_ url: URL) -> Double {
        if let seconds = known[url] { return seconds }
        let seconds = (try? loader.load(url).duration) ?? 0
        known[url] = seconds
        return seconds
    }
}
