import Foundation

/// A trigram (or lower) backoff model held as flat sorted arrays: a recognizer's base model, or a
/// merged model about to be written for the decoder.
///
/// ``BackoffModel`` keeps a hash table per order, which is right for the small models the compiler
/// estimates but costs seconds and hundreds of megabytes for the 3.8 million n-grams of a base model.
/// Here each order is a compressed sparse row table: the children of a history are a contiguous run
/// sorted by word id, so a lookup is a binary search and the whole base model is about 45 MB. Tables
/// are read from and written to ARPA text and sphinxbase's binary trie (``init(sphinxBinary:)``,
/// ``sphinxBinary(logBase:)``).
///
/// Probabilities and backoff weights are log10, as in ARPA. A word id is the word's index in
/// ``words``; ids are sorted within every run.
public struct TrigramTables: Sendable {
    /// Words by id.
    public let words: [String]
    let wordIDs: [String: Int32]
    let unigramProb: [Float]
    let unigramBackoff: [Float]
    /// Bigrams of history u are `bigramStart[u] ..< bigramStart[u + 1]`.
    let bigramStart: [Int32]
    let bigramWord: [Int32]
    let bigramProb: [Float]
    let bigramBackoff: [Float]
    /// Trigrams of bigram entry j are `trigramStart[j] ..< trigramStart[j + 1]`.
    let trigramStart: [Int32]
    let trigramWord: [Int32]
    let trigramProb: [Float]

    init(
        words: [String], wordIDs: [String: Int32]? = nil, unigramProb: [Float], unigramBackoff: [Float],
        bigramStart: [Int32], bigramWord: [Int32], bigramProb: [Float], bigramBackoff: [Float],
        trigramStart: [Int32], trigramWord: [Int32], trigramProb: [Float]
    ) {
        self.words = words
        if let wordIDs {
            self.wordIDs = wordIDs
        } else {
            var ids: [String: Int32] = [:]
            ids.reserveCapacity(words.count)
            for (index, word) in words.enumerated() { ids[word] = Int32(index) }
            self.wordIDs = ids
        }
        self.unigramProb = unigramProb
        self.unigramBackoff = unigramBackoff
        self.bigramStart = bigramStart
        self.bigramWord = bigramWord
        self.bigramProb = bigramProb
        self.bigramBackoff = bigramBackoff
        self.trigramStart = trigramStart
        self.trigramWord = trigramWord
        self.trigramProb = trigramProb
    }

    /// The number of n-grams of each order.
    public var counts: [Int] { [words.count, bigramWord.count, trigramWord.count] }

    /// The id of a word, if the model has it.
    public func id(of word: String) -> Int32? { wordIDs[word] }

    /// The bigram entry (u, v), if stored.
    func bigram(_ u: Int32, _ v: Int32) -> Int32? {
        search(bigramWord, from: Int(bigramStart[Int(u)]), to: Int(bigramStart[Int(u) + 1]), for: v)
    }

    /// The trigram entry under bigram entry `bigram` for word w, if stored.
    func trigram(under bigram: Int32, _ w: Int32) -> Int32? {
        search(trigramWord, from: Int(trigramStart[Int(bigram)]), to: Int(trigramStart[Int(bigram) + 1]), for: w)
    }

    /// log10 P(w | u v) through the backoff chain. A history word of -1 (not in the model) shortens
    /// the history, as a decoder does.
    public func logProb(_ w: Int32, after u: Int32, _ v: Int32) -> Double {
        if v < 0 { return Double(unigramProb[Int(w)]) }
        if u >= 0, let uv = bigram(u, v) {
            if let found = trigram(under: uv, w) { return Double(trigramProb[Int(found)]) }
            return Double(bigramBackoff[Int(uv)]) + logProb(w, after: v)
        }
        return logProb(w, after: v)
    }

    /// log10 P(w | v) through the backoff chain; v = -1 for the unigram.
    public func logProb(_ w: Int32, after v: Int32) -> Double {
        if v < 0 { return Double(unigramProb[Int(w)]) }
        if let found = bigram(v, w) { return Double(bigramProb[Int(found)]) }
        return Double(unigramBackoff[Int(v)]) + Double(unigramProb[Int(w)])
    }

    /// log10 P(word | context) with words as strings; nil if `word` is not in the model. Only the
    /// last two words of `context` count; a context word the model lacks cuts the history there.
    public func logProb(of word: String, after context: [String]) -> Double? {
        guard let w = wordIDs[word] else { return nil }
        let ids = context.suffix(2).map { wordIDs[$0] ?? -1 }
        let v = ids.last ?? -1
        let u = ids.count == 2 && v >= 0 ? ids[0] : -1
        return logProb(w, after: u, v)
    }

