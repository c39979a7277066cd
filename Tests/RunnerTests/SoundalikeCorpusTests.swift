import Foundation
import GambitTestSupport
import Runner
import Scoring
import Testing

/// The near-homophone corpus counts false alarms only if nobody says a boosted term in it.
@Suite("The soundalike corpus")
struct SoundalikeCorpusTests {
    @Test("No text of the soundalike corpus holds a boosted word or term of any shipped variant")
    func termFree() throws {
        let root = TestSupport.packageRoot.appendingPathComponent("Corpora")
        let suite = try Suite.load(root.appendingPathComponent("suite.yaml"))
        let corpus = try #require(suite.corpora.first { $0.name == "soundalike" })
        #expect(corpus.role == .antiContext)
        let texts = try String(contentsOf: root.appendingPathComponent("soundalike/texts.tsv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: "\t")[1] }
        #expect(texts.count == 48)
        let toolchain = Toolchain(cacheFolder: try TestSupport.temporaryDirectory("soundalike"))
        var checked = 0
        for variant in suite.variants {
            let data = try Toolchain.loadTrainingData(variant.training)
            let boosted = try toolchain.compiler.boosted(data, options: variant.prepareOptions)
            let terms = (boosted.words + boosted.terms).map(Normalizer.standard.normalize).filter { !$0.isEmpty }
            #expect(!terms.isEmpty, "\(variant.name) has no boosted word")
            for text in texts {
                let words = Normalizer.standard.normalize(String(text))
                for term in terms {
                    let found = words.indices.contains { start in
                        words[start...].starts(with: term)
                    }
                    #expect(!found, "\(variant.name): \"\(text)\" says \(term.joined(separator: " "))")
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }
}
