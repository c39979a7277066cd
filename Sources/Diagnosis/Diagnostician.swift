import Audio
import Formats
import Foundation
import Recognition
import Results
import Scoring

/// Explains a customized decode's boosted-word errors from the engine's evidence (``DiagnosticEngine``): the
/// lattice the run kept of each utterance, the reference's forced alignment, a contest of reference and
/// hypothesis for the audio, and rescoring at other weights; then, for missed words the lattice lacks, decodes
/// with wide beams and at a heavier weight. Not thread-safe: one owner.
public final class Diagnostician {
    private let engine: DiagnosticEngine
    private var custom: LanguageModelConfiguration { engine.custom }
    /// Every word of the decoder's dictionary (base spelling): what a forced alignment can say.
    public var dictionaryWords: Set<String> { engine.dictionaryWords }
    /// The words of the dictionary's compound tokens (`albin_counter`): said within the compound.
    public var compoundParts: Set<String> { engine.compoundParts }
    /// Words whose every supplied pronunciation lint flagged, left with a spelling guess: unpronounceable as
    /// the training data means them.
    public let flaggedPronunciations: Set<String>

    /// One utterance to explain.
    public struct Utterance: Sendable {
        public var samples: [Int16]
        public var reference: [String]
        public var errors: [BoostedWordError]
        /// The run's hypothesis and the lattice its decode kept (``WorkRequest/latticeFolder``): read
        /// instead of decoding again. Without them, or when the file cannot be read, the utterance is decoded.
        public var hypothesis: String?
        public var lattice: URL?

        public init(
            samples: [Int16], reference: [String], errors: [BoostedWordError], hypothesis: String? = nil,
            lattice: URL? = nil
        ) {
            self.samples = samples
            self.reference = reference
            self.errors = errors
            self.hypothesis = hypothesis
            self.lattice = lattice
        }
    }

    /// How many utterances were read from the lattices the run kept, and how many were decoded again.
    public var latticesRead: Int { engine.latticesRead }
    public var decodedAgain: Int { engine.decodedAgain }