    /// Every stored trigram as word ids (u, v, w), in table order.
    func storedTrigramWords() -> [[Int32]] {
        var result: [[Int32]] = []
        result.reserveCapacity(trigramWord.count)
        for u in 0..<words.count {
            for entry in Int(bigramStart[u])..<Int(bigramStart[u + 1]) {
                for t in Int(trigramStart[entry])..<Int(trigramStart[entry + 1]) {
                    result.append([Int32(u), bigramWord[entry], trigramWord[t]])
                }
            }
        }
        return result
    }

    /// Histories whose explicit n-grams and backoff mass do not sum to 1 within `tolerance`, as
    /// "u v: sum" strings (at most `limit`). Every history with explicit n-grams is checked, in linear
    /// probability: Σ_explicit P(w | h) + backoff(h) · Σ_rest P(w | h′) = 1.
    public func normalizationFailures(tolerance: Double, limit: Int = 20) -> [String] {
        var failures: [String] = []
        let unigramLinear = unigramProb.map { exp10(Double($0)) }
        let unigramTotal = unigramLinear.reduce(0, +)
        if abs(unigramTotal - 1) > tolerance { failures.append("unigrams: \(unigramTotal)") }
        for u in 0..<words.count {
            let range = Int(bigramStart[u])..<Int(bigramStart[u + 1])
            if range.isEmpty { continue }
            var explicit = 0.0
            var lower = 0.0
            for entry in range {
                explicit += exp10(Double(bigramProb[entry]))
                lower += unigramLinear[Int(bigramWord[entry])]
            }
            let total = explicit + exp10(Double(unigramBackoff[u])) * (unigramTotal - lower)
            if abs(total - 1) > tolerance, failures.count < limit { failures.append("\(words[u]): \(total)") }
            for entry in range {
                let trigrams = Int(trigramStart[entry])..<Int(trigramStart[entry + 1])
                if trigrams.isEmpty { continue }
                let v = bigramWord[entry]
                var explicit = 0.0
                var lower = 0.0
                for t in trigrams {
                    explicit += exp10(Double(trigramProb[t]))
                    lower += exp10(logProb(trigramWord[t], after: v))
                }
                let total = explicit + exp10(Double(bigramBackoff[entry])) * (1 - lower)
                if abs(total - 1) > tolerance, failures.count < limit {
                    failures.append("\(words[u]) \(words[Int(v)]): \(total)")
                }
            }
        }
        return failures
    }
}

@inline(__always)
func search(_ array: [Int32], from low: Int, to high: Int, for value: Int32) -> Int32? {
    var low = low
    var high = high
    while low < high {
        let middle = (low + high) / 2
        let found = array[middle]
        if found == value { return Int32(middle) }
        if found < value { low = middle + 1 } else { high = middle }
    }
    return nil
}

/// 10^value, for log10 probabilities.
@inline(__always)
func exp10(_ value: Double) -> Double { exp(value * 2.302585092994046) }

// MARK: - Reading ARPA

extension TrigramTables {
    /// Reads a trigram (or lower) ARPA file, such as sphinxbase writes.
    ///
    /// - Throws: ``ARPAError`` naming the line of anything malformed, an order above 3, or an n-gram
    ///   whose words are not unigrams.
    public init(arpaFile url: URL) throws {
        guard let data = try? Data(contentsOf: url) else {
            throw ARPAError(line: nil, message: "cannot read \(url.path)")
        }
        self = try ARPAReader.withTerminatedBytes(data) { buffer in try Self.parse(buffer) }
    }

    /// Reads ARPA text (for tests and small models).
    public init(arpaText: String) throws {
        self = try ARPAReader.withTerminatedBytes(arpaText.utf8) { buffer in try Self.parse(buffer) }
    }

