import Foundation

/// A file that is not a sphinxbase binary trie model, or one this reader cannot follow.
public struct SphinxTrieError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String

    public var description: String { "sphinxbase binary model: \(message)" }
}

/// sphinxbase's binary trie language-model format (`ngram_model_trie.c`, `lm_trie.c`), read and
/// written without the library.
///
/// The library can write this format itself, but only by reading ARPA text first: 7 s for a merged
/// model of the 3.8 million n-grams of Debian's `en-us.lm.bin`. The library's functions that would
/// iterate a model's n-grams are absent from Debian's build, and its ARPA writer aborts on that very
/// file. So Gambit reads and writes the format directly. It is a KenLM-style trie over *reversed*
/// n-grams:
///
/// - the text `Trie Language Model`, the order (one byte), the declared count of each order (uint32);
/// - for order ≥ 2 a 4-byte zero, then quantisation tables of 65,536 floats each: probability and
///   backoff of every middle order, then probability of the highest order;
/// - `count₁ + 1` unigram records (float probability, float backoff, uint32 index of the first
///   middle entry whose last word is this word), the last one a sentinel;
/// - bit-packed middle entries (previous word, 16-bit backoff bin, 16-bit probability bin, index of
///   the first child), one extra entry holding the end of the last child range, then 8 bytes;
/// - bit-packed highest-order entries (earliest word, 16-bit probability bin), then 8 bytes;
/// - an int32 byte count and the words, NUL-terminated, in id order.
///
/// So the trigram "u v w" sits under unigram w, then the entry for v, then the entry for u; the
/// bigram entry "v w" holds P(w | v) and the backoff weight of the history "v w". Scores are floats in
/// the log base of the reading decoder's `logmath` (1.0001 by default). A middle or last entry's
/// bits start at entry index × record width; words within a run are in increasing id order.
enum SphinxTrie {
    static let header = Array("Trie Language Model".utf8)
    static let binBits = 16
    static let bins = 1 << binBits

    /// The number of bits sphinxbase uses for values up to `maximum` (`bitarr_required_bits`).
    static func requiredBits(_ maximum: Int) -> Int {
        maximum == 0 ? 0 : Int.bitWidth - maximum.leadingZeroBitCount
    }

    /// Bytes of a packed array of `entries` + 1 records of `bits` bits, with sphinxbase's padding.
    static func packedSize(entries: Int, bits: Int) -> Int {
        ((1 + entries) * bits + 7) / 8 + 8
    }
}

/// Little-endian bit reads from a byte buffer, as sphinxbase's `bitarr_read_int25` reads: a 32-bit
/// load at the byte that holds the first bit, shifted and masked (so at most 25 bits).
private struct BitReader {
    let bytes: UnsafeRawBufferPointer

    @inline(__always)
    func read(_ offset: Int, _ bits: Int) -> Int {
        guard bits > 0 else { return 0 }
        let byte = offset >> 3
        var value: UInt32 = 0
        let available = min(4, bytes.count - byte)
        for index in 0..<max(available, 0) { value |= UInt32(bytes[byte + index]) << (8 * index) }
        return Int((value >> UInt32(offset & 7)) & UInt32((1 << bits) - 1))
    }
}

/// Little-endian bit writes into a zeroed byte array.
private struct BitWriter {
    /// Where bit offset 0 is: zeroed bytes the writer ORs values into.
    let bytes: UnsafeMutablePointer<UInt8>

    /// Appends `count` zero bytes to `out` and writes into them with a writer, without a uniqueness check per byte.
    static func append(_ count: Int, to out: inout [UInt8], _ body: (BitWriter) -> Void) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: count))
        out.withUnsafeMutableBufferPointer { buffer in body(BitWriter(bytes: buffer.baseAddress! + start)) }
    }

    @inline(__always)
    func write(_ offset: Int, _ bits: Int, _ value: Int) {
        guard bits > 0 else { return }
        var remaining = UInt64(value) & ((1 << UInt64(bits)) - 1)
        var byte = offset >> 3
        var shift = offset & 7
        var left = bits
        while left > 0 {
            bytes[byte] |= UInt8(truncatingIfNeeded: remaining << UInt64(shift))
            let written = 8 - shift
            remaining >>= UInt64(written)
            left -= written
            shift = 0
            byte += 1
        }
    }
}

// MARK: - Reading

