import Yams

/// The keys a YAML (or JSON) document a user writes may have, so that a misspelt key is an error
/// rather than a silently ignored line that leaves a default in force.
///
/// A schema says only which keys may appear where; the loaders still check values. Suites and gate
/// thresholds are checked against one before their values are read, so a typo is reported with its
/// line and the nearest known key; training data checks its keys as it reads them, with the same
/// ``nearestKey(to:in:)``.
public indirect enum KeySchema: Sendable {
    /// A mapping with these keys, each with the schema of its value.
    case mapping([String: KeySchema])
    /// A mapping whose keys are names the user chooses (for example corpus names); every value
    /// follows the schema.
    case namedEntries(KeySchema)
    /// A list whose items follow the schema; a single value in its place is checked as one item.
    case list(KeySchema)
    /// A value whose inside is not checked here: a scalar, or anything the loader checks itself.
    case value

    /// Checks `node` and everything below it.
    ///
    /// - Parameters:
    ///   - node: The composed YAML node.
    ///   - context: How the error names the place of `node`, for example "the top level".
    /// - Throws: ``UnknownKeyError`` for the first key the schema does not allow, in document order.
    public func check(_ node: Node, context: String = "the top level") throws(UnknownKeyError) {
        switch self {
        case .value:
            return
        case .list(let item):
            guard let sequence = node.sequence else {
                try item.check(node, context: context)
                return
            }
            for (index, element) in sequence.enumerated() {
                try item.check(element, context: "\(context)[\(index)]")
            }
        case .namedEntries(let entry):
            guard let mapping = node.mapping else { return }
            for (key, value) in mapping {
                try entry.check(value, context: Self.child(context, key.scalar?.string ?? "?"))
            }
        case .mapping(let allowed):
            // A mapping where a mapping belongs is the loader's to report, with its own wording.
            guard let mapping = node.mapping else { return }
            for (keyNode, value) in mapping {
                let key = keyNode.scalar?.string ?? "?"
                guard let schema = allowed[key] else {
                    throw UnknownKeyError(
                        key: key, context: context, line: keyNode.mark?.line, column: keyNode.mark?.column,
                        allowed: allowed.keys.sorted())
                }
                try schema.check(value, context: Self.child(context, key))
            }
        }
    }

    private static func child(_ context: String, _ key: String) -> String {
        context == "the top level" ? key : "\(context).\(key)"
    }
}

/// A key that a file's schema does not allow: most often a typo.
public struct UnknownKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key as written.
    public var key: String
    /// Where it is, for example "variants[2]" or "gate.corpora.chess".
    public var context: String
    /// The line of the key (1-based), when known.
    public var line: Int?
    /// The column of the key (1-based), when known.
    public var column: Int?
    /// The keys allowed there, sorted.
    public var allowed: [String]

    public init(key: String, context: String, line: Int?, column: Int? = nil, allowed: [String]) {
        self.key = key
        self.context = context
        self.line = line
        self.column = column
        self.allowed = allowed
    }

    /// The allowed key nearest to ``key``, when it is near enough to be what was meant.
    public var suggestion: String? { nearestKey(to: key, in: allowed) }

    /// "unknown key `wieght` in variants[0]; did you mean `weight`? Allowed keys: …", without a location.
    public var description: String {
        var text = "unknown key `\(key)` in \(context)"
        if let suggestion { text += "; did you mean `\(suggestion)`?" }
        return text + " Allowed keys: " + allowed.map { "`\($0)`" }.joined(separator: ", ") + "."
    }
}

/// The candidate nearest to `word` by edit distance (case-insensitive), if it is close enough to be a
/// plausible typo: at most one edit, or a third of the candidate's length.
///
/// - Parameters:
///   - word: What the user wrote.
///   - candidates: What they could have meant.
/// - Returns: The nearest candidate (the first in sorted order on a tie), or nil when none is close.
public func nearestKey(to word: String, in candidates: [String]) -> String? {
    var best: (candidate: String, distance: Int)?
    for candidate in candidates.sorted() {
        let distance = editDistance(Array(word.lowercased()), Array(candidate.lowercased()))
        if distance <= max(1, candidate.count / 3), best.map({ distance < $0.distance }) ?? true {
            best = (candidate, distance)
        }
    }
    return best?.candidate
}

/// Edit distance with unit costs where swapping two neighbours is one edit (optimal string alignment),
/// since "modse" for "modes" is one slip of the fingers.
private func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
    if lhs.isEmpty { return rhs.count }
    if rhs.isEmpty { return lhs.count }
    var distance = [[Int]](repeating: [Int](repeating: 0, count: rhs.count + 1), count: lhs.count + 1)
    for i in 0...lhs.count { distance[i][0] = i }
    for j in 0...rhs.count { distance[0][j] = j }
    for i in 1...lhs.count {
        for j in 1...rhs.count {
            let cost = lhs[i - 1] == rhs[j - 1] ? 0 : 1
            distance[i][j] = min(distance[i - 1][j] + 1, distance[i][j - 1] + 1, distance[i - 1][j - 1] + cost)
            if i > 1, j > 1, lhs[i - 1] == rhs[j - 2], lhs[i - 2] == rhs[j - 1] {
                distance[i][j] = min(distance[i][j], distance[i - 2][j - 2] + 1)
            }
        }
    }
    return distance[lhs.count][rhs.count]
}
