import Formats
import Foundation
import Testing

@testable import Scoring

/// Keywords scored by position, against alignments counted by hand.
@Suite struct KeywordTests {
    private func pairs(_ reference: String, _ hypothesis: String) -> [AlignedPair] {
        Aligner.align(
            reference: reference.split(separator: " ").map(String.init),
            hypothesis: hypothesis.split(separator: " ").map(String.init)
        ).pairs
    }

    private func terms(_ terms: String...) -> [[String]] { terms.map { $0.split(separator: " ").map(String.init) } }

    @Test("A term heard where another was said is a miss and a false alarm, where counting per utterance sees a hit")
    func wrongPosition() {
        // albin→winawer S, played C, the C, winawer→albin S: each term said once and heard once, elsewhere.
        let aligned = pairs("albin played the winawer", "winawer played the albin")
        let counts = KeywordScoring.count(aligned, terms: terms("albin", "winawer"))
        for term in counts {
            #expect((term.said, term.heard, term.hits, term.misses, term.falseAlarms) == (1, 1, 0, 1, 1), "\(term)")
            #expect(term.recall == 0 && term.precision == 0 && term.f1 == 0)
        }
    }

    @Test("Scoring files gives the swap no hit both ways, as a run does, with its false alarms in the text")
    func swapThroughScorer() throws {
        for (said, heard) in [
            ("albin played the winawer", "winawer played the albin"),
            ("winawer played the albin", "albin played the winawer"),
        ] {
            let report = try Scorer.score(
                reference: [Utterance(id: "u1", text: said)], hypothesis: [Utterance(id: "u1", text: heard)],
                options: ScoringOptions(terms: ["albin", "winawer"]))
            let keywords = try #require(report.keywords)
            #expect(keywords.terms.map(\.term) == ["albin", "winawer"])
            #expect(keywords.terms.allSatisfy { ($0.hits, $0.misses, $0.falseAlarms, $0.f1) == (0, 1, 1, 0) })
            // No boosted word: the headline is over none, so there is nothing to count there.
            #expect(keywords.overall.said == 0 && keywords.overall.f1 == nil)
            let boosted = try Scorer.score(
                reference: [Utterance(id: "u1", text: said)], hypothesis: [Utterance(id: "u1", text: heard)],
                options: ScoringOptions(boostedWords: ["albin", "winawer"]))
            let overall = try #require(boosted.keywords).overall
            #expect((overall.said, overall.heard, overall.hits, overall.falseAlarms) == (2, 2, 0, 2))
            #expect(overall.f1 == 0)
            #expect(boosted.text.contains("Keywords by position: F1 0.00%"))
            #expect(boosted.text.contains("False alarms: 2, 200.00 per 100 utterances, no data per hour"))
            #expect(boosted.text.contains("B-WER 100.00%"))
        }
    }

    @Test("A phrase is a hit only when every word of it is heard where it was said")
    func phrases() {
        let right = KeywordScoring.count(
            pairs("play the albin counter gambit", "play the albin counter gambit"),
            terms: terms("albin counter gambit"))
        #expect((right[0].said, right[0].heard, right[0].hits) == (1, 1, 1))
        #expect(right[0].f1 == 1)
        // album for albin: the phrase is missed, the shorter term inside it is heard where it was said.
        let partial = KeywordScoring.count(
            pairs("play the albin counter gambit", "play the album counter gambit"),
            terms: terms("albin counter gambit", "counter gambit"))
        #expect((partial[0].said, partial[0].heard, partial[0].hits) == (1, 0, 0))
        #expect(partial[0].recall == 0 && partial[0].precision == nil && partial[0].f1 == nil)
        #expect((partial[1].said, partial[1].heard, partial[1].hits) == (1, 1, 1))
    }

