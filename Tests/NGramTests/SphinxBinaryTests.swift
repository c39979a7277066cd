import Foundation
import Testing

@testable import NGram

@Suite("Writing sphinxbase's binary trie")
struct SphinxBinaryTests {
    /// A trigram model whose "a b c" has no bigram "b c", and a bigram model: the writer's two rarer layouts.
    static let trigramText = """
        \\data\\
        ngram 1=5
        ngram 2=4
        ngram 3=2

        \\1-grams:
        -1.0 <s> -0.3
        -0.7 a -0.2
        -0.8 b -0.25
        -0.9 c -0.1
        -1.2 </s>

        \\2-grams:
        -0.4 <s> a -0.05
        -0.5 a b -0.15
        -0.6 b </s>
        -0.3 c </s>

        \\3-grams:
        -0.2 <s> a b
        -0.1 a b c

        \\end\\

        """

    static let bigramText = """
        \\data\\
        ngram 1=4
        ngram 2=3

        \\1-grams:
        -1.0 <s> -0.3
        -0.7 a -0.2
        -0.8 b -0.25
        -1.2 </s>

        \\2-grams:
        -0.4 <s> a
        -0.5 a b
        -0.6 b </s>

        \\end\\

        """

    @Test("A trigram without its suffix bigram, and a bigram model, read back with every score as written")
    func rarerLayouts() throws {
        for text in [Self.trigramText, Self.bigramText] {
            let tables = try TrigramTables(arpaText: text)
            let reread = try TrigramTables(sphinxBinary: Data(tables.sphinxBinary()))
            #expect(reread.words == tables.words)
            let words = tables.words
            for u in words {
                for v in words {
                    for w in words where w != "<s>" {
                        let written = try #require(tables.logProb(of: w, after: [u, v]))
                        let read = try #require(reread.logProb(of: w, after: [u, v]))
                        // Whole units of log base 1.0001.
                        #expect(abs(written - read) < 1e-4, "\(u) \(v) \(w): \(written) against \(read)")
                    }
                }
            }
        }
        // The suffix the trigram needs is stored with its backed-off score, which leaves every score as it was.
        let tables = try TrigramTables(arpaText: Self.trigramText)
        let reread = try TrigramTables(sphinxBinary: Data(tables.sphinxBinary()))
        #expect(reread.counts[1] == tables.counts[1] + 1)
        #expect(abs(try #require(reread.logProb(of: "c", after: ["a", "b"])) + 0.1) < 1e-4)
    }

    @Test("Large score tables sort by their bits as by their values, negative, zero and positive alike")
    func radixOrder() {
        var generator = SystemRandomNumberGenerator()
        var values = (0..<20_000).map { _ in Float.random(in: -120...3, using: &generator) }
        values += [0, -0.0, -99, 1e-30, -1e-30, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]
        #expect(Quantizer.ascending(values) == values.sorted())
    }
}
