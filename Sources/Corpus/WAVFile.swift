import Formats
import Foundation

/// Writes 16-bit PCM mono WAV files: a plain 44-byte RIFF header and the samples, nothing else.
///
/// Nothing in the header depends on the time or the machine, so the same samples always give the same bytes.
enum WAVFile {
    /// The bytes of a WAV file holding `samples` at `sampleRate`.
    static func data(samples: [Int16], sampleRate: Int) -> Data {
        let dataBytes = samples.count * 2
        var bytes = Data()
        bytes.reserveCapacity(44 + dataBytes)
        func append(_ text: String) { bytes.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        append("RIFF")
        append32(UInt32(36 + dataBytes))
        append("WAVE")
        append("fmt ")
        append32(16)  // size of the PCM format chunk
        append16(1)  // PCM
        append16(1)  // channels
        append32(UInt32(sampleRate))
        append32(UInt32(sampleRate * 2))  // bytes per second
        append16(2)  // bytes per frame
        append16(16)  // bits per sample
        append("data")
        append32(UInt32(dataBytes))
        samples.withUnsafeBufferPointer { buffer in
            for sample in buffer { withUnsafeBytes(of: sample.littleEndian) { bytes.append(contentsOf: $0) } }
        }
        return bytes
    }

    /// Writes the file atomically (a temporary file renamed into place), so an interrupted build never
    /// leaves a half-written file that looks finished.
    static func write(samples: [Int16], sampleRate: Int, to url: URL) throws(CorpusError) {
        do {
            try data(samples: samples, sampleRate: sampleRate).write(to: url, options: .atomic)
        } catch {
            throw .unwritable(path: url.path, detail: FileSystemReason.writing(url, error))
        }
    }

    /// The size of a file ``write(samples:sampleRate:to:)`` makes from `frames` samples.
    static func fileSize(frames: Int) -> Int { 44 + frames * 2 }
}
