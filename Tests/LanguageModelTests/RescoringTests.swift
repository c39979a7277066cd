import Audio
import Foundation
import GambitTestSupport
import LanguageModel
import Recognition
import Runner
import Testing

@Suite("Lattice rescoring", .serialized)
struct RescoringTests {
    /// The seed chess data prepared with the set mix in a new folder, and its configuration at weight 0.5.
    static func prepared(_ name: String) throws -> (
        folder: URL, toolchain: Toolchain, artifact: PreparedArtifact, configuration: LanguageModelConfiguration
    ) {
        let folder = try TestSupport.temporaryDirectory(name)
        let toolchain = Toolchain(cacheFolder: folder)
        // The set: rescoring changes its weight at run time.
        let artifact = try toolchain.compiler.prepare(
            seedChessData(), output: folder.appendingPathComponent("m"), options: PrepareOptions(mix: .set)
        ).artifact
        return (folder, toolchain, artifact, Toolchain.configuration(artifact, weight: 0.5))
    }

    @Test("Rescoring with the first pass's own model reproduces the first-pass hypotheses")
    func sameModelSameAnswer() throws {
        let (folder, toolchain, artifact, configuration) = try Self.prepared("rescore")
        let rescorer = try LatticeRescorer(model: toolchain.model, configuration: configuration)
        for (index, text) in [
            "play the albin counter gambit", "knight to queen bishop three", "play the winawer variation",
        ]
        .enumerated() {
            let url = folder.appendingPathComponent("\(index).wav")
            try TestSupport.synthesize(text, voice: "rms", to: url)
            try rescorer.add(try AudioLoader().load(url))
        }
        let same = try rescorer.rescore(customModel: artifact.languageModel, weight: 0.5)
        #expect(same == rescorer.firstPass)
        // Lattices from a biased first pass hold few unbiased alternatives, so the base model alone cannot
        // be expected to undo the bias; it must still yield a path for every utterance.
        let baseOnly = try rescorer.rescore(customModel: nil, weight: 0)
        #expect(baseOnly.count == 3 && baseOnly.allSatisfy { !$0.isEmpty })
        // Weight 0 is the base model alone, as a decode at 0 is, not the engine's set at its smallest weight.
        #expect(try rescorer.rescore(customModel: artifact.languageModel, weight: 0) == baseOnly)
    }

    @Test("A set reweighted in place rescores as a set made at that weight")
    func reweightedSetMatchesFreshSet() throws {
        let (folder, toolchain, artifact, configuration) = try Self.prepared("reweight")
        var clips: [AudioClip] = []
        for (index, (text, voice)) in [
            ("play the albin counter gambit", "slt"), ("we listened to the new album at night", "awb"),
            ("my sister plays the piano at school", "kal"), ("the king gave the bishop a new book", "rms"),
        ].enumerated() {
            let url = folder.appendingPathComponent("\(index).wav")
            try TestSupport.synthesize(text, voice: voice, to: url)
            clips.append(try AudioLoader().load(url))
        }
        func rescorer() throws -> LatticeRescorer {
            let rescorer = try LatticeRescorer(model: toolchain.model, configuration: configuration)
            for clip in clips { try rescorer.add(clip) }
            return rescorer
        }
        // One rescorer moves its one set through the weights in a scrambled order; each fresh one makes its set
        // at the weight it is asked for. The engine's set mixes w·P^lw, so only weights near the ends move these
        // best paths.
        let shared = try rescorer()
        let weights = [0.999_999, 0.000_001, 0.7, 0.2, 0.9]
        var answers: [Double: [String]] = [:]
        for weight in weights {
            answers[weight] = try shared.rescore(customModel: artifact.languageModel, weight: weight)
        }
        for weight in [0.000_001, 0.999_999] {
            let fresh = try rescorer().rescore(customModel: artifact.languageModel, weight: weight)
            #expect(answers[weight] == fresh, "weight \(weight)")
        }
        // Back at the first weight after the others: the same answers as the first time.
        #expect(try shared.rescore(customModel: artifact.languageModel, weight: 0.999_999) == answers[0.999_999])
        #expect(Set(weights.map { answers[$0]! }).count > 1, "the weight changes no best path: \(answers)")
    }
}
