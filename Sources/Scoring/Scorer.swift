import Formats
import Foundation
import Synchronization

/// The scoring entry points: files (or utterances) in, a ``ScoreReport`` or ``SystemComparison`` out.
public enum Scorer {
    /// Scores a hypothesis file against a reference file.
    /// - Parameters:
    ///   - reference: Reference transcript (`trn`, `stm`, `ctm` or `jsonl`; format from the extension).
    ///   - hypothesis: Hypothesis transcript.
    ///   - mode: ``AlignmentMode/sclite`` (default) or ``AlignmentMode/minimal``.
    ///   - normalizer: Normalization applied to both sides.
    ///   - boostedWords: Boosted vocabulary for B-WER/U-WER and keyword scores.
    ///   - terms: Terms scored by position (keyword recall/precision/F1).
    /// - Returns: The report.
    /// - Throws: ``ScoringError`` for unreadable or malformed input.
    public static func score(
        reference: URL,
        hypothesis: URL,
        mode: AlignmentMode = .sclite,
        normalizer: Normalizer = .standard,
        boostedWords: [String] = [],
        terms: [String] = []
    ) throws -> ScoreReport {
        try score(
            reference: reference, hypothesis: hypothesis,
            options: ScoringOptions(mode: mode, normalizer: normalizer, boostedWords: boostedWords, terms: terms))
    }

    /// Scores a hypothesis file against a reference file with full options.
    /// - Parameter audioLength: Reads an audio file's length in seconds (0 when it cannot), for the audio a JSON-lines
    ///   reference names: false alarms per hour are over it. Without it, or where it gives 0, a line's `duration`
    ///   (and an stm reference's segments) give the length.
    /// - Throws: ``ScoringError`` for unreadable or malformed input.
    public static func score(
        reference: URL, hypothesis: URL, options: ScoringOptions, audioLength: ((URL) -> Double)? = nil
    ) throws -> ScoreReport {
        try score(reference: reference, hypothesis: hypothesis, options: options, audioLength: audioLength) { _ in }
    }

    /// ``score(reference:hypothesis:options:audioLength:)``, saying when each stage ends (`ScoringBenchmark` times
    /// them): reading, matching and aligning, the utterances' words, the metrics, the per-utterance tallies.
    package static func score(
        reference: URL, hypothesis: URL, options: ScoringOptions, audioLength: ((URL) -> Double)?,
        stageEnded: @escaping (String) -> Void
    ) throws -> ScoreReport {
        let (loader, transcripts) = try CorpusLoader.loadAll(
            [(reference, options.referenceFormat), (hypothesis, options.hypothesisFormat)],
            normalizer: options.normalizer)
        stageEnded("read and tokenize both files")
        let (ref, hyp) = (transcripts[0], transcripts[1])
        var run = try Evaluation(loader: loader, reference: ref, options: options)
        run.stageEnded = stageEnded
        try run.readBreakdownLabels(from: reference)
        run.readAudioLengths(referenceFile: reference, audioLength: audioLength)
        return run.report(try run.score(hyp))
    }

    /// Scores in-memory utterances.
    /// - Throws: ``ScoringError`` for duplicate ids or when nothing can be scored.
    public static func score(reference: [Utterance], hypothesis: [Utterance], options: ScoringOptions = .init())
        throws -> ScoreReport
    {
        let loader = CorpusLoader(normalizer: options.normalizer)
        let ref = try loader.load(reference, path: "reference")
        let hyp = try loader.load(hypothesis, path: "hypothesis")
        var run = try Evaluation(loader: loader, reference: ref, options: options)
        try run.readBreakdownLabels(from: nil)
        return run.report(try run.score(hyp))
    }

    /// Scores two systems on the same reference and tests whether they differ.
    ///
    /// Only utterances scored for both systems enter the tests. Δ is always B − A, so a negative ΔWER means B is
    /// better.
    /// - Parameters:
    ///   - reference: Reference transcript.
    ///   - systemA: First hypothesis file (e.g. the baseline).
    ///   - systemB: Second hypothesis file (e.g. with the custom language model).
    ///   - options: Scoring options for both systems.
    ///   - bootstrap: Resamples and seed for the confidence intervals.
    /// - Throws: ``ScoringError`` for unreadable or malformed input.
    public static func compare(
        reference: URL,
        systemA: URL,
        systemB: URL,
        options: ScoringOptions = .init(),
        bootstrap: BootstrapOptions = .init(),
        audioLength: ((URL) -> Double)? = nil
    ) throws -> SystemComparison {
        let (loader, transcripts) = try CorpusLoader.loadAll(
            [
                (reference, options.referenceFormat), (systemA, options.hypothesisFormat),
                (systemB, options.hypothesisFormat),
            ], normalizer: options.normalizer)
        let (ref, a, b) = (transcripts[0], transcripts[1], transcripts[2])
        var run = try Evaluation(loader: loader, reference: ref, options: options)
        try run.readBreakdownLabels(from: reference)
        run.readAudioLengths(referenceFile: reference, audioLength: audioLength)
        return run.compare(try run.score(a), try run.score(b), bootstrap: bootstrap)
    }

