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
            (MergeOptions(weight: 0.5, interpolation: .constant), 1.0),
            (MergeOptions(weight: 0.9, interpolation: .constant), 0.5),
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

    @Test(
        "With a constant λ every listed n-gram is λ·P̃c + (1 − λ)·P_base, each side with its own backoff",
        arguments: [0.3, 0.9])
    func constantFormula(lambda: Double) throws {
        let base = try smallBase()
        let custom = customCounts(boundaryShare: 0.5)
        let merged = MergedModel(
            base: base, custom: custom, options: MergeOptions(weight: lambda, interpolation: .constant)
        ).tables
        let side = CustomSide(counts: custom)
        let customID = Dictionary(uniqueKeysWithValues: custom.words.enumerated().map { ($1, Int32($0)) })
        let baseCount = base.words.count
        /// Base ids of a merged id (-1 for a word the base lacks), and custom ids (-1 likewise).
        func b(_ id: Int32) -> Int32 { base.id(of: merged.words[Int(id)]) ?? -1 }
        func c(_ id: Int32) -> Int32 { customID[merged.words[Int(id)]] ?? -1 }
        func pBase(_ w: Int32, _ history: [Int32]) -> Double {
            let bw = b(w)
            guard bw >= 0 else { return 0 }
            let h = history.map(b)
            switch h.count {
            case 0: return exp10(Double(base.unigramProb[Int(bw)]))
            case 1: return exp10(base.logProb(bw, after: h[0]))
            default: return exp10(base.logProb(bw, after: h[1] >= 0 ? h[0] : -1, h[1]))
            }
        }
        func pCustom(_ w: Int32, _ history: [Int32]) -> Double {
            let cw = c(w)
            switch history.count {
            case 0:
                return (1 - side.escape0) * (cw >= 0 ? side.unigram[Int(cw)] : 0) + side.escape0 * pBase(w, [])
            case 1:
                let cu = c(history[0])
                let e = side.escape1(cu)
                return (1 - e) * (cw >= 0 ? side.wittenBell(cw, after: cu) : 0) + e * pBase(w, history)
            default:
                let (cu, cv) = (c(history[0]), c(history[1]))
                let node = side.child1(cu, cv)
                let listed: Int32 = node >= 0 && side.isHistory2(node) ? node : -1
                let e = side.escape2(listed, suffix: cv)
                let wb = cw >= 0 ? side.wittenBell(cw, after: listed, suffix: cv) : 0
                return (1 - e) * wb + e * pBase(w, history)
            }
        }
        func expected(_ w: Int32, _ history: [Int32]) -> Double {
            log10(lambda * pCustom(w, history) + (1 - lambda) * pBase(w, history))
        }
        var checked = 0
        var worst = 0.0
        let start = merged.id(of: BackoffModel.sentenceStart)
        for w in 0..<Int32(merged.words.count) where w != start {
            worst = max(worst, abs(Double(merged.unigramProb[Int(w)]) - expected(w, [])))
            checked += 1
        }
        for u in 0..<Int32(merged.words.count) {
            for entry in Int(merged.bigramStart[Int(u)])..<Int(merged.bigramStart[Int(u) + 1]) {
                let v = merged.bigramWord[entry]
                worst = max(worst, abs(Double(merged.bigramProb[entry]) - expected(v, [u])))
                checked += 1
                for t in Int(merged.trigramStart[entry])..<Int(merged.trigramStart[entry + 1]) {
                    let w = merged.trigramWord[t]
                    worst = max(worst, abs(Double(merged.trigramProb[t]) - expected(w, [u, v])))
                    checked += 1
                }
            }
        }
        #expect(checked >= 1_000, "only \(checked) listed n-grams")
        // Float log10 probabilities: about 7 significant digits.
        #expect(worst < 1e-5, "largest difference \(worst) over \(checked) n-grams")
        #expect(merged.words.count > baseCount)
    }

    @Test("With a constant λ of 0 the merged model scores every sentence as the base model does")
    func constantZeroIsBase() throws {
        let base = try smallBase()
        let merged = MergedModel(
            base: base, custom: customCounts(), options: MergeOptions(weight: 0, interpolation: .constant)
        ).tables
        #expect(merged.normalizationFailures(tolerance: 1e-4) == [])
        var worst = 0.0
        var words = 0
        for sentence in randomSentences(count: 300, vocabulary: 40, seed: 77) {
            let tokens = [BackoffModel.sentenceStart] + sentence.tokens + [BackoffModel.sentenceEnd]
            for i in 1..<tokens.count {
                let context = Array(tokens[max(0, i - 2)..<i])
                let b = try #require(base.logProb(of: tokens[i], after: context))
                let m = try #require(merged.logProb(of: tokens[i], after: context))
                worst = max(worst, abs(b - m))
                words += 1
            }
        }
        #expect(words > 1_000)
        #expect(worst < 1e-4, "largest difference \(worst) log10 over \(words) words")
    }
}
