import Testing

@testable import Scoring

@Suite("Alignment")
struct AlignmentTests {
    func counts(_ reference: String, _ hypothesis: String, _ mode: AlignmentMode) -> ErrorCounts {
        Aligner.align(
            reference: reference.split(separator: " ").map(String.init),
            hypothesis: hypothesis.split(separator: " ").map(String.init), mode: mode
        ).counts
    }

    @Test(arguments: AlignmentMode.allCases)
    func emptyReference(mode: AlignmentMode) {
        #expect(
            counts("", "a b", mode)
                == ErrorCounts(referenceWords: 0, correct: 0, substitutions: 0, deletions: 0, insertions: 2))
    }

    @Test(arguments: AlignmentMode.allCases)
    func emptyHypothesis(mode: AlignmentMode) {
        #expect(
            counts("a b c", "", mode)
                == ErrorCounts(referenceWords: 3, correct: 0, substitutions: 0, deletions: 3, insertions: 0))
    }

    @Test(arguments: AlignmentMode.allCases)
    func bothEmpty(mode: AlignmentMode) {
        let alignment = Aligner.align(reference: [], hypothesis: [], mode: mode)
        #expect(alignment.pairs.isEmpty)
        #expect(alignment.counts == ErrorCounts())
    }

    @Test(arguments: AlignmentMode.allCases)
    func allCorrect(mode: AlignmentMode) {
        #expect(counts("the cat sat", "the cat sat", mode) == ErrorCounts(referenceWords: 3, correct: 3))
    }

    @Test func tieInScliteModePrefersDeletionAndInsertion() {
        // Two substitutions cost 8, a deletion and an insertion 6: sclite reports D C I (verified with sclite).
        let alignment = Aligner.align(reference: ["a", "b"], hypothesis: ["b", "c"], mode: .sclite)
        #expect(alignment.pairs.map(\.operation) == [.deletion, .correct, .insertion])
        #expect(
            alignment.counts
                == ErrorCounts(referenceWords: 2, correct: 1, substitutions: 0, deletions: 1, insertions: 1))
    }

    @Test func tieInMinimalModePrefersTheDiagonal() {
        let alignment = Aligner.align(reference: ["a", "b"], hypothesis: ["b", "c"], mode: .minimal)
        #expect(alignment.pairs.map(\.operation) == [.substitution, .substitution])
        #expect(alignment.counts.errors == 2)
    }

    @Test func swappedWordsInScliteMode() {
        // sclite: "the cat sat ON mat **" / "the cat sat ** mat ON".
        let alignment = Aligner.align(
            reference: ["the", "cat", "sat", "on", "mat"], hypothesis: ["the", "cat", "sat", "mat", "on"],
            mode: .sclite)
        #expect(alignment.pairs.map(\.operation) == [.correct, .correct, .correct, .deletion, .correct, .insertion])
        #expect(alignment.text.reference == "the cat sat ON mat **")
        #expect(alignment.text.hypothesis == "the cat sat ** mat ON")
        #expect(alignment.text.evaluation == "            D      I")
    }

    @Test func pairsCarryIndicesAndWords() {
        let alignment = Aligner.align(reference: ["a", "b"], hypothesis: ["a", "x", "b"], mode: .sclite)
        #expect(
            alignment.pairs == [
                AlignedPair(
                    operation: .correct, referenceIndex: 0, hypothesisIndex: 0, reference: "a", hypothesis: "a"),
                AlignedPair(
                    operation: .insertion, referenceIndex: nil, hypothesisIndex: 1, reference: nil, hypothesis: "x"),
                AlignedPair(
                    operation: .correct, referenceIndex: 1, hypothesisIndex: 2, reference: "b", hypothesis: "b"),
            ])
    }

    @Test(arguments: AlignmentMode.allCases)
    func checkpointedBacktraceFindsTheSamePath(mode: AlignmentMode) {
        let corpus = SyntheticCorpus(utterances: 600, seed: 3, errorRate: 0.3, longEvery: 50)
        var full = EditPathFinder(mode: mode)
        var checkpointed = EditPathFinder(mode: mode, fullMatrixCellLimit: 0)
        for (reference, hypothesis) in zip(corpus.references, corpus.hypotheses) {
            let ids = Dictionary(
                (reference + hypothesis).map { ($0, Int32($0.hashValue & 0xFFFF)) }, uniquingKeysWith: { a, _ in a })
            let ref = reference.map { ids[$0]! }
            let hyp = hypothesis.map { ids[$0]! }
            var a: [EditOperation] = []
            var b: [EditOperation] = []
            ref.withUnsafeBufferPointer { r in
                hyp.withUnsafeBufferPointer { h in
                    full.align(reference: r, hypothesis: h, into: &a)
                    checkpointed.align(reference: r, hypothesis: h, into: &b)
                }
            }
            #expect(a == b)
        }
    }

    @Test func characterDistanceMatchesTextbookLevenshtein() {
        var rng = SplitMix64(seed: 11)
        let alphabet = Array("abcdé ĝ")
        for _ in 0..<400 {
            let a = String((0..<Int(rng.next(below: 200))).map { _ in alphabet[Int(rng.next(below: 7))] })
            var b = Array(a)
            for _ in 0..<Int(rng.next(below: 30)) where !b.isEmpty {
                let position = Int(rng.next(below: UInt64(b.count)))
                switch rng.next(below: 3) {
                case 0: b[position] = alphabet[Int(rng.next(below: 7))]
                case 1: b.remove(at: position)
                default: b.insert(alphabet[Int(rng.next(below: 7))], at: position)
                }
            }
            let expected = referenceLevenshtein(Array(a.unicodeScalars), Array(String(b).unicodeScalars))
            #expect(Aligner.characterDistance(reference: a, hypothesis: String(b)) == expected)
        }
    }

    @Test func characterAlignment() {
        let alignment = Aligner.alignCharacters(reference: "kat", hypothesis: "cat")
        #expect(alignment.counts == ErrorCounts(referenceWords: 3, correct: 2, substitutions: 1))
    }
}
