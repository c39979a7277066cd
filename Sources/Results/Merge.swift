extension RunResults {
    /// Combines the shards of one run of one suite into the results a single, unsharded run would have produced.
    ///
    /// Utterance records are pooled (per system, in corpus order) and every aggregate is recomputed from them with
    /// ``Aggregation`` (see ``recomputingAggregates()``), so accuracy numbers, intervals and tests are exact.
    /// What records cannot give is combined as follows: model-load and decode wall seconds are summed, peak memory
    /// is the maximum, corpus utterance counts and audio seconds are summed, `createdAt` is the earliest, variant
    /// preparation timings are the first shard's. Checks with the same name are combined conservatively (passed
    /// only if passed in every shard; the failing shard's numbers are kept); `gambit merge` then judges every check
    /// it can again over the merged results (`Checks.reevaluated`), as one process would have.
    ///
    /// A merge must cover every shard of the run: results made of some shards only would read as the whole run.
    /// With `allowPartial` the missing shards are recorded in ``RunInfo/partial`` instead, and every report says
    /// so. A partial merge is itself an input: merging it with the missing shards later gives the complete run.
    /// - Parameters:
    ///   - shards: Results of the shards (or of earlier partial merges), in any order.
    ///   - allowPartial: Merge even when shards are missing, and record which in ``RunInfo/partial``.
    /// - Returns: The merged results, with no ``RunInfo/shard``.
    /// - Throws: ``MissingShardsError`` when shards are missing and `allowPartial` is false; ``ResultsError`` when
    ///   there is nothing to merge, when the shards come from different suites (content hash), versions, engines,
    ///   settings or variants, when two shards have the same index, or when an utterance appears in two shards.
    public static func merge(_ shards: [RunResults], allowPartial: Bool = false) throws -> RunResults {
        guard !shards.isEmpty else { throw ResultsError.nothingToMerge }
        let ordered = shards.sorted {
            ($0.shardsCovered?.indices.first ?? -1) < ($1.shardsCovered?.indices.first ?? -1)
        }
        let first = ordered[0]
        try requireSameRun(ordered)
        let partial = try missingShards(of: ordered, allowPartial: allowPartial)
        let sweeps = ordered.compactMap(\.sweep)
        if let sweep = sweeps.first, sweeps.contains(where: { $0 != sweep }) {
            throw ResultsError.mergeMismatch(what: "sweep", detail: "shards carry different sweeps")
        }

        var merged = first
        merged.run.shard = nil
        merged.run.partial = partial
        merged.run.createdAt = ordered.map(\.run.createdAt).min() ?? first.run.createdAt
        merged.networkDenial = mergeDenial(ordered.map(\.networkDenial))
        merged.sweep = sweeps.first
        // Each shard's time is its own (they may have run on different machines at once).
        merged.timings = nil
        merged.run.externalRecognizers = mergeExternal(ordered.map { $0.run.externalRecognizers ?? [] })
        merged.corpora = try mergeCorpora(ordered.flatMap(\.corpora))
        let systems = try poolSystems(ordered.flatMap(\.systems))
        merged.systems = inReportOrder(
            systems, corpusOrder: merged.corpora.map(\.name), variantOrder: merged.variants.map(\.name))
        merged.checks = mergeChecks(ordered.flatMap(\.checks))
        return merged.recomputingAggregates()
    }

    /// Throws unless every shard comes from the same run as the first: the same suite content, gambit version,
    /// engine, settings and variants (timings aside), since results of different runs cannot be pooled.
    private static func requireSameRun(_ ordered: [RunResults]) throws {
        let first = ordered[0]
        func same<T: Equatable>(_ what: String, _ value: (RunResults) -> T, show: (T) -> String) throws {
            for shard in ordered.dropFirst() where value(shard) != value(first) {
                throw ResultsError.mergeMismatch(
                    what: what, detail: "\(show(value(first))) vs \(show(value(shard)))")
            }
        }
        try same("suite content hash", { $0.run.suite.contentHash }, show: { $0 })
        try same("gambit version", { $0.run.gambitVersion }, show: { $0 })
        try same(
            "engine", { $0.run.engine }, show: { "\($0.name) \($0.version), model \($0.acousticModelFingerprint)" })
        try same(
            "settings", { $0.run.settings }, show: { "\($0.workers) workers, \($0.alignmentMode), \($0.normalization)" }
        )
        try same("variants", { $0.variants.map(\.withoutTimings) }, show: { $0.map(\.name).joined(separator: ", ") })
    }

    /// The shards of the run that none of `ordered` covers, as the merged results' ``RunInfo/partial``: nil when
    /// all are there or the results are unsharded. Throws for a shard given twice or split differently, and for
    /// missing shards unless `allowPartial`.
    private static func missingShards(of ordered: [RunResults], allowPartial: Bool) throws -> PartialRun? {
        let first = ordered[0]
        var seenIndices = Set<Int>()
        let shardCount = first.shardsCovered?.count ?? 1
        for shard in ordered {
            guard let covered = shard.shardsCovered else { continue }
            if covered.count != shardCount {
                throw ResultsError.mergeMismatch(what: "shard count", detail: "\(shardCount) vs \(covered.count)")
            }
            for index in covered.indices where !seenIndices.insert(index).inserted {
                throw ResultsError.mergeMismatch(what: "shard index", detail: "shard \(index) given twice")
            }
        }
        guard first.shardsCovered != nil else { return nil }
        let missing = (0..<shardCount).filter { !seenIndices.contains($0) }
        guard !missing.isEmpty else { return nil }
        let present = seenIndices.sorted()
        guard allowPartial else {
            throw MissingShardsError(
                suite: first.run.suite.name, createdAt: ordered.map(\.run.createdAt).min() ?? "",
                shardCount: shardCount, present: present, missing: missing)
        }
        return PartialRun(shardCount: shardCount, present: present, missing: missing)
    }

    /// The shards' corpora in order of first appearance, each once, with utterance counts and audio seconds
    /// summed. Throws when two shards give one corpus different roles or splits.
    private static func mergeCorpora(_ all: [CorpusInfo]) throws -> [CorpusInfo] {
        var corpora: [CorpusInfo] = []
        for corpus in all {
            if let index = corpora.firstIndex(where: { $0.name == corpus.name }) {
                let existing = corpora[index]
                guard existing.role == corpus.role, existing.split == corpus.split else {
                    throw ResultsError.mergeMismatch(
                        what: "corpus \(corpus.name)",
                        detail: "\(existing.role.rawValue)/\(existing.split) vs \(corpus.role.rawValue)/\(corpus.split)"
                    )
                }
                corpora[index].utteranceCount += corpus.utteranceCount
                corpora[index].audioSeconds += corpus.audioSeconds
            } else {
                corpora.append(corpus)
            }
        }
        return corpora
    }

    /// The shards' systems pooled by key, in order of first appearance: records appended, load and decode
    /// seconds summed, peak memory the maximum. Throws when two shards hold the same utterance of a system.
    private static func poolSystems(_ all: [SystemResults]) throws -> [SystemResults] {
        var systems: [SystemResults] = []
        var seen: [String: Set<String>] = [:]
        for system in all {
            for record in system.utterances where !seen[system.key, default: []].insert(record.id).inserted {
                throw ResultsError.overlappingShards(system: system.key, utterance: record.id)
            }
            if let index = systems.firstIndex(where: { $0.key == system.key }) {
                systems[index].utterances += system.utterances
                systems[index].timing.modelLoadSeconds += system.timing.modelLoadSeconds
                systems[index].timing.decodeWallSeconds += system.timing.decodeWallSeconds
                systems[index].timing.peakResidentMegabytes = max(
                    systems[index].timing.peakResidentMegabytes, system.timing.peakResidentMegabytes)
            } else {
                systems.append(system)
            }
        }
        return systems
    }

    /// The systems in the order one run lists them: by corpus, built-in before external recognizers, by mode and
    /// by variant; ties keep the pooled order, so that the merge gives the same results as a single run.
    private static func inReportOrder(
        _ systems: [SystemResults], corpusOrder: [String], variantOrder: [String]
    ) -> [SystemResults] {
        func rank(_ s: SystemResults) -> (Int, Int, Int, Int) {
            let mode = SystemMode.allCases.firstIndex(of: s.mode) ?? 0
            return (
                corpusOrder.firstIndex(of: s.corpus) ?? Int.max, s.recognizer == nil ? 0 : 1, mode,
                s.variant.flatMap { variantOrder.firstIndex(of: $0) } ?? -1
            )
        }
        return systems.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element), rank(b.element))
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    /// The shards' checks, each name once in order of first appearance. A failed check replaces a passed one and a
    /// run check a skipped one, so that a check passes only if it passed in every shard.
    private static func mergeChecks(_ all: [Check]) -> [Check] {
        var checks: [Check] = []
        for check in all {
            if let index = checks.firstIndex(where: { $0.name == check.name }) {
                if (checks[index].passed && !check.passed)
                    || (checks[index].isSkipped && !check.isSkipped)
                {
                    checks[index] = check
                }
            } else {
                checks.append(check)
            }
        }
        return checks
    }

    /// Each external recognizer's counts summed over the shards (each decoded its own utterances); its
    /// customizations are the first shard's, but a prepare that failed in any shard is kept as failed, and one
    /// any shard made (rather than found in the cache) is kept as made, with whether it ran with the network denied.
    private static func mergeExternal(_ shards: [[ExternalRecognizerInfo]]) -> [ExternalRecognizerInfo]? {
        guard let first = shards.first, !first.isEmpty else { return nil }
        var merged = first
        for shard in shards.dropFirst() {
            for recognizer in shard {
                guard let index = merged.firstIndex(where: { $0.name == recognizer.name }) else {
                    merged.append(recognizer)
                    continue
                }
                merged[index].decodings += recognizer.decodings
                merged[index].networkDenied += recognizer.networkDenied
                for customization in recognizer.customizations ?? [] {
                    guard
                        let c = merged[index].customizations?.firstIndex(where: { $0.variant == customization.variant })
                    else { continue }
                    let kept = merged[index].customizations![c]
                    if (kept.failure == nil && customization.failure != nil) || (kept.cached && !customization.cached)
                        || (kept.networkDenied && !customization.networkDenied)
                    {
                        merged[index].customizations![c] = customization
                    }
                }
            }
        }
        return merged
    }

    private static func mergeDenial(_ all: [NetworkDenialEvidence]) -> NetworkDenialEvidence {
        guard let first = all.first, all.contains(where: { $0 != first }) else { return all.first ?? .none }
        // Counted evidence adds up to what one process would have said of all the decodings.
        let counts = all.compactMap { evidence in evidence.decodings.flatMap { d in evidence.denied.map { (d, $0) } } }
        if counts.count == all.count {
            let methods = Set(all.flatMap { $0.method.components(separatedBy: "; ") }).sorted()
            return .workers(
                denied: counts.reduce(0) { $0 + $1.1 }, of: counts.reduce(0) { $0 + $1.0 }, methods: methods)
        }
        var methods: [String] = []
        var details: [String] = []
        for evidence in all {
            if !methods.contains(evidence.method) { methods.append(evidence.method) }
            if !details.contains(evidence.detail) { details.append(evidence.detail) }
        }
        return NetworkDenialEvidence(
            method: methods.joined(separator: " + "), verified: all.allSatisfy(\.verified),
            detail: details.joined(separator: "; "))
    }
}

