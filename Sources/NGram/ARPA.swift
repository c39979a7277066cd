import Foundation

/// A problem reading an ARPA file, with its line.
public struct ARPAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the problem, if any.
    public var line: Int?
    /// What is wrong.
    public var message: String

    public var description: String {
        (line.map { "ARPA line \($0): " } ?? "ARPA: ") + message
    }
}

extension BackoffModel {
    /// The model as ARPA text: `\data\` header, one section per order with log10 probabilities and
    /// log10 backoff weights (written for n-grams that are histories), then `\end\`.
    ///
    /// N-grams are sorted by their words, unigrams alphabetically, so the same model always gives the
    /// same bytes. Numbers have six decimals.
    public func arpaText() -> String {
        String(decoding: arpaBytes(), as: UTF8.self)
    }

    /// The UTF-8 bytes of ``arpaText()``; built as bytes because models can have millions of lines.
    public func arpaBytes() -> [UInt8] {
        var out: [UInt8] = []
        func append(_ string: String) { out.append(contentsOf: string.utf8) }
        append("\\data\\\n")
        for (level, count) in counts.enumerated() {
            append("ngram \(level + 1)=\(count)\n")
        }
        let spelled = words.map { Array($0.utf8) }
        // Sort each level by its words: unigrams by spelling, higher orders by (rank of prefix, rank of word).
        let unigramOrder = words.indices.sorted { spelled[$0].lexicographicallyPrecedes(spelled[$1]) }
        var wordRank = [UInt64](repeating: 0, count: words.count)
        for (rank, id) in unigramOrder.enumerated() { wordRank[id] = UInt64(rank) }
        var previousRank = wordRank
        var order = unigramOrder.map { Int32($0) }
        var number: [UInt8] = []
        for level in 0..<levels.count {
            let table = levels[level]
            if level > 0 {
                var keyed = (0..<table.count).map { entry in
                    (previousRank[Int(table.parents[entry])] << 32 | wordRank[Int(table.words[entry])], Int32(entry))
                }
                keyed.sort { $0.0 < $1.0 }
                order = keyed.map(\.1)
                var rank = [UInt64](repeating: 0, count: table.count)
                for (position, entry) in order.enumerated() { rank[Int(entry)] = UInt64(position) }
                previousRank = rank
            }
            append("\n\\\(level + 1)-grams:\n")
            var ids = [Int32](repeating: 0, count: level + 1)
            for entry in order {
                let index = Int(entry)
                let logProb = table.logProbs[index]
                if logProb.isNaN { continue }
                number.removeAll(keepingCapacity: true)
                appendFixed(logProb, to: &number)
                out.append(contentsOf: number)
                out.append(UInt8(ascii: "\t"))
                var current = entry
                for position in stride(from: level, through: 0, by: -1) {
                    ids[position] = levels[position].words[Int(current)]
                    current = levels[position].parents[Int(current)]
                }
                for (position, id) in ids.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: " ")) }
                    out.append(contentsOf: spelled[Int(id)])
                }
                if level < self.order - 1, table.isHistory[index] {
                    out.append(UInt8(ascii: "\t"))
                    number.removeAll(keepingCapacity: true)
                    appendFixed(table.backoffs[index], to: &number)
                    out.append(contentsOf: number)
                }
                out.append(UInt8(ascii: "\n"))
            }
        }
        append("\n\\end\\\n")
        return out
    }

    /// Writes ``arpaText()`` to `url`.
    public func writeARPA(to url: URL) throws {
        try Data(arpaBytes()).write(to: url, options: .atomic)
    }

    /// Reads an ARPA file (see ``ARPAReader`` for the rules).
    /// - Throws: ``ARPAError`` with the line of the problem, or a file system error.
    public init(arpaFile url: URL) throws {
        try self.init(arpaBytes: try Data(contentsOf: url))
    }

    /// Parses ARPA text (see ``ARPAReader`` for the rules).
    public init(arpaText: String) throws {
        try self.init(arpaBytes: arpaText.utf8)
    }

    /// Builds the model from what ``ARPAReader`` reads.
    ///
    /// An n-gram whose prefix is not listed gets a placeholder entry so that lookups still work (SRILM never writes
    /// such files, pruning tools sometimes do); a repeated n-gram keeps its last values.
    ///
    /// Algorithm: a unigram takes the next word id (or keeps its own) and its row in the first table. A longer n-gram
    /// walks its prefix chain order by order through `key(parent:word:)`, adding a row with log probability NaN for a
    /// prefix not yet listed, stores its values in the order-n row and marks its (n−1)-word prefix as a history; a
    /// row with a backoff field is one too.
    /// - Throws: ``ARPAError`` for anything the reader refuses, or a word that is not a unigram.
    init(arpaBytes: some Sequence<UInt8>) throws {
        var declaredOrder = 0
        var words: [String] = []
        var wordIDs: [String: Int32] = [:]
        var levels: [Level] = []
        try ARPAReader.withTerminatedBytes(arpaBytes) { buffer in
            try ARPAReader.read(
                buffer,
                declared: { counts in
                    declaredOrder = counts.count
                    levels = Array(repeating: Level(), count: counts.count)
                },
                gram: { gram, text in
                    let gramWords = gram.words.map(text)
                    let backoff = gram.backoff ?? 0
                    if gram.order == 1 {
                        let id: Int32
                        if let existing = wordIDs[gramWords[0]] {
                            id = existing
                        } else {
                            id = Int32(words.count)
                            words.append(gramWords[0])
                            wordIDs[gramWords[0]] = id
                            levels[0].append(parent: -1, word: id)
                        }
                        levels[0].set(Int(id), logProb: gram.logProb, backoff: backoff, isHistory: gram.backoff != nil)
                        return
                    }
                    var ids: [Int32] = []
                    for word in gramWords {
                        guard let id = wordIDs[word] else {
                            throw ARPAError(line: gram.line, message: "word \(word) is not in the 1-grams")
                        }
                        ids.append(id)
                    }
                    // Walk (and if needed create) the prefix chain.
                    var parent = ids[0]
                    for level in 1..<gram.order {
                        let key = BackoffModel.key(parent: parent, word: ids[level])
                        let entry: Int32
                        if let existing = levels[level].index[key] {
                            entry = existing
                        } else {
                            entry = levels[level].append(parent: parent, word: ids[level])
                            levels[level].index[key] = entry
                        }
                        if level == gram.order - 1 {
                            levels[level].set(
                                Int(entry), logProb: gram.logProb, backoff: backoff, isHistory: gram.backoff != nil)
                        }
                        parent = entry
                    }
                    levels[gram.order - 2].isHistory[Int(levels[gram.order - 1].parents[Int(parent)])] = true
                })
        }
        self.init(order: declaredOrder, words: words, levels: levels)
    }
}

