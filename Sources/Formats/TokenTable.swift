/// Interns byte strings (words, utterance ids) to dense `Int32` ids so alignment compares integers.
///
/// Open addressing with linear probing over FNV-1a hashes; the bytes of every distinct string live in one arena.
/// A class because it owns manually allocated memory and is shared, mutably, by the readers of one scoring run;
/// it is never used from two threads.
package final class TokenTable {
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCapacity: Int
    private var arenaCount = 0
    /// Token `t` occupies `arena[ends[t] ..< ends[t + 1]]`. Raw storage rather than arrays keeps exclusivity and
    /// uniqueness checks out of the per-token path.
    private var ends: UnsafeMutablePointer<Int32>
    private var hashes: UnsafeMutablePointer<UInt32>
    private var tokenCapacity: Int
    /// Number of distinct strings.
    package private(set) var count = 0
    private var slots: UnsafeMutablePointer<Int32>
    private var slotMask: Int

    package init(expectedCount: Int = 1 << 12) {
        var capacity = 16
        while capacity < expectedCount * 2 { capacity <<= 1 }
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: -1, count: capacity)
        slotMask = capacity - 1
        arenaCapacity = max(64, expectedCount * 8)
        arena = .allocate(capacity: arenaCapacity)
        tokenCapacity = max(16, expectedCount)
        ends = .allocate(capacity: tokenCapacity + 1)
        ends[0] = 0
        hashes = .allocate(capacity: tokenCapacity)
    }

    deinit {
        slots.deallocate()
        arena.deallocate()
        ends.deallocate()
        hashes.deallocate()
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for index in 0..<length {
            h = (h ^ UInt32(bytes[index])) &* 16_777_619
        }
        return h
    }

    /// Returns the id of `bytes[0..<length]`, adding it if new.
    package func intern(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int32 {
        let h = Self.hash(bytes, length)
        // Locals keep the probe loop free of repeated class-property accesses.
        let slots = self.slots
        let mask = slotMask
        let hashes = self.hashes
        let ends = self.ends
        let arena = self.arena
        var slot = Int(h) & mask
        while true {
            let id = Int(slots[slot])
            if id < 0 { break }
            if hashes[id] == h {
                let start = Int(ends[id])
                if Int(ends[id + 1]) - start == length && memoryEqual(arena + start, bytes, length) { return Int32(id) }
            }
            slot = (slot + 1) & mask
        }
        return insert(bytes, length, hash: h, slot: slot)
    }

    private func insert(_ bytes: UnsafePointer<UInt8>, _ length: Int, hash h: UInt32, slot: Int) -> Int32 {
        let id = Int32(count)
        if count == tokenCapacity {
            let capacity = tokenCapacity * 2
            let grownEnds = UnsafeMutablePointer<Int32>.allocate(capacity: capacity + 1)
            grownEnds.update(from: ends, count: count + 1)
            ends.deallocate()
            ends = grownEnds
            let grownHashes = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
            grownHashes.update(from: hashes, count: count)
            hashes.deallocate()
            hashes = grownHashes
            tokenCapacity = capacity
        }
        if arenaCount + length > arenaCapacity {
            var capacity = arenaCapacity * 2
            while capacity < arenaCount + length { capacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: arena, count: arenaCount)
            arena.deallocate()
            arena = grown
            arenaCapacity = capacity
        }
        (arena + arenaCount).update(from: bytes, count: length)
        arenaCount += length
        ends[count + 1] = Int32(arenaCount)
        hashes[count] = h
        count += 1
        slots[slot] = id
        if count * 2 > slotMask { grow() }
        return id
    }

    /// Returns the id of a string, adding it if new.
    package func intern(_ string: String) -> Int32 {
        var string = string
        return string.withUTF8 { intern($0.baseAddress ?? UnsafePointer(arena), $0.count) }
    }

    /// The id of a string if it was interned.
    package func lookup(_ string: String) -> Int32? {
        var string = string
        return string.withUTF8 { buffer -> Int32? in
            let length = buffer.count
            let bytes = buffer.baseAddress ?? UnsafePointer(arena)
            let h = Self.hash(bytes, length)
            var slot = Int(h) & slotMask
            while true {
                let id = slots[slot]
                if id < 0 { return nil }
                let start = Int(ends[Int(id)])
                let end = Int(ends[Int(id) + 1])
                if hashes[Int(id)] == h && end - start == length && memoryEqual(arena + start, bytes, length) {
                    return id
                }
                slot = (slot + 1) & slotMask
            }
        }
    }

    /// The string for an id.
    package func string(_ id: Int32) -> String {
        let start = Int(ends[Int(id)])
        let end = Int(ends[Int(id) + 1])
        return String(decoding: UnsafeBufferPointer(start: arena + start, count: end - start), as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 bytes of an id.
    package func withBytes<R>(_ id: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let start = Int(ends[Int(id)])
        let end = Int(ends[Int(id) + 1])
        return body(UnsafeBufferPointer(start: arena + start, count: end - start))
    }

    private func grow() {
        let capacity = (slotMask + 1) * 2
        slots.deallocate()
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: -1, count: capacity)
        slotMask = capacity - 1
        for id in 0..<count {
            var slot = Int(hashes[id]) & slotMask
            while slots[slot] >= 0 { slot = (slot + 1) & slotMask }
            slots[slot] = Int32(id)
        }
    }
}

@inline(__always)
package func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
    var index = 0
    while index < length {
        if a[index] != b[index] { return false }
        index += 1
    }
    return true
}

extension TokenTable {
    /// The table's strings in id order, as a value another thread can read.
    package var list: TokenList {
        TokenList(
            bytes: Array(UnsafeBufferPointer(start: arena, count: Int(ends[count]))),
            ends: Array(UnsafeBufferPointer(start: ends, count: count + 1)))
    }
}

/// A ``TokenTable``'s strings as a value: token `t` is `bytes[ends[t] ..< ends[t + 1]]`.
package struct TokenList: Sendable {
    fileprivate let bytes: [UInt8]
    fileprivate let ends: [Int32]

    package var count: Int { ends.count - 1 }

    package func withBytes<R>(_ id: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[Int(ends[id])..<Int(ends[id + 1])]))
        }
    }
}