extension TrigramTables {
    /// Reads a sphinxbase binary trie model of order ≤ 3.
    ///
    /// Every score is what sphinxbase's own lookup returns for it, converted to log10. The counts a
    /// file declares may be wrong (Debian's `en-us.lm.bin` declares six bigrams more than it holds:
    /// sphinxbase issues #52 and #89), so the layout follows the declared counts, as the library's
    /// reader does, and the number of entries the pointers inside the file.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - logBase: The log base the file's scores are in (the decoder's `-logbase`, 1.0001).
    /// - Throws: ``SphinxTrieError`` for another format, a truncated file or inconsistent pointers.
    public init(sphinxBinary data: Data, logBase: Double = 1.0001) throws(SphinxTrieError) {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(SphinxTrieError) in try Self.readTrie(raw, toLog10: log10(logBase)) }
        }
        self = try result.get()
    }

    /// The tables in the file `raw`, each score times `scale` (log10 of the file's log base) to make it log10.
    ///
    /// Algorithm: check the header text; read the order (1–3) and each order's declared count. For order ≥ 2 skip the
    /// 4-byte zero and read the 65,536-float bin tables (order 3: middle probability, middle backoff; then the last
    /// order's probability). Read `count₁ + 1` unigram records; the sentinel's child index is the bigram count. Place
    /// the bit-packed arrays by the declared counts (``SphinxTrie/packedSize(entries:bits:)``): order 3's middle
    /// entries are `wordBits + 32 + nextBits` bits, last-order ones `wordBits + 16`; the middle sentinel gives the
    /// trigram count. Read the NUL-terminated words, then walk the reversed trie: entries `next[w] ..< next[w + 1]`
    /// under unigram w are the bigrams "v w", a middle entry's children the trigrams "u v w", scored by their bins. A
    /// count past its declared one, a range out of order or a bad word id throws; `init(words:…)` builds the tables.
    private static func readTrie(_ raw: UnsafeRawBufferPointer, toLog10 scale: Double) throws(SphinxTrieError)
        -> TrigramTables
    {
        func fail(_ message: String) -> SphinxTrieError { SphinxTrieError(message: message) }
        var position = 0
        func need(_ count: Int) throws(SphinxTrieError) {
            guard count >= 0, position + count <= raw.count else { throw fail("the file ends early") }
        }
        func uint32() throws(SphinxTrieError) -> Int {
            try need(4)
            defer { position += 4 }
            return Int(raw.loadUnaligned(fromByteOffset: position, as: UInt32.self))
        }
        func float() throws(SphinxTrieError) -> Float {
            try need(4)
            defer { position += 4 }
            return raw.loadUnaligned(fromByteOffset: position, as: Float.self)
        }
        try need(SphinxTrie.header.count + 1)
        guard raw.prefix(SphinxTrie.header.count).elementsEqual(SphinxTrie.header) else {
            throw fail("no 'Trie Language Model' header")
        }
        position = SphinxTrie.header.count
        let order = Int(raw[position])
        position += 1
        guard (1...3).contains(order) else { throw fail("order \(order); only orders 1 to 3 are read") }
        var declared: [Int] = []
        for _ in 0..<order { declared.append(try uint32()) }
        let vocabulary = declared[0]
        guard vocabulary > 0, vocabulary < 1 << 25 else { throw fail("\(vocabulary) unigrams") }

        // Quantisation tables.
        var middleProbBins: [Float] = []
        var middleBackoffBins: [Float] = []
        var longestBins: [Float] = []
        if order > 1 {
            position += 4
            func table() throws(SphinxTrieError) -> [Float] {
                try need(4 * SphinxTrie.bins)
                defer { position += 4 * SphinxTrie.bins }
                let start = position
                return (0..<SphinxTrie.bins).map { raw.loadUnaligned(fromByteOffset: start + 4 * $0, as: Float.self) }
            }
            if order == 3 {
                middleProbBins = try table()
                middleBackoffBins = try table()
            }
            longestBins = try table()
        }

        // Unigrams, with the sentinel.
        var unigramProb = [Float](repeating: 0, count: vocabulary)
        var unigramBackoff = [Float](repeating: 0, count: vocabulary)
        var unigramNext = [Int](repeating: 0, count: vocabulary + 1)
        for w in 0...vocabulary {
            let prob = try float()
            let backoff = try float()
            unigramNext[w] = try uint32()
            if w < vocabulary {
                unigramProb[w] = Float(Double(prob) * scale)
                unigramBackoff[w] = Float(Double(backoff) * scale)
            }
        }

        // Bit-packed levels, laid out by the declared counts.
        let wordBits = SphinxTrie.requiredBits(vocabulary)
        var middle: (start: Int, bits: Int, nextBits: Int, count: Int)?
        var longest: (start: Int, bits: Int, count: Int)?
        if order == 3 {
            let nextBits = SphinxTrie.requiredBits(declared[2])
            let bits = wordBits + 2 * SphinxTrie.binBits + nextBits
            middle = (position, bits, nextBits, unigramNext[vocabulary])
            position += SphinxTrie.packedSize(entries: declared[1], bits: bits)
        }
        if order >= 2 {
            let bits = wordBits + SphinxTrie.binBits
            longest = (position, bits, 0)
            position += SphinxTrie.packedSize(entries: declared[order - 1], bits: bits)
        }
        try need(0)
        let reader = BitReader(bytes: raw)
        var middleNext: [Int] = []
        if var level = middle {
            guard level.count <= declared[1] else { throw fail("the unigrams point past the declared bigrams") }
            middleNext = (0...level.count).map {
                reader.read(level.start * 8 + $0 * level.bits + wordBits + 2 * SphinxTrie.binBits, level.nextBits)
            }
            level.count = middleNext[level.count]
            longest?.count = level.count
            guard level.count <= declared[2] else { throw fail("the bigrams point past the declared trigrams") }
        } else if order == 2 {
            longest?.count = unigramNext[vocabulary]
            guard unigramNext[vocabulary] <= declared[1] else {
                throw fail("the unigrams point past the declared bigrams")
            }
        }

        // Words.
        let byteCount = try uint32()
        try need(byteCount)
        var words: [String] = []
        words.reserveCapacity(vocabulary)
        var wordStart = position
        for index in position..<(position + byteCount) where raw[index] == 0 {
            words.append(String(decoding: UnsafeRawBufferPointer(rebasing: raw[wordStart..<index]), as: UTF8.self))
            wordStart = index + 1
        }
        guard words.count == vocabulary else {
            throw fail("\(words.count) words for \(vocabulary) unigrams")
        }
        var wordIDs: [String: Int32] = [:]
        wordIDs.reserveCapacity(vocabulary)
        for (index, word) in words.enumerated() where wordIDs[word] == nil { wordIDs[word] = Int32(index) }

        // Reversed n-grams: bigram "v w" under w; trigram "u v w" under the entry of "v w".
        var bigrams: [(first: Int32, second: Int32, prob: Float, backoff: Float)] = []
        var trigrams: [(first: Int32, second: Int32, third: Int32, prob: Float)] = []
        func checkRange(_ begin: Int, _ end: Int, _ limit: Int) throws(SphinxTrieError) {
            guard begin <= end, end <= limit else { throw fail("an n-gram range \(begin)..<\(end) is out of order") }
        }
        if order == 2, let level = longest {
            bigrams.reserveCapacity(level.count)
            for w in 0..<vocabulary {
                try checkRange(unigramNext[w], unigramNext[w + 1], level.count)
                for entry in unigramNext[w]..<unigramNext[w + 1] {
                    let bit = level.start * 8 + entry * level.bits
                    let v = reader.read(bit, wordBits)
                    guard v < vocabulary else { throw fail("a word id \(v) is out of range") }
                    let prob = longestBins[reader.read(bit + wordBits, SphinxTrie.binBits)]
                    bigrams.append((Int32(v), Int32(w), Float(Double(prob) * scale), 0))
                }
            }
        } else if order == 3, let level = middle, let last = longest {
            bigrams.reserveCapacity(level.count)
            trigrams.reserveCapacity(last.count)
            for w in 0..<vocabulary {
                try checkRange(unigramNext[w], unigramNext[w + 1], level.count)
                for entry in unigramNext[w]..<unigramNext[w + 1] {
                    let bit = level.start * 8 + entry * level.bits
                    let v = reader.read(bit, wordBits)
                    guard v < vocabulary else { throw fail("a word id \(v) is out of range") }
                    let backoff = middleBackoffBins[reader.read(bit + wordBits, SphinxTrie.binBits)]
                    let prob = middleProbBins[reader.read(bit + wordBits + SphinxTrie.binBits, SphinxTrie.binBits)]
                    bigrams.append((Int32(v), Int32(w), Float(Double(prob) * scale), Float(Double(backoff) * scale)))
                    try checkRange(middleNext[entry], middleNext[entry + 1], last.count)
                    for child in middleNext[entry]..<middleNext[entry + 1] {
                        let childBit = last.start * 8 + child * last.bits
                        let u = reader.read(childBit, wordBits)
                        guard u < vocabulary else { throw fail("a word id \(u) is out of range") }
                        let prob = longestBins[reader.read(childBit + wordBits, SphinxTrie.binBits)]
                        trigrams.append((Int32(u), Int32(v), Int32(w), Float(Double(prob) * scale)))
                    }
                }
            }
        }
        return TrigramTables(
            words: words, wordIDs: wordIDs, unigramProb: unigramProb, unigramBackoff: unigramBackoff,
            bigrams: bigrams, trigrams: trigrams)
    }

    /// Builds forward tables from n-grams in any order. A trigram whose history "u v" is not a bigram
    /// gets one, with its backed-off probability and no backoff weight of its own: the scores of the
    /// model are unchanged, and every trigram hangs under its history.
    init(
        words: [String], wordIDs: [String: Int32]?, unigramProb: [Float], unigramBackoff: [Float],
        bigrams: [(first: Int32, second: Int32, prob: Float, backoff: Float)],
        trigrams: [(first: Int32, second: Int32, third: Int32, prob: Float)]
    ) {
        let vocabulary = words.count
        var bigrams = bigrams
        // Forward bigrams, sorted by (first, second) with two stable counting passes.
        func countingSort<T>(_ items: [T], buckets: Int, key: (T) -> Int) -> ([T], [Int32]) {
            var starts = [Int32](repeating: 0, count: buckets + 1)
            for item in items { starts[key(item) + 1] += 1 }
            for index in 0..<buckets { starts[index + 1] += starts[index] }
            var fill = starts
            var sorted = [T?](repeating: nil, count: items.count)
            for item in items {
                let bucket = key(item)
                sorted[Int(fill[bucket])] = item
                fill[bucket] += 1
            }
            return (sorted.map { $0! }, starts)
        }
        func sortBigrams(_ list: [(first: Int32, second: Int32, prob: Float, backoff: Float)]) -> (
            [(first: Int32, second: Int32, prob: Float, backoff: Float)], [Int32]
        ) {
            let bySecond = countingSort(list, buckets: vocabulary) { Int($0.second) }.0
            return countingSort(bySecond, buckets: vocabulary) { Int($0.first) }
        }
        var (sortedBigrams, bigramStart) = sortBigrams(bigrams)
        func findBigram(_ u: Int32, _ v: Int32) -> Int32? {
            var low = Int(bigramStart[Int(u)])
            var high = Int(bigramStart[Int(u) + 1])
            while low < high {
                let middle = (low + high) / 2
                let found = sortedBigrams[middle].second
                if found == v { return Int32(middle) }
                if found < v { low = middle + 1 } else { high = middle }
            }
            return nil
        }
        // Histories of trigrams that are not bigrams.
        var missing = Set<UInt64>()
        for trigram in trigrams where findBigram(trigram.first, trigram.second) == nil {
            missing.insert(UInt64(UInt32(trigram.first)) << 32 | UInt64(UInt32(trigram.second)))
        }
        if !missing.isEmpty {
            for key in missing {
                let u = Int32(truncatingIfNeeded: key >> 32)
                let v = Int32(truncatingIfNeeded: key & 0xFFFF_FFFF)
                let prob = unigramBackoff[Int(u)] + unigramProb[Int(v)]
                bigrams.append((u, v, prob, 0))
            }
            (sortedBigrams, bigramStart) = sortBigrams(bigrams)
        }
        bigrams = []
        // Trigrams under their history's entry, by word.
        let keyed = trigrams.map { trigram in
            (entry: findBigram(trigram.first, trigram.second)!, word: trigram.third, prob: trigram.prob)
        }
        let byWord = countingSort(keyed, buckets: vocabulary) { Int($0.word) }.0
        let (sortedTrigrams, trigramStart) = countingSort(byWord, buckets: sortedBigrams.count) { Int($0.entry) }
        self.init(
            words: words, wordIDs: wordIDs, unigramProb: unigramProb, unigramBackoff: unigramBackoff,
            bigramStart: bigramStart, bigramWord: sortedBigrams.map(\.second), bigramProb: sortedBigrams.map(\.prob),
            bigramBackoff: sortedBigrams.map(\.backoff), trigramStart: trigramStart,
            trigramWord: sortedTrigrams.map(\.word), trigramProb: sortedTrigrams.map(\.prob))
    }
}

