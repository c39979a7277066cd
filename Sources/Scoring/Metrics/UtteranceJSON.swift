import Foundation

extension ScoreReport {
    /// The report as JSON (sorted keys, pretty-printed), byte for byte what `JSONEncoder` with
    /// `[.prettyPrinted, .sortedKeys]` writes.
    ///
    /// `JSONEncoder` builds a tree of boxed values for every field before it writes a byte, which made the
    /// per-utterance array of a 100,000-utterance report cost more than scoring it. So the encoder writes the
    /// report without its utterances, and ``UtteranceJSONWriter`` writes that array straight into bytes in its
    /// place.
    public func jsonData() throws -> Data {
        var shell = self
        shell.utterances = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let encoded = try encoder.encode(shell)
        guard !utterances.isEmpty else { return encoded }
        // Top-level keys are the only ones indented by exactly two spaces; an empty array is written `[`, a blank
        // line, then `]` at the key's indentation.
        let emptyArray = Data("\n  \"utterances\" : [\n\n  ]".utf8)
        guard let range = encoded.range(of: emptyArray) else {
            throw EncodingError.invalidValue(
                utterances,
                .init(codingPath: [], debugDescription: "the encoder's layout of an empty array was not found"))
        }
        var writer = UtteranceJSONWriter(capacity: encoded.count + utterances.count * 360)
        writer.bytes.append(contentsOf: encoded[..<range.lowerBound])
        writer.raw("\n  \"utterances\" : [")
        for (index, utterance) in utterances.enumerated() {
            writer.raw(index == 0 ? "\n" : ",\n")
            writer.write(utterance)
        }
        writer.raw("\n  ]")
        writer.bytes.append(contentsOf: encoded[range.upperBound...])
        return Data(writer.bytes)
    }
}

/// Writes ``UtteranceScore`` values as elements of a top-level object's array, laid out as `JSONEncoder` lays them
/// out with `[.prettyPrinted, .sortedKeys]`: two spaces per level, `" : "` after a key, keys in byte order, absent
/// optionals left out, and strings escaped as it escapes them (`\/` included).
struct UtteranceJSONWriter {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// One utterance at the depth of an element of a top-level array (four spaces).
    mutating func write(_ utterance: UtteranceScore) {
        raw("    {\n")
        if let aligned = utterance.aligned {
            raw("      \"aligned\" : {\n        \"evaluation\" : ")
            string(aligned.evaluation)
            raw(",\n        \"hypothesis\" : ")
            string(aligned.hypothesis)
            raw(",\n        \"reference\" : ")
            string(aligned.reference)
            raw("\n      },\n")
        }
        if let errors = utterance.boostedErrors {
            raw("      \"boostedErrors\" : ")
            integer(errors)
            raw(",\n")
        }
        if let words = utterance.boostedReferenceWords {
            raw("      \"boostedReferenceWords\" : ")
            integer(words)
            raw(",\n")
        }
        let counts = utterance.counts
        raw("      \"characterErrors\" : ")
        integer(utterance.characterErrors)
        raw(",\n      \"counts\" : {\n        \"correct\" : ")
        integer(counts.correct)
        raw(",\n        \"deletions\" : ")
        integer(counts.deletions)
        raw(",\n        \"insertions\" : ")
        integer(counts.insertions)
        raw(",\n        \"referenceWords\" : ")
        integer(counts.referenceWords)
        raw(",\n        \"substitutions\" : ")
        integer(counts.substitutions)
        raw("\n      },\n      \"id\" : ")
        string(utterance.id)
        raw(",\n      \"referenceCharacters\" : ")
        integer(utterance.referenceCharacters)
        if let speaker = utterance.speaker {
            raw(",\n      \"speaker\" : ")
            string(speaker)
        }
        raw("\n    }")
    }

    mutating func integer(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // Int.min has no positive counterpart; the magnitude does.
            unsigned(value.magnitude)
        } else {
            unsigned(UInt(value))
        }
    }

    private mutating func unsigned(_ value: UInt) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt.max's 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            var rest = value
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: buffer[index...])
        }
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() {
                let escape: StaticString
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case UInt8(ascii: "/"): escape = "\\/"
                case 0x08: escape = "\\b"
                case 0x0C: escape = "\\f"
                case 0x0A: escape = "\\n"
                case 0x0D: escape = "\\r"
                case 0x09: escape = "\\t"
                case 0..<0x20: escape = ""
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                if escape.utf8CodeUnitCount > 0 {
                    raw(escape)
                } else {
                    // Other control characters as \u00XX, lowercase hex as JSONEncoder writes them.
                    let hex: StaticString = "0123456789abcdef"
                    raw("\\u00")
                    bytes.append(hex.utf8Start[Int(byte >> 4)])
                    bytes.append(hex.utf8Start[Int(byte & 0xF)])
                }
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