extension RunResults {
    /// The shards these results hold, as indices of how many: a shard's own, or those a partial merge holds;
    /// `nil` for a whole run.
    var shardsCovered: (count: Int, indices: [Int])? {
        if let shard = run.shard { return (shard.count, [shard.index]) }
        if let partial = run.partial { return (partial.shardCount, partial.present) }
        return nil
    }
}

/// A merge was asked for without every shard of the run, and not as a partial merge.
public struct MissingShardsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The suite's name.
    public var suite: String
    /// The earliest shard's start time, which tells runs of one suite apart.
    public var createdAt: String
    /// How many shards the run was split into.
    public var shardCount: Int
    /// Zero-based indices of the shards given, ascending.
    public var present: [Int]
    /// Zero-based indices of the shards not given, ascending.
    public var missing: [Int]

    public init(suite: String, createdAt: String, shardCount: Int, present: [Int], missing: [Int]) {
        self.suite = suite
        self.createdAt = createdAt
        self.shardCount = shardCount
        self.present = present
        self.missing = missing
    }

    public var description: String {
        "Cannot merge: missing shards \(PartialRun.list(missing, of: shardCount)) of run of suite \"\(suite)\" "
            + "(started \(createdAt)); given \(PartialRun.list(present, of: shardCount)). Merge every shard's results, "
            + "or pass --partial to merge these and mark every report as partial."
    }
}

extension VariantInfo {
    /// The variant without its preparation timings, which legitimately differ between shards.
    var withoutTimings: VariantInfo {
        var copy = self
        copy.prepareSeconds = PrepareTimings()
        return copy
    }
}
