import Foundation

/// The one reader of ARPA text in Gambit: the custom model's file, the base model's, any model a user hands to
/// `gambit prepare --perplexity`. ``BackoffModel`` (any order) and ``TrigramTables`` (the base model, order ≤ 3)
/// build their tables from what it reads, so that every ARPA file is read by the same rules.
///
/// The rules: LF ends a line (a CR before it is a separator, so CRLF files read the same); spaces, tabs and CRs
/// separate fields; blank lines are skipped. Text before `\data\` is skipped, but a section marker there is an
/// error. The header holds `ngram k=COUNT` for k = 1, 2, …, nothing else. `\n-grams:` starts section n, which the
/// header must declare; any other marker is an error. In section n a line is `logprob w1 … wn [backoff]`, numbers as
/// `strtod` reads them. After `\end\` nothing is read; a missing `\end\` is tolerated. Each section's line count
/// must be what the header declares. What a repeated n-gram means is the table's to say.
enum ARPAReader {
    /// One n-gram line, its fields as byte ranges into the text.
    struct Gram {
        /// The n-gram's order.
        var order: Int
        /// The words' byte ranges.
        var words: ArraySlice<Range<Int>>
        var logProb: Double
        /// The backoff weight (log10), nil when the line has none.
        var backoff: Double?
        /// 1-based.
        var line: Int
    }

    /// Reads `buffer`, ARPA text followed by one NUL byte (which stops `strtod` at the end of the last number).
    /// - Parameters:
    ///   - maxOrder: The highest order the caller can hold, and why (a higher section is an error saying so).
    ///   - declared: Called once the header is read, with the declared count of each order.
    ///   - gram: Called for each n-gram line, in order; `text` spells a byte range.
    /// - Throws: ``ARPAError`` naming the line of anything malformed, or the count that does not match.
    static func read(
        _ buffer: UnsafeBufferPointer<UInt8>, maxOrder: (order: Int, why: String)? = nil,
        declared: ([Int]) throws -> Void = { _ in },
        gram: (Gram, _ text: (Range<Int>) -> String) throws -> Void
    ) throws {
        let base = buffer.baseAddress!
        let end = buffer.count - 1
        var state = State()
        var tokens: [Range<Int>] = []
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count), as: UTF8.self)
        }
        var position = 0
        while position < end, !state.ended {
            var lineEnd = position
            while lineEnd < end && base[lineEnd] != 10 { lineEnd += 1 }
            state.line += 1
            defer { position = lineEnd + 1 }
            tokens.removeAll(keepingCapacity: true)
            var index = position
            while index < lineEnd {
                while index < lineEnd && (base[index] == 32 || base[index] == 9 || base[index] == 13) { index += 1 }
                let tokenStart = index
                while index < lineEnd && base[index] != 32 && base[index] != 9 && base[index] != 13 { index += 1 }
                if index > tokenStart { tokens.append(tokenStart..<index) }
            }
            guard let first = tokens.first else { continue }
            if base[first.lowerBound] == UInt8(ascii: "\\") {
                try state.marker(text(first), maxOrder: maxOrder, declared: declared)
                continue
            }
            switch state.section {
            case .before: continue
            case .header: try state.count(text(position..<lineEnd).trimmingCharacters(in: .whitespacesAndNewlines))
            case .grams(let n):
                guard tokens.count == n + 1 || tokens.count == n + 2 else {
                    throw state.error("expected `logprob w1 … w\(n) [backoff]`, found \(text(position..<lineEnd))")
                }
                let logProb = try state.number(tokens[0], in: base, text: text)
                let backoff = tokens.count == n + 2 ? try state.number(tokens[n + 1], in: base, text: text) : nil
                state.seen[n - 1] += 1
                try gram(
                    Gram(order: n, words: tokens[1...n], logProb: logProb, backoff: backoff, line: state.line), text)
            }
        }
        if !state.reported {
            state.reported = true
            try declared(state.declared)
        }
        try state.finish()
    }

    /// Where the reader is, and what the header declared.
    private struct State {
        enum Section: Equatable {
            case before, header
            case grams(Int)
        }
        var section = Section.before
        var declared: [Int] = []
        var seen: [Int] = []
        var ended = false
        var line = 0
        var reported = false

        func error(_ message: String) -> ARPAError { ARPAError(line: line, message: message) }

        mutating func marker(
            _ marker: String, maxOrder: (order: Int, why: String)?, declared reportDeclared: ([Int]) throws -> Void
        ) throws {
            if marker == "\\data\\" {
                section = .header
            } else if marker == "\\end\\" {
                ended = true
            } else if marker.hasSuffix("-grams:"), let n = Int(marker.dropFirst().dropLast("-grams:".count)) {
                guard section != .before else { throw error("section before \\data\\") }
                if !reported {
                    reported = true
                    try reportDeclared(declared)
                }
                if let maxOrder, n > maxOrder.order {
                    throw error("order \(n) is above \(maxOrder.order); \(maxOrder.why)")
                }
                guard n >= 1, n <= declared.count else { throw error("section \(marker) is not declared in \\data\\") }
                section = .grams(n)
            } else {
                throw error("unknown section \(marker)")
            }
        }

        /// One header line: `ngram k=COUNT` for the next k.
        mutating func count(_ text: String) throws {
            let parts = text.hasPrefix("ngram ") ? text.dropFirst(6).split(separator: "=") : []
            guard parts.count == 2, let n = Int(parts[0].trimmingCharacters(in: .whitespaces)),
                let count = Int(parts[1].trimmingCharacters(in: .whitespaces)), n == declared.count + 1, count >= 0
            else { throw error("expected `ngram \(declared.count + 1)=COUNT`, found \(text)") }
            declared.append(count)
            seen.append(0)
        }

        func number(
            _ range: Range<Int>, in base: UnsafePointer<UInt8>, text: (Range<Int>) -> String
        ) throws -> Double {
            var stop: UnsafeMutablePointer<CChar>?
            let start = UnsafeMutableRawPointer(mutating: base + range.lowerBound).assumingMemoryBound(to: CChar.self)
            let value = strtod(start, &stop)
            guard let stop, stop == start + range.count else { throw error("'\(text(range))' is not a number") }
            return value
        }

        func finish() throws {
            guard !declared.isEmpty else { throw ARPAError(line: nil, message: "no \\data\\ header") }
            for (index, count) in declared.enumerated() where seen[index] != count {
                throw ARPAError(
                    line: nil,
                    message: "\\data\\ declares \(count) \(index + 1)-grams but the section has \(seen[index])")
            }
        }
    }

    /// `body` over the bytes of `data` followed by one NUL.
    static func withTerminatedBytes<Result>(
        _ bytes: some Sequence<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) throws -> Result {
        var terminated = Array(bytes)
        terminated.append(0)
        return try terminated.withUnsafeBufferPointer(body)
    }
}
