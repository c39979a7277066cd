import Formats
import Foundation
import Scoring
import Testing

/// Per-utterance biasing lists, scored as Le et al. (2021) score them, with every count below worked
/// out by hand from the rule: a reference word is biased when its own utterance's third column holds
/// it (its substitution or deletion is a B-WER error, otherwise U-WER); an inserted word is a B-WER
/// error when its own utterance's third column holds it, otherwise U-WER. The fourth column is what
/// the recognizer was given and does not change the score.
@Suite("Per-utterance biasing lists")
struct BiasingListTests {
    func write(_ text: String, _ name: String) throws -> URL {
        let url = try temporaryDirectory().appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The error scoring `reference` (written as the file `name`) against `hypothesis` gives, with the file named
    /// by `name` alone; "no error" when it scores.
    func scoringError(reference text: String, named name: String, hypothesis: URL) throws -> String {
        let reference = try write(text, name)
        do {
            _ = try Scorer.score(reference: reference, hypothesis: hypothesis)
            return "no error"
        } catch let error as ScoringError {
            return error.description.replacingOccurrences(of: reference.path, with: name)
        }
    }

    static let references = """
        u1\tplay the albin counter gambit\t["albin", "gambit"]\t["albin", "gambit", "winawer"]
        u2\tcall maria now\t["maria"]\t["maria", "albin"]
        u3\tgood morning\t[]\t["winawer"]
        u4\tsee you later\t[]\t[]

        """

    /// Kaldi `text`, with a tab after one id and an empty hypothesis (an id alone) for u4.
    static let hypotheses = """
        u1 play the album counter gambit
        u2\tcall maria albin now
        u3 good morning winawer
        u4

        """

    @Test("Each utterance's own list decides: a word biased elsewhere and an inserted distractor count as U-WER")
    func handCounted() throws {
        // Files named as users name them; both formats are recognised by their content.
        let reference = try write(Self.references, "refs.tsv")
        let hypothesis = try write(Self.hypotheses, "hyps.txt")
        let report = try Scorer.score(reference: reference, hypothesis: hypothesis)
        // u1: albin → album is a substitution of a biased word: 1 B error over 2 biased words (albin, gambit).
        // u2: "albin" inserted; biased in u1, a distractor in u2's list, not biased in u2: 1 U error.
        // u3: "winawer" inserted, a distractor: 1 U error. u4: empty hypothesis: 3 deletions, U errors.
        // Reference words 5 + 3 + 2 + 3 = 13; biased 2 + 1 = 3; errors 1 + 1 + 1 + 3 = 6.
        #expect(report.totals.counts.referenceWords == 13)
        #expect(report.totals.counts.errors == 6)
        #expect(report.totals.counts.substitutions == 1)
        #expect(report.totals.counts.insertions == 2)
        #expect(report.totals.counts.deletions == 3)
        let boosted = try #require(report.boosted)
        #expect(boosted.boostedReferenceWords == 3 && boosted.boostedErrors == 1)
        #expect(boosted.unboostedReferenceWords == 10 && boosted.unboostedErrors == 5)
        #expect(boosted.boostedWordErrorRate == 1.0 / 3 && boosted.unboostedWordErrorRate == 0.5)
        let perUtterance = Dictionary(uniqueKeysWithValues: report.utterances.map { ($0.id, $0) })
        #expect(perUtterance["u1"]?.boostedErrors == 1 && perUtterance["u1"]?.boostedReferenceWords == 2)
        #expect(perUtterance["u2"]?.boostedErrors == 0 && perUtterance["u2"]?.boostedReferenceWords == 1)
        #expect(perUtterance["u4"]?.counts.deletions == 3 && perUtterance["u4"]?.boostedReferenceWords == 0)

        // The lists themselves: 3 + 2 + 1 + 0 = 6 entries, of which 3 are biased words and 3 distractors
        // (winawer in u1, albin in u2, winawer in u3); u4's row has empty lists.
        let lists = try #require(report.biasingLists)
        #expect(lists.utterances == 4 && lists.listEntries == 6 && lists.largestList == 3)
        #expect(lists.biasedEntries == 3 && lists.distractorEntries == 3)
        #expect(lists.biasedReferenceWords == 3 && lists.utterancesWithBiasedWords == 2)
        #expect(lists.meanListSize == 1.5)
        #expect(report.text.contains("B-WER  33.33% (1/3)   U-WER  50.00% (5/10)"))
        #expect(report.text.contains("Biasing lists: 4 utterances, 6 entries (mean 1.5, largest 3)"))
    }

    /// The lists of ``references`` as a Gambit manifest carries them: only the whole list given to the recognizer.
    static let manifest = """
        {"id": "u1", "audio": "u1.wav", "text": "play the albin counter gambit", "boosted": ["albin", "gambit", \
        "winawer"]}
        {"id": "u2", "audio": "u2.wav", "text": "call maria now", "boosted": ["maria", "albin"]}
        {"id": "u3", "audio": "u3.wav", "text": "good morning", "boosted": ["winawer"]}
        {"id": "u4", "audio": "u4.wav", "text": "see you later", "boosted": []}

        """

    @Test("A manifest's boosted lists are scored per utterance, as the biasing-list file with the same lists is")
    func manifestLists() throws {
        // A list's biased words are its words that the utterance's reference holds, as a run counts them.
        let hypothesis = try write(Self.hypotheses, "hyps.txt")
        let report = try Scorer.score(reference: try write(Self.manifest, "manifest.jsonl"), hypothesis: hypothesis)
        let published = try Scorer.score(reference: try write(Self.references, "refs.tsv"), hypothesis: hypothesis)
        #expect(report.totals == published.totals)
        #expect(report.boosted == published.boosted)
        #expect(report.biasingLists == published.biasingLists)
        #expect(report.text.contains("B-WER  33.33% (1/3)   U-WER  50.00% (5/10)"))
        #expect(report.text.contains("Biasing lists: 4 utterances, 6 entries (mean 1.5, largest 3)"))
        // A manifest without lists is scored as before: no B-WER without boosted words.
        let plain = Self.manifest.replacingOccurrences(
            of: #", "boosted": \[[^\]]*\]"#, with: "", options: .regularExpression)
        let unlisted = try Scorer.score(reference: try write(plain, "plain.jsonl"), hypothesis: hypothesis)
        #expect(unlisted.boosted == nil && unlisted.biasingLists == nil)
        #expect(unlisted.totals == published.totals)
    }

    @Test(
        "A manifest list's entries count as a run counts them: normalized into words, each word once",
        arguments: [
            (#"["Counter Gambit", "gambit", "ALBIN"]"#, 3, 3, 0),
            (#"["albin", "Albin", "winawer", "najdorf"]"#, 3, 1, 2),
            (#"[]"#, 0, 0, 0),
        ])
    func manifestListWords(list: String, entries: Int, biased: Int, distractors: Int) throws {
        let line = #"{"id": "u1", "audio": "u1.wav", "text": "play the albin counter gambit", "boosted": "#
        let report = try Scorer.score(
            reference: try write(line + list + "}\n", "manifest.jsonl"),
            hypothesis: try write("u1 play the album counter gambit\n", "hyps"))
        let lists = try #require(report.biasingLists)
        #expect(lists.listEntries == entries && lists.biasedEntries == biased)
        #expect(lists.distractorEntries == distractors)
        #expect(report.boosted?.boostedReferenceWords == biased)
    }

    @Test(
        "A biasing-list file's entries count as a run counts its manifest's: a word given twice is one entry",
        arguments: [
            // Column 4 repeats albin, once in capitals; column 3 names it twice too.
            (#"["albin", "albin"]"#, #"["albin", "Albin", "albin", "winawer"]"#, 2, 1, 1),
            (#"["counter gambit"]"#, #"["counter gambit", "Gambit", "najdorf"]"#, 3, 2, 1),
        ])
    func biasingListFileWords(biased: String, list: String, entries: Int, biasedEntries: Int, distractors: Int)
        throws
    {
        let hypothesis = try write("u1 play the album counter gambit\n", "hyps")
        let row = "u1\tplay the albin counter gambit\t\(biased)\t\(list)\n"
        let lists = try #require(
            try Scorer.score(reference: try write(row, "refs.tsv"), hypothesis: hypothesis).biasingLists)
        #expect(lists.listEntries == entries && lists.largestList == entries)
        #expect(lists.biasedEntries == biasedEntries && lists.distractorEntries == distractors)
        // The same list in a manifest, as a run reads it, gives the same figures.
        let line = #"{"id": "u1", "text": "play the albin counter gambit", "boosted": "# + list + "}\n"
        let manifest = try Scorer.score(reference: try write(line, "manifest.jsonl"), hypothesis: hypothesis)
        #expect(manifest.biasingLists?.listEntries == entries)
        #expect(manifest.biasingLists?.distractorEntries == distractors)
    }

    @Test("A manifest whose lists are on some lines only, or are not lists of words, is refused naming the line")
    func malformedManifestLists() throws {
        let hypothesis = try write("u1 a\nu2 b\n", "hyps")
        func failure(_ lines: String) throws -> String {
            try scoringError(reference: lines, named: "manifest.jsonl", hypothesis: hypothesis)
        }
        let listed = #"{"id": "u1", "text": "a", "boosted": ["a"]}"# + "\n"
        let unlisted = #"{"id": "u2", "text": "b"}"# + "\n"
        #expect(try failure(listed + unlisted).contains("manifest.jsonl:2: no \"boosted\" list, while line 1 has one"))
        #expect(try failure(unlisted + listed).contains("manifest.jsonl:1: no \"boosted\" list, while line 2 has one"))
        #expect(
            try failure(#"{"id": "u1", "text": "a", "boosted": "a"}"# + "\n")
                .contains("manifest.jsonl:1: utterance 'u1': \"boosted\" is not a JSON list of strings"))
        #expect(
            try failure(#"{"id": "u1", "text": "a", "boosted": [1]}"# + "\n")
                .contains("manifest.jsonl:1: utterance 'u1': \"boosted\" is not a JSON list of strings"))
        // Boosted words for the whole file cannot also apply.
        let reference = try write(listed, "manifest.jsonl")
        #expect(throws: ScoringError.conflictingBiasingLists(reference: reference.path)) {
            _ = try Scorer.score(reference: reference, hypothesis: hypothesis, boostedWords: ["a"])
        }
    }

    @Test("One boosted list for the whole file counts the same insertion as a B-WER error in every utterance")
    func wholeFileListDiffers() throws {
        let trn = """
            play the albin counter gambit (u1)
            call maria now (u2)
            good morning (u3)
            see you later (u4)

            """
        let report = try Scorer.score(
            reference: try write(trn, "ref.trn"), hypothesis: try write(Self.hypotheses, "hyp.txt"),
            boostedWords: ["albin", "gambit", "maria"])
        // The same 6 errors, but u2's inserted "albin" is now boosted: 2 B errors over the same 3 words.
        #expect(report.totals.counts.errors == 6)
        #expect(report.boosted?.boostedErrors == 2 && report.boosted?.boostedReferenceWords == 3)
        #expect(report.biasingLists == nil)
    }

    @Test("An inserted word biased in its own utterance is a B-WER error")
    func biasedInsertion() throws {
        let reference = try write("u5\topen the gate\t[\"gate\"]\t[\"gate\", \"gait\"]\n", "refs.tsv")
        let report = try Scorer.score(reference: reference, hypothesis: try write("u5 open the gate gate\n", "hyps"))
        // One insertion of "gate", biased in u5: B errors 1 over 1 biased reference word.
        #expect(report.boosted?.boostedErrors == 1 && report.boosted?.boostedReferenceWords == 1)
        #expect(report.boosted?.unboostedErrors == 0 && report.boosted?.boostedWordErrorRate == 1)
    }

    @Test("Rows whose lists are all empty give B-WER no data, not 0%")
    func emptyLists() throws {
        let reference = try write("a\tone two\t[]\t[]\nb\tthree\t[]\t[\"four\"]\n", "refs.tsv")
        let report = try Scorer.score(reference: reference, hypothesis: try write("a one two\nb four\n", "hyps"))
        #expect(report.boosted?.boostedReferenceWords == 0 && report.boosted?.boostedWordErrorRate == nil)
        #expect(report.boosted?.unboostedErrors == 1 && report.boosted?.unboostedReferenceWords == 3)
        #expect(report.text.contains("B-WER no data (0/0)"))
    }

    /// sclite's rule picks, at each cell, the diagonal when it is no dearer than both others, else the
    /// deletion when strictly cheaper than the insertion, else the insertion, tracing back from the end.
    @Test("Where equally cheap alignments exist, the totals are counted on sclite's choice")
    func ties() throws {
        // "a b" against "c", b biased: a→c with b deleted, or a deleted with b→c; both cost 7 and both
        // give one B error (b) and one U error (a), so the totals do not depend on the choice.
        let first = try Scorer.score(
            reference: try write("t1\ta b\t[\"b\"]\t[\"b\"]\n", "refs.tsv"), hypothesis: try write("t1 c\n", "h"))
        #expect(first.boosted?.boostedErrors == 1 && first.boosted?.unboostedErrors == 1)
        #expect(first.totals.counts.substitutions == 1 && first.totals.counts.deletions == 1)

        // "x y" against "y x", x biased: x deleted, y correct, x inserted (cost 6), or y inserted, x
        // correct, y deleted (cost 6). The errors total 2 either way, but the first puts both on x
        // (B 2/1, U 0/1) and the second both on y (B 0/1, U 2/1). At the last cell the deletion is not
        // strictly cheaper than the insertion, so sclite's rule (and Gambit's) takes the insertion of x:
        // the first alignment.
        let second = try Scorer.score(
            reference: try write("t2\tx y\t[\"x\"]\t[\"x\"]\n", "refs.tsv"), hypothesis: try write("t2 y x\n", "h"))
        #expect(second.totals.counts.errors == 2)
        #expect(second.boosted?.boostedErrors == 2 && second.boosted?.unboostedErrors == 0)
    }

    @Test("A malformed biasing row is an error naming the file, the line and the column")
    func malformedRows() throws {
        let hypothesis = try write("u1 a\n", "hyps")
        func failure(_ row: String) throws -> String {
            try scoringError(reference: row, named: "refs.tsv", hypothesis: hypothesis)
        }
        #expect(try failure("u1\ta\t[\"a\"]\n").contains("refs.tsv:1: expected 4 tab-separated columns"))
        #expect(try failure("u1\ta\t[\"a\"\t[\"a\"]\n").contains("refs.tsv:1: utterance 'u1': column 3"))
        #expect(try failure("u1\ta\t[\"a\"]\t[\"b\"]\n").contains("biased word \"a\" of column 3 is not in"))
        // Boosted words for the whole file cannot also apply.
        let reference = try write("u1\ta\t[\"a\"]\t[\"a\"]\n", "refs.tsv")
        #expect(throws: ScoringError.conflictingBiasingLists(reference: reference.path)) {
            _ = try Scorer.score(reference: reference, hypothesis: hypothesis, boostedWords: ["a"])
        }
    }
}
