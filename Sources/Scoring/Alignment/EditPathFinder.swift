/// Finds the minimum-cost edit path between two sequences of interned token ids.
///
/// Rows are reference positions, columns hypothesis positions. Every cell picks its predecessor with sclite's rule:
/// the diagonal if its cost is no more than both others, else the deletion if strictly cheaper than the insertion,
/// else the insertion; the path is traced back from the last cell.
///
/// Small problems keep one direction byte per cell. When `(m+1)·(n+1)` exceeds ``fullMatrixCellLimit`` the forward
/// pass keeps only every k-th cost row (k ≈ √m) as a checkpoint; the backtrace recomputes one block of k rows at a
/// time from its checkpoint. Recomputed rows are bit-identical to the forward pass, so the same tie decisions and
/// therefore the same path are recovered, in O(n·√m) memory instead of O(n·m).
///
/// A value of this type owns scratch buffers reused across calls; give each thread its own.
struct EditPathFinder {
    var costs: EditCosts
    /// Above this many cells the checkpointed algorithm is used.
    var fullMatrixCellLimit: Int

    private var directions: [UInt8] = []
    private var rowA: [Int32] = []
    private var rowB: [Int32] = []
    private var checkpoints: [Int32] = []
    private var block: [Int32] = []

    init(mode: AlignmentMode, fullMatrixCellLimit: Int = 1 << 22) {
        self.costs = mode.costs
        self.fullMatrixCellLimit = fullMatrixCellLimit
    }

    private static let diagonal: UInt8 = 0
    private static let up: UInt8 = 1  // deletion
    private static let left: UInt8 = 2  // insertion

    /// Appends the edit path from start to end to `path`.
    mutating func align(
        reference: UnsafeBufferPointer<Int32>,
        hypothesis: UnsafeBufferPointer<Int32>,
        into path: inout [EditOperation]
    ) {
        let m = reference.count
        let n = hypothesis.count
        let start = path.count
        if m == 0 || n == 0 {
            path.append(contentsOf: repeatElement(EditOperation.deletion, count: m))
            path.append(contentsOf: repeatElement(EditOperation.insertion, count: n))
            return
        }
        if (m + 1) * (n + 1) <= fullMatrixCellLimit {
            alignFull(reference, hypothesis, into: &path)
        } else {
            alignCheckpointed(reference, hypothesis, into: &path)
        }
        path[start...].reverse()
    }

    /// Forward pass keeping a direction byte per cell; appends the path in reverse.
    private mutating func alignFull(
        _ reference: UnsafeBufferPointer<Int32>,
        _ hypothesis: UnsafeBufferPointer<Int32>,
        into path: inout [EditOperation]
    ) {
        let m = reference.count
        let n = hypothesis.count
        let width = n + 1
        let costs = self.costs
        if directions.count < (m + 1) * width { directions = [UInt8](repeating: 0, count: (m + 1) * width) }
        if rowA.count < width {
            rowA = [Int32](repeating: 0, count: width)
            rowB = [Int32](repeating: 0, count: width)
        }
        directions.withUnsafeMutableBufferPointer { dir in
            rowA.withUnsafeMutableBufferPointer { previousRow in
                rowB.withUnsafeMutableBufferPointer { currentRow in
                    var previous = previousRow.baseAddress!
                    var current = currentRow.baseAddress!
                    for j in 0...n {
                        previous[j] = Int32(j) * costs.insertion
                        dir[j] = Self.left
                    }
                    for i in 1...m {
                        let refToken = reference[i - 1]
                        let rowBase = i * width
                        current[0] = Int32(i) * costs.deletion
                        dir[rowBase] = Self.up
                        for j in 1...n {
                            // Adds without overflow checks (here and in every cost loop below): a cost of at most
                            // 4 per word reaches Int32.max only past 500 million words, and the checks took about
                            // a fifth of this loop.
                            let diag = previous[j - 1] &+ (refToken == hypothesis[j - 1] ? 0 : costs.substitution)
                            let del = previous[j] &+ costs.deletion
                            let ins = current[j - 1] &+ costs.insertion
                            if diag <= del && diag <= ins {
                                current[j] = diag
                                dir[rowBase + j] = Self.diagonal
                            } else if del < ins {
                                current[j] = del
                                dir[rowBase + j] = Self.up
                            } else {
                                current[j] = ins
                                dir[rowBase + j] = Self.left
                            }
                        }
                        swap(&previous, &current)
                    }
                }
            }
            var i = m
            var j = n
            while i > 0 || j > 0 {
                switch dir[i * width + j] {
                case Self.diagonal:
                    path.append(reference[i - 1] == hypothesis[j - 1] ? .correct : .substitution)
                    i -= 1
                    j -= 1
                case Self.up:
                    path.append(.deletion)
                    i -= 1
                default:
                    path.append(.insertion)
                    j -= 1
                }
            }
        }
    }

