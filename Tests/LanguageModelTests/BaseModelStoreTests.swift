import Foundation
import GambitTestSupport
import Recognition
import Scoring
import Testing
import TrainingData

@testable import LanguageModel
@testable import NGram

/// A word no English model has.
private let missingWord = "qzxvjaq"

/// Random trigrams: half of them stored trigrams, half any three of the model's words, which
/// exercise every backoff path; and every fifth one has a word the model lacks, in turn in each
/// of the three positions.
private func sampleTrigrams(_ tables: TrigramTables, count: Int, seed: UInt64) -> [[String]] {
    var generator = SplitMix64(seed: seed)
    let arpaWords = tables.words
    var samples: [[String]] = []
    let stored = storedTrigrams(tables)
    while samples.count < count {
        var trigram: [String]
        if samples.count % 2 == 0, !stored.isEmpty {
            trigram = stored[Int.random(in: 0..<stored.count, using: &generator)]
        } else {
            trigram = (0..<3).map { _ in arpaWords[Int.random(in: 0..<arpaWords.count, using: &generator)] }
        }
        if samples.count % 5 == 4 { trigram[(samples.count / 5) % 3] = missingWord }
        samples.append(trigram)
    }
    return samples
}

/// Every 97th stored trigram, as words.
private func storedTrigrams(_ tables: TrigramTables) -> [[String]] {
    var result: [[String]] = []
    let arpa = tables.words
    for (index, trigram) in tables.storedTrigramWords().enumerated() where index % 97 == 0 {
        result.append(trigram.map { arpa[Int($0)] })
    }
    return result
}

@Suite("The base model's n-grams", .serialized)
struct BaseModelStoreTests {
    static let baseFile = AcousticModel.englishUS.languageModel

    @Test("The base model read in Swift scores 10,000 random trigrams as sphinxbase's own lookup does")
    func baseModelMatchesLibrary() throws {
        let tables = try BaseModelStore.load(languageModel: Self.baseFile).ngrams
        // The counts the trie really holds (the file's header declares 2,051,547 bigrams).
        #expect(tables.counts == [72_547, 2_051_541, 1_669_625])
        #expect(tables.id(of: missingWord) == nil)
        let library = try SphinxLanguageModel(contentsOf: Self.baseFile)
        var worst = 0.0
        var compared = 0
        var missing = 0
        for trigram in sampleTrigrams(tables, count: 10_000, seed: 7) {
            let theirs = library.logProbability(trigram[2], after: Array(trigram[0..<2]))
            guard trigram[2] != missingWord else {
                // A word the model lacks: no score here, sphinxbase's zero probability there.
                #expect(tables.logProb(of: trigram[2], after: Array(trigram[0..<2])) == nil)
                #expect(theirs < -1_000, "\(trigram): \(theirs)")
                missing += 1
                continue
            }
            // A history word the model lacks cuts the history there, on both sides.
            let ours = try #require(tables.logProb(of: trigram[2], after: Array(trigram[0..<2]))) * M_LN10
            worst = max(worst, abs(ours - theirs))
            compared += 1
        }
        #expect(compared + missing == 10_000 && missing > 500)
        // sphinxbase truncates each score to a whole unit of its log base 1.0001 (1e-4 nats).
        #expect(worst < 1e-3, "largest difference \(worst) nats")
    }

    @Test("Tables written in sphinxbase's binary format load in sphinxbase and score the same")
    func binaryRoundTrip() throws {
        let tables = try BaseModelStore.load(languageModel: Self.baseFile).ngrams
        let folder = try TestSupport.temporaryDirectory("trie")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("base.lm.bin")
        try Data(tables.sphinxBinary()).write(to: file)
        let reread = try TrigramTables(sphinxBinary: Data(contentsOf: file))
        #expect(reread.counts == tables.counts)
        let library = try SphinxLanguageModel(contentsOf: file)
        var worst = 0.0
        for trigram in sampleTrigrams(tables, count: 10_000, seed: 11) where trigram[2] != missingWord {
            let ours = try #require(tables.logProb(of: trigram[2], after: Array(trigram[0..<2]))) * M_LN10
            let theirs = library.logProbability(trigram[2], after: Array(trigram[0..<2]))
            let again = try #require(reread.logProb(of: trigram[2], after: Array(trigram[0..<2]))) * M_LN10
            worst = max(worst, abs(ours - theirs), abs(ours - again))
        }
        // The base model has at most 65,536 distinct scores per table, so re-quantising is exact.
        #expect(worst < 1e-3, "largest difference \(worst) nats")
    }

    @Test("A truncated or corrupt base model is an error naming the file, not a crash or a partial model")
    func corruptBaseModel() throws {
        let folder = try TestSupport.temporaryDirectory("corrupt-lm")
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try Data(contentsOf: Self.baseFile)
        var cases: [(name: String, bytes: Data)] = [
            ("truncated.lm.bin", whole.prefix(whole.count / 2)),
            ("header-only.lm.bin", whole.prefix(40)),
        ]
        // Unigram 10's pointer to its first bigram, far beyond the file: the runs no longer nest.
        var scrambled = whole
        let unigrams = 20 + 3 * 4 + 4 + 3 * 65_536 * 4
        scrambled.replaceSubrange((unigrams + 10 * 12 + 8)..<(unigrams + 10 * 12 + 12), with: [0xFF, 0xFF, 0xFF, 0x7F])
        cases.append(("scrambled.lm.bin", scrambled))
        for (name, bytes) in cases {
            let file = folder.appendingPathComponent(name)
            try bytes.write(to: file)
            #expect {
                _ = try BaseModelStore.load(languageModel: file)
            } throws: { error in
                guard case LanguageModelError.unreadable(let path, _) = error else { return false }
                return path == file.path
            }
        }
    }

    @Test("With a constant λ, 100 random histories of the real merged model each sum to 1 over the whole vocabulary")
    func constantMergeSumsToOne() throws {
        let base = try BaseModelStore.load(languageModel: Self.baseFile).ngrams
        var counts = NGramCounts(order: 3)
        for sentence in try seedChessData().weightedSentences() {
            counts.add(sentence.tokens, count: sentence.count, boundaryShare: 0.5)
        }
        let merged = MergedModel(
            base: base, custom: counts, options: MergeOptions(weight: 0.5, interpolation: .constant)
        ).tables
        #expect(merged.words.count > base.words.count)
        var generator = SplitMix64(seed: 2024)
        let start = try #require(merged.id(of: "<s>"))
        // Half the histories are listed two-word histories, half any two words (backing off).
        let vocabulary = Int32(merged.words.count)
        var worst = 0.0
        for index in 0..<100 {
            var history: (Int32, Int32)
            if index % 2 == 0 {
                repeat {
                    let u = Int32.random(in: 0..<vocabulary, using: &generator)
                    let entries = Int(merged.bigramStart[Int(u)])..<Int(merged.bigramStart[Int(u) + 1])
                    history = (u, entries.isEmpty ? -1 : merged.bigramWord[Int.random(in: entries, using: &generator)])
                } while history.1 < 0
            } else {
                history = (
                    Int32.random(in: 0..<vocabulary, using: &generator),
                    Int32.random(in: 0..<vocabulary, using: &generator)
                )
            }
            var sum = 0.0
            for w in 0..<vocabulary where w != start {
                sum += exp10(merged.logProb(w, after: history.0, history.1))
            }
            worst = max(worst, abs(sum - 1))
        }
        #expect(worst < 1e-3, "largest |Σ P(w | h) − 1| = \(worst)")
    }
}
