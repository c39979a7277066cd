import Audio
import Corpus
import Foundation
import GambitTestSupport
import Testing

@Suite("Synthesis")
struct SynthesisTests {
    static let text = "play the winawer variation"
    static let conditions: [Condition] = [.clean, .noise(snr: 15), .speed(factor: 1.25), .telephone]

    /// Synthesizes into a fresh file and returns its bytes.
    static func bytes(
        _ voice: Voice, _ condition: Condition, id: String = "chess-002", synthesizer: Synthesizer = Synthesizer()
    ) throws -> Data {
        let url = try TestSupport.temporaryDirectory("synth").appendingPathComponent("out.wav")
        try synthesizer.synthesize(text, voice: voice, condition: condition, utteranceID: id, to: url)
        return try Data(contentsOf: url)
    }

    static func samples(_ data: Data) throws -> [Int16] {
        let url = try TestSupport.temporaryDirectory("read").appendingPathComponent("in.wav")
        try data.write(to: url)
        let clip = try AudioLoader().load(url)
        #expect(clip.sourceSampleRate == 16_000)
        #expect(clip.sourceChannels == 1)
        return clip.samples
    }

    @Test(arguments: [Voice.flite("slt"), .flite("kal"), .espeak("en-us+m3")], conditions)
    func sameInputsGiveTheSameBytes(voice: Voice, condition: Condition) throws {
        let first = try Self.bytes(voice, condition)
        let second = try Self.bytes(voice, condition)
        #expect(first == second)
        // A 16 kHz mono 16-bit PCM WAV with a 44-byte header.
        #expect(first.prefix(4) == Data("RIFF".utf8))
        #expect(first.subdata(in: 20..<36) == Data([1, 0, 1, 0, 0x80, 0x3E, 0, 0, 0, 0x7D, 0, 0, 2, 0, 16, 0]))
        #expect(try Self.samples(first).count > 16_000 / 2)
    }

    @Test func noiseDependsOnTheUtteranceId() throws {
        let one = try Self.bytes(.flite("slt"), .noise(snr: 15), id: "a")
        let other = try Self.bytes(.flite("slt"), .noise(snr: 15), id: "b")
        #expect(one.count == other.count)
        #expect(one != other)
    }

    @Test(arguments: [Voice.flite("awb"), .espeak("en-us+f3")], [15.0, 5.0, 30.0])
    func noiseIsAtTheRequestedSNR(voice: Voice, snr: Double) throws {
        let clean = try Self.samples(Self.bytes(voice, .clean))
        let noisy = try Self.samples(Self.bytes(voice, .noise(snr: snr)))
        try #require(clean.count == noisy.count)
        var signal = 0.0
        var noise = 0.0
        for (speech, mixed) in zip(clean, noisy) {
            signal += Double(speech) * Double(speech)
            noise += (Double(mixed) - Double(speech)) * (Double(mixed) - Double(speech))
        }
        let measured = 10 * log10(signal / noise)
        #expect(abs(measured - snr) <= 0.5, "measured \(measured) dB for noise:\(snr)")
    }

    @Test(arguments: [Voice.flite("slt"), .espeak("en-us+m3")])
    func telephoneIsBandLimited(voice: Voice) throws {
        let clean = try Self.samples(Self.bytes(voice, .clean))
        let phone = try Self.samples(Self.bytes(voice, .telephone))
        let cleanHigh = Spectrum.fraction(of: clean, above: 3_400)
        let phoneHigh = Spectrum.fraction(of: phone, above: 3_400)
        let phoneLow = Spectrum.fraction(of: phone, below: 250)
        let cleanLow = Spectrum.fraction(of: clean, below: 250)
        // Measured: slt 0.28% → 0.004% above 3.4 kHz, 83% → 0.1% below 250 Hz; en-us+m3 2.9% → 0.04%, 9% → 0.04%.
        #expect(phoneHigh < 0.001, "telephone speech has \(phoneHigh) of its energy above 3.4 kHz")
        #expect(phoneHigh < cleanHigh / 5, "clean \(cleanHigh), telephone \(phoneHigh) above 3.4 kHz")
        #expect(phoneLow < 0.01, "telephone speech has \(phoneLow) of its energy below 250 Hz")
        #expect(phoneLow < cleanLow / 5, "clean \(cleanLow), telephone \(phoneLow) below 250 Hz")
    }

