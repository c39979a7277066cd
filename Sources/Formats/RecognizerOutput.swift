import Foundation

/// What Gambit takes from a recognizer as one utterance's transcript, whether a command printed it during a run or
/// a file made elsewhere holds it: UTF-8 text of no more words than its audio can hold.
///
/// Anything else fails that utterance (failure kind `recognizer output`) instead of being scored: bytes that are
/// not UTF-8 would become replacement characters scored as words, and a runaway recognizer's millions of words
/// would fill the memory and the report.
///
/// The cap on words is ``wordsPerSecond`` per second of audio plus ``extraWords``. The fastest speech measured
/// (auctioneers, record-holding fast talkers) runs at about 7 words a second and conversational English at 2 to 3,
/// so the cap is nearly three times the fastest: only output that cannot be a transcript of the audio is refused.
public enum RecognizerOutput {
    /// The most words per second of audio a transcript may have.
    public static let wordsPerSecond = 20
    /// Words allowed on top of ``wordsPerSecond``, whatever the audio's length: a clip of a fraction of a second
    /// may still hold a short phrase, and a recognizer may add a few tokens of its own (`[noise]`, `<unk>`).
    public static let extraWords = 50
    /// Bytes of a recognizer's answer allowed per word allowed: a word with its timing and confidence,
    /// `{"word": "…", "start": 12.34, "end": 12.56, "confidence": 0.91}`, is under 100 bytes, and a word is in
    /// the answer twice (its transcript and its list of words).
    public static let bytesPerWord = 256
    /// Bytes allowed on top of ``bytesPerWord``, for the rest of the answer (its keys, a reason, white space).
    public static let extraBytes = 1 << 20

    /// The most words a transcript of `audioSeconds` of audio may have.
    public static func maximumWords(audioSeconds: Double) -> Int {
        let seconds = audioSeconds.isFinite ? max(0, min(audioSeconds, 1e7)) : 0
        return Int(seconds * Double(wordsPerSecond)) + extraWords
    }

    /// The most bytes of a recognizer's standard output read for `audioSeconds` of audio, before it is parsed:
    /// room for every word allowed with its timing, and ``extraBytes`` more.
    public static func maximumBytes(audioSeconds: Double) -> Int {
        maximumWords(audioSeconds: audioSeconds) * bytesPerWord + extraBytes
    }

    /// The words of a transcript as the cap counts them: runs of bytes other than white space.
    public static func wordCount(_ text: String) -> Int {
        var count = 0
        var inWord = false
        for byte in text.utf8 {
            let space = byte == 0x20 || byte == 0x0A || (0x09...0x0D).contains(byte)
            if !space && !inWord { count += 1 }
            inWord = !space
        }
        return count
    }

    /// Why a transcript of `count` words is refused for `audioSeconds` of audio, or nil when it is within the cap:
    /// `has 2000000 words for 1.5 s of audio, over the limit of 80 (20 words per second of audio plus 50) …`.
    public static func tooManyWords(_ count: Int, audioSeconds: Double) -> String? {
        let limit = maximumWords(audioSeconds: audioSeconds)
        guard count > limit else { return nil }
        return "has \(count) words for \(String(format: "%.1f", audioSeconds)) s of audio, over the limit of \(limit) "
            + "(\(wordsPerSecond) words per second of audio plus \(extraWords)); no speech is that fast, so it is not "
            + "taken as a transcript"
    }

    /// ``tooManyWords(_:audioSeconds:)`` of a transcript's text.
    public static func tooManyWords(in text: String, audioSeconds: Double) -> String? {
        // Every word takes at least two bytes (itself and a space): a short text is within any cap.
        text.utf8.count / 2 < maximumWords(audioSeconds: audioSeconds)
            ? nil : tooManyWords(wordCount(text), audioSeconds: audioSeconds)
    }

    /// The first byte that is not part of valid UTF-8.
    public struct InvalidByte: Sendable, Hashable {
        /// Its 0-based offset.
        public var offset: Int
        public var byte: UInt8

        /// `byte 0xE9 at offset 41`.
        public var place: String { String(format: "byte 0x%02X at offset %ld", byte, offset) }
    }

    /// The first byte of `bytes` that is not part of valid UTF-8; nil when they all are.
    public static func firstInvalidUTF8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> InvalidByte? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error:
                return InvalidByte(offset: offset, byte: bytes[bytes.index(bytes.startIndex, offsetBy: offset)])
            case .emptyInput: return nil
            }
        }
    }

    /// Why an utterance's line of an imported file is not taken: `the transcript of utterance u1 is not UTF-8: …`.
    public static func notUTF8(_ line: InvalidUTF8Utterance, utterance: String) -> String {
        "the transcript of utterance \(utterance) is not UTF-8: "
            + InvalidByte(offset: line.offset, byte: line.byte).place
            + " of the file. Re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
    }
}