    @Test("A term nobody said is a false alarm; precision is 0 and recall no data")
    func inserted() {
        // he C, ran→najdorf S, the C, race C.
        let counts = KeywordScoring.count(pairs("he ran the race", "he najdorf the race"), terms: terms("najdorf"))
        #expect((counts[0].said, counts[0].heard, counts[0].hits, counts[0].falseAlarms) == (0, 1, 0, 1))
        #expect(counts[0].precision == 0 && counts[0].recall == nil && counts[0].f1 == nil)
        // Said twice, heard once, in the second place: one hit, one miss, no false alarm.
        let twice = KeywordScoring.count(
            pairs("najdorf or najdorf again", "now or najdorf again"), terms: terms("najdorf"))
        #expect(
            (twice[0].said, twice[0].heard, twice[0].hits, twice[0].misses, twice[0].falseAlarms) == (2, 1, 1, 1, 0))
    }

    @Test("Counting by word gives what counting one-word terms gives")
    func wordsAgree() {
        for (reference, hypothesis) in [
            ("albin played the winawer", "winawer played the albin"), ("he ran the race", "he najdorf najdorf race"),
            ("najdorf or najdorf again", "now or najdorf again"), ("", "najdorf"), ("albin", ""),
        ] {
            let aligned = pairs(reference, hypothesis)
            let words = ["albin", "winawer", "najdorf"]
            let byTerm = KeywordScoring.count(aligned, terms: words.map { [$0] })
            let byWord = KeywordScoring.countWords(aligned, words: Set(words))
            for counts in byTerm {
                let other = byWord[counts.term] ?? KeywordCounts(term: counts.term)
                #expect(counts == other, "\(reference) / \(hypothesis)")
            }
        }
    }
}

/// A term's declared surface forms count as the term.
@Suite struct TermFormTests {
    let normalizer = Normalizer.standard.withTermForms([
        "albin's": "albin", "nimzoindian": "nimzo indian", "nimzo-indian defence": "nimzo indian defense",
    ])

    @Test("A declared form becomes its term; the longest form wins where two start at one word")
    func forms() {
        #expect(normalizer.normalize("Play the Albin's gambit") == ["play", "the", "albin", "gambit"])
        #expect(normalizer.normalize("the nimzoindian") == ["the", "nimzo", "indian"])
        // "nimzo-indian" is already "nimzo indian" once hyphens split; the three-word form wins over nothing.
        #expect(normalizer.normalize("a Nimzo-Indian defence") == ["a", "nimzo", "indian", "defense"])
        #expect(Normalizer.standard.normalize("Albin's") == ["albin's"])
        #expect(normalizer.summary.hasSuffix("3 term forms"))
    }

    @Test("A declared form counts as the term in keyword scores, false alarms and B-WER alike")
    func scored() {
        let reference = normalizer.normalize("play the albin's counter gambit")
        let hypothesis = normalizer.normalize("play the albin counter gambit")
        let aligned = Aligner.align(reference: reference, hypothesis: hypothesis).pairs
        #expect(aligned.allSatisfy { $0.operation == .correct })
        let counts = KeywordScoring.count(aligned, terms: [["albin"]])
        #expect((counts[0].said, counts[0].hits, counts[0].falseAlarms) == (1, 1, 0))
        let plain = Aligner.align(
            reference: Normalizer.standard.normalize("play the albin's counter gambit"),
            hypothesis: Normalizer.standard.normalize("play the albin counter gambit")
        ).pairs
        let unmatched = KeywordScoring.count(plain, terms: [["albin"]])
        #expect((unmatched[0].said, unmatched[0].hits, unmatched[0].falseAlarms) == (0, 0, 1))
        #expect(
            CustomizationMetrics.boostedWordErrorRates(
                alignments: [Alignment(pairs: aligned)], boostedWords: ["albin"]
            ).boostedErrors == 0)
    }

    @Test("Term forms are recorded with the normalizer and read back; results without them read as before")
    func recorded() throws {
        let data = try JSONEncoder().encode(normalizer)
        let back = try JSONDecoder().decode(Normalizer.self, from: data)
        #expect(back == normalizer && back.normalize("albin's") == ["albin"])
        let old = try JSONDecoder().decode(Normalizer.self, from: try JSONEncoder().encode(Normalizer.standard))
        #expect(old == .standard && old.termForms == nil)
        #expect(!String(decoding: try JSONEncoder().encode(Normalizer.standard), as: UTF8.self).contains("termForms"))
        #expect(normalizer != .standard)
    }
}
