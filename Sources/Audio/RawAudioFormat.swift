/// The declared layout of a headerless (raw) audio file.
///
/// Written on the command line and in manifests as `ENCODING:RATE:CHANNELS`, for example
/// `s16le:16000:1`. Encodings: `s8`, `u8`, `s16le`, `s16be`, `s24le`, `s24be`, `s32le`, `s32be`,
/// `f32le`, `f32be`, `f64le`, `f64be`, `ulaw`, `alaw`.
public struct RawAudioFormat: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Sample encoding and byte order.
    public enum Encoding: String, Codable, Sendable, CaseIterable {
        case s8, u8, s16le, s16be, s24le, s24be, s32le, s32be, f32le, f32be, f64le, f64be, ulaw, alaw
    }

    public var encoding: Encoding
    public var sampleRate: Int
    public var channels: Int

    public init(encoding: Encoding, sampleRate: Int, channels: Int) {
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Parses `ENCODING:RATE:CHANNELS`; returns nil when the text is not of that form.
    public init?(_ text: String) {
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 3, let encoding = Encoding(rawValue: parts[0].lowercased()),
            let rate = Int(parts[1]), rate > 0, let channels = Int(parts[2]), channels > 0
        else { return nil }
        self.init(encoding: encoding, sampleRate: rate, channels: channels)
    }

    public var description: String { "\(encoding.rawValue):\(sampleRate):\(channels)" }
}
