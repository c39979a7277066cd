import Foundation

/// A CMU-format pronunciation dictionary (`word PH PH …`, alternates as `word(2)`), read once.
///
/// Used to tell which words of the training data the recognizer already knows and how, so that
/// only new words and new pronunciations go into the prepared vocabulary.
public struct PronunciationDictionary: Sendable {
    private var entries: [String: [[String]]]

    /// Reads a dictionary file.
    ///
    /// - Throws: ``LanguageModelError/unreadable(path:reason:)`` when the file cannot be read.
    public init(contentsOf url: URL) throws(LanguageModelError) {
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else {
            throw .unreadable(path: url.path, reason: "cannot read the pronunciation dictionary")
        }
        var entries: [String: [[String]]] = [:]
        entries.reserveCapacity(140_000)
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var lineStart = 0
            let bytes = buffer.bindMemory(to: UInt8.self)
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
                defer { lineStart = index + 1 }
                guard index > lineStart else { continue }
                let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]), as: UTF8.self)
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 2 else { continue }
                var word = String(fields[0])
                if word.hasSuffix(")"), let open = word.lastIndex(of: "("), open > word.startIndex {
                    word = String(word[..<open])
                }
                entries[word, default: []].append(fields.dropFirst().map(String.init))
            }
        }
        self.entries = entries
    }

    /// Builds a dictionary from entries in memory (for tests and small vocabularies).
    public init(entries: [String: [[String]]]) {
        self.entries = entries
    }

    /// The pronunciations of a word, in dictionary order; empty when the word is unknown.
    public func pronunciations(of word: String) -> [[String]] { entries[word] ?? [] }

    /// True when the dictionary has the word.
    public func contains(_ word: String) -> Bool { entries[word] != nil }

    /// The number of distinct words.
    public var count: Int { entries.count }
}
