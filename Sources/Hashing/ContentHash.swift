import Crypto
import Foundation

/// How Gambit names content by its hash, written once: SHA-256 from swift-crypto, as lowercase hex (cache keys,
/// fingerprints of models and audio, journal keys, shortened file names).
public enum ContentHash {
    /// `bytes` as lowercase hex, two digits a byte.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.unicodeScalars.append(digits[Int(byte >> 4)])
            text.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// The SHA-256 digest of `data`.
    public static func sha256(_ data: some DataProtocol) -> [UInt8] {
        Array(SHA256.hash(data: data))
    }

    /// The SHA-256 digest of `data`, as lowercase hex (64 digits).
    public static func sha256Hex(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    private static let digits: [Unicode.Scalar] = Array("0123456789abcdef".unicodeScalars)
}
