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

    /// Reads an ARPA file.
    /// - Throws: ``ARPAError`` with the line of the problem, or a file system error.
    public init(arpaFile url: URL) throws {
        try self.init(arpaText: try String(contentsOf: url, encoding: .utf8))
    }

    /// Parses ARPA text.
    ///
    /// Tolerates text before `\data\`, blank lines, spaces or tabs as separators, CRLF line ends and a
    /// missing `\end\`. An n-gram whose prefix is not listed gets a placeholder entry so that lookups
    /// still work (SRILM never writes such files, pruning tools sometimes do).
    ///
    /// Algorithm: a state machine over trimmed lines. Lines before `\data\` are skipped (a section header there is
    /// an error); inside it each line must be `ngram k=COUNT` for the next k; `\n-grams:` (n declared) starts
    /// section n; `\end\` ends reading. In section n a line is `logprob w1 … wn [backoff]`. A unigram takes the next
    /// word id (or keeps its own) and its row in the first table. A longer n-gram walks its prefix chain order by
    /// order through `key(parent:word:)`, adding a row with log probability NaN for a prefix not yet listed, stores
    /// its values in the order-n row and marks its (n−1)-word prefix as a history; a row with a backoff field is one
    /// too. Finally each section's line count must equal its declared count.
    /// - Throws: ``ARPAError`` for a missing header, a malformed line, a word that is not a unigram,
    ///   or section sizes that do not match the header.
    public init(arpaText: String) throws {
        var declared: [Int] = []
        var words: [String] = []
        var wordIDs: [String: Int32] = [:]
        var levels: [Level] = []
        var section = 0  // 0: before \data\, -1: in \data\, n: in \n-grams:
        var seen: [Int] = []
        var lineNumber = 0
        var finished = false
        for rawLine in arpaText.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || finished { continue }
            if line == "\\data\\" {
                section = -1
                continue
            }
            if line == "\\end\\" {
                finished = true
                continue
            }
            if line.hasPrefix("\\") && line.hasSuffix("-grams:") {
                guard section != 0 else { throw ARPAError(line: lineNumber, message: "section before \\data\\") }
                let number = line.dropFirst().dropLast("-grams:".count)
                guard let n = Int(number), n >= 1, n <= declared.count else {
                    throw ARPAError(line: lineNumber, message: "section \(line) is not declared in \\data\\")
                }
                section = n
                while levels.count < n {
                    levels.append(Level())
                    seen.append(0)
                }
                continue
            }
            switch section {
            case 0:
                continue
            case -1:
                guard line.hasPrefix("ngram "), let equals = line.firstIndex(of: "="),
                    let n = Int(
                        line[line.index(line.startIndex, offsetBy: 6)..<equals].trimmingCharacters(in: .whitespaces)),
                    let count = Int(line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)),
                    n == declared.count + 1
                else {
                    throw ARPAError(
                        line: lineNumber, message: "expected `ngram \(declared.count + 1)=COUNT`, found \(line)")
                }
                declared.append(count)
            default:
                let n = section
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count == n + 1 || fields.count == n + 2, let logProb = Double(fields[0]) else {
                    throw ARPAError(
                        line: lineNumber, message: "expected `logprob w1 … w\(n) [backoff]`, found \(line)")
                }
                var backoff = 0.0
                if fields.count == n + 2 {
                    guard let value = Double(fields[n + 1]) else {
                        throw ARPAError(line: lineNumber, message: "backoff weight \(fields[n + 1]) is not a number")
                    }
                    backoff = value
                }
                seen[n - 1] += 1
                let gramWords = fields[1...n].map(String.init)
                if n == 1 {
                    let id: Int32
                    if let existing = wordIDs[gramWords[0]] {
                        id = existing
                    } else {
                        id = Int32(words.count)
                        words.append(gramWords[0])
                        wordIDs[gramWords[0]] = id
                        levels[0].parents.append(-1)
                        levels[0].words.append(id)
                        levels[0].logProbs.append(.nan)
                        levels[0].backoffs.append(0)
                        levels[0].isHistory.append(false)
                    }
                    levels[0].logProbs[Int(id)] = logProb
                    levels[0].backoffs[Int(id)] = backoff
                    levels[0].isHistory[Int(id)] = fields.count == n + 2
                    continue
                }
                var ids: [Int32] = []
                for word in gramWords {
                    guard let id = wordIDs[word] else {
                        throw ARPAError(line: lineNumber, message: "word \(word) is not in the 1-grams")
                    }
                    ids.append(id)
                }
                // Walk (and if needed create) the prefix chain.
                var parent = ids[0]
                for level in 1..<n {
                    let key = BackoffModel.key(parent: parent, word: ids[level])
                    let entry: Int32
                    if let existing = levels[level].index[key] {
                        entry = existing
                    } else {
                        entry = Int32(levels[level].words.count)
                        levels[level].index[key] = entry
                        levels[level].parents.append(parent)
                        levels[level].words.append(ids[level])
                        levels[level].logProbs.append(.nan)
                        levels[level].backoffs.append(0)
                        levels[level].isHistory.append(false)
                    }
                    if level == n - 1 {
                        levels[level].logProbs[Int(entry)] = logProb
                        levels[level].backoffs[Int(entry)] = backoff
                        levels[level].isHistory[Int(entry)] = fields.count == n + 2
                    }
                    parent = entry
                }
                levels[n - 2].isHistory[Int(levels[n - 1].parents[Int(parent)])] = true
            }
        }
        guard !declared.isEmpty else { throw ARPAError(line: nil, message: "no \\data\\ header") }
        while levels.count < declared.count {
            levels.append(Level())
            seen.append(0)
        }
        for (index, count) in declared.enumerated() where seen[index] != count {
            throw ARPAError(
                line: nil, message: "\\data\\ declares \(count) \(index + 1)-grams but the section has \(seen[index])")
        }
        self.init(order: declared.count, words: words, levels: levels)
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