    /// The weights tried when rescoring, beside the variant's own.
    public static let weightLadder: [Double] = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]
    /// Frames either side of the aligned word within which a lattice node counts as the same place.
    static let slack = 15

    /// - Parameters:
    ///   - settings: The run's decoder settings: the lattices come from the search the run used.
    ///   - custom: The variant's customized model, as the run decoded with it.
    ///   - flaggedPronunciations: Words whose every supplied pronunciation lint flagged and that the base
    ///     dictionary lacks (see ``flaggedPronunciations``).
    public init(
        model: AcousticModel, settings: DecoderSettings, custom: LanguageModelConfiguration,
        flaggedPronunciations: Set<String> = []
    ) throws(RecognitionError) {
        engine = try DiagnosticEngine(model: model, settings: settings, custom: custom)
        self.flaggedPronunciations = flaggedPronunciations
    }

    /// The heaviest weight tried: a word that does not win even here is not lost on weight.
    static var topWeight: Double { weightLadder.last! }

    /// What the run's decode gives for `samples`: the hypothesis the errors come from.
    public func transcribe(_ samples: [Int16]) throws(RecognitionError) -> String {
        try engine.transcribe(samples)
    }

    /// The cause of every error of every utterance, in order (see ``diagnose(_:)``).
    /// - Parameter progress: Called with (done, total) as utterances are examined.
    public func diagnose(_ utterances: [Utterance], progress: ((Int, Int) -> Void)? = nil) throws(RecognitionError)
        -> [[ErrorDiagnosis]]
    {
        var results: [[ErrorDiagnosis]] = []
        for utterance in utterances {
            results.append(try diagnose(utterance))
            progress?(results.count, utterances.count)
        }
        return results
    }

    /// The cause of each error of one utterance, in order.
    ///
    /// 1. The utterance is decoded as the run decoded it, keeping its lattice, and its reference is force-aligned
    ///    with wide beams; reference and hypothesis are offered to one alignment search, which keeps the better fit.
    /// 2. A missed word in the lattice near where it was said is a language-model loss; the lattice is rescored at
    ///    each weight of ``weightLadder`` to find the smallest that fixes it.
    /// 3. A missed word not in the lattice, whose reference fits the audio worse than the hypothesis, is the
    ///    pronunciation's or the audio's. One that fits at least as well is decoded again with wide beams: if it
    ///    wins, the search pruned it. Else at the top weight: if it wins, it is a language-model loss (with the
    ///    smallest weight found by rescoring that lattice). Else it stays pruned: the audio holds it, the search
    ///    did not keep it.
    /// 4. An inserted word that goes at a lower weight is the language model's; one that stays with the base
    ///    model alone is the audio's.
    public func diagnose(_ utterance: Utterance) throws(RecognitionError) -> [ErrorDiagnosis] {
        let decode = try engine.decoded(utterance.samples, hypothesis: utterance.hypothesis, lattice: utterance.lattice)
        let evidence = Evidence(
            hypothesis: decode.hypothesis, nodes: decode.latticeWords, alignment: try align(utterance),
            referenceFits: try contest(utterance, against: decode.hypothesis))
        // Rescoring tells the weight that fixes an error the lattice holds; an utterance whose errors are all
        // misses the lattice lacks needs none.
        let rescored =
            utterance.errors.contains { error in
                error.kind == .inserted || Self.posterior(of: error.word, in: evidence.nodes, near: nil) != nil
            } ? try rescore(decode) : [:]
        var results = utterance.errors.map {
            classify($0, utterance: utterance, evidence: evidence, rescored: rescored)
        }
        // Missed words the lattice lacks: the experiments that tell the beam from the weight.
        for e in results.indices where results[e].needsExperiment {
            let error = results[e].error
            let wide = try engine.wideDecode(utterance.samples)
            if Self.recognizes(error, reference: utterance.reference, hypothesis: wide) {
                results[e].cause = .pruned
                continue
            }
            guard !custom.containsBaseModel else { continue }
            let heavy = try engine.decode(utterance.samples, customWeight: Self.topWeight)
            guard Self.recognizes(error, reference: utterance.reference, hypothesis: heavy.hypothesis) else {
                continue
            }
            results[e].cause = .languageModel
            // The smallest weight that fixes it, from the heavy decode's lattice.
            let ladder = try rescore(heavy)
            results[e].fixingWeight =
                Self.weightLadder.first { weight in
                    guard weight > custom.weight, let words = ladder[weight] else { return false }
                    return Self.recognizes(error, reference: utterance.reference, hypothesis: words)
                } ?? Self.topWeight
        }
        return results
    }

    /// What a decode to rescore starts from.
    public enum RescoreSource: Sendable {
        /// The audio, decoded again.
        case audio([Int16])
        /// The lattice the run's decode kept, read instead of decoding again.
        case keptLattice(URL)
    }

    /// What the run's decode of an utterance becomes at each of `weights`: its lattice's best path under the base
    /// model interpolated with the variant's at that weight (none for a merged model, whose weight is built in).
    /// What a fixing weight would cost elsewhere, without decoding at each weight.
    public func rescored(_ source: RescoreSource, weights: [Double]) throws(RecognitionError) -> [Double: String] {
        guard !custom.containsBaseModel else { return [:] }
        let kept: DiagnosticEngine.KeptDecode
        switch source {
        case .audio(let samples): kept = try engine.decoded(samples, hypothesis: "", lattice: nil)
        case .keptLattice(let file): kept = try engine.kept(file)
        }
        return try engine.rescore(kept, weights: weights)
    }

    /// The lattice's best path at every weight of the ladder but the variant's own (none for a merged model,
    /// whose weight is built in).
    func rescore(_ decode: DiagnosticEngine.KeptDecode) throws(RecognitionError) -> [Double: String] {
        try engine.rescore(decode, weights: Self.weightLadder.filter { $0 != custom.weight })
    }

    struct Evidence {
        var hypothesis: String
        var nodes: [DiagnosticEngine.LatticeWord]
        /// The reference's forced alignment: each reference word's frames.
        var alignment: [(start: Int, end: Int)]?
        /// Whether the reference fits the audio at least as well as the hypothesis.
        var referenceFits: Bool?
    }

    /// Forced alignment of the reference: a one-sentence grammar searched with wide beams; each word's frames,
    /// or nil when a reference word is outside the dictionary or no path survives.
    func align(_ utterance: Utterance) throws(RecognitionError) -> [(start: Int, end: Int)]? {
        guard let segments = try engine.force([utterance.reference], samples: utterance.samples) else { return nil }
        let words = segments.filter { !DiagnosticEngine.words(of: [$0]).isEmpty }
        guard words.count == utterance.reference.count else { return nil }
        return words.map { ($0.startFrame, $0.endFrame) }
    }

    /// Whether the audio fits the reference at least as well as `hypothesis`: both offered to one search,
    /// which keeps the better (the reference wins ties, as it comes first). Nil when a word of either is
    /// outside the dictionary.
    func contest(_ utterance: Utterance, against hypothesis: String) throws(RecognitionError) -> Bool? {
        let hypothesisWords = hypothesis.split(separator: " ").map { String($0).lowercased() }
        guard hypothesisWords != utterance.reference else { return true }
        guard let segments = try engine.force([utterance.reference, hypothesisWords], samples: utterance.samples)
        else {
            return nil
        }
        return DiagnosticEngine.words(of: segments) == utterance.reference
    }

    func classify(_ error: BoostedWordError, utterance: Utterance, evidence: Evidence, rescored: [Double: String])
        -> ErrorDiagnosis
    {
        var diagnosis = ErrorDiagnosis(error: error, cause: .undetermined)
        let span = error.referenceIndex.flatMap { i in evidence.alignment.map { $0[i] } }
        diagnosis.startFrame = span?.start
        diagnosis.endFrame = span?.end
        diagnosis.referenceFits = evidence.referenceFits
        switch error.kind {
        case .missed:
            if flaggedPronunciations.contains(error.word) {
                diagnosis.cause = .unpronounceable
                diagnosis.flaggedPronunciation = true
                return diagnosis
            }
            guard dictionaryWords.contains(error.word) || compoundParts.contains(error.word) else {
                diagnosis.cause = .unpronounceable
                return diagnosis
            }
            diagnosis.posterior = Self.posterior(of: error.word, in: evidence.nodes, near: span)
            diagnosis.competitorPosterior = error.competitor.flatMap {
                Self.posterior(of: $0, in: evidence.nodes, near: span)
            }
            let inLattice = diagnosis.posterior != nil
            diagnosis.inLattice = inLattice
            diagnosis.fixingWeight = Self.weightLadder.filter { $0 > custom.weight }.first { weight in
                guard let words = rescored[weight] else { return false }
                return Self.recognizes(error, reference: utterance.reference, hypothesis: words)
            }
            if inLattice {
                diagnosis.cause = .languageModel
            } else if let fits = diagnosis.referenceFits {
                // Until the experiments say otherwise: a reference that fits at least as well was pruned.
                diagnosis.cause = fits ? .pruned : .acoustics
            }
        case .inserted:
            diagnosis.inLattice = true
            diagnosis.posterior = Self.posterior(of: error.word, in: evidence.nodes, near: span)
            diagnosis.competitorPosterior = error.competitor.flatMap {
                Self.posterior(of: $0, in: evidence.nodes, near: span)
            }
            diagnosis.fixingWeight = Self.weightLadder.filter { $0 < custom.weight }.reversed().first { weight in
                guard let words = rescored[weight] else { return false }
                return !Self.inserts(error.word, reference: utterance.reference, hypothesis: words)
            }
            // Without the customization's weight the word goes: the language model put it there; a word only the
            // customization knows could not be said at all without it. If it stays with the base model alone, the
            // audio sounds like it.
            if diagnosis.fixingWeight != nil || custom.containsBaseModel || !engine.baseWords.contains(error.word) {
                diagnosis.cause = .languageModel
            } else {
                diagnosis.cause = .acoustics
            }
        }
        return diagnosis
    }

    /// The best posterior among the lattice's nodes of `word` (or of a compound token holding it) near `span`
    /// (anywhere without one); nil when there is none.
    static func posterior(of word: String, in nodes: [DiagnosticEngine.LatticeWord], near span: (start: Int, end: Int)?)
        -> Double?
    {
        nodes.filter { node in
            guard node.word == word || node.word.split(separator: "_").contains(Substring(word)) else { return false }
            guard let span else { return true }
            return node.startFrame <= span.end + slack && node.lastEndFrame >= span.start - slack
        }
        .map(\.posterior).max()
    }

    /// Whether `hypothesis` gets the missed reference word right.
    static func recognizes(_ error: BoostedWordError, reference: [String], hypothesis: String) -> Bool {
        guard let target = error.referenceIndex else { return false }
        let words = hypothesis.split(separator: " ").map { String($0).lowercased() }
        let pair = Aligner.align(reference: reference, hypothesis: words).pairs.first { $0.referenceIndex == target }
        return pair.map { $0.hypothesis == $0.reference } ?? false
    }

    /// Whether `hypothesis` has more of `word` than the reference.
    static func inserts(_ word: String, reference: [String], hypothesis: String) -> Bool {
        let words = hypothesis.split(separator: " ").map { String($0).lowercased() }
        return words.filter { $0 == word }.count > reference.filter { $0 == word }.count
    }
}
