import Foundation

/// How the clean synthetic speech is degraded before it is written.
///
/// Written as `clean`, `noise:SNR_DB` (`noise:15`), `speed:FACTOR` (`speed:1.1`) or `telephone`.
public enum Condition: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The speech as the voice made it.
    case clean
    /// Additive white Gaussian noise at this signal-to-noise ratio in dB, measured against the speech's RMS
    /// over the whole utterance. The noise is seeded from the utterance id, so it is the same on every run.
    case noise(snr: Double)
    /// Faster (> 1) or slower (< 1) speech at the same pitch, by sox's `tempo` effect.
    case speed(factor: Double)
    /// A telephone channel: band-pass 300–3400 Hz, down to 8 kHz and back up to 16 kHz (sox).
    case telephone

    /// Parses a condition; returns nil when the text is not one.
    public init?(_ description: String) {
        try? self.init(parsing: description)
    }

    /// Parses `clean`, `noise:SNR_DB`, `speed:FACTOR` or `telephone`.
    ///
    /// - Throws: ``CorpusError/invalidCondition(_:detail:)`` saying what was expected.
    public init(parsing text: String) throws(CorpusError) {
        let parts = text.trimmingCharacters(in: .whitespaces).lowercased().split(separator: ":", maxSplits: 1)
            .map(String.init)
        switch (parts.first ?? "", parts.count) {
        case ("clean", 1): self = .clean
        case ("telephone", 1): self = .telephone
        case ("noise", 2):
            guard let snr = Double(parts[1]), snr.isFinite, (-30...100).contains(snr) else {
                throw .invalidCondition(text, detail: "noise needs a signal-to-noise ratio in dB, e.g. noise:15")
            }
            self = .noise(snr: snr)
        case ("speed", 2):
            guard let factor = Double(parts[1]), factor.isFinite, (0.25...4).contains(factor) else {
                throw .invalidCondition(text, detail: "speed needs a factor between 0.25 and 4, e.g. speed:1.1")
            }
            self = .speed(factor: factor)
        default:
            throw .invalidCondition(
                text, detail: "expected clean, noise:SNR_DB, speed:FACTOR or telephone, e.g. noise:15")
        }
    }

    /// The condition as plans and manifests write it: `clean`, `noise:15`, `speed:1.1`, `telephone`.
    public var description: String {
        switch self {
        case .clean: "clean"
        case .noise(let snr): "noise:\(Self.format(snr))"
        case .speed(let factor): "speed:\(Self.format(factor))"
        case .telephone: "telephone"
        }
    }

    /// The short form used in utterance ids and file names: `clean`, `noise15`, `noise7p5`, `noisem5`, `speed1p1`.
    public var token: String {
        func number(_ value: Double) -> String {
            Self.format(value).replacingOccurrences(of: "-", with: "m").replacingOccurrences(of: ".", with: "p")
        }
        switch self {
        case .clean: return "clean"
        case .noise(let snr): return "noise" + number(snr)
        case .speed(let factor): return "speed" + number(factor)
        case .telephone: return "telephone"
        }
    }

    /// `15` rather than `15.0`, `7.5` as is.
    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}