// MARK: - Writing

extension TrigramTables {
    /// The model in sphinxbase's binary trie format, as `ngram_model_read` loads it.
    ///
    /// Bigram and trigram scores are quantised to 65,536 levels per table, as sphinxbase quantises
    /// them: exactly when a table has no more distinct values than that, else by an even grid and
    /// equal-count bins (see ``Quantizer``). Unigrams are stored exactly. A trigram "u v w" needs the bigram
    /// "v w" in this format; when the model lacks it, one is added with its backed-off probability,
    /// which leaves every score unchanged.
    ///
    /// Algorithm: reverse the bigrams into keys (w, v), one per stored "v w", plus for order 3 one per missing suffix
    /// "v w" of a trigram "u v w", scored log10 α(v) + log10 P(w), backoff 0; sort keys by (w, v). Hang each trigram
    /// under its suffix's key, ordered by u; a unigram's and a key's first-child index are prefix sums of child counts.
    /// Multiply every score by 1 / log10(logBase) and quantise each bigram and trigram table with ``Quantizer`` (−99
    /// keeps a level). Write in the order of ``SphinxTrie``: header, order, counts, a zero and the bin centres, unigram
    /// records and their sentinel, packed middle entries (v, backoff bin, probability bin, first child) and the end
    /// index, packed last-order entries (earliest word, probability bin), then the byte count and NUL-ended words.
    /// - Parameter logBase: The log base of the decoder that will read it (`-logbase`, 1.0001).
    public func sphinxBinary(logBase: Double = 1.0001) -> [UInt8] {
        let scale = 1 / log10(logBase)
        let vocabulary = words.count
        let order = trigramWord.isEmpty ? (bigramWord.isEmpty ? 1 : 2) : 3

        // Each trigram's suffix "v w": its forward bigram entry, or -1 - the index of a dummy made for it (looked up
        // once).
        var dummies: [(v: Int32, w: Int32)] = []
        var dummyIndex: [UInt64: Int32] = [:]
        var suffixOf = [Int32](repeating: 0, count: order == 3 ? trigramWord.count : 0)
        if order == 3 {
            for u in 0..<vocabulary {
                for entry in Int(bigramStart[u])..<Int(bigramStart[u + 1]) {
                    let v = bigramWord[entry]
                    for t in Int(trigramStart[entry])..<Int(trigramStart[entry + 1]) {
                        let w = trigramWord[t]
                        if let found = bigram(v, w) {
                            suffixOf[t] = found
                            continue
                        }
                        let key = UInt64(UInt32(v)) << 32 | UInt64(UInt32(w))
                        if let known = dummyIndex[key] {
                            suffixOf[t] = -1 - known
                        } else {
                            dummyIndex[key] = Int32(dummies.count)
                            suffixOf[t] = -1 - Int32(dummies.count)
                            dummies.append((v, w))
                        }
                    }
                }
            }
            dummyIndex = [:]
        }
        // Reversed bigram entries "v w" (w first, then v), with the dummies, sorted by (w, v): placed by w straight
        // away, as walking v in order keeps v ascending within each w; with dummies, sorted.
        let keyCount = bigramWord.count + dummies.count
        // Each key's w is implied by its position (the keys of one w are together, counted by `unigramNext`).
        var reversedKeys: [(v: Int32, forward: Int32)]  // forward = entry, or -1 - dummy index
        if dummies.isEmpty {
            var fill = [Int32](repeating: 0, count: vocabulary + 1)
            for w in bigramWord { fill[Int(w) + 1] += 1 }
            for index in 0..<vocabulary { fill[index + 1] += fill[index] }
            reversedKeys = Array(unsafeUninitializedCapacity: keyCount) { buffer, initialized in
                for v in 0..<vocabulary {
                    for entry in Int(bigramStart[v])..<Int(bigramStart[v + 1]) {
                        let w = bigramWord[entry]
                        (buffer.baseAddress! + Int(fill[Int(w)])).initialize(to: (Int32(v), Int32(entry)))
                        fill[Int(w)] += 1
                    }
                }
                initialized = keyCount
            }
        } else {
            var keys: [(w: Int32, v: Int32, forward: Int32)] = []
            keys.reserveCapacity(keyCount)
            for v in 0..<vocabulary {
                for entry in Int(bigramStart[v])..<Int(bigramStart[v + 1]) {
                    keys.append((bigramWord[entry], Int32(v), Int32(entry)))
                }
            }
            for (index, dummy) in dummies.enumerated() { keys.append((dummy.w, dummy.v, -1 - Int32(index))) }
            keys.sort { ($0.w, $0.v) < ($1.w, $1.v) }
            reversedKeys = keys.map { ($0.v, $0.forward) }
        }
        var reversedOfForward = [Int32](repeating: 0, count: bigramWord.count)
        var reversedOfDummy = [Int32](repeating: 0, count: dummies.count)
        for (index, key) in reversedKeys.enumerated() {
            if key.forward >= 0 {
                reversedOfForward[Int(key.forward)] = Int32(index)
            } else {
                reversedOfDummy[Int(-1 - key.forward)] = Int32(index)
            }
        }
        func bigramScores(_ key: (v: Int32, forward: Int32)) -> (prob: Float, backoff: Float) {
            if key.forward >= 0 { return (bigramProb[Int(key.forward)], bigramBackoff[Int(key.forward)]) }
            let dummy = dummies[Int(-1 - key.forward)]
            return (unigramBackoff[Int(dummy.v)] + unigramProb[Int(dummy.w)], 0)
        }

        // Reversed trigram entries "u v w" under the entry of "v w", by u: counted by parent, then placed, as walking
        // u in order keeps u ascending within each parent.
        var trigramNext = [Int32](repeating: 0, count: reversedKeys.count + 1)
        var trigramKeys: [(u: Int32, t: Int32)] = []
        if order == 3 {
            func parent(_ t: Int) -> Int {
                let suffix = suffixOf[t]
                return Int(suffix >= 0 ? reversedOfForward[Int(suffix)] : reversedOfDummy[Int(-1 - suffix)])
            }
            for t in 0..<trigramWord.count { trigramNext[parent(t) + 1] += 1 }
            for index in 0..<reversedKeys.count { trigramNext[index + 1] += trigramNext[index] }
            var fill = trigramNext
            trigramKeys = Array(unsafeUninitializedCapacity: trigramWord.count) { buffer, initialized in
                for u in 0..<vocabulary {
                    for entry in Int(bigramStart[u])..<Int(bigramStart[u + 1]) {
                        for t in Int(trigramStart[entry])..<Int(trigramStart[entry + 1]) {
                            let slot = parent(t)
                            (buffer.baseAddress! + Int(fill[slot])).initialize(to: (Int32(u), Int32(t)))
                            fill[slot] += 1
                        }
                    }
                }
                initialized = trigramWord.count
            }
            suffixOf = []
        }
        reversedOfForward = []
        reversedOfDummy = []
        var unigramNext = [Int](repeating: 0, count: vocabulary + 1)
        for w in bigramWord { unigramNext[Int(w) + 1] += 1 }
        for dummy in dummies { unigramNext[Int(dummy.w) + 1] += 1 }
        for index in 0..<vocabulary { unigramNext[index + 1] += unigramNext[index] }

        // Every score in the decoder's units, once: the quantisers are built from these and encode them, before the
        // file's bytes are reserved, so that only the 16-bit bins are held beside them.
        var scaledProb = [Float](repeating: 0, count: reversedKeys.count)
        var scaledBackoff = [Float](repeating: 0, count: order == 3 ? reversedKeys.count : 0)
        for (index, key) in reversedKeys.enumerated() {
            let scores = bigramScores(key)
            scaledProb[index] = Float(Double(scores.prob) * scale)
            if order == 3 { scaledBackoff[index] = Float(Double(scores.backoff) * scale) }
        }
        var scaledTrigram = trigramKeys.map { Float(Double(trigramProb[Int($0.t)]) * scale) }
        var middleProb = Quantizer(values: [])
        var middleBackoff = Quantizer(values: [])
        var longest = Quantizer(values: [])
        let never = Float(-99 * scale)
        if order == 3 {
            middleProb = Quantizer(values: scaledProb, never: never)
            middleBackoff = Quantizer(values: scaledBackoff, never: never)
            longest = Quantizer(values: scaledTrigram, never: never)
        } else if order == 2 {
            longest = Quantizer(values: scaledProb, never: never)
        }
        let middleProbBins = order == 3 ? scaledProb.map { UInt16(middleProb.encode($0)) } : []
        let middleBackoffBins = scaledBackoff.map { UInt16(middleBackoff.encode($0)) }
        let longestBins =
            order == 3
            ? scaledTrigram.map { UInt16(longest.encode($0)) } : scaledProb.map { UInt16(longest.encode($0)) }
        (scaledProb, scaledBackoff, scaledTrigram) = ([], [], [])
        // What is left to write of each key: its word.
        let middleWords = reversedKeys.map(\.v)
        let lastWords = trigramKeys.map(\.u)
        (reversedKeys, trigramKeys) = ([], [])

        // Quantisation, into bytes reserved once: the file's size is known before a byte is written.
        let wordBits = SphinxTrie.requiredBits(vocabulary)
        let nextBits = SphinxTrie.requiredBits(lastWords.count)
        let middleBits = wordBits + 2 * SphinxTrie.binBits + nextBits
        let lastBits = wordBits + SphinxTrie.binBits
        let spelled = words.reduce(0) { $0 + $1.utf8.count + 1 }
        var size = SphinxTrie.header.count + 1 + 4 * order + (vocabulary + 1) * 12 + 4 + spelled
        if order == 3 {
            size +=
                4 + 4 * 3 * SphinxTrie.bins + SphinxTrie.packedSize(entries: middleWords.count, bits: middleBits)
                + SphinxTrie.packedSize(entries: lastWords.count, bits: lastBits)
        } else if order == 2 {
            size += 4 + 4 * SphinxTrie.bins + SphinxTrie.packedSize(entries: middleWords.count, bits: lastBits)
        }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        func append<T>(_ value: T) { withUnsafeBytes(of: value) { out.append(contentsOf: $0) } }
        out.append(contentsOf: SphinxTrie.header)
        out.append(UInt8(order))
        let levelCounts = [vocabulary, middleWords.count, lastWords.count].prefix(order)
        for count in levelCounts { append(UInt32(count)) }
        if order > 1 {
            append(Int32(0))
            let tables = order == 3 ? [middleProb, middleBackoff, longest] : [longest]
            for table in tables {
                for center in table.centers { append(center) }
            }
        }
        for w in 0...vocabulary {
            append(w < vocabulary ? Float(Double(unigramProb[w]) * scale) : 0)
            append(w < vocabulary ? Float(Double(unigramBackoff[w]) * scale) : 0)
            append(UInt32(order > 1 ? unigramNext[w] : 0))
        }
        if order == 3 {
            BitWriter.append(SphinxTrie.packedSize(entries: middleWords.count, bits: middleBits), to: &out) { writer in
                for (index, word) in middleWords.enumerated() {
                    let bit = index * middleBits
                    writer.write(bit, wordBits, Int(word))
                    writer.write(bit + wordBits, SphinxTrie.binBits, Int(middleBackoffBins[index]))
                    writer.write(
                        bit + wordBits + SphinxTrie.binBits, SphinxTrie.binBits, Int(middleProbBins[index]))
                    writer.write(bit + wordBits + 2 * SphinxTrie.binBits, nextBits, Int(trigramNext[index]))
                }
                writer.write(
                    middleWords.count * middleBits + wordBits + 2 * SphinxTrie.binBits, nextBits, lastWords.count)
            }
            BitWriter.append(SphinxTrie.packedSize(entries: lastWords.count, bits: lastBits), to: &out) { writer in
                for (index, word) in lastWords.enumerated() {
                    writer.write(index * lastBits, wordBits, Int(word))
                    writer.write(index * lastBits + wordBits, SphinxTrie.binBits, Int(longestBins[index]))
                }
            }
        } else if order == 2 {
            BitWriter.append(SphinxTrie.packedSize(entries: middleWords.count, bits: lastBits), to: &out) { writer in
                for (index, word) in middleWords.enumerated() {
                    writer.write(index * lastBits, wordBits, Int(word))
                    writer.write(index * lastBits + wordBits, SphinxTrie.binBits, Int(longestBins[index]))
                }
            }
        }
        append(Int32(spelled))
        for word in words {
            out.append(contentsOf: word.utf8)
            out.append(0)
        }
        assert(out.count == size, "the binary model is \(out.count) bytes, \(size) were reserved")
        return out
    }
}