    /// Builds the tables from what ``ARPAReader`` reads of `buffer` (ARPA bytes followed by one NUL).
    ///
    /// Algorithm: a unigram takes the next word id (a repeat throws); a bigram is kept as the key u << 32 | v, a
    /// trigram as its history key and w, each with its numbers (no backoff field: 0; a trigram's is ignored). Then
    /// bigrams are sorted by key unless already in order (a repeat throws), `bigramStart` = prefix sums of counts per
    /// u; each trigram's history entry is found by binary search (absent: throws), trigrams are sorted by (entry, w)
    /// unless already in order, and `trigramStart` = prefix sums of counts per entry.
    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws -> TrigramTables {
        var words: [String] = []
        var wordIDs: [String: Int32] = [:]
        var unigramProb: [Float] = []
        var unigramBackoff: [Float] = []
        // Bigrams and trigrams as they come; sorted below if they are not in order already.
        var bigramKeys: [UInt64] = []
        var bigramProb: [Float] = []
        var bigramBackoff: [Float] = []
        var trigramHistory: [UInt64] = []
        var trigramWord: [Int32] = []
        var trigramProb: [Float] = []

        try ARPAReader.read(
            buffer, maxOrder: (3, "only trigram models are merged"),
            declared: { counts in
                if counts.count > 1 {
                    bigramKeys.reserveCapacity(counts[1])
                    bigramProb.reserveCapacity(counts[1])
                    bigramBackoff.reserveCapacity(counts[1])
                }
                if counts.count > 2 {
                    trigramHistory.reserveCapacity(counts[2])
                    trigramWord.reserveCapacity(counts[2])
                    trigramProb.reserveCapacity(counts[2])
                }
            },
            gram: { gram, text in
                func id(_ range: Range<Int>, _ kind: String) throws -> Int32 {
                    guard let id = wordIDs[text(range)] else {
                        throw ARPAError(line: gram.line, message: "a \(kind) word is not a unigram")
                    }
                    return id
                }
                let grams = gram.words
                switch gram.order {
                case 1:
                    let word = text(grams[grams.startIndex])
                    guard wordIDs[word] == nil else {
                        throw ARPAError(line: gram.line, message: "unigram '\(word)' appears twice")
                    }
                    wordIDs[word] = Int32(words.count)
                    words.append(word)
                    unigramProb.append(Float(gram.logProb))
                    unigramBackoff.append(Float(gram.backoff ?? 0))
                case 2:
                    let (u, v) = (
                        try id(grams[grams.startIndex], "bigram"), try id(grams[grams.startIndex + 1], "bigram")
                    )
                    bigramKeys.append(UInt64(u) << 32 | UInt64(v))
                    bigramProb.append(Float(gram.logProb))
                    bigramBackoff.append(Float(gram.backoff ?? 0))
                default:
                    let start = grams.startIndex
                    let (u, v, w) = (
                        try id(grams[start], "trigram"), try id(grams[start + 1], "trigram"),
                        try id(grams[start + 2], "trigram")
                    )
                    trigramHistory.append(UInt64(u) << 32 | UInt64(v))
                    trigramWord.append(w)
                    trigramProb.append(Float(gram.logProb))
                }
            })
        guard !words.isEmpty else { throw ARPAError(line: nil, message: "no \\data\\ or unigrams") }

        // Bigrams sorted by (u, v).
        var bigramOrder = Array(0..<bigramKeys.count)
        if zip(bigramKeys, bigramKeys.dropFirst()).contains(where: { $0 >= $1 }) {
            bigramOrder.sort { bigramKeys[$0] < bigramKeys[$1] }
            bigramKeys = bigramOrder.map { bigramKeys[$0] }
            bigramProb = bigramOrder.map { bigramProb[$0] }
            bigramBackoff = bigramOrder.map { bigramBackoff[$0] }
        }
        for index in bigramKeys.indices.dropFirst() where bigramKeys[index] == bigramKeys[index - 1] {
            throw ARPAError(line: nil, message: "a bigram appears twice")
        }
        var bigramStart = [Int32](repeating: 0, count: words.count + 1)
        for key in bigramKeys { bigramStart[Int(key >> 32) + 1] += 1 }
        for index in 0..<words.count { bigramStart[index + 1] += bigramStart[index] }
        let bigramWord = bigramKeys.map { Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }

        // Trigrams sorted by (bigram entry, w); each history must be a stored bigram.
        var trigramKeys: [(entry: Int32, word: Int32)] = []
        trigramKeys.reserveCapacity(trigramWord.count)
        var lastHistory = UInt64.max
        var lastEntry: Int32 = -1
        for index in trigramWord.indices {
            let history = trigramHistory[index]
            if history != lastHistory {
                let u = Int(history >> 32)
                let v = Int32(truncatingIfNeeded: history & 0xFFFF_FFFF)
                guard let entry = search(bigramWord, from: Int(bigramStart[u]), to: Int(bigramStart[u + 1]), for: v)
                else {
                    throw ARPAError(
                        line: nil, message: "trigram history '\(words[u]) \(words[Int(v)])' is not a bigram")
                }
                lastHistory = history
                lastEntry = entry
            }
            trigramKeys.append((lastEntry, trigramWord[index]))
        }
        trigramHistory = []
        var trigramProbSorted = trigramProb
        var trigramWordSorted = trigramWord
        if zip(trigramKeys, trigramKeys.dropFirst()).contains(where: { ($0.entry, $0.word) >= ($1.entry, $1.word) }) {
            let order = trigramKeys.indices.sorted {
                (trigramKeys[$0].entry, trigramKeys[$0].word) < (trigramKeys[$1].entry, trigramKeys[$1].word)
            }
            trigramProbSorted = order.map { trigramProb[$0] }
            trigramWordSorted = order.map { trigramKeys[$0].word }
            trigramKeys = order.map { trigramKeys[$0] }
        }
        var trigramStart = [Int32](repeating: 0, count: bigramWord.count + 1)
        for key in trigramKeys { trigramStart[Int(key.entry) + 1] += 1 }
        for index in 0..<bigramWord.count { trigramStart[index + 1] += trigramStart[index] }

        return TrigramTables(
            words: words, wordIDs: wordIDs, unigramProb: unigramProb, unigramBackoff: unigramBackoff,
            bigramStart: bigramStart, bigramWord: bigramWord, bigramProb: bigramProb, bigramBackoff: bigramBackoff,
            trigramStart: trigramStart, trigramWord: trigramWordSorted, trigramProb: trigramProbSorted)
    }
}