    /// Computes `count` cost rows after the row `firstRow`, which must already be in `rows[0..<n+1]`.
    private static func fillRows(
        _ rows: UnsafeMutablePointer<Int32>,
        firstRow: Int,
        count: Int,
        _ reference: UnsafeBufferPointer<Int32>,
        _ hypothesis: UnsafeBufferPointer<Int32>,
        _ costs: EditCosts
    ) {
        let n = hypothesis.count
        let width = n + 1
        guard count > 0 else { return }
        for r in 1...count {
            let i = firstRow + r
            let refToken = reference[i - 1]
            let previous = rows + (r - 1) * width
            let current = rows + r * width
            current[0] = Int32(i) * costs.deletion
            for j in 1...n {
                let diag = previous[j - 1] &+ (refToken == hypothesis[j - 1] ? 0 : costs.substitution)
                let del = previous[j] &+ costs.deletion
                let ins = current[j - 1] &+ costs.insertion
                current[j] = min(diag, del, ins)
            }
        }
    }

    /// Forward pass keeping every k-th row, then a block-wise backtrace; appends the path in reverse.
    private mutating func alignCheckpointed(
        _ reference: UnsafeBufferPointer<Int32>,
        _ hypothesis: UnsafeBufferPointer<Int32>,
        into path: inout [EditOperation]
    ) {
        let m = reference.count
        let n = hypothesis.count
        let width = n + 1
        let costs = self.costs
        var k = 1
        while k * k < m { k += 1 }
        let checkpointCount = m / k + 1
        checkpoints = [Int32](repeating: 0, count: checkpointCount * width)
        block = [Int32](repeating: 0, count: (k + 1) * width)
        var scratch = [Int32](repeating: 0, count: 2 * width)
        checkpoints.withUnsafeMutableBufferPointer { saved in
            scratch.withUnsafeMutableBufferPointer { pair in
                let rows = pair.baseAddress!
                for j in 0...n { rows[j] = Int32(j) * costs.insertion }
                saved.baseAddress!.update(from: rows, count: width)
                // Advance one row at a time, copying every k-th row out.
                for i in 1...m {
                    Self.fillRows(rows, firstRow: i - 1, count: 1, reference, hypothesis, costs)
                    rows.update(from: rows + width, count: width)
                    if i % k == 0 { (saved.baseAddress! + (i / k) * width).update(from: rows, count: width) }
                }
            }
        }
        var i = m
        var j = n
        block.withUnsafeMutableBufferPointer { blockBuffer in
            checkpoints.withUnsafeBufferPointer { saved in
                let rows = blockBuffer.baseAddress!
                while i > 0 {
                    let base = ((i - 1) / k) * k
                    let rowCount = min(k, m - base)
                    rows.update(from: saved.baseAddress! + (base / k) * width, count: width)
                    Self.fillRows(rows, firstRow: base, count: rowCount, reference, hypothesis, costs)
                    while i > base {
                        let current = rows + (i - base) * width
                        let previous = current - width
                        if j == 0 {
                            path.append(.deletion)
                            i -= 1
                            continue
                        }
                        let equal = reference[i - 1] == hypothesis[j - 1]
                        let diag = previous[j - 1] + (equal ? 0 : costs.substitution)
                        let del = previous[j] &+ costs.deletion
                        let ins = current[j - 1] &+ costs.insertion
                        if diag <= del && diag <= ins {
                            path.append(equal ? .correct : .substitution)
                            i -= 1
                            j -= 1
                        } else if del < ins {
                            path.append(.deletion)
                            i -= 1
                        } else {
                            path.append(.insertion)
                            j -= 1
                        }
                    }
                }
            }
        }
        path.append(contentsOf: repeatElement(EditOperation.insertion, count: j))
        checkpoints = []
        block = []
    }
}