    /// Compares two systems given as utterances.
    public static func compare(
        reference: [Utterance],
        systemA: [Utterance],
        systemB: [Utterance],
        options: ScoringOptions = .init(),
        bootstrap: BootstrapOptions = .init()
    ) throws -> SystemComparison {
        let loader = CorpusLoader(normalizer: options.normalizer)
        let ref = try loader.load(reference, path: "reference")
        let a = try loader.load(systemA, path: "systemA")
        let b = try loader.load(systemB, path: "systemB")
        var run = try Evaluation(loader: loader, reference: ref, options: options)
        try run.readBreakdownLabels(from: nil)
        return run.compare(try run.score(a), try run.score(b), bootstrap: bootstrap)
    }
}

/// Two systems scored on the same reference, with significance tests.
public struct SystemComparison: Sendable, Codable, Hashable {
    public var systemA: ScoreReport
    public var systemB: ScoreReport
    /// Utterances scored for both systems (the tests use only these).
    public var commonUtterances: Int
    public var matchedPairs: MatchedPairsResult
    public var mcNemar: McNemarResult
    /// Paired bootstrap interval of WER(B) − WER(A).
    public var deltaWER: BootstrapInterval
    /// Paired bootstrap interval of B-WER(B) − B-WER(A), when boosted words were given.
    public var deltaBoostedWER: BootstrapInterval?
}

extension CorpusLoader {
    /// Tokenizes in-memory utterances, with the same duplicate checks as files.
    func load(_ utterances: [Utterance], path: String) throws -> TokenizedTranscript {
        var transcript = TokenizedTranscript(path: path, format: .jsonl)
        var seen: [String: Int] = [:]
        for (index, utterance) in utterances.enumerated() {
            if let first = seen[utterance.id] {
                throw ScoringError.duplicateUtteranceID(path: path, id: utterance.id, firstLine: first, line: index + 1)
            }
            seen[utterance.id] = index + 1
            transcript.ids.append(ids.intern(utterance.id))
            transcript.speakers.append(utterance.speaker.map { speakers.intern($0) } ?? -1)
            transcript.lines.append(Int32(index + 1))
            var text = utterance.text
            text.withUTF8 { tokenize($0, into: &transcript.tokens) }
            transcript.starts.append(Int32(transcript.tokens.count))
        }
        return transcript
    }
}

/// One hypothesis scored against the reference: the alignment of every scored utterance plus per-utterance counts.
struct ScoredCorpus {
    var path: String
    var hypothesis: TokenizedTranscript
    /// Reference utterance index of each scored utterance, in reference order.
    var referenceIndex: [Int32] = []
    /// Hypothesis utterance index, or -1 when scored as empty.
    var hypothesisIndex: [Int32] = []
    var operationStarts: [Int32] = [0]
    var operations: [EditOperation] = []
    var counts: [ErrorCounts] = []
    var characterErrors: [Int32] = []
    var referenceCharacters: [Int32] = []
    /// Every scored utterance as the metrics read it (its alignment's words only when ``Evaluation`` needs them).
    var scored: [FileUtterance] = []
    /// What the metrics read of each scored utterance, worked out once: its list, its B-WER counts.
    var prepared: SystemMetrics.Prepared?
    /// Each scored utterance's B-WER counts, when boosted words or lists were given; empty otherwise.
    var boosted: [BoostedWordErrorRates?] {
        guard let prepared, prepared.hasBoosted else { return [] }
        return prepared.boostedRates
    }
    var unscored = UnscoredUtterances()
    var warnings: [ScoringWarning] = []

    func operations(_ scored: Int) -> ArraySlice<EditOperation> {
        operations[Int(operationStarts[scored])..<Int(operationStarts[scored + 1])]
    }
}

