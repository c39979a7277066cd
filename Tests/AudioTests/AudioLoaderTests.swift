import Audio
import Foundation
import GambitTestSupport
import Testing

@Suite("Reading audio")
struct AudioLoaderTests {
    let loader = AudioLoader()
    let speech = TestSupport.testData.appendingPathComponent("cards/001.wav")

    @Test("16 kHz mono PCM is passed through bit for bit")
    func passthrough() throws {
        let clip = try loader.load(speech)
        let bytes = try Data(contentsOf: speech)
        let pcm = bytes.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(clip.sampleRate == 16_000)
        #expect(clip.samples == pcm)
    }

    @Test("Headerless audio with a declared format reads like the WAV it came from")
    func raw() throws {
        let folder = try TestSupport.temporaryDirectory("raw")
        let url = folder.appendingPathComponent("speech.raw")
        try Data(contentsOf: speech).dropFirst(44).write(to: url)
        let clip = try loader.load(url, raw: RawAudioFormat("s16le:16000:1"))
        #expect(clip.samples == (try loader.load(speech)).samples)
        #expect(RawAudioFormat("s16le:16000") == nil)
        #expect(RawAudioFormat("mp3:16000:1") == nil)
    }

    @Test("Stereo 44.1 kHz is mixed down and resampled to 16 kHz mono")
    func stereoResampled() throws {
        let folder = try TestSupport.temporaryDirectory("stereo")
        let stereo = folder.appendingPathComponent("stereo.wav")
        try TestSupport.run("sox", ["-R", speech.path, "-r", "44100", "-c", "2", stereo.path])
        let clip = try loader.load(stereo)
        let original = try loader.load(speech)
        #expect(clip.sourceChannels == 2 && clip.sourceSampleRate == 44_100)
        #expect(clip.sampleRate == 16_000)
        #expect(abs(clip.samples.count - original.samples.count) <= 2)
        // The round trip through 44.1 kHz stereo keeps the waveform: high correlation with the original.
        let n = min(clip.samples.count, original.samples.count)
        var dot = 0.0
        var a2 = 0.0
        var b2 = 0.0
        for i in 0..<n {
            let a = Double(clip.samples[i])
            let b = Double(original.samples[i])
            dot += a * b
            a2 += a * a
            b2 += b * b
        }
        #expect(dot / (a2.squareRoot() * b2.squareRoot()) > 0.99)
    }

    @Test("Channels that cancel out in the mix are an error naming the file, not near silence to decode")
    func cancellingChannels() throws {
        let folder = try TestSupport.temporaryDirectory("cancel")
        let inverted = folder.appendingPathComponent("inverted.wav")
        let stereo = folder.appendingPathComponent("stereo.wav")
        try TestSupport.run("sox", ["-R", speech.path, inverted.path, "vol", "-1"])
        try TestSupport.run("sox", ["-R", "-M", speech.path, inverted.path, stereo.path])
        let error = try #require(throws: AudioError.self) { try loader.load(stereo) }
        guard case .channelsCancel(let path, let detail) = error else {
            Issue.record("expected .channelsCancel, got \(error)")
            return
        }
        #expect(path == stereo.path && detail.contains("inverted"), "\(error)")
        #expect(error.description.contains("remix 1"), "\(error)")
        // A silent channel beside the speech is a recording: its mix is the speech, 6 dB down.
        let oneSided = folder.appendingPathComponent("one-sided.wav")
        try TestSupport.run("sox", ["-R", "-M", speech.path, "-v", "0", speech.path, oneSided.path])
        #expect(try loader.load(oneSided).sourceChannels == 2)
    }