/// Maps scores to one of 65,536 levels: the distinct values themselves when there are few enough,
/// else half an even grid over the range and half equal-count bins whose centre is their mean
/// (sphinxbase's scheme).
struct Quantizer {
    let centers: [Float]
    /// Recent answers of ``encode(_:)``, by the value's bits: a table's scores repeat (a merged model's base
    /// n-grams carry the base's own quantised levels), and a hit skips the search over 65,536 centres.
    private var memo: [(bits: UInt32, index: Int32)]

    /// - Parameters:
    ///   - values: The table's scores.
    ///   - never: The score of ARPA's −99 in the table's units, which keeps a level of its own.
    init(values: [Float], never: Float = -99) {
        memo = values.count < 4096 ? [] : Array(repeating: (UInt32.max, -1), count: 1 << Self.memoBits)
        let sorted = Self.ascending(values)
        var distinct: [Float] = []
        distinct.reserveCapacity(min(sorted.count, SphinxTrie.bins + 1))
        for value in sorted where distinct.last != value {
            distinct.append(value)
            if distinct.count > SphinxTrie.bins { break }
        }
        var centers = [Float](repeating: 0, count: SphinxTrie.bins)
        if distinct.count <= SphinxTrie.bins {
            for index in centers.indices {
                centers[index] = distinct.isEmpty ? 0 : distinct[min(index, distinct.count - 1)]
            }
        } else {
            // Half the levels on an even grid over the table's range, so that no score is off by more
            // than half a grid step however sparse its part of the range; the other half in
            // equal-count bins at their mean (sphinxbase's scheme), finer where scores are dense. A
            // merged model's tables have long sparse tails, where equal-count bins alone were 0.4 nats
            // wide. ARPA's −99 ("never") keeps a level of its own.
            let real = sorted.drop { $0 <= never }
            let hasFloor = real.count < sorted.count
            let grid = SphinxTrie.bins / 2
            let counted = SphinxTrie.bins - grid - (hasFloor ? 1 : 0)
            var levels: [Float] = hasFloor ? [never] : []
            levels.reserveCapacity(SphinxTrie.bins)
            let low = real.first ?? 0
            let high = real.last ?? 0
            for index in 0..<grid { levels.append(low + (high - low) * Float(index) / Float(grid - 1)) }
            let count = real.count
            let first = real.startIndex
            for bin in 0..<counted {
                let start = first + count * bin / counted
                let end = first + count * (bin + 1) / counted
                guard start < end else {
                    levels.append(levels.last ?? low)
                    continue
                }
                var sum = 0.0
                for index in start..<end { sum += Double(real[index]) }
                levels.append(Float(sum / Double(end - start)))
            }
            centers = levels.sorted()
        }
        self.centers = centers
    }