/// A scoring run over one reference: holds the shared tables and what the metrics need of the options.
struct Evaluation {
    let loader: CorpusLoader
    let reference: TokenizedTranscript
    let options: ScoringOptions
    /// The reference gives each utterance its own biasing list (a biasing-list file, a manifest's `boosted`).
    private let perUtterance: Bool
    /// B-WER and the keyword figures are asked for: boosted words, terms, templates or per-utterance lists.
    private let needsWords: Bool
    /// The boosted words, normalized.
    private let boosted: Set<String>
    /// Each reference utterance's value of ``ScoringOptions/breakdownField``; empty without a breakdown.
    private var breakdownLabels: [String?] = []
    /// Each reference utterance's audio length in seconds (0 when unknown), when ``needsWords``: what false
    /// alarms per hour are over.
    private var audioSeconds: [Double] = []
    /// Told the name of each stage as it ends.
    var stageEnded: (String) -> Void = { _ in }

    init(loader: CorpusLoader, reference: TokenizedTranscript, options: ScoringOptions) throws {
        self.loader = loader
        self.reference = reference
        self.options = options
        boosted = BiasingList.normalizedWords(options.boostedWords, options.normalizer)
        perUtterance = reference.hasBiasingLists
        if perUtterance && !boosted.isEmpty && !options.boostedWordsBesideLists {
            throw ScoringError.conflictingBiasingLists(reference: reference.path)
        }
        needsWords =
            !boosted.isEmpty || perUtterance || options.templates != nil
            || options.terms.contains { !options.normalizer.normalize($0).isEmpty }
    }

    /// Finds each reference utterance's audio length for false alarms per hour: the length of the audio file a
    /// JSON line names (`audio`, relative to the reference's folder), read by `audioLength`, or else the length
    /// the file gives (a JSON line's `duration`, stm segments); 0 when neither is known.
    mutating func readAudioLengths(referenceFile: URL?, audioLength: ((URL) -> Double)?) {
        guard needsWords else { return }
        let folder = referenceFile?.deletingLastPathComponent()
        audioSeconds = (0..<reference.count).map { index in
            if let audioLength, let folder, index < reference.audio.count, let audio = reference.audio[index] {
                let url =
                    audio.hasPrefix("/")
                    ? URL(fileURLWithPath: audio) : folder.appendingPathComponent(audio).standardizedFileURL
                let seconds = audioLength(url)
                if seconds > 0 { return seconds }
            }
            return reference.seconds[index] ?? 0
        }
    }

    /// Reads each reference utterance's label for ``ScoringOptions/breakdownField``: the speaker from any format
    /// that carries one, any other field from a JSON-lines reference (`file`; nil for in-memory utterances).
    /// - Throws: ``ScoringError/unusableBreakdownField(path:field:reason:)`` when the reference cannot give it.
    mutating func readBreakdownLabels(from file: URL?) throws {
        guard let field = options.breakdownField else { return }
        if field == "speaker" {
            guard reference.speakers.contains(where: { $0 >= 0 }) else {
                throw ScoringError.unusableBreakdownField(
                    path: reference.path, field: field,
                    reason: "no utterance has a speaker. A trn id gives one before its first '_' (spk1_utt3), an "
                        + "stm line in its third column and a JSON-lines line in \"speaker\"")
            }
            breakdownLabels = reference.speakers.map { $0 >= 0 ? loader.speakers.string($0) : nil }
            return
        }
        guard let file, reference.format == .jsonl else {
            throw ScoringError.unusableBreakdownField(
                path: reference.path, field: field,
                reason: "only a JSON-lines reference (such as a Gambit manifest) has fields other than the speaker")
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ScoringError.unreadableFile(path: file.path, reason: FileSystemReason.reading(file, error))
        }
        let labels = try data.withUnsafeBytes { raw in
            try RecordScanner.labels(raw.bindMemory(to: UInt8.self), field: field, path: reference.path)
        }
        breakdownLabels = reference.ids.map { labels[loader.ids.string($0)] }
    }

