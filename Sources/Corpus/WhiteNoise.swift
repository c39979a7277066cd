import Foundation

/// Seeded white Gaussian noise, so that a noisy utterance has the same bytes on every run and machine.
///
/// The seed is the FNV-1a hash of a key (the utterance id); SplitMix64 makes the uniform numbers and the
/// Box–Muller transform turns pairs of them into Gaussian ones.
struct WhiteNoise {
    private var state: UInt64
    private var spare: Double?

    init(seed key: String) {
        state = StableHash.fnv1a64(key)
    }

    /// Adds noise to `samples` at `snr` dB below their RMS, rounding and clipping to 16 bits.
    ///
    /// The RMS is taken over the whole utterance, silences included, which is what the SNR is measured back
    /// against in the tests. Silence (RMS 0) is returned unchanged: no noise level is defined for it.
    static func add(to samples: [Int16], snr: Double, seed key: String) -> [Int16] {
        guard !samples.isEmpty else { return samples }
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        guard power > 0 else { return samples }
        let deviation = (power / pow(10, snr / 10)).squareRoot()
        var noise = WhiteNoise(seed: key)
        return samples.map { sample in
            let value = (Double(sample) + deviation * noise.nextGaussian()).rounded()
            return Int16(max(-32_768, min(32_767, value)))
        }
    }

    /// The next number from the standard normal distribution.
    mutating func nextGaussian() -> Double {
        if let spare {
            self.spare = nil
            return spare
        }
        // u1 in (0, 1] so the logarithm is finite; u2 in [0, 1).
        let u1 = (Double(nextUInt64() >> 11) + 1) / 9_007_199_254_740_992
        let u2 = Double(nextUInt64() >> 11) / 9_007_199_254_740_992
        let radius = (-2 * log(u1)).squareRoot()
        spare = radius * sin(2 * Double.pi * u2)
        return radius * cos(2 * Double.pi * u2)
    }

    /// SplitMix64 (Steele, Lea and Flood 2014).
    mutating func nextUInt64() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A hash that is the same in every process (unlike `Hasher`, which is seeded at random per run).
enum StableHash {
    /// 64-bit FNV-1a of the UTF-8 bytes.
    static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// ``fnv1a64(_:)`` as 16 hex digits.
    static func hex(_ text: String) -> String {
        let digits = String(fnv1a64(text), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
