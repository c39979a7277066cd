import Audio
import Foundation
import GambitTestSupport
import Testing

/// A WAV written where the writer cannot seek back declares its RIFF and data sizes as unknown; every sample is
/// there, running to the end of the file, and must be read as other tools read it.
@Suite("Streaming WAV headers")
struct StreamingWAVTests {
    let loader = AudioLoader()
    let speech = TestSupport.testData.appendingPathComponent("cards/001.wav")

    /// The byte offsets of the RIFF size and of the data chunk's size field.
    static func sizeFields(_ data: Data) throws -> (riff: Int, data: Int) {
        let bytes = [UInt8](data)
        try #require(bytes.count > 12 && String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF")
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            if id == "data" { return (4, offset + 4) }
            let size = bytes[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset += 8 + size + size % 2
        }
        Issue.record("no data chunk")
        return (4, 0)
    }

    /// `original` with both size fields set to `value`, written to a new file.
    static func patched(_ original: URL, _ value: UInt32, in folder: URL) throws -> URL {
        var data = try Data(contentsOf: original)
        let fields = try sizeFields(data)
        for offset in [fields.riff, fields.data] {
            data.replaceSubrange(offset..<offset + 4, with: withUnsafeBytes(of: value.littleEndian) { Data($0) })
        }
        let url = folder.appendingPathComponent("streamed-" + original.lastPathComponent)
        try data.write(to: url)
        return url
    }

    @Test(
        "RIFF and data sizes of 0xFFFFFFFF: the data runs to the end of the file",
        arguments: ["16000:1:16", "8000:1:16", "44100:2:16", "16000:1:24", "22050:1:32f"])
    func unknownSizes(format: String) throws {
        let folder = try TestSupport.temporaryDirectory("streaming")
        let parts = format.split(separator: ":")
        let original = folder.appendingPathComponent("speech-\(format.replacingOccurrences(of: ":", with: "-")).wav")
        var arguments = [speech.path, "-r", String(parts[0]), "-c", String(parts[1])]
        arguments += parts[2].hasSuffix("f") ? ["-e", "floating-point", "-b", "32"] : ["-b", String(parts[2])]
        try TestSupport.run("sox", ["-R"] + arguments + [original.path])
        let expected = try loader.load(original)
        let streamed = try Self.patched(original, 0xFFFF_FFFF, in: folder)
        let clip = try loader.load(streamed)
        #expect(clip == expected)
        #expect(clip.samples.count > 10_000)
    }

    @Test("The test recording itself, patched, reads back bit for bit")
    func recording() throws {
        let folder = try TestSupport.temporaryDirectory("streaming")
        let streamed = try Self.patched(speech, 0xFFFF_FFFF, in: folder)
        #expect(try loader.load(streamed).samples == (try loader.load(speech)).samples)
    }

    @Test("sox writing a WAV to a pipe (data size 0x7FFFF000) reads every sample")
    func soxPipe() throws {
        let folder = try TestSupport.temporaryDirectory("streaming")
        let piped = folder.appendingPathComponent("piped.wav")
        // Raw input from a pipe, so sox cannot know the length when it writes the header.
        try TestSupport.run(
            "/bin/sh",
            [
                "-c", "tail -c +45 \"$0\" | sox -t raw -r 16000 -e signed -b 16 -c 1 - -t wav - | cat > \"$1\"",
                speech.path, piped.path,
            ])
        let header = try Data(contentsOf: piped).prefix(44)
        #expect(header[40..<44].elementsEqual([0x00, 0xF0, 0xFF, 0x7F]))
        #expect(try loader.load(piped).samples == (try loader.load(speech)).samples)
    }

    @Test("A header claiming more data than the file holds is still truncated, streamed or not", arguments: [2, 3])
    func realTruncation(fraction: Int) throws {
        let folder = try TestSupport.temporaryDirectory("streaming")
        let data = try Data(contentsOf: speech)
        let cut = folder.appendingPathComponent("cut.wav")
        try data.prefix(data.count / fraction).write(to: cut)
        #expect {
            try loader.load(cut)
        } throws: { error in
            guard case .truncated = error as? AudioError else { return false }
            return true
        }
        // Only the RIFF size unknown, the data size real: still truncated.
        var riffOnly = data.prefix(data.count / fraction)
        riffOnly.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let riffURL = folder.appendingPathComponent("riff-only.wav")
        try riffOnly.write(to: riffURL)
        #expect(throws: AudioError.self) { try loader.load(riffURL) }
    }
}
