import Foundation

/// Small printing helpers shared by the subcommands.
enum Output {
    static func json<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    }

    /// `1 utterance`, `3 utterances`, `2 corpora`: a count with its noun.
    static func count(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    static func seconds(_ value: Double) -> String {
        value < 1 ? String(format: "%.0f ms", value * 1000) : String(format: "%.2f s", value)
    }
}