    private static let memoBits = 16

    /// The values in ascending order: a radix sort of their bit patterns (two passes of 16 bits) for a large
    /// table, where the comparison sort took a tenth of a merged model's prepare. Scores are never NaN.
    static func ascending(_ values: [Float]) -> [Float] {
        guard values.count >= 4096 else { return values.sorted() }
        // Bit patterns that order as the values do: negatives inverted, positives with the sign bit set.
        var keys = values.map { value in
            let bits = value.bitPattern
            return bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        }
        var buffer = [UInt32](repeating: 0, count: keys.count)
        for shift: UInt32 in [0, 16] {
            var starts = [Int](repeating: 0, count: 65_537)
            for key in keys { starts[Int((key >> shift) & 0xFFFF) + 1] += 1 }
            for digit in 0..<65_536 { starts[digit + 1] += starts[digit] }
            for key in keys {
                let digit = Int((key >> shift) & 0xFFFF)
                buffer[starts[digit]] = key
                starts[digit] += 1
            }
            swap(&keys, &buffer)
        }
        return keys.map { key in Float(bitPattern: key & 0x8000_0000 != 0 ? key & 0x7FFF_FFFF : ~key) }
    }

    /// The index of the centre nearest to `value`, remembered.
    mutating func encode(_ value: Float) -> Int {
        guard !memo.isEmpty else { return search(value) }
        let bits = value.bitPattern
        let slot = Int((bits &* 0x9E37_79B1) >> UInt32(32 - Self.memoBits))
        if memo[slot].bits == bits { return Int(memo[slot].index) }
        let index = search(value)
        memo[slot] = (bits, Int32(index))
        return index
    }

    /// The index of the centre nearest to `value`.
    func search(_ value: Float) -> Int {
        var low = 0
        var high = centers.count
        while low < high {
            let middle = (low + high) / 2
            if centers[middle] < value { low = middle + 1 } else { high = middle }
        }
        if low == 0 { return 0 }
        if low == centers.count { return centers.count - 1 }
        return value - centers[low - 1] < centers[low] - value ? low - 1 : low
    }
}
