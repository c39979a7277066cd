import Formats

/// Word and character alignment of single utterances.
///
/// ``Scorer`` aligns whole corpora with interned token ids; these entry points are for one pair of token lists,
/// e.g. for display or for tests.
public enum Aligner {
    /// Aligns two word sequences.
    /// - Parameters:
    ///   - reference: Reference words (already normalized).
    ///   - hypothesis: Hypothesis words (already normalized).
    ///   - mode: ``AlignmentMode/sclite`` to match sclite's S/D/I split, ``AlignmentMode/minimal`` for unit costs.
    /// - Returns: The aligned pairs and their counts.
    public static func align(reference: [String], hypothesis: [String], mode: AlignmentMode = .sclite) -> Alignment {
        align(reference: reference, hypothesis: hypothesis, finder: EditPathFinder(mode: mode))
    }

    static func align(reference: [String], hypothesis: [String], finder: EditPathFinder) -> Alignment {
        var ids: [String: Int32] = [:]
        func intern(_ word: String) -> Int32 {
            if let id = ids[word] { return id }
            let id = Int32(ids.count)
            ids[word] = id
            return id
        }
        let refIDs = reference.map(intern)
        let hypIDs = hypothesis.map(intern)
        var finder = finder
        var path: [EditOperation] = []
        refIDs.withUnsafeBufferPointer { ref in
            hypIDs.withUnsafeBufferPointer { hyp in
                finder.align(reference: ref, hypothesis: hyp, into: &path)
            }
        }
        return Alignment(pairs: pairs(path, reference: reference, hypothesis: hypothesis))
    }

    /// Aligns two texts character by character (Unicode scalars of their NFC forms, spaces included), for CER
    /// displays.
    /// - Parameters:
    ///   - reference: Reference text, e.g. normalized words joined by single spaces.
    ///   - hypothesis: Hypothesis text.
    ///   - mode: Cost scheme; the corpus CER in ``ScoreReport`` always uses unit costs.
    /// - Returns: Character pairs and their counts.
    public static func alignCharacters(reference: String, hypothesis: String, mode: AlignmentMode = .minimal)
        -> Alignment
    {
        align(
            reference: NormalForm.composed(reference).unicodeScalars.map(String.init),
            hypothesis: NormalForm.composed(hypothesis).unicodeScalars.map(String.init),
            mode: mode
        )
    }

    /// The unit-cost edit distance between two texts over the Unicode scalars of their NFC forms (the numerator of
    /// CER).
    public static func characterDistance(reference: String, hypothesis: String) -> Int {
        let ref = NormalForm.composed(reference).unicodeScalars.map(\.value)
        let hyp = NormalForm.composed(hypothesis).unicodeScalars.map(\.value)
        var calculator = CharacterDistance()
        return ref.withUnsafeBufferPointer { r in
            hyp.withUnsafeBufferPointer { h in calculator.distance(r, h) }
        }
    }

    static func pairs(_ path: [EditOperation], reference: [String], hypothesis: [String]) -> [AlignedPair] {
        var result: [AlignedPair] = []
        result.reserveCapacity(path.count)
        var i = 0
        var j = 0
        for operation in path {
            switch operation {
            case .correct, .substitution:
                result.append(
                    AlignedPair(
                        operation: operation, referenceIndex: i, hypothesisIndex: j, reference: reference[i],
                        hypothesis: hypothesis[j]))
                i += 1
                j += 1
            case .deletion:
                result.append(
                    AlignedPair(
                        operation: .deletion, referenceIndex: i, hypothesisIndex: nil, reference: reference[i],
                        hypothesis: nil))
                i += 1
            case .insertion:
                result.append(
                    AlignedPair(
                        operation: .insertion, referenceIndex: nil, hypothesisIndex: j, reference: nil,
                        hypothesis: hypothesis[j]))
                j += 1
            }
        }
        return result
    }
}

/// Unit-cost edit distance over 32-bit symbols with Myers' bit-parallel algorithm (Hyyrö's block formulation),
/// after trimming the common prefix and suffix. O(⌈m/64⌉·n) time.
struct CharacterDistance {
    private var peq: [UInt64] = []
    private var positive: [UInt64] = []
    private var negative: [UInt64] = []
    private var scores: [Int] = []
    private var asciiSlot = [Int32](repeating: -1, count: 128)
    private var otherSlot: [UInt32: Int32] = [:]

