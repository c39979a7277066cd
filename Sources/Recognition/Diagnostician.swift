import Audio
import Foundation
import PocketSphinx
import Results
import Scoring

/// Explains a customized decode's boosted-word errors through the engine: it reads the lattice the run kept of
/// each utterance (or decodes it again when there is none), force-aligns the reference with PocketSphinx's own search (a grammar of the
/// reference words, their alternative pronunciations included, with wide beams), and rescores the lattices
/// at other weights. No acoustic model of its own. Not thread-safe: one owner.
public final class Diagnostician {
    /// The run's decoder, made when an utterance must be decoded as the run decoded it (no kept lattice, or the
    /// heavy-weight experiment).
    private var runDecoder: Decoder?
    private let aligner: Decoder
    private let custom: LanguageModelConfiguration
    /// Every word of the decoder's dictionary (base spelling): what a forced alignment can say.
    public let dictionaryWords: Set<String>
    /// The words of the dictionary's compound tokens (`albin_counter`): said within the compound.
    public let compoundParts: Set<String>
    /// The base dictionary's words: what the recognizer can say without the customization.
    let baseWords: Set<String>
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
    public private(set) var latticesRead = 0
    public private(set) var decodedAgain = 0

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
        self.model = model
        self.flaggedPronunciations = flaggedPronunciations
        self.settings = settings
        if settings != .standard { runDecoder = try Decoder(model: model, settings: settings, custom: custom) }
        aligner = try Decoder(model: model, settings: .wide(.standard), custom: custom)
        self.custom = custom
        var words = Set<String>()
        var parts = Set<String>()
        var base = Set<String>()
        for url in [model.dictionary, custom.vocabulary] {
            guard let dictionary = try? PronunciationDictionary(contentsOf: url) else { continue }
            for word in dictionary.words {
                words.insert(word)
                if url == model.dictionary { base.insert(word) }
                // A compound token (`albin_counter`) says its words within it.
                if word.contains("_") { parts.formUnion(word.split(separator: "_").map(String.init)) }
            }
        }
        dictionaryWords = words
        compoundParts = parts
        baseWords = base
    }

    private let model: AcousticModel
    private let settings: DecoderSettings
    /// The run's settings with wide beams, made when an error needs it and the run's settings are not the
    /// engine's (else the aligner serves).
    private var wideDecoder: Decoder?

    /// The heaviest weight tried: a word that does not win even here is not lost on weight.
    static var topWeight: Double { weightLadder.last! }

    /// What the run's decode gives for `samples`: the hypothesis the errors come from.
    public func transcribe(_ samples: [Int16]) throws(RecognitionError) -> String {
        try decoder().decode(samples, alternatives: 0).hypothesis
    }

    /// The run's decoder (see ``runDecoder``).
    func decoder() throws(RecognitionError) -> Decoder {
        if let runDecoder { return runDecoder }
        let made = try Decoder(model: model, settings: settings, custom: custom)
        runDecoder = made
        return made
    }

    /// The decoder kept lattices are read and rescored with: its dictionary, language models and best-path
    /// scales must be the run's. The aligner's are when the run used the engine's settings (the aligner differs
    /// only in its beams, which a lattice's scores do not use), and one decoder fewer is made.
    func latticeDecoder() throws(RecognitionError) -> Decoder {
        settings == .standard ? aligner : try decoder()
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
        let (hypothesis, lattice, owner) = try decoded(utterance)
        let evidence = Evidence(
            hypothesis: hypothesis, nodes: lattice?.nodes() ?? [], alignment: try align(utterance),
            referenceFits: try contest(utterance, against: hypothesis))
        // Rescoring tells the weight that fixes an error the lattice holds; an utterance whose errors are all
        // misses the lattice lacks needs none.
        let rescored =
            utterance.errors.contains { error in
                error.kind == .inserted || Self.posterior(of: error.word, in: evidence.nodes, near: nil) != nil
            } ? try rescore(lattice, with: owner) : [:]
        var results = utterance.errors.map {
            classify($0, utterance: utterance, evidence: evidence, rescored: rescored)
        }
        // Missed words the lattice lacks: the experiments that tell the beam from the weight.
        for e in results.indices where results[e].needsExperiment {
            let error = results[e].error
            let wide = try wideDecode(utterance.samples)
            if Self.recognizes(error, reference: utterance.reference, hypothesis: wide) {
                results[e].cause = .pruned
                continue
            }
            guard !custom.containsBaseModel else { continue }
            let run = try decoder()
            let heavy = try run.decode(utterance.samples, customWeight: Self.topWeight)
            guard Self.recognizes(error, reference: utterance.reference, hypothesis: heavy.hypothesis) else {
                continue
            }
            results[e].cause = .languageModel
            // The smallest weight that fixes it, from the heavy decode's lattice.
            let ladder = try rescore(heavy.lattice, with: run)
            results[e].fixingWeight =
                Self.weightLadder.first { weight in
                    guard weight > custom.weight, let words = ladder[weight] else { return false }
                    return Self.recognizes(error, reference: utterance.reference, hypothesis: words)
                } ?? Self.topWeight
        }
        return results
    }

    /// What the run's decode of `samples` becomes at each of `weights`: its lattice's best path under the base
    /// model interpolated with the variant's at that weight (none for a merged model, whose weight is built in).
    /// What a fixing weight would cost elsewhere, without decoding at each weight.
    /// - Parameters:
    ///   - samples: The audio, decoded when there is no kept lattice; nil to read the kept lattice only.
    ///   - lattice: The lattice the run's decode kept, read instead of decoding again.
    public func rescored(_ samples: [Int16]?, lattice file: URL? = nil, weights: [Double]) throws(RecognitionError)
        -> [Double: String]
    {
        guard !custom.containsBaseModel else { return [:] }
        let kept: Lattice?
        let owner: Decoder
        if let samples {
            (_, kept, owner) = try decoded(
                Utterance(samples: samples, reference: [], errors: [], hypothesis: "", lattice: file))
        } else {
            // No audio: the caller read none, as the run kept the lattice.
            guard let file else {
                throw .decodeFailed(EngineError(call: "ps_lattice_read", message: "no lattice and no audio"))
            }
            owner = try latticeDecoder()
            kept = try owner.readLattice(file, custom: custom)
        }
        guard let lattice = kept else { return [:] }
        var rescored: [Double: String] = [:]
        for weight in weights {
            rescored[weight] = try owner.rescore(
                [lattice], customModel: weight == 0 ? nil : custom.languageModel, weight: weight)[0]
        }
        return rescored
    }

    /// The run's hypothesis of the utterance and its decode's lattice, with posteriors: read from the file the run
    /// kept when there is one, else decoded again.
    /// Also the decoder that holds the lattice, which rescoring it must use.
    func decoded(_ utterance: Utterance) throws(RecognitionError) -> (
        hypothesis: String, lattice: Lattice?, decoder: Decoder
    ) {
        if let file = utterance.lattice, let hypothesis = utterance.hypothesis,
            FileManager.default.fileExists(atPath: file.path)
        {
            let reader = try latticeDecoder()
            if let lattice = try? reader.readLattice(file, custom: custom) {
                latticesRead += 1
                return (hypothesis, lattice, reader)
            }
        }
        decodedAgain += 1
        let run = try decoder()
        let (hypothesis, lattice) = try run.decodeKeepingLattice(utterance.samples)
        return (hypothesis, lattice, run)
    }

    /// The run's decode with wide beams: the aligner's own search when the run used the engine's settings (the
    /// aligner is that decoder), else a decoder made for it.
    func wideDecode(_ samples: [Int16]) throws(RecognitionError) -> String {
        if settings == .standard {
            try aligner.activateOwnSearch()
            return try aligner.decode(samples, alternatives: 0).hypothesis
        }
        if wideDecoder == nil {
            wideDecoder = try Decoder(model: model, settings: .wide(settings), custom: custom)
        }
        return try wideDecoder!.decode(samples, alternatives: 0).hypothesis
    }

    /// The lattice's best path at every weight of the ladder but the variant's own (none for a merged model,
    /// whose weight is built in).
    func rescore(_ lattice: Lattice?, with decoder: Decoder) throws(RecognitionError) -> [Double: String] {
        var rescored: [Double: String] = [:]
        guard !custom.containsBaseModel, let lattice else { return rescored }
        for weight in Self.weightLadder where weight != custom.weight {
            // The engine never scores a weight of exactly 0 (a set scores w·P_custom^lw + (1 − w)·P_base^lw, and a
            // tiny w still outweighs the base model's rare words); the base model alone is what 0 means.
            rescored[weight] = try decoder.rescore(
                [lattice], customModel: weight == 0 ? nil : custom.languageModel, weight: weight)[0]
        }
        return rescored
    }

    struct Evidence {
        var hypothesis: String
        var nodes: [Lattice.Node]
        /// The reference's forced alignment: each reference word's frames.
        var alignment: [(start: Int, end: Int)]?
        /// Whether the reference fits the audio at least as well as the hypothesis.
        var referenceFits: Bool?
    }

    /// Forced alignment of the reference: a one-sentence grammar searched with wide beams; each word's frames,
    /// or nil when a reference word is outside the dictionary or no path survives.
    func align(_ utterance: Utterance) throws(RecognitionError) -> [(start: Int, end: Int)]? {
        guard let segments = try force([utterance.reference], samples: utterance.samples) else { return nil }
        let words = segments.filter { EngineWords.display($0.word) != nil }
        guard words.count == utterance.reference.count else { return nil }
        return words.map { ($0.startFrame, $0.endFrame) }
    }

    /// Whether the audio fits the reference at least as well as `hypothesis`: both offered to one search,
    /// which keeps the better (the reference wins ties, as it comes first). Nil when a word of either is
    /// outside the dictionary.
    func contest(_ utterance: Utterance, against hypothesis: String) throws(RecognitionError) -> Bool? {
        let hypothesisWords = hypothesis.split(separator: " ").map { String($0).lowercased() }
        guard hypothesisWords != utterance.reference else { return true }
        guard let segments = try force([utterance.reference, hypothesisWords], samples: utterance.samples) else {
            return nil
        }
        return segments.compactMap { EngineWords.display($0.word) } == utterance.reference
    }

    /// The segments of the best path through a grammar of these sentences (alternatives), with wide beams;
    /// nil when a word is outside the dictionary or no path survives.
    func force(_ sentences: [[String]], samples: [Int16]) throws(RecognitionError) -> [SphinxDecoder.Segment]? {
        guard sentences.allSatisfy({ $0.allSatisfy(dictionaryWords.contains) }), !sentences[0].isEmpty else {
            return nil
        }
        let alternatives = sentences.map { $0.isEmpty ? "<NULL>" : $0.joined(separator: " ") }
        let path = try aligner.align(
            rule: alternatives.map { "( \($0) )" }.joined(separator: " | "), named: "align", samples,
            posteriors: true)
        return path.segments.contains { EngineWords.display($0.word) != nil } ? path.segments : nil
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
            if diagnosis.fixingWeight != nil || custom.containsBaseModel || !baseWords.contains(error.word) {
                diagnosis.cause = .languageModel
            } else {
                diagnosis.cause = .acoustics
            }
        }
        return diagnosis
    }

    /// The best posterior among the lattice's nodes of `word` (or of a compound token holding it) near `span`
    /// (anywhere without one); nil when there is none.
    static func posterior(of word: String, in nodes: [Lattice.Node], near span: (start: Int, end: Int)?) -> Double? {
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