extension BackoffModel.Level {
    /// Adds a row for `word` under `parent`, present only as a prefix until its own line sets it; its index.
    @discardableResult
    mutating func append(parent: Int32, word: Int32) -> Int32 {
        parents.append(parent)
        words.append(word)
        logProbs.append(.nan)
        backoffs.append(0)
        isHistory.append(false)
        return Int32(words.count - 1)
    }

    /// Sets a listed row's values.
    mutating func set(_ row: Int, logProb: Double, backoff: Double, isHistory: Bool) {
        logProbs[row] = logProb
        backoffs[row] = backoff
        self.isHistory[row] = isHistory
    }
}

/// Appends `value` with six decimals ("-1.234568"); much faster than `String(format:)` on large models.
func appendFixed(_ value: Double, to bytes: inout [UInt8]) {
    guard value.isFinite else {
        bytes.append(contentsOf: "-99".utf8)
        return
    }
    let scaled = Int((abs(value) * 1_000_000).rounded())
    if value < 0 && scaled != 0 { bytes.append(UInt8(ascii: "-")) }
    bytes.append(contentsOf: String(scaled / 1_000_000).utf8)
    bytes.append(UInt8(ascii: "."))
    var fraction = scaled % 1_000_000
    var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 6)
    for position in stride(from: 5, through: 0, by: -1) {
        digits[position] = UInt8(ascii: "0") + UInt8(fraction % 10)
        fraction /= 10
    }
    bytes.append(contentsOf: digits)
}
