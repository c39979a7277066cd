import Audio
import Foundation
import GambitTestSupport
import Recognition
import Runner
import Testing

@Suite("Lattice rescoring", .serialized)
struct RescoringTests {
    @Test("Rescoring with the first pass's own model reproduces the first-pass hypotheses")
    func sameModelSameAnswer() throws {
        let folder = try TestSupport.temporaryDirectory("rescore")
        let toolchain = Toolchain(cacheFolder: folder)
        let artifact = try toolchain.compiler.prepare(seedChessData(), output: folder.appendingPathComponent("m"))
            .artifact
        let configuration = Toolchain.configuration(artifact, weight: 0.5)
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
    }
}
