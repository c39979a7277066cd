import Foundation

/// Text files read as UTF-8, with the place of the first bad byte when they are not.
public enum UTF8Text {
    /// Where a file stops being UTF-8.
    public struct InvalidByte: Error, Equatable, Sendable {
        /// 0-based offset of the first byte that is not part of a valid UTF-8 sequence.
        public var offset: Int
        /// 1-based line of that byte.
        public var line: Int
        /// The byte itself.
        public var byte: UInt8

        /// "not UTF-8: byte 0xE9 at offset 41 (line 3); re-encode it as UTF-8 (e.g. iconv -f latin1 -t utf-8)".
        public var explanation: String {
            String(format: "not UTF-8: byte 0x%02X at offset %ld (line %ld)", byte, offset, line)
                + "; re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
        }
    }

    /// Decodes `data` as UTF-8, or says where it is not.
    public static func decode(_ data: Data) -> Result<String, InvalidByte> {
        if let text = String(data: data, encoding: .utf8) { return .success(text) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        var line = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == UInt8(ascii: "\n") { line += 1 }
                offset += encoded.count
            case .error:
                return .failure(InvalidByte(offset: offset, line: line, byte: data[data.startIndex + offset]))
            case .emptyInput:
                return .success(String(decoding: data, as: UTF8.self))
            }
        }
    }
}