    @Test("A raw format declared for a file with a header is refused, naming the file", arguments: ["wav", "flac"])
    func rawFormatOnHeader(format: String) throws {
        let folder = try TestSupport.temporaryDirectory("raw-header")
        let url = folder.appendingPathComponent("speech.\(format)")
        try TestSupport.run("sox", ["-R", speech.path, url.path])
        let error = try #require(throws: AudioError.self) {
            try loader.load(url, raw: RawAudioFormat("s16le:16000:1"))
        }
        #expect(error == .headerNotRaw(path: url.path, header: "\(format.uppercased()), 16000 Hz, 1 channel"))
        #expect(error.description.contains("leave out --raw"), "\(error)")
    }

    @Test("FLAC and Ogg Vorbis are read", arguments: ["flac", "ogg"])
    func compressed(format: String) throws {
        let folder = try TestSupport.temporaryDirectory(format)
        let url = folder.appendingPathComponent("speech.\(format)")
        try TestSupport.run("sox", ["-R", speech.path, url.path])
        let clip = try loader.load(url)
        #expect(abs(clip.duration - (try loader.load(speech)).duration) < 0.01)
    }

    /// sox options for each sample encoding a WAV can hold, and the largest sample difference from
    /// the 16-bit original that encoding allows (8-bit PCM, µ-law and A-law are lossy, and sox dithers).
    static let encodings: [(name: String, sox: [String], tolerance: Int)] = [
        ("float32", ["-e", "floating-point", "-b", "32"], 1),
        ("float64", ["-e", "floating-point", "-b", "64"], 1),
        ("unsigned8", ["-e", "unsigned-integer", "-b", "8"], 512),
        ("signed24", ["-e", "signed-integer", "-b", "24"], 1),
        ("signed32", ["-e", "signed-integer", "-b", "32"], 1),
        ("mu-law", ["-e", "u-law"], 1_100),
        ("a-law", ["-e", "a-law"], 1_100),
    ]

    @Test("Every sample encoding is read as what it is", arguments: encodings.map(\.name))
    func sampleEncodings(name: String) throws {
        let encoding = try #require(Self.encodings.first { $0.name == name })
        let recording = try #require(TestSupport.librivox.first)
        let folder = try TestSupport.temporaryDirectory("encoding-\(name)")
        let url = folder.appendingPathComponent("\(name).wav")
        try TestSupport.run("sox", ["-R", recording.path] + encoding.sox + [url.path])
        let original = try loader.load(recording)
        let clip = try loader.load(url)
        #expect(clip.samples.count == original.samples.count)
        let worst = zip(clip.samples, original.samples).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(worst <= encoding.tolerance, "largest sample difference \(worst)")
    }

    @Test("Headerless 32-bit float is read as float")
    func rawFloat() throws {
        let recording = try #require(TestSupport.librivox.first)
        let folder = try TestSupport.temporaryDirectory("raw-float")
        let url = folder.appendingPathComponent("speech.f32")
        try TestSupport.run("sox", ["-R", recording.path, "-t", "raw", "-e", "floating-point", "-b", "32", url.path])
        let clip = try loader.load(url, raw: RawAudioFormat("f32le:16000:1"))
        let original = try loader.load(recording)
        let worst = zip(clip.samples, original.samples).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(clip.samples.count == original.samples.count && worst <= 1)
    }

    @Test("A float sample that is not a number is an error naming the file")
    func notANumber() throws {
        let folder = try TestSupport.temporaryDirectory("nan")
        let url = folder.appendingPathComponent("nan.wav")
        try TestSupport.run("sox", ["-R", speech.path, "-e", "floating-point", "-b", "32", url.path])
        var bytes = try Data(contentsOf: url)
        bytes.replaceSubrange((bytes.count - 4)..., with: [0x00, 0x00, 0xC0, 0x7F])
        try bytes.write(to: url)
        let error = try #require(throws: AudioError.self) { try loader.load(url) }
        guard case .readFailed(let path, let detail) = error else {
            Issue.record("expected .readFailed, got \(error)")
            return
        }
        #expect(path == url.path && detail.contains("not a number"))
    }

    @Test("A missing file names the file")
    func missing() {
        #expect(throws: AudioError.missing(path: "/nonexistent/x.wav")) {
            try loader.load(URL(fileURLWithPath: "/nonexistent/x.wav"))
        }
    }

    @Test("A folder is named as a folder")
    func folder() throws {
        let folder = try TestSupport.temporaryDirectory("folder")
        #expect(throws: AudioError.isFolder(path: folder.path)) { try loader.load(folder) }
    }

    @Test("A zero-byte file and a header without frames are empty")
    func empty() throws {
        let folder = try TestSupport.temporaryDirectory("empty")
        let zero = folder.appendingPathComponent("zero.wav")
        try Data().write(to: zero)
        #expect(throws: AudioError.empty(path: zero.path)) { try loader.load(zero) }
        let headerOnly = folder.appendingPathComponent("header.wav")
        try Data(contentsOf: speech).prefix(44).write(to: headerOnly)
        #expect(throws: AudioError.empty(path: headerOnly.path)) { try loader.load(headerOnly) }
    }

    @Test("A truncated WAV is reported, not silently shortened")
    func truncated() throws {
        let folder = try TestSupport.temporaryDirectory("truncated")
        let url = folder.appendingPathComponent("cut.wav")
        let bytes = try Data(contentsOf: speech)
        try bytes.prefix(bytes.count / 2).write(to: url)
        let error = try #require(throws: AudioError.self) { try loader.load(url) }
        guard case .truncated(let path, _) = error else {
            Issue.record("expected .truncated, got \(error)")
            return
        }
        #expect(path == url.path)
    }

    @Test("Text is not audio")
    func notAudio() throws {
        let folder = try TestSupport.temporaryDirectory("text")
        let url = folder.appendingPathComponent("notes.wav")
        try Data("these are not samples\n".utf8).write(to: url)
        let error = try #require(throws: AudioError.self) { try loader.load(url) }
        guard case .notAudio = error else {
            Issue.record("expected .notAudio, got \(error)")
            return
        }
        #expect(error.description.contains(url.path))
    }

    @Test("A WAV in an encoding libsndfile cannot decode is an unsupported encoding")
    func unsupportedEncoding() throws {
        let folder = try TestSupport.temporaryDirectory("codec")
        let url = folder.appendingPathComponent("aac.wav")
        var bytes = try Data(contentsOf: speech)
        // WAVE_FORMAT_MPEG_ADTS_AAC (0x1600) in the fmt chunk's format tag.
        bytes[20] = 0x00
        bytes[21] = 0x16
        try bytes.write(to: url)
        let error = try #require(throws: AudioError.self) { try loader.load(url) }
        guard case .unsupportedEncoding = error else {
            Issue.record("expected .unsupportedEncoding, got \(error)")
            return
        }
        #expect(error.description.contains(url.path))
    }
}
