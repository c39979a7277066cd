import Foundation
import Scoring
import Testing

/// WER and B-WER per label (`gambit score --by`), counted by hand.
@Suite("Breakdowns by label")
struct BreakdownTests {
    func write(_ text: String, _ name: String) throws -> URL {
        let url = try temporaryDirectory().appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// A Gambit manifest as the reference: conditions, speakers, and a number field.
    static let manifest = """
        {"id": "a1", "audio": "a1.wav", "text": "play the albin counter gambit", "speaker": "flite:slt", "condition": "clean", "duration": 2.2}
        {"id": "a2", "audio": "a2.wav", "text": "good morning", "speaker": "flite:awb", "condition": "clean", "duration": 1.0}
        {"id": "b1", "audio": "b1.wav", "text": "play the winawer variation", "speaker": "flite:slt", "condition": "telephone", "duration": 2.0}
        {"id": "b2", "audio": "b2.wav", "text": "see you later", "speaker": "flite:awb", "condition": "telephone", "duration": 1.1}
        {"id": "c1", "audio": "c1.wav", "text": "hello there", "speaker": "flite:awb", "duration": 0.8}

        """

    /// a1: 1 substitution (albin, boosted); a2: correct; b1: 1 deletion (winawer, boosted) and 1 insertion;
    /// b2: 1 substitution; c1: correct.
    static let hypotheses = """
        a1 play the album counter gambit
        a2 good morning
        b1 play the variation now
        b2 see you layer
        c1 hello there

        """

    @Test("By condition: counts per group, B-WER per group, an utterance without the field in no group")
    func byCondition() throws {
        let report = try Scorer.score(
            reference: try write(Self.manifest, "manifest.jsonl"), hypothesis: try write(Self.hypotheses, "hyp.txt"),
            options: ScoringOptions(boostedWords: ["albin", "winawer", "gambit"], breakdownField: "condition"))
        let breakdown = try #require(report.breakdown)
        #expect(breakdown.field == "condition")
        #expect(breakdown.unlabelled == 1)
        #expect(breakdown.groups.map(\.label) == ["clean", "telephone"])
        let clean = breakdown.groups[0]
        // clean: a1 + a2 = 7 reference words, 1 error; boosted reference words albin, gambit: 1 error of 2.
        #expect((clean.utterances, clean.referenceWords, clean.errors) == (2, 7, 1))
        #expect(clean.wordErrorRate == 1.0 / 7)
        #expect((clean.boostedReferenceWords, clean.boostedErrors) == (2, 1))
        #expect(clean.boostedWordErrorRate == 0.5)
        let telephone = breakdown.groups[1]
        // telephone: b1 + b2 = 7 words; deletion + insertion + substitution = 3 errors; winawer deleted: B-WER 1/1.
        #expect((telephone.utterances, telephone.referenceWords, telephone.errors) == (2, 7, 3))
        #expect((telephone.boostedReferenceWords, telephone.boostedErrors) == (1, 1))
        #expect(telephone.boostedWordErrorRate == 1)
        for group in breakdown.groups {
            let interval = try #require(group.wordErrorRateInterval)
            let rate = try #require(group.wordErrorRate)
            #expect(interval.lower <= rate && rate <= interval.upper)
            #expect(interval.resamples == 1000)
        }
        #expect(report.text.contains("By condition, 95% bootstrap intervals:"))
        #expect(report.text.contains("1 scored utterance(s) have no condition"))
        // The same report twice gives the same intervals (fixed seed).
        let again = try Scorer.score(
            reference: try write(Self.manifest, "manifest.jsonl"), hypothesis: try write(Self.hypotheses, "hyp.txt"),
            options: ScoringOptions(boostedWords: ["albin", "winawer", "gambit"], breakdownField: "condition"))
        #expect(again.breakdown == breakdown)
    }

    @Test("A group without a boosted reference word has no B-WER: no data, not 0%")
    func noDataPerGroup() throws {
        let report = try Scorer.score(
            reference: try write(Self.manifest, "manifest.jsonl"), hypothesis: try write(Self.hypotheses, "hyp.txt"),
            options: ScoringOptions(boostedWords: ["albin", "winawer"], breakdownField: "speaker"))
        let groups = try #require(report.breakdown?.groups)
        #expect(groups.map(\.label) == ["flite:awb", "flite:slt"])
        // flite:awb said a2, b2 and c1: 7 words, 1 error, no boosted word.
        #expect((groups[0].referenceWords, groups[0].errors, groups[0].boostedReferenceWords) == (7, 1, 0))
        #expect(groups[0].boostedWordErrorRate == nil)
        #expect(groups[0].boostedWordErrorRateInterval == nil)
        // flite:slt said a1 and b1: 9 words, 3 errors; albin substituted and winawer deleted: B-WER 2/2.
        #expect((groups[1].referenceWords, groups[1].errors) == (9, 3))
        #expect(groups[1].boostedWordErrorRate == 1)
        #expect(report.text.contains("no data"))
    }

    @Test("An interval is a point when every utterance of the group has the same errors and words")
    func degenerateInterval() {
        let breakdown = Breakdown(
            field: "speaker", labels: ["x", "x", "x", nil], errors: [1, 1, 1, 5], referenceWords: [4, 4, 4, 5])
        let group = breakdown.groups[0]
        #expect(group.wordErrorRate == 0.25)
        #expect(group.wordErrorRateInterval?.lower == 0.25)
        #expect(group.wordErrorRateInterval?.upper == 0.25)
        #expect(breakdown.unlabelled == 1)
        // One utterance: every draw is that utterance, so there is no interval to give.
        let single = Breakdown(field: "speaker", labels: ["x"], errors: [1], referenceWords: [4])
        #expect(single.groups[0].wordErrorRate == 0.25)
        #expect(single.groups[0].wordErrorRateInterval == nil)
    }

    @Test("A group's interval does not depend on which other groups exist")
    func groupsAreIndependent() {
        let alone = Breakdown(field: "f", labels: ["a", "a", "a"], errors: [0, 2, 5], referenceWords: [3, 4, 6])
        let withOthers = Breakdown(
            field: "f", labels: ["b", "a", "a", "b", "a"], errors: [9, 0, 2, 1, 5], referenceWords: [9, 3, 4, 2, 6])
        #expect(alone.groups[0] == withOthers.groups[0])
        let interval = alone.groups[0].wordErrorRateInterval!
        #expect(interval.lower < interval.upper)
    }

    @Test("Numeric ids label their utterances as string ids do")
    func numericIDs() throws {
        let reference = try write(
            """
            {"id": 17, "text": "good morning", "condition": "clean"}
            {"id": 18, "text": "see you later", "condition": "noisy"}

            """, "numeric.jsonl")
        let hypothesis = try write("17 good morning\n18 see you\n", "numeric.txt")
        let report = try Scorer.score(
            reference: reference, hypothesis: hypothesis, options: ScoringOptions(breakdownField: "condition"))
        let groups = try #require(report.breakdown?.groups)
        #expect(groups.map(\.label) == ["clean", "noisy"])
        #expect(groups.map(\.errors) == [0, 1])
        #expect(report.breakdown?.unlabelled == 0)
    }

    @Test("A field the reference cannot give is an error naming the file and what is there")
    func unusableFields() throws {
        let reference = try write(Self.manifest, "manifest.jsonl")
        let hypothesis = try write(Self.hypotheses, "hyp.txt")
        func message(_ field: String, reference: URL) -> String {
            do {
                _ = try Scorer.score(
                    reference: reference, hypothesis: hypothesis, options: ScoringOptions(breakdownField: field))
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(
            message("duration", reference: reference).contains("line 1 (utterance 'a1') holds it as the number 2.2"))
        #expect(message("conditon", reference: reference).contains("\"condition\", \"id\", \"speaker\""))
        // Kaldi text has neither speakers nor other fields.
        #expect(message("speaker", reference: hypothesis).contains("no utterance has a speaker"))
        #expect(message("condition", reference: hypothesis).contains("only a JSON-lines reference"))
        #expect(message("condition", reference: reference).isEmpty)
    }
}