// MARK: - Writing ARPA

extension TrigramTables {
    /// Writes the model as ARPA text, streamed, so that a 100 MB model never sits in memory as text.
    public func writeARPA(to url: URL) throws {
        guard let file = fopen(url.path, "w") else {
            throw ARPAError(line: nil, message: "cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
        var failed = false
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 22)
        func flush() {
            if buffer.isEmpty || failed { return }
            let written = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            if written != buffer.count { failed = true }
            buffer.removeAll(keepingCapacity: true)
        }
        func append(_ string: String) { buffer.append(contentsOf: string.utf8) }
        let spelled = words.map { Array($0.utf8) }
        append("\\data\\\n")
        for (level, count) in counts.enumerated() { append("ngram \(level + 1)=\(count)\n") }
        append("\n\\1-grams:\n")
        for w in words.indices {
            appendFixed(Double(unigramProb[w]), to: &buffer)
            buffer.append(9)
            buffer.append(contentsOf: spelled[w])
            if bigramStart[w + 1] > bigramStart[w] || unigramBackoff[w] != 0 {
                buffer.append(9)
                appendFixed(Double(unigramBackoff[w]), to: &buffer)
            }
            buffer.append(10)
        }
        append("\n\\2-grams:\n")
        for u in words.indices {
            for entry in Int(bigramStart[u])..<Int(bigramStart[u + 1]) {
                appendFixed(Double(bigramProb[entry]), to: &buffer)
                buffer.append(9)
                buffer.append(contentsOf: spelled[u])
                buffer.append(32)
                buffer.append(contentsOf: spelled[Int(bigramWord[entry])])
                if trigramStart[entry + 1] > trigramStart[entry] || bigramBackoff[entry] != 0 {
                    buffer.append(9)
                    appendFixed(Double(bigramBackoff[entry]), to: &buffer)
                }
                buffer.append(10)
            }
            if buffer.count > 1 << 22 { flush() }
        }
        append("\n\\3-grams:\n")
        for u in words.indices {
            for entry in Int(bigramStart[u])..<Int(bigramStart[u + 1]) {
                let v = spelled[Int(bigramWord[entry])]
                for t in Int(trigramStart[entry])..<Int(trigramStart[entry + 1]) {
                    appendFixed(Double(trigramProb[t]), to: &buffer)
                    buffer.append(9)
                    buffer.append(contentsOf: spelled[u])
                    buffer.append(32)
                    buffer.append(contentsOf: v)
                    buffer.append(32)
                    buffer.append(contentsOf: spelled[Int(trigramWord[t])])
                    buffer.append(10)
                }
            }
            if buffer.count > 1 << 22 { flush() }
        }
        append("\n\\end\\\n")
        flush()
        if fclose(file) != 0 { failed = true }
        if failed {
            throw ARPAError(line: nil, message: "writing \(url.path) failed: \(String(cString: strerror(errno)))")
        }
    }
}
