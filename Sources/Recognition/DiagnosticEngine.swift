import Audio
import Formats
import Foundation
import PocketSphinx

/// The engine's side of a diagnosis: the experiments that explain a customized decode, with no judgement of
/// their own (the causes are drawn in the Diagnosis module). It reads the lattice the run kept of an utterance
/// (or decodes it again when there is none), force-aligns sentences with PocketSphinx's own search (a grammar of
/// their words, alternative pronunciations included, with wide beams), decodes again with wide beams or at a
/// heavier weight, and rescores lattices at other weights. No acoustic model of its own. Not thread-safe: one
/// owner.
public final class DiagnosticEngine {
    /// The run's decoder, made when an utterance must be decoded as the run decoded it (no kept lattice, or the
    /// heavy-weight experiment).
    private var runDecoder: Decoder?
    private let aligner: Decoder
    /// The variant's customized model, as the run decoded with it.
    public let custom: LanguageModelConfiguration
    /// Every word of the decoder's dictionary (base spelling): what a forced alignment can say.
    public let dictionaryWords: Set<String>
    /// The words of the dictionary's compound tokens (`albin_counter`): said within the compound.
    public let compoundParts: Set<String>
    /// The base dictionary's words: what the recognizer can say without the customization.
    public let baseWords: Set<String>
    private let model: AcousticModel
    private let settings: DecoderSettings
    /// The run's settings with wide beams, made when an experiment needs it and the run's settings are not the
    /// engine's (else the aligner serves).
    private var wideDecoder: Decoder?

    /// How many utterances were read from the lattices the run kept, and how many were decoded again.
    public private(set) var latticesRead = 0
    public private(set) var decodedAgain = 0

    /// A decode and the lattice it kept, with the decoder that holds the lattice (rescoring it must use that one).
    public struct KeptDecode {
        public var hypothesis: String
        var lattice: Lattice?
        let owner: Decoder

        /// The words the lattice holds where they lie, with their posteriors (none without a lattice).
        public var latticeWords: [LatticeWord] {
            (lattice?.nodes() ?? []).map {
                LatticeWord(
                    word: $0.word, startFrame: $0.startFrame, lastEndFrame: $0.lastEndFrame, posterior: $0.posterior)
            }
        }
    }

    /// A word of a decode's lattice: its frames and its best posterior probability (0…1).
    public struct LatticeWord: Sendable, Hashable {
        public var word: String
        /// The frame it starts at.
        public var startFrame: Int
        /// The last frame it may end at.
        public var lastEndFrame: Int
        public var posterior: Double

        public init(word: String, startFrame: Int, lastEndFrame: Int, posterior: Double) {
            self.word = word
            self.startFrame = startFrame
            self.lastEndFrame = lastEndFrame
            self.posterior = posterior
        }
    }

    /// - Parameters:
    ///   - settings: The run's decoder settings: the lattices come from the search the run used.
    ///   - custom: The variant's customized model, as the run decoded with it.
    public init(model: AcousticModel, settings: DecoderSettings, custom: LanguageModelConfiguration)
        throws(RecognitionError)
    {
        self.model = model
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

    /// What the run's decode gives for `samples`.
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

    /// The run's hypothesis of an utterance and its decode's lattice, with posteriors: read from the file the
    /// run kept when there is one (with the run's `hypothesis`), else decoded again.
    public func decoded(_ samples: [Int16], hypothesis: String?, lattice file: URL?) throws(RecognitionError)
        -> KeptDecode
    {
        if let file, let hypothesis, FileManager.default.fileExists(atPath: file.path) {
            let reader = try latticeDecoder()
            if let lattice = try? reader.readLattice(file, custom: custom) {
                latticesRead += 1
                return KeptDecode(hypothesis: hypothesis, lattice: lattice, owner: reader)
            }
        }
        decodedAgain += 1
        let run = try decoder()
        let (hypothesis, lattice) = try run.decodeKeepingLattice(samples)
        return KeptDecode(hypothesis: hypothesis, lattice: lattice, owner: run)
    }

    /// The lattice the run kept, read with the decoder that rescores it; thrown when it cannot be read.
    public func kept(_ file: URL) throws(RecognitionError) -> KeptDecode {
        let owner = try latticeDecoder()
        return KeptDecode(hypothesis: "", lattice: try owner.readLattice(file, custom: custom), owner: owner)
    }

    /// The run's decode with wide beams: the aligner's own search when the run used the engine's settings (the
    /// aligner is that decoder), else a decoder made for it.
    public func wideDecode(_ samples: [Int16]) throws(RecognitionError) -> String {
        if settings == .standard {
            try aligner.activateOwnSearch()
            return try aligner.decode(samples, alternatives: 0).hypothesis
        }
        if wideDecoder == nil {
            wideDecoder = try Decoder(model: model, settings: .wide(settings), custom: custom)
        }
        return try wideDecoder!.decode(samples, alternatives: 0).hypothesis
    }

    /// The run's decode with the customization at `weight` (a set mix only), keeping its lattice.
    public func decode(_ samples: [Int16], customWeight weight: Double) throws(RecognitionError) -> KeptDecode {
        let run = try decoder()
        let (hypothesis, lattice) = try run.decode(samples, customWeight: weight)
        return KeptDecode(hypothesis: hypothesis, lattice: lattice, owner: run)
    }

    /// A kept decode's best path at each of `weights` (the base model interpolated with the variant's at that
    /// weight; the base model alone at 0); none for a merged model, whose weight is built in.
    public func rescore(_ decode: KeptDecode, weights: [Double]) throws(RecognitionError) -> [Double: String] {
        var rescored: [Double: String] = [:]
        guard !custom.containsBaseModel, let lattice = decode.lattice else { return rescored }
        for weight in weights {
            // The engine never scores a weight of exactly 0 (a set scores w·P_custom^lw + (1 − w)·P_base^lw, and a
            // tiny w still outweighs the base model's rare words); the base model alone is what 0 means.
            rescored[weight] = try decode.owner.rescore(
                [lattice], customModel: weight == 0 ? nil : custom.languageModel, weight: weight)[0]
        }
        return rescored
    }

    /// The segments of the best path through a grammar of these sentences (alternatives, the first preferred on
    /// ties), with wide beams; nil when a word is outside the dictionary or no path survives.
    public func force(_ sentences: [[String]], samples: [Int16]) throws(RecognitionError) -> [SphinxDecoder.Segment]? {
        guard sentences.allSatisfy({ $0.allSatisfy(dictionaryWords.contains) }), !sentences[0].isEmpty else {
            return nil
        }
        let alternatives = sentences.map { $0.isEmpty ? "<NULL>" : $0.joined(separator: " ") }
        let path = try aligner.align(
            rule: alternatives.map { "( \($0) )" }.joined(separator: " | "), named: "align", samples,
            posteriors: true)
        return path.segments.contains { EngineWords.display($0.word) != nil } ? path.segments : nil
    }

    /// The words of a path's segments, without silences, fillers and sentence marks, in the base spelling.
    public static func words(of segments: [SphinxDecoder.Segment]) -> [String] {
        segments.compactMap { EngineWords.display($0.word) }
    }
}