    /// Aligns every utterance of `hypothesis` that has a reference.
    func score(_ hypothesis: TokenizedTranscript) throws -> ScoredCorpus {
        var corpus = ScoredCorpus(path: hypothesis.path, hypothesis: hypothesis)
        let idCount = loader.ids.count
        var hypothesisOf = [Int32](repeating: -1, count: idCount)
        for (index, id) in hypothesis.ids.enumerated() { hypothesisOf[Int(id)] = Int32(index) }
        var inReference = [Bool](repeating: false, count: idCount)
        var onlyInReference: [Int32] = []
        for (index, id) in reference.ids.enumerated() {
            inReference[Int(id)] = true
            let h = hypothesisOf[Int(id)]
            if h < 0 {
                onlyInReference.append(Int32(index))
                if options.missingHypothesis == .skip { continue }
            }
            corpus.referenceIndex.append(Int32(index))
            corpus.hypothesisIndex.append(h)
        }
        let onlyInHypothesis = hypothesis.ids.filter { !inReference[Int($0)] }
        if onlyInReference.count == reference.count {
            throw ScoringError.noCommonUtterances(
                reference: reference.path, hypothesis: hypothesis.path,
                referenceSample: reference.ids.prefix(3).map { loader.ids.string($0) },
                hypothesisSample: hypothesis.ids.prefix(3).map { loader.ids.string($0) })
        }
        if options.missingHypothesis == .error, !onlyInReference.isEmpty {
            throw ScoringError.missingHypotheses(
                hypothesis: hypothesis.path, missing: onlyInReference.count, references: reference.count,
                sample: onlyInReference.prefix(ScoringWarning.sampleLimit).map {
                    loader.ids.string(reference.ids[Int($0)])
                })
        }
        if options.missingHypothesis == .skip {
            corpus.unscored.onlyInReference = onlyInReference.count
        } else {
            corpus.unscored.scoredAsEmpty = onlyInReference.count
        }
        corpus.unscored.onlyInHypothesis = onlyInHypothesis.count
        corpus.warnings = reference.warnings + hypothesis.warnings
        // An id of one file only that prints like one of the other's (a trailing NUL, another Unicode normal form)
        // is shown with its code points, in both warnings.
        let missingIDs = onlyInReference.prefix(ScoringWarning.sampleLimit).map {
            loader.ids.string(reference.ids[Int($0)])
        }
        let extraIDs = onlyInHypothesis.prefix(ScoringWarning.sampleLimit).map { loader.ids.string($0) }
        if !onlyInReference.isEmpty {
            let ids = missingIDs
            let printed = PrintedName.distinguished(ids, from: extraIDs)
            let action =
                options.missingHypothesis == .skip
                ? "they are not scored; rerun recognition for them or score them as empty"
                : "they are scored as empty hypotheses (all deletions)"
            corpus.warnings.append(
                ScoringWarning(
                    kind: .onlyInReference, file: hypothesis.path, line: nil, ids: ids, count: onlyInReference.count,
                    message: "\(onlyInReference.count) utterance(s) of the reference have no hypothesis "
                        + "(\(printed.joined(separator: ", "))\(onlyInReference.count > ids.count ? ", …" : "")); \(action)."
                ))
        }
        if !onlyInHypothesis.isEmpty {
            let ids = extraIDs
            let printed = PrintedName.distinguished(ids, from: missingIDs)
            corpus.warnings.append(
                ScoringWarning(
                    kind: .onlyInHypothesis, file: hypothesis.path, line: nil, ids: ids, count: onlyInHypothesis.count,
                    message: "\(onlyInHypothesis.count) utterance(s) have no reference and are not scored "
                        + "(\(printed.joined(separator: ", "))\(onlyInHypothesis.count > ids.count ? ", …" : "")). "
                        + "Check that the hypothesis belongs to this test set."))
        }
        align(&corpus)
        stageEnded("match ids and align (and CER)")
        prepareMetrics(&corpus)
        return corpus
    }

    /// Makes each scored utterance what ``SystemMetrics`` reads, with its aligned words when the metrics need them,
    /// and works out each one's list and B-WER.
    private func prepareMetrics(_ corpus: inout ScoredCorpus) {
        // Each word made a String once, not once per occurrence.
        let words = needsWords ? (0..<loader.words.count).map { loader.words.string(Int32($0)) } : []
        let aligned = corpus
        corpus.scored = (0..<corpus.counts.count).map { fileUtterance(aligned, $0, words: words) }
        stageEnded(needsWords ? "utterances with their aligned words" : "utterances (counts only)")
        let prepared = SystemMetrics.Prepared(
            of: corpus.scored, boostedWords: options.boostedWords, normalizer: options.normalizer)
        corpus.prepared = prepared
        stageEnded("lists and per-utterance B-WER")
    }

