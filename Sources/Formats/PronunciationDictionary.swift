import Foundation

/// A pronunciation dictionary in the engine's CMU format, and the one reader of that format in Gambit: the base
/// dictionary, a variant's vocabulary, the noise dictionary and every dictionary Gambit merges for a decoder.
///
/// A line is a spelling and its phones, separated by spaces or tabs (`gambit  G AE M B IH T`); an alternate
/// pronunciation repeats the word with a marker (`gambit(2)`), which ``Entry/word`` drops. A line ending in
/// CR reads as without it; a blank line is skipped. Bytes that are not UTF-8 are replaced, as the engine, which
/// reads bytes, never refuses them.
public struct PronunciationDictionary: Sendable {
    /// One line that names a word.
    public struct Entry: Sendable, Equatable {
        /// The word without its alternate-pronunciation marker (`gambit` for `gambit(2)`).
        public var word: String
        /// The spelling as written, marker included.
        public var spelling: String
        /// The phones; empty when the line has none (which the engine refuses).
        public var phones: [String]
        /// 1-based.
        public var line: Int
    }

    /// Why a dictionary could not be read.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var description: String { "cannot read the pronunciation dictionary \(path)" }
    }

    private var entries: [String: [[String]]]
    /// Each word once, in the order the file first names it.
    public private(set) var words: [String]

    /// Every line of `data` that names a word, in order, through `body`.
    public static func forEachEntry(in data: Data, _ body: (Entry) throws -> Void) rethrows {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var (lineStart, number) = (0, 0)
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
                defer { lineStart = index + 1 }
                number += 1
                var end = index
                if end > lineStart, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                guard end > lineStart else { continue }
                let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<end]), as: UTF8.self)
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let first = fields.first else { continue }
                try body(
                    Entry(
                        word: baseSpelling(String(first)), spelling: String(first),
                        phones: fields.dropFirst().map(String.init), line: number))
            }
        }
    }

    /// The word an engine spelling stands for: without a trailing alternate marker (`read(2)` → `read`); a
    /// spelling that starts with `(` is kept whole.
    public static func baseSpelling(_ spelling: String) -> String {
        guard spelling.hasSuffix(")"), let open = spelling.lastIndex(of: "("), open > spelling.startIndex else {
            return spelling
        }
        return String(spelling[..<open])
    }

    /// Reads a dictionary file; lines without phones are left out.
    ///
    /// - Throws: ``ReadError`` when the file cannot be read.
    public init(contentsOf url: URL) throws(ReadError) {
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { throw ReadError(path: url.path) }
        self.init(data: data)
    }

    /// Reads a dictionary from its bytes; lines without phones are left out.
    public init(data: Data) {
        var entries: [String: [[String]]] = [:]
        var words: [String] = []
        entries.reserveCapacity(data.count / 20)
        Self.forEachEntry(in: data) { entry in
            guard !entry.phones.isEmpty else { return }
            if entries[entry.word] == nil { words.append(entry.word) }
            entries[entry.word, default: []].append(entry.phones)
        }
        self.entries = entries
        self.words = words
    }

    /// Builds a dictionary from entries in memory (for tests and small vocabularies).
    public init(entries: [String: [[String]]]) {
        self.entries = entries
        self.words = entries.keys.sorted()
    }

    /// The pronunciations of a word, in dictionary order; empty when the word is unknown.
    public func pronunciations(of word: String) -> [[String]] { entries[word] ?? [] }

    /// True when the dictionary has the word.
    public func contains(_ word: String) -> Bool { entries[word] != nil }

    /// The number of distinct words.
    public var count: Int { entries.count }
}
