import Foundation
import Testing

@testable import NGram

/// A small base model: Witten-Bell over random sentences of words w0…w39, as trigram tables.
private func smallBase(seed: UInt64 = 5) throws -> TrigramTables {
    var counts = NGramCounts(order: 3)
    counts.add(contentsOf: randomSentences(count: 400, vocabulary: 40, seed: seed))
    return try TrigramTables(arpaText: counts.estimateWittenBell().arpaText())
}

/// Custom data: phrases of new words and some base words.
private func customCounts(boundaryShare: Double = 1) -> NGramCounts {
    var counts = NGramCounts(order: 3)
    let phrases: [([String], Double)] = [
        (["play", "the", "albin", "counter", "gambit"], 25), (["play", "the", "w3", "defense"], 10),
        (["w1", "w2", "najdorf"], 5), (["najdorf"], 10), (["w5", "to", "w7", "w9"], 40),
    ]
    for (tokens, count) in phrases { counts.add(tokens, count: count, boundaryShare: boundaryShare) }
    return counts
}

@Suite("Merging a customization into a base model")
struct MergeTests {
    @Test(
        "Every history of the merged model sums to 1",
        arguments: [
            (MergeOptions(), 1.0), (MergeOptions(weight: 0.9, unigramWeight: 0.1, tempering: 0.5), 0.5),
            (MergeOptions(weight: 0.1, unigramWeight: 0, tempering: 2), 0.0),
        ])
    func normalised(options: MergeOptions, boundaryShare: Double) throws {
        let base = try smallBase()
        #expect(base.normalizationFailures(tolerance: 1e-4).isEmpty)
        let merged = MergedModel(base: base, custom: customCounts(boundaryShare: boundaryShare), options: options)
        #expect(merged.tables.normalizationFailures(tolerance: 1e-4) == [])
        #expect(merged.statistics.newWords == 8)  // play the albin counter gambit defense to najdorf
        #expect(merged.statistics.mixedHistories[0] > 0 && merged.statistics.mixedHistories[1] > 0)
    }

    @Test("Histories the data never touches keep the base model's n-grams exactly")
    func untouchedHistoriesKeepBase() throws {
        let base = try smallBase()
        let merged = MergedModel(base: base, custom: customCounts(), options: MergeOptions())
        // w20 and w31 occur nowhere in the custom data.
        for history in [["w20"], ["w31", "w20"]] {
            let last = base.id(of: history.last!)!
            let explicit = Int(base.bigramStart[Int(last)])..<Int(base.bigramStart[Int(last) + 1])
            for entry in explicit {
                let word = base.words[Int(base.bigramWord[entry])]
                let before = try #require(base.logProb(of: word, after: [history.last!]))
                let after = try #require(merged.tables.logProb(of: word, after: [history.last!]))
                #expect(abs(before - after) < 1e-6, "\(history.last!) \(word)")
            }
        }
    }

    @Test("A larger weight raises the data's continuations after the data's histories")
    func weightIsMonotone() throws {
        let base = try smallBase()
        var previous = -Double.infinity
        var previousBase = Double.infinity
        for weight in [0.1, 0.3, 0.5, 0.7, 0.9] {
            let merged = MergedModel(base: base, custom: customCounts(), options: MergeOptions(weight: weight))
            let custom = try #require(merged.tables.logProb(of: "najdorf", after: ["w1", "w2"]))
            let ordinary = try #require(merged.tables.logProb(of: "w3", after: ["<s>"]))
            #expect(custom > previous)
            #expect(ordinary < previousBase)
            previous = custom
            previousBase = ordinary
        }
    }

    @Test("Ordinary speech pays about ln(1 − π) where a sentence starts, and nothing where the data is absent")
    func costOfOrdinarySpeech() throws {
        let base = try smallBase()
        let merged = MergedModel(base: base, custom: customCounts(), options: MergeOptions(weight: 0.5))
        // A base word after <s>: the custom side gives it little, so about half its base probability.
        let before = try #require(base.logProb(of: "w11", after: ["<s>"]))
        let after = try #require(merged.tables.logProb(of: "w11", after: ["<s>"]))
        #expect(after - before < 0 && after - before > log10(0.5) - 0.05)
    }

    @Test("A fragment's words may be followed by other words: a boundary share below 1 leaves room after it")
    func fragments() throws {
        let base = try smallBase()
        let whole = MergedModel(base: base, custom: customCounts(boundaryShare: 1), options: MergeOptions())
        let fragment = MergedModel(base: base, custom: customCounts(boundaryShare: 0.5), options: MergeOptions())
        // After "najdorf", a phrase's end, the sentence may go on.
        let end = { (model: MergedModel) in model.tables.logProb(of: "</s>", after: ["w2", "najdorf"])! }
        let onward = { (model: MergedModel) in model.tables.logProb(of: "w12", after: ["w2", "najdorf"])! }
        #expect(end(fragment) < end(whole))
        #expect(onward(fragment) > onward(whole) + 0.2)
        // And "play" need not open the sentence.
        let opening = { (model: MergedModel) in model.tables.logProb(of: "play", after: ["<s>"])! }
        #expect(opening(fragment) < opening(whole))
    }
}