    /// One scored utterance as ``SystemMetrics`` reads it.
    /// - Parameter words: Every word of the loader's table, by id; empty when the metrics need no words.
    private func fileUtterance(_ corpus: ScoredCorpus, _ scored: Int, words: [String]) -> FileUtterance {
        let refIndex = Int(corpus.referenceIndex[scored])
        var pairs: [AlignedPair] = []
        if !words.isEmpty {
            let h = Int(corpus.hypothesisIndex[scored])
            pairs = Aligner.pairs(
                Array(corpus.operations(scored)),
                reference: reference.tokens[reference.range(refIndex)].map { words[Int($0)] },
                hypothesis: h >= 0 ? corpus.hypothesis.tokens[corpus.hypothesis.range(h)].map { words[Int($0)] } : [])
        }
        return FileUtterance(
            ids: loader.ids, idToken: reference.ids[refIndex],
            alignment: pairs,
            counts: corpus.counts[scored],
            referenceCharacters: options.characterErrorRate ? Int(corpus.referenceCharacters[scored]) : 0,
            characterErrors: options.characterErrorRate ? Int(corpus.characterErrors[scored]) : 0,
            biasingList: perUtterance ? reference.biasingLists[refIndex] : nil,
            namedBiasedWords: perUtterance ? reference.namedBiasedWords[refIndex] : nil,
            audioSeconds: refIndex < audioSeconds.count ? audioSeconds[refIndex] : 0)
    }

    /// The per-utterance results of one contiguous range of scored utterances.
    struct Chunk {
        var operationEnds: [Int32] = []
        var operations: [EditOperation] = []
        var counts: [ErrorCounts] = []
        var characterErrors: [Int32] = []
        var referenceCharacters: [Int32] = []
    }

