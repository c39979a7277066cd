import Audio
import Foundation
import PocketSphinx

/// Decodes a set of utterances once, keeping their word lattices, and then finds the best path
/// through them under other language models without decoding again.
///
/// This is what makes a parameter sweep cheap: the lattices come from a decoder whose vocabulary
/// covers every variant's words, and each sweep point only rescores them with its own interpolated
/// model. Rescoring cannot find words the lattices lack, so a few points are worth confirming by
/// full decoding. Not thread-safe: one owner.
public final class LatticeRescorer {
    private let decoder: Decoder
    private var lattices: [Lattice?] = []
    /// The first-pass hypotheses, one per decoded utterance.
    public private(set) var firstPass: [String] = []

    /// - Parameters:
    ///   - model: The acoustic model.
    ///   - configuration: The model to decode with; its vocabulary must cover every word a rescoring
    ///     model may want (use the richest variant).
    public init(
        model: AcousticModel, settings: DecoderSettings = .standard, configuration: LanguageModelConfiguration
    )
        throws(RecognitionError)
    {
        decoder = try Decoder(model: model, settings: settings, custom: configuration)
    }

    /// Decodes one utterance and keeps its lattice. Returns the first-pass hypothesis.
    @discardableResult
    public func add(_ clip: AudioClip) throws(RecognitionError) -> String {
        let (hypothesis, lattice) = try decoder.decodeKeepingLattice(clip.samples)
        lattices.append(lattice)
        firstPass.append(hypothesis)
        return hypothesis
    }

    /// The best hypothesis of every kept utterance under the base model interpolated with
    /// `customModel` at `weight` (the base model alone when `customModel` is nil; `customModel` alone
    /// when it is a merged model that contains the base model), in the order added.
    public func rescore(customModel: URL?, weight: Double, containsBaseModel: Bool = false) throws(RecognitionError)
        -> [String]
    {
        try decoder.rescore(lattices, customModel: customModel, weight: weight, containsBaseModel: containsBaseModel)
    }
}
