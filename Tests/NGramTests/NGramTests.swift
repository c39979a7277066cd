import Foundation
import Testing

@testable import NGram

/// A small deterministic generator, so random tests fail the same way every time.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Apple's chess template expanded by hand: "<piece> to <royal> <piece> <rank>" with 10,000 samples.
func chessSentences() -> [(tokens: [String], count: Double)] {
    let pieces = ["pawn", "rook", "knight", "bishop", "queen", "king"]
    let royals = ["queen", "king"]
    let ranks = (1...8).map(String.init)
    var sentences: [(tokens: [String], count: Double)] = [
        (["play", "the", "albin", "counter", "gambit"], 10)
    ]
    let each = 10_000.0 / Double(pieces.count * royals.count * pieces.count * ranks.count)
    for piece in pieces {
        for royal in royals {
            for other in pieces {
                for rank in ranks { sentences.append(([piece, "to", royal, other, rank], each)) }
            }
        }
    }
    return sentences
}

func randomSentences(count: Int, vocabulary: Int, seed: UInt64) -> [(tokens: [String], count: Double)] {
    var generator = SplitMix64(state: seed)
    return (0..<count).map { _ in
        let length = Int.random(in: 1...7, using: &generator)
        // A skewed distribution, so some n-grams repeat and some are singletons.
        let tokens = (0..<length).map { _ in
            "w\(Int(Double(vocabulary) * pow(Double.random(in: 0..<1, using: &generator), 2)))"
        }
        return (tokens, Double.random(in: 0.05...20, using: &generator))
    }
}

@Suite("Witten-Bell estimation")
struct EstimationTests {
    @Test("hand-computed probabilities and backoff weights")
    func handComputed() throws {
        var counts = NGramCounts(order: 2)
        counts.add(["a", "b"], count: 2)
        let model = counts.estimateWittenBell()
        // Unigrams: a, b, </s> seen twice each (6 in all, 3 types); vocabulary a, b, </s>, <unk>.
        #expect(abs(try #require(model.logProb(of: "a", after: [])) - log10(2.75 / 9)) < 1e-12)
        #expect(abs(try #require(model.logProb(of: "<unk>", after: [])) - log10(0.75 / 9)) < 1e-12)
        // After <s>: a seen twice, one type.
        #expect(abs(try #require(model.logProb(of: "a", after: ["<s>"])) - log10((2 + 2.75 / 9) / 3)) < 1e-12)
        // b never follows <s>: backoff 1/3 times P(b).
        #expect(abs(try #require(model.logProb(of: "b", after: ["<s>"])) - log10(1.0 / 3 * 2.75 / 9)) < 1e-12)
        #expect(model.logProb(of: "zebra", after: []) == nil)
        #expect(model.counts == [5, 3])
    }

    @Test("probabilities sum to one for every history", arguments: [1, 2, 3, 4])
    func sumsToOneOnChess(order: Int) {
        var counts = NGramCounts(order: order)
        counts.add(contentsOf: chessSentences())
        let model = counts.estimateWittenBell()
        #expect(model.normalizationFailures(tolerance: 1e-4) == [])
    }

    @Test("probabilities sum to one on random data with fractional counts", arguments: [UInt64(1), 2, 3])
    func sumsToOneOnRandomData(seed: UInt64) {
        var counts = NGramCounts(order: 3)
        counts.add(contentsOf: randomSentences(count: 400, vocabulary: 40, seed: seed))
        for includeUnknownWord in [true, false] {
            let model = counts.estimateWittenBell(includeUnknownWord: includeUnknownWord)
            #expect(model.normalizationFailures(tolerance: 1e-4) == [])
        }
    }