    /// Aligns every scored utterance, splitting the work into contiguous chunks over the available cores.
    private func align(_ corpus: inout ScoredCorpus) {
        let scoredCount = corpus.referenceIndex.count
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, scoredCount / 1000))
        let characters = options.characterErrorRate ? WordScalars(loader.words) : nil
        let results = Mutex(Array(repeating: Chunk(), count: workers))
        let input = corpus
        let aligner = ChunkAligner(mode: options.mode, reference: reference)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let lower = scoredCount * worker / workers
            let upper = scoredCount * (worker + 1) / workers
            let chunk = aligner.align(input, lower..<upper, characters)
            results.withLock { $0[worker] = chunk }
        }
        let chunks = results.withLock { $0 }
        corpus.operations.reserveCapacity(chunks.reduce(0) { $0 + $1.operations.count })
        corpus.counts.reserveCapacity(scoredCount)
        for chunk in chunks {
            let base = Int32(corpus.operations.count)
            corpus.operations.append(contentsOf: chunk.operations)
            corpus.operationStarts.append(contentsOf: chunk.operationEnds.lazy.map { $0 + base })
            corpus.counts.append(contentsOf: chunk.counts)
            corpus.characterErrors.append(contentsOf: chunk.characterErrors)
            corpus.referenceCharacters.append(contentsOf: chunk.referenceCharacters)
        }
    }

    /// Alignment pairs of one scored utterance, with words.
    func alignment(_ corpus: ScoredCorpus, _ scored: Int) -> Alignment {
        let refRange = reference.range(Int(corpus.referenceIndex[scored]))
        let h = Int(corpus.hypothesisIndex[scored])
        let hypRange = h >= 0 ? corpus.hypothesis.range(h) : 0..<0
        let words = loader.words
        let ref = reference.tokens[refRange].map { words.string($0) }
        let hyp = corpus.hypothesis.tokens[hypRange].map { words.string($0) }
        return Alignment(pairs: Aligner.pairs(Array(corpus.operations(scored)), reference: ref, hypothesis: hyp))
    }

    func report(_ corpus: ScoredCorpus) -> ScoreReport {
        let prepared =
            corpus.prepared
            ?? SystemMetrics.Prepared(
                of: corpus.scored, boostedWords: options.boostedWords, normalizer: options.normalizer)
        let metrics = SystemMetrics(
            of: corpus.scored, prepared: prepared, terms: options.terms, templates: options.templates,
            bootstrap: options.bootstrap)
        stageEnded("metrics (SystemMetrics)")
        let tally = tallyUtterances(corpus)
        defer { stageEnded("tallies, confusions, worst utterances, list summary") }
        return ScoreReport(
            referenceFile: reference.path,
            hypothesisFile: corpus.path,
            mode: options.mode,
            normalization: options.normalizer.summary,
            totals: metrics.rates,
            characterErrorRateComputed: options.characterErrorRate,
            speakers: speakerRates(tally.speakers),
            confusions: Array(mostFrequentConfusions(tally.confusions)),
            utterances: tally.utterances,
            worstUtterances: worstUtterances(corpus, utterances: tally.utterances),
            boosted: metrics.boosted,
            biasingLists: BiasingListSummary(prepared: prepared),
            breakdown: labelBreakdown(corpus),
            keywords: metrics.keywords,
            slots: metrics.slots,
            unscored: corpus.unscored,
            warnings: corpus.warnings)
    }

    /// What one pass over the scored utterances adds up for ``report(_:)``.
    private struct ReportTally {
        /// One speaker's counts, utterances, utterances with errors, reference characters and character errors.
        typealias Speaker = (counts: ErrorCounts, utterances: Int, errors: Int, chars: Int, charErrors: Int)

        var speakers: [Int32: Speaker] = [:]
        /// Substitution counts, keyed by the reference word's id in the high 32 bits and the hypothesis word's in
        /// the low 32.
        var confusions: [UInt64: Int] = [:]
        var utterances: [UtteranceScore] = []
    }

    /// Adds up every scored utterance in one pass: each speaker's counts, the confusions and each utterance's
    /// score, in scoring order (the totals and the customization metrics are ``SystemMetrics``').
    private func tallyUtterances(_ corpus: ScoredCorpus) -> ReportTally {
        var tally = ReportTally()
        tally.utterances.reserveCapacity(corpus.counts.count)
        for scored in 0..<corpus.counts.count {
            let counts = corpus.counts[scored]
            let refIndex = Int(corpus.referenceIndex[scored])
            let h = Int(corpus.hypothesisIndex[scored])
            let refRange = reference.range(refIndex)
            let hypRange = h >= 0 ? corpus.hypothesis.range(h) : 0..<0
            let chars = corpus.scored[scored].referenceCharacters
            let charErrors = corpus.scored[scored].characterErrors
            let speaker = reference.speakers[refIndex]
            if speaker >= 0 {
                var entry = tally.speakers[speaker] ?? (ErrorCounts(), 0, 0, 0, 0)
                entry.counts += counts
                entry.utterances += 1
                entry.errors += counts.errors > 0 ? 1 : 0
                entry.chars += chars
                entry.charErrors += charErrors
                tally.speakers[speaker] = entry
            }
            if counts.substitutions > 0 {
                countConfusions(
                    corpus, scored, from: refRange.lowerBound, hypRange.lowerBound, into: &tally.confusions)
            }
            tally.utterances.append(
                utteranceScore(corpus, scored, counts: counts, chars: chars, charErrors: charErrors))
        }
        return tally
    }

    /// Counts each substitution of one scored utterance by its pair of words, walking its edit operations from the
    /// first reference and hypothesis tokens.
    private func countConfusions(
        _ corpus: ScoredCorpus, _ scored: Int, from referenceStart: Int, _ hypothesisStart: Int,
        into confusions: inout [UInt64: Int]
    ) {
        var i = referenceStart
        var j = hypothesisStart
        for operation in corpus.operations(scored) {
            if operation == .substitution {
                let key = UInt64(UInt32(reference.tokens[i])) << 32 | UInt64(UInt32(corpus.hypothesis.tokens[j]))
                confusions[key, default: 0] += 1
            }
            if operation != .insertion { i += 1 }
            if operation != .deletion { j += 1 }
        }
    }

    /// One scored utterance's entry in the report: its id, speaker, counts, character and boosted counts, and its
    /// aligned text when the options ask for it.
    private func utteranceScore(
        _ corpus: ScoredCorpus, _ scored: Int, counts: ErrorCounts, chars: Int, charErrors: Int
    ) -> UtteranceScore {
        let refIndex = Int(corpus.referenceIndex[scored])
        let speaker = reference.speakers[refIndex]
        return UtteranceScore(
            id: loader.ids.string(reference.ids[refIndex]),
            speaker: speaker >= 0 ? loader.speakers.string(speaker) : nil,
            counts: counts, referenceCharacters: chars, characterErrors: charErrors,
            boostedErrors: corpus.boosted.isEmpty ? nil : corpus.boosted[scored]?.boostedErrors ?? 0,
            boostedReferenceWords: corpus.boosted.isEmpty ? nil : corpus.boosted[scored]?.boostedReferenceWords ?? 0,
            aligned: options.includeAlignedText ? alignment(corpus, scored).text : nil)
    }

    /// Each speaker's rates, by speaker name.
    private func speakerRates(_ speakerTotals: [Int32: ReportTally.Speaker]) -> [SpeakerRates] {
        speakerTotals.map { speaker, entry in
            SpeakerRates(
                speaker: loader.speakers.string(speaker),
                rates: Rates(
                    counts: entry.counts, utterances: entry.utterances, utterancesWithErrors: entry.errors,
                    referenceCharacters: entry.chars, characterErrors: entry.charErrors))
        }.sorted { $0.speaker < $1.speaker }
    }

    /// The most frequent confusions, up to the options' limit: most frequent first, then by reference and
    /// hypothesis word, so that the order never depends on the dictionary's.
    private func mostFrequentConfusions(_ confusions: [UInt64: Int]) -> ArraySlice<ConfusionPair> {
        let words = loader.words
        return confusions.map { key, count in
            ConfusionPair(
                reference: words.string(Int32(truncatingIfNeeded: key >> 32)),
                hypothesis: words.string(Int32(truncatingIfNeeded: key & 0xFFFF_FFFF)), count: count)
        }.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            if a.reference != b.reference { return a.reference < b.reference }
            return a.hypothesis < b.hypothesis
        }.prefix(options.confusionPairLimit)
    }

    /// The utterances with errors, most errors first (then highest WER, then scoring order), up to the options'
    /// count, with their aligned text.
    private func worstUtterances(_ corpus: ScoredCorpus, utterances: [UtteranceScore]) -> [AlignedUtterance] {
        corpus.counts.indices.filter { corpus.counts[$0].errors > 0 }.sorted { a, b in
            let ca = corpus.counts[a]
            let cb = corpus.counts[b]
            if ca.errors != cb.errors { return ca.errors > cb.errors }
            let wa = Rates.ratio(ca.errors, ca.referenceWords)
            let wb = Rates.ratio(cb.errors, cb.referenceWords)
            if wa != wb { return wa > wb }
            return a < b
        }.prefix(options.worstUtteranceCount).map { scored in
            AlignedUtterance(
                id: utterances[scored].id, counts: corpus.counts[scored],
                wordErrorRate: utterances[scored].wordErrorRate, aligned: alignment(corpus, scored).text)
        }
    }

    /// The rates per value of ``ScoringOptions/breakdownField``, with intervals; nil without a breakdown field or
    /// when the reference gave no labels.
    private func labelBreakdown(_ corpus: ScoredCorpus) -> Breakdown? {
        guard let field = options.breakdownField, !breakdownLabels.isEmpty else { return nil }
        let scored = 0..<corpus.counts.count
        return Breakdown(
            field: field, labels: scored.map { breakdownLabels[Int(corpus.referenceIndex[$0])] },
            errors: corpus.counts.map(\.errors), referenceWords: corpus.counts.map(\.referenceWords),
            boosted: corpus.boosted.isEmpty
                ? nil
                : (
                    corpus.boosted.map { $0?.boostedErrors ?? 0 }, corpus.boosted.map { $0?.boostedReferenceWords ?? 0 }
                ),
            bootstrap: options.bootstrap)
    }

    func compare(_ a: ScoredCorpus, _ b: ScoredCorpus, bootstrap: BootstrapOptions) -> SystemComparison {
        // Pair the utterances scored in both systems, by reference index.
        var scoredInB = [Int32](repeating: -1, count: reference.count)
        for (scored, refIndex) in b.referenceIndex.enumerated() { scoredInB[Int(refIndex)] = Int32(scored) }
        var paired = PairedErrors()
        for (scoredA, refIndex) in a.referenceIndex.enumerated() {
            let scoredB = Int(scoredInB[Int(refIndex)])
            guard scoredB >= 0 else { continue }
            paired.append(
                operationsA: Array(a.operations(scoredA)), operationsB: Array(b.operations(scoredB)),
                errorsA: a.counts[scoredA].errors, errorsB: b.counts[scoredB].errors,
                referenceWords: a.counts[scoredA].referenceWords)
            if !a.boosted.isEmpty {
                paired.appendBoosted(
                    errorsA: a.boosted[scoredA]?.boostedErrors ?? 0, errorsB: b.boosted[scoredB]?.boostedErrors ?? 0,
                    referenceWords: a.boosted[scoredA]?.boostedReferenceWords ?? 0)
            }
        }
        return SystemComparison(
            systemA: report(a),
            systemB: report(b),
            commonUtterances: paired.count,
            matchedPairs: paired.matchedPairs(),
            mcNemar: paired.mcNemar,
            deltaWER: paired.deltaWER(bootstrap),
            deltaBoostedWER: paired.deltaBoostedWER(bootstrap))
    }
}