    @Test func speedChangesTheLength() throws {
        let clean = try Self.samples(Self.bytes(.flite("rms"), .clean))
        let fast = try Self.samples(Self.bytes(.flite("rms"), .speed(factor: 1.25)))
        let ratio = Double(clean.count) / Double(fast.count)
        #expect(abs(ratio - 1.25) < 0.05, "length ratio \(ratio)")
    }

    @Test func missingToolsSayWhatToInstall() throws {
        let empty = try TestSupport.temporaryDirectory("path")
        let synthesizer = Synthesizer(searchPath: empty.path)
        let out = empty.appendingPathComponent("out.wav")
        let error = try #require(throws: CorpusError.self) {
            try synthesizer.synthesize("hello", voice: .flite("slt"), condition: .clean, utteranceID: "x", to: out)
        }
        #expect(error == .toolMissing(tool: "flite", package: "flite"))
        #expect(error.description == "flite not found: apt-get install flite")

        // A PATH with flite and espeak-ng but no sox: clean speech works, the telephone needs sox.
        for tool in ["flite", "espeak-ng"] {
            try FileManager.default.createSymbolicLink(
                at: empty.appendingPathComponent(tool), withDestinationURL: URL(fileURLWithPath: "/usr/bin/\(tool)"))
        }
        try synthesizer.synthesize("hello", voice: .espeak("en-us+m3"), condition: .clean, utteranceID: "x", to: out)
        #expect(throws: CorpusError.toolMissing(tool: "sox", package: "sox")) {
            try synthesizer.synthesize("hello", voice: .flite("slt"), condition: .telephone, utteranceID: "x", to: out)
        }
        #expect(
            CorpusError.toolMissing(tool: "espeak-ng", package: "espeak-ng").description
                == "espeak-ng not found: apt-get install espeak-ng")
    }

    @Test(arguments: ["flite:nosuch", "espeak:en-us+zz", "espeak:xx-yy"])
    func voicesThatAreNotInstalledAreRejected(spec: String) throws {
        let voice = try Voice(parsing: spec)
        let out = try TestSupport.temporaryDirectory("voice").appendingPathComponent("out.wav")
        let error = try #require(throws: CorpusError.self) {
            try Synthesizer().synthesize("hello", voice: voice, condition: .clean, utteranceID: "x", to: out)
        }
        guard case .invalidVoice(let named, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(named == spec.replacingOccurrences(of: "espeak-ng:", with: "espeak:"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}

/// Power spectra by a plain radix-2 FFT over Hann-windowed 512-sample frames.
enum Spectrum {
    static let frame = 512

    /// The share of the signal's energy in bins above `frequency` Hz (at 16 kHz).
    static func fraction(of samples: [Int16], above frequency: Double) -> Double {
        share(samples) { $0 > frequency }
    }

    /// The share of the signal's energy in bins below `frequency` Hz (at 16 kHz).
    static func fraction(of samples: [Int16], below frequency: Double) -> Double {
        share(samples) { $0 < frequency }
    }

    private static func share(_ samples: [Int16], where selected: (Double) -> Bool) -> Double {
        var total = 0.0
        var part = 0.0
        let window = (0..<frame).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(frame)) }
        var start = 0
        while start + frame <= samples.count {
            var real = (0..<frame).map { Double(samples[start + $0]) * window[$0] }
            var imaginary = [Double](repeating: 0, count: frame)
            fft(&real, &imaginary)
            for bin in 1..<(frame / 2) {
                let power = real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
                total += power
                if selected(Double(bin) * 16_000 / Double(frame)) { part += power }
            }
            start += frame / 2
        }
        return total > 0 ? part / total : 0
    }

    /// In-place iterative Cooley–Tukey FFT; the count must be a power of two.
    static func fft(_ real: inout [Double], _ imaginary: inout [Double]) {
        let count = real.count
        var j = 0
        for i in 1..<count {
            var bit = count >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                real.swapAt(i, j)
                imaginary.swapAt(i, j)
            }
        }
        var length = 2
        while length <= count {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: count, by: length) {
                for k in 0..<(length / 2) {
                    let (wr, wi) = (cos(angle * Double(k)), sin(angle * Double(k)))
                    let (a, b) = (start + k, start + k + length / 2)
                    let tr = real[b] * wr - imaginary[b] * wi
                    let ti = real[b] * wi + imaginary[b] * wr
                    real[b] = real[a] - tr
                    imaginary[b] = imaginary[a] - ti
                    real[a] += tr
                    imaginary[a] += ti
                }
            }
            length <<= 1
        }
    }
}