    @Test("a fragment's boundary n-grams count for its share; the rest goes to the lower order")
    func handComputedFragment() throws {
        var counts = NGramCounts(order: 2)
        counts.add(["a", "b"], count: 2, boundaryShare: 0.25)
        let model = counts.estimateWittenBell()
        // Unigrams: a and b twice each, </s> 0.5 times (4.5 in all, 2.5 types); vocabulary a, b, </s>, <unk>.
        let pA = (2 + 2.5 / 4) / 7.0
        #expect(abs(try #require(model.logProb(of: "a", after: [])) - log10(pA)) < 1e-12)
        // After <s>: a 0.5 times (half a type), and 1.5 that came after words this data does not name.
        #expect(abs(try #require(model.logProb(of: "a", after: ["<s>"])) - log10((0.5 + 2 * pA) / 2.5)) < 1e-12)
        #expect(abs(try #require(model.logProb(of: "<unk>", after: ["<s>"])) - log10(2 / 2.5 * 0.625 / 7)) < 1e-12)
        // After b: </s> 0.5 times, and 1.5 that went on with other words.
        let pEnd = (0.5 + 2.5 / 4) / 7
        #expect(abs(try #require(model.logProb(of: "</s>", after: ["b"])) - log10((0.5 + 2 * pEnd) / 2.5)) < 1e-12)
        // The inner bigram counts fully.
        #expect(abs(try #require(model.logProb(of: "b", after: ["a"])) - log10((2 + pA) / 3)) < 1e-12)
        #expect(model.normalizationFailures(tolerance: 1e-9) == [])
    }

    @Test("fragments still sum to one for every history", arguments: [0.0, 0.3, 0.9])
    func fragmentsSumToOne(share: Double) {
        var counts = NGramCounts(order: 3)
        for sentence in randomSentences(count: 400, vocabulary: 40, seed: 7) {
            counts.add(sentence.tokens, count: sentence.count, boundaryShare: share)
        }
        for backgroundMass in [0, 0.9] {
            let model = counts.estimateWittenBell(backgroundMass: backgroundMass)
            #expect(model.normalizationFailures(tolerance: 1e-4) == [])
        }
    }

    @Test("a broken model fails the normalization check")
    func checkCanFail() throws {
        var counts = NGramCounts(order: 2)
        counts.add(["a", "b"], count: 2)
        var model = counts.estimateWittenBell()
        model.levels[0].logProbs[Int(try #require(model.id(of: "a")))] += 0.1
        #expect(!model.normalizationFailures().isEmpty)
    }

    @Test("training text has lower perplexity than unrelated text; OOVs counted apart")
    func perplexity() throws {
        var counts = NGramCounts(order: 3)
        let training = chessSentences()
        counts.add(contentsOf: training)
        let model = counts.estimateWittenBell()
        let seen = model.perplexity(of: training.prefix(50).map(\.tokens))
        let scrambled = model.perplexity(of: training.prefix(50).map { Array($0.tokens.reversed()) })
        let unrelated = model.perplexity(of: [["the", "queen", "sings", "in", "the", "rain"]])
        #expect(seen.oovs == 0)
        #expect(seen.perplexity < scrambled.perplexity)
        #expect(seen.perplexity < unrelated.perplexity)
        #expect(unrelated.oovs == 3)
        #expect(unrelated.words == 6)
        #expect(seen.perplexity < 10)
    }

    @Test("empty sentences and non-positive weights are ignored")
    func ignoredInput() {
        var counts = NGramCounts(order: 3)
        counts.add([], count: 3)
        counts.add(["a"], count: 0)
        counts.add(["a"], count: -1)
        counts.add(["a"], count: .nan)
        #expect(counts.sentenceCount == 0)
        counts.add(["a"], count: 0.5)
        #expect(counts.sentenceCount == 1)
        #expect(counts.totalWeight == 0.5)
    }

    /// How fast this is belongs to `gambit-bench prepare`; here, that a million samples estimate a
    /// proper model.
    @Test("a million samples over 100,000 sentences estimate a model")
    func millionSamples() {
        let sentences = randomSentences(count: 100_000, vocabulary: 2_000, seed: 7)
        let total = sentences.reduce(0) { $0 + $1.count }
        var counts = NGramCounts(order: 3)
        for sentence in sentences {
            counts.add(sentence.tokens, count: sentence.count * 1_000_000 / total)
        }
        #expect(abs(counts.totalWeight - 1_000_000) < 1e-3)
        #expect(counts.sentenceCount == 100_000)
        let model = counts.estimateWittenBell()
        #expect(model.counts[0] > 1_000)
    }
}

@Suite("ARPA")
struct ARPATests {
    func model() -> BackoffModel {
        var counts = NGramCounts(order: 3)
        counts.add(contentsOf: chessSentences())
        counts.add(contentsOf: randomSentences(count: 100, vocabulary: 20, seed: 11))
        return counts.estimateWittenBell()
    }

    @Test("write → read gives the same probabilities, and the same bytes again")
    func roundTrip() throws {
        let original = model()
        let text = original.arpaText()
        let read = try BackoffModel(arpaText: text)
        #expect(read.order == 3)
        #expect(read.counts == original.counts)
        #expect(Set(read.vocabulary) == Set(original.vocabulary))
        #expect(read.arpaText() == text)
        var generator = SplitMix64(state: 5)
        let vocabulary = original.vocabulary
        for _ in 0..<2_000 {
            let context = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                vocabulary.randomElement(using: &generator)!
            }
            let word = vocabulary.randomElement(using: &generator)!
            let expected = try #require(original.logProb(of: word, after: ["<s>"] + context))
            let actual = try #require(read.logProb(of: word, after: ["<s>"] + context))
            #expect(abs(expected - actual) < 2e-6)
        }
        #expect(read.normalizationFailures(tolerance: 1e-4) == [])
    }

    @Test("the header and sections are standard")
    func format() throws {
        let text = model().arpaText()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "\\data\\")
        #expect(lines[1].hasPrefix("ngram 1="))
        #expect(text.contains("\n\\1-grams:\n"))
        #expect(text.contains("\n-99.000000\t<s>\t"))
        #expect(text.contains("\n\\3-grams:\n"))
        #expect(text.hasSuffix("\n\\end\\\n"))
    }