/// The Unicode scalars of every interned word, flattened, so CER input is built by copying ranges.
struct WordScalars: Sendable {
    private var scalars: [UInt32] = []
    private var starts: [Int32] = [0]

    init(_ words: TokenTable) {
        scalars.reserveCapacity(words.count * 6)
        for id in 0..<words.count {
            words.withBytes(Int32(id)) { bytes in
                if bytes.allSatisfy({ $0 < 0x80 }) {
                    for byte in bytes { scalars.append(UInt32(byte)) }
                } else {
                    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars { scalars.append(scalar.value) }
                }
            }
            starts.append(Int32(scalars.count))
        }
    }

    /// The scalars of `tokens` joined by single spaces.
    func join(_ tokens: UnsafeBufferPointer<Int32>, into output: inout [UInt32]) {
        output.removeAll(keepingCapacity: true)
        // Through buffer pointers: slicing the arrays retained and released their storage once per word, which
        // cost more than the copying.
        scalars.withUnsafeBufferPointer { all in
            starts.withUnsafeBufferPointer { starts in
                for (index, token) in tokens.enumerated() {
                    if index > 0 { output.append(0x20) }
                    let range = Int(starts[Int(token)])..<Int(starts[Int(token) + 1])
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: all[range]))
                }
            }
        }
    }
}