    mutating func distance(_ reference: UnsafeBufferPointer<UInt32>, _ hypothesis: UnsafeBufferPointer<UInt32>) -> Int {
        var lo = 0
        var refEnd = reference.count
        var hypEnd = hypothesis.count
        while lo < refEnd && lo < hypEnd && reference[lo] == hypothesis[lo] { lo += 1 }
        while refEnd > lo && hypEnd > lo && reference[refEnd - 1] == hypothesis[hypEnd - 1] {
            refEnd -= 1
            hypEnd -= 1
        }
        let m = refEnd - lo
        let n = hypEnd - lo
        if m == 0 { return n }
        if n == 0 { return m }
        let blocks = (m + 63) / 64

        // Give each distinct reference symbol a slot and one bit mask per block.
        var slots = 0
        for index in lo..<refEnd {
            let symbol = reference[index]
            if symbol < 128 {
                if asciiSlot[Int(symbol)] < 0 {
                    asciiSlot[Int(symbol)] = Int32(slots)
                    slots += 1
                }
            } else if otherSlot[symbol] == nil {
                otherSlot[symbol] = Int32(slots)
                slots += 1
            }
        }
        let needed = (slots + 1) * blocks  // the last slot is all zeros for symbols not in the reference
        if peq.count < needed { peq = [UInt64](repeating: 0, count: needed) }
        if positive.count < blocks {
            positive = [UInt64](repeating: 0, count: blocks)
            negative = [UInt64](repeating: 0, count: blocks)
            scores = [Int](repeating: 0, count: blocks)
        }
        for index in 0..<needed { peq[index] = 0 }
        for offset in 0..<m {
            let symbol = reference[lo + offset]
            let slot = symbol < 128 ? Int(asciiSlot[Int(symbol)]) : Int(otherSlot[symbol]!)
            peq[slot * blocks + offset / 64] |= 1 << UInt64(offset % 64)
        }
        for b in 0..<blocks {
            positive[b] = ~0
            negative[b] = 0
            scores[b] = (b + 1) * 64
        }
        let missing = slots
        for column in lo..<hypEnd {
            let symbol = hypothesis[column]
            var slot = missing
            if symbol < 128 {
                let found = asciiSlot[Int(symbol)]
                if found >= 0 { slot = Int(found) }
            } else if let found = otherSlot[symbol] {
                slot = Int(found)
            }
            var carry = 1  // the top row rises by one per column
            let eqBase = slot * blocks
            for b in 0..<blocks {
                carry = Self.advance(&positive[b], &negative[b], peq[eqBase + b], carry)
                scores[b] += carry
            }
        }
        // Undo the vertical deltas of the padding rows below row m in the last block.
        var result = scores[blocks - 1]
        let used = m - (blocks - 1) * 64
        if used < 64 {
            let padding = ~((UInt64(1) << UInt64(used)) - 1)
            result -= (positive[blocks - 1] & padding).nonzeroBitCount
            result += (negative[blocks - 1] & padding).nonzeroBitCount
        }
        for index in lo..<refEnd where reference[index] < 128 { asciiSlot[Int(reference[index])] = -1 }
        if !otherSlot.isEmpty { otherSlot.removeAll(keepingCapacity: true) }
        return result
    }

    /// One 64-row block for one column; `carry` is the horizontal delta entering at the top, the result the delta
    /// leaving at the bottom.
    @inline(__always)
    private static func advance(_ pv: inout UInt64, _ mv: inout UInt64, _ eqIn: UInt64, _ carry: Int) -> Int {
        var eq = eqIn
        let xv = eq | mv
        if carry < 0 { eq |= 1 }
        let xh = (((eq & pv) &+ pv) ^ pv) | eq
        var ph = mv | ~(xh | pv)
        var mh = pv & xh
        var out = 0
        if ph & (1 << 63) != 0 { out = 1 } else if mh & (1 << 63) != 0 { out = -1 }
        ph <<= 1
        mh <<= 1
        if carry < 0 { mh |= 1 } else if carry > 0 { ph |= 1 }
        pv = mh | ~(xv | ph)
        mv = ph & xv
        return out
    }
}
