import Foundation
import GambitTestSupport
import PocketSphinx
import Recognition
import Runner
import Scoring
import Testing

@testable import LanguageModel
@testable import NGram

/// The weighted merge against the engine's own set: both models are loaded by sphinxbase, given the
/// decoder's language weight, and asked for the score a search adds.
@Suite("The weighted merge", .serialized)
struct WeightedMergeTests {
    static let languageWeight = 6.5
    static let weight = 0.5

    /// A real variant prepared both ways, and both read by the engine.
    struct Pair {
        var set: NGramModel
        var merged: NGramModel
        var tables: TrigramTables
        /// The words the custom side predicts.
        var dataWords: [String]
        var statistics: MergedModel.Statistics
    }

    static func pair(_ training: String, weight: Double = weight) throws -> Pair {
        let folder = try TestSupport.temporaryDirectory("weighted")
        let toolchain = Toolchain(cacheFolder: folder)
        let data = try Toolchain.loadTrainingData(TestSupport.packageRoot.appendingPathComponent(training))
        let set = try toolchain.compiler.prepare(
            data, output: folder.appendingPathComponent("set"), options: PrepareOptions(mix: .set)
        ).artifact
        var options = PrepareOptions(mix: .merged, weight: weight, interpolation: .weighted)
        options.languageWeight = languageWeight
        let merged = try toolchain.compiler.prepare(
            data, output: folder.appendingPathComponent("weighted"), options: options
        )
        .artifact
        let logMath = try LogMath()
        let base = try NGramModel(contentsOf: AcousticModel.englishUS.languageModel.path, logMath: logMath)
        let custom = try NGramModel(contentsOf: set.languageModel.path, logMath: logMath)
        let setModel = try NGramModel.interpolating(base: base, custom: custom, weight: weight)
        let mergedModel = try NGramModel(contentsOf: merged.languageModel.path, logMath: logMath)
        for model in [setModel, mergedModel] {
            model.applyWeights(languageWeight: languageWeight, insertionPenalty: 0.65)
        }
        let tables = try TrigramTables(sphinxBinary: Data(contentsOf: merged.languageModel))
        let customWords = try TrigramTables(arpaFile: set.arpa).words
        let dataWords = customWords.filter {
            $0 != BackoffModel.sentenceStart && $0 != BackoffModel.unknownWord
        }
        return Pair(
            set: setModel, merged: mergedModel, tables: tables, dataWords: dataWords,
            statistics: try #require(merged.manifest.mergeStatistics))
    }

    /// How far apart two engine scores are, in nats (scores are in log base 1.0001).
    static func nats(_ a: Int32, _ b: Int32) -> Double { abs(Double(a) - Double(b)) * log(1.0001) }

    @Test(
        "1,000 listed and 1,000 unlisted n-grams of chess-full score as the set scores them: listed within the quantisation"
    )
    func matchesTheSet() throws {
        let pair = try Self.pair("Corpora/chess/training/full.yaml")
        let tables = pair.tables
        let data = Set(pair.dataWords)
        var generator = SplitMix64(seed: 43)
        func randomWord() -> String { tables.words[Int.random(in: 0..<tables.words.count, using: &generator)] }
        func randomData() -> String { pair.dataWords[Int.random(in: 0..<pair.dataWords.count, using: &generator)] }

        // Listed: stored bigrams and trigrams, half of them predicting a data word (where the two sides
        // are combined), the other half any word.
        var listed: [[String]] = []
        while listed.count < 1_000 {
            let u = Int.random(in: 0..<tables.words.count, using: &generator)
            let bigrams = Int(tables.bigramStart[u])..<Int(tables.bigramStart[u + 1])
            guard !bigrams.isEmpty else { continue }
            let entry = Int.random(in: bigrams, using: &generator)
            let trigrams = Int(tables.trigramStart[entry])..<Int(tables.trigramStart[entry + 1])
            var ngram = [tables.words[u], tables.words[Int(tables.bigramWord[entry])]]
            if listed.count % 4 >= 2, !trigrams.isEmpty {
                ngram.append(tables.words[Int(tables.trigramWord[Int.random(in: trigrams, using: &generator)])])
            }
            guard ngram.last != BackoffModel.sentenceStart else { continue }
            if listed.count % 2 == 0, !data.contains(ngram.last!) { continue }
            listed.append(ngram)
        }
        // Unlisted: three words whose trigram the merged model does not store. A quarter of them are
        // data words after data words (which the merge lists or reproduces exactly), a quarter any words
        // (mostly words the data lacks), a quarter data words after any two words, and a quarter data
        // words after a stored bigram that has a backoff weight and a word the data never used: the
        // histories where the merge cannot follow the set.
        struct Unlisted {
            var ngram: [String]
            var exact: Bool
        }
        var unlisted: [Unlisted] = []
        while unlisted.count < 1_000 {
            let kind = unlisted.count % 4
            var ngram: [String]
            switch kind {
            case 0: ngram = [randomData(), randomData(), randomData()]
            case 1: ngram = [randomWord(), randomWord(), randomWord()]
            case 2: ngram = [randomWord(), randomWord(), randomData()]
            default:
                let t = Int.random(in: 0..<tables.words.count, using: &generator)
                let bigrams = Int(tables.bigramStart[t])..<Int(tables.bigramStart[t + 1])
                guard !bigrams.isEmpty else { continue }
                let entry = Int.random(in: bigrams, using: &generator)
                ngram = [tables.words[t], tables.words[Int(tables.bigramWord[entry])], randomData()]
                guard tables.bigramBackoff[entry] != 0, !(data.contains(ngram[0]) && data.contains(ngram[1])) else {
                    continue
                }
            }
            let ids = ngram.compactMap { tables.id(of: $0) }
            guard ids.count == 3, ngram[2] != BackoffModel.sentenceStart,
                tables.bigram(ids[0], ids[1]).flatMap({ tables.trigram(under: $0, ids[2]) }) == nil
            else { continue }
            let exact = !data.contains(ngram[2]) || (data.contains(ngram[0]) && data.contains(ngram[1]))
            unlisted.append(Unlisted(ngram: ngram, exact: exact))
        }

        func difference(_ ngram: [String]) throws -> Double {
            let word = ngram.last!
            let history = Array(ngram.dropLast())
            let set = try #require(pair.set.score(of: word, after: history), "the set lacks \(word)")
            let merged = try #require(pair.merged.score(of: word, after: history), "the merge lacks \(word)")
            return Self.nats(set, merged)
        }
        let listedDifferences = try listed.map(difference)
        let exactDifferences = try unlisted.filter(\.exact).map { try difference($0.ngram) }
        let approximate = try unlisted.filter { !$0.exact }.map { try difference($0.ngram) }.sorted()
        func format(_ value: Double) -> String { String(format: "%.4f", value) }
        print(
            "weighted merge against the set, nats after lw \(Self.languageWeight): \(listed.count) listed n-grams, "
                + "largest difference \(format(listedDifferences.max()!)); \(exactDifferences.count) unlisted that "
                + "the merge reproduces, largest \(format(exactDifferences.max()!)); \(approximate.count) data words "
                + "after histories the data never used: median \(format(approximate[approximate.count / 2])), "
                + "largest \(format(approximate.last!)), \(approximate.count { $0 > 0.5 }) over 0.5; "
                + "\(pair.statistics.weighted.map { "\($0)" } ?? "")")
        // The binary format quantises bigram and trigram scores to 65,536 levels per table, the set's
        // custom model as well: a step of at most 200 raw log units is 0.02 nats, 0.13 after lw 6.5.
        #expect(listedDifferences.max()! < 0.15)
        #expect(exactDifferences.max()! < 0.15)
    }

    /// The engine's set never mixes with less than 10⁻⁶ of either side; a merge that took the weight as given
    /// scored every data word ln(10⁻⁶/10⁻⁹)/lw ≈ 1.06 nats below the set it claims to reproduce (and at 0 took
    /// the log of 0).
    @Test("below the set's floor (10⁻⁹) the merge still scores as the set does", arguments: [1e-9, 1 - 1e-9])
    func tinyWeightMatchesTheSet(weight: Double) throws {
        let pair = try Self.pair("Corpora/chess/training/full.yaml", weight: weight)
        var generator = SplitMix64(seed: 7)
        var largest = 0.0
        var compared = 0
        let data = Set(pair.dataWords)
        let baseWords = pair.tables.words.filter { !data.contains($0) && !$0.hasPrefix("<") }
        // Data words, which the custom side wins at 10⁻⁹ (the merge had taken ln 10⁻⁹ for them), and words only the
        // base knows, which only the base's share scores at 1 − 10⁻⁹ (the merge had given that share 10⁻⁹, not
        // 10⁻⁶): each weight is tested where the clamp changes the score.
        for index in 0..<600 {
            let history = pair.dataWords[Int.random(in: 0..<pair.dataWords.count, using: &generator)]
            let word =
                index % 2 == 0
                ? pair.dataWords[Int.random(in: 0..<pair.dataWords.count, using: &generator)]
                : baseWords[Int.random(in: 0..<baseWords.count, using: &generator)]
            guard word != BackoffModel.sentenceStart, let set = pair.set.score(of: word, after: [history]),
                let merged = pair.merged.score(of: word, after: [history])
            else { continue }
            largest = max(largest, Self.nats(set, merged))
            compared += 1
        }
        #expect(compared > 400)
        #expect(largest < 0.15, "largest difference \(largest) nats after lw at weight \(weight)")
    }

    @Test("weight 0 and −0 prepare (the decoder then loads the base model alone) and are recorded as 0")
    func weightZeroPrepares() throws {
        let folder = try TestSupport.temporaryDirectory("weight-zero")
        let toolchain = Toolchain(cacheFolder: folder)
        let data = try Toolchain.loadTrainingData(
            TestSupport.packageRoot.appendingPathComponent("Corpora/chess/training/full.yaml"))
        var fingerprints: Set<String> = []
        for (index, weight) in [0.0, -0.0].enumerated() {
            let options = PrepareOptions(mix: .merged, weight: weight, interpolation: .weighted)
            let artifact = try toolchain.compiler.prepare(
                data, output: folder.appendingPathComponent("w\(index)"), options: options
            ).artifact
            let recorded = try #require(artifact.manifest.merge?.weight)
            #expect(recorded == 0 && recorded.sign == .plus)
            #expect(artifact.manifest.mergeStatistics?.weighted?.residual.allSatisfy(\.isFinite) == true)
            fingerprints.insert(artifact.manifest.inputFingerprint)
        }
        #expect(fingerprints.count == 1)
    }
}