/// What aligning a chunk of utterances reads from an ``Evaluation``: values only, so alignment workers can share it.
struct ChunkAligner: Sendable {
    let mode: AlignmentMode
    let reference: TokenizedTranscript

    func align(_ corpus: ScoredCorpus, _ range: Range<Int>, _ wordScalars: WordScalars?) -> Evaluation.Chunk {
        var chunk = Evaluation.Chunk()
        var finder = EditPathFinder(mode: mode)
        var characters = CharacterDistance()
        var refScalars: [UInt32] = []
        var hypScalars: [UInt32] = []
        chunk.counts.reserveCapacity(range.count)
        let hypothesis = corpus.hypothesis
        reference.tokens.withUnsafeBufferPointer { refTokens in
            hypothesis.tokens.withUnsafeBufferPointer { hypTokens in
                for scored in range {
                    let refRange = reference.range(Int(corpus.referenceIndex[scored]))
                    let h = Int(corpus.hypothesisIndex[scored])
                    let hypRange = h >= 0 ? hypothesis.range(h) : 0..<0
                    let ref = UnsafeBufferPointer(rebasing: refTokens[refRange])
                    let hyp = UnsafeBufferPointer(rebasing: hypTokens[hypRange])
                    let start = chunk.operations.count
                    finder.align(reference: ref, hypothesis: hyp, into: &chunk.operations)
                    chunk.operationEnds.append(Int32(chunk.operations.count))
                    var counts = ErrorCounts()
                    for operation in chunk.operations[start...] { counts.record(operation) }
                    chunk.counts.append(counts)
                    if let wordScalars {
                        wordScalars.join(ref, into: &refScalars)
                        wordScalars.join(hyp, into: &hypScalars)
                        let distance = refScalars.withUnsafeBufferPointer { r in
                            hypScalars.withUnsafeBufferPointer { characters.distance(r, $0) }
                        }
                        chunk.characterErrors.append(Int32(distance))
                        chunk.referenceCharacters.append(Int32(refScalars.count))
                    }
                }
            }
        }
        return chunk
    }
}

/// An utterance of the files `gambit score` reads, as ``SystemMetrics`` reads it.
/// Sendable by hand: the id table it shares is complete before any utterance is made, and only read after.
struct FileUtterance: ScoredUtterance, @unchecked Sendable {
    /// The id table, and this utterance's id in it: made a String only when a figure names the utterance.
    let ids: TokenTable
    let idToken: Int32
    var id: String { ids.string(idToken) }
    var alignment: [AlignedPair]
    var counts: ErrorCounts
    var referenceCharacters: Int
    var characterErrors: Int
    var biasingList: [String]?
    var namedBiasedWords: [String]?
    var audioSeconds: Double
}