    @Test("reads hand-written ARPA with spaces, a preamble, CRLF and no \\end\\")
    func tolerantReader() throws {
        let text = """
            This preamble is ignored.\r
            \\data\\\r
            ngram 1=4\r
            ngram 2=2\r
            \r
            \\1-grams:\r
            -99 <s> -0.30103\r
            -0.60206 a -0.5\r
            -0.60206 b\r
            -0.30103 </s>\r
            \r
            \\2-grams:\r
            -0.1 <s> a\r
            -0.2 a b\r

            """
        let model = try BackoffModel(arpaText: text)
        #expect(model.logProb(of: "a", after: ["<s>"]) == -0.1)
        #expect(abs(try #require(model.logProb(of: "b", after: ["<s>"])) - (-0.30103 - 0.60206)) < 1e-12)
        #expect(abs(try #require(model.logProb(of: "</s>", after: ["a"])) - (-0.5 - 0.30103)) < 1e-12)
    }

    @Test(
        "malformed ARPA is reported with its line",
        arguments: [
            ("\\data\\\nngram 1=1\n\n\\1-grams:\nnot-a-number a\n", "line 5"),
            (
                "\\data\\\nngram 1=1\nngram 2=1\n\\1-grams:\n-1 a\n\\2-grams:\n-1 a zebra\n",
                "zebra is not in the 1-grams"
            ),
            ("\\data\\\nngram 1=2\n\\1-grams:\n-1 a\n", "declares 2 1-grams but the section has 1"),
            ("just text\n", "no \\data\\ header"),
        ])
    func malformed(text: String, message: String) {
        let error = #expect(throws: ARPAError.self) { try BackoffModel(arpaText: text) }
        #expect(error?.description.contains(message) == true)
    }

    @Test("writes to a file and reads it back")
    func file() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-\(UUID().uuidString).arpa")
        defer { try? FileManager.default.removeItem(at: url) }
        let original = model()
        try original.writeARPA(to: url)
        #expect(try BackoffModel(arpaFile: url).arpaText() == original.arpaText())
    }
}
