import Corpus
import Foundation
import GambitTestSupport
import Testing

@Suite("Texts and synthesis plans")
struct TextsAndPlanTests {
    static let shippedTexts = ["chess", "contacts", "medical"].map {
        TestSupport.packageRoot.appendingPathComponent("Corpora/\($0)/texts.tsv")
    }

    @Test func chessTextsHaveIdsTextsAndSplits() throws {
        let texts = try CorpusText.load(Self.shippedTexts[0])
        #expect(texts.count == 40)
        #expect(texts[0] == CorpusText(id: "chess-001", text: "play the albin counter gambit", split: "dev"))
        #expect(texts.count { $0.split == "dev" } == 16)
        #expect(texts.count { $0.split == "test" } == 24)
    }

    @Test("carrier: each domain's 24 sentences, 12 dev and 12 test", arguments: ["chess", "medical", "contacts"])
    func carrierCorpora(domain: String) throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Corpora/carrier/\(domain)/texts.tsv")
        let texts = try CorpusText.load(url)
        #expect(texts.count == 24 && texts.allSatisfy { $0.id.hasPrefix("\(domain)-long-") })
        #expect(texts.count { $0.split == "dev" } == 12 && texts.count { $0.split == "test" } == 12)
    }

    @Test func plainTextFilesGetNumberedIds() throws {
        let url = try fixture("phrases.txt", "call siobhan\n\n  text nguyen i'm running late  \n")
        #expect(
            try CorpusText.load(url) == [
                CorpusText(id: "phrases-001", text: "call siobhan"),
                CorpusText(id: "phrases-002", text: "text nguyen i'm running late"),
            ])
    }

    @Test func badTextsFilesNameTheLine() throws {
        let columns = try fixture("t.tsv", "a\tone\tdev\nb\ttwo\tdev\textra\n")
        #expect(
            throws: CorpusError.malformedLine(
                path: columns.path, line: 2, detail: "expected id<TAB>text<TAB>split (2 or 3 columns), found 4")
        ) { try CorpusText.load(columns) }
        let duplicate = try fixture("t.tsv", "a\tone\n\na\ttwo\n")
        #expect(throws: CorpusError.duplicateID(path: duplicate.path, line: 3, id: "a", firstLine: 1)) {
            try CorpusText.load(duplicate)
        }
        let empty = try fixture("t.tsv", "a\t\tdev\n")
        #expect(throws: CorpusError.emptyValue(path: empty.path, line: 1, key: "text")) { try CorpusText.load(empty) }
        // A row that opens with a tab has an empty id: not the id "two" and the text "dev".
        let noID = try fixture("t.tsv", "a\tone\tdev\n\ttwo\tdev\n")
        #expect(throws: CorpusError.emptyValue(path: noID.path, line: 2, key: "id")) { try CorpusText.load(noID) }
        let spaced = try fixture("t.tsv", "  a\tone\tdev\t\n")
        #expect(try CorpusText.load(spaced) == [CorpusText(id: "a", text: "one", split: "dev")])
    }

    @Test func voicesAndConditionsParseAndPrint() throws {
        #expect(try Voice(parsing: "flite:slt") == .flite("slt"))
        #expect(try Voice(parsing: "espeak-ng:en-us+m3") == .espeak("en-us+m3"))
        #expect(Voice.espeak("en-us+m3").description == "espeak:en-us+m3")
        #expect(Voice.espeak("en-us+m3").token == "en-us-m3")
        #expect(try Condition(parsing: "noise:15") == .noise(snr: 15))
        #expect(Condition.noise(snr: 15).description == "noise:15")
        #expect(Condition.noise(snr: -5).token == "noisem5")
        #expect(Condition.speed(factor: 1.1).token == "speed1p1")
        #expect(try Condition(parsing: "telephone") == .telephone)
        for bad in ["slt", "festival:kal", "flite:", "flite:a b"] {
            #expect(throws: CorpusError.self) { try Voice(parsing: bad) }
        }
        for bad in ["noisy", "noise", "noise:loud", "speed:0", "clean:3"] {
            #expect(throws: CorpusError.self) { try Condition(parsing: bad) }
        }
    }

    @Test func utteranceIdsAreSanitized() {
        let rendition = SynthesisPlan.Rendition(voice: .flite("slt"), condition: .noise(snr: 15))
        #expect(SynthesisPlan.utteranceID(textID: "chess-007", rendition: rendition) == "chess-007-slt-noise15")
        #expect(SynthesisPlan.utteranceID(textID: "día 1/2", rendition: rendition) == "d_a_1_2-slt-noise15")
    }

    @Test(arguments: shippedTexts)
    func standardPlanCoversEveryVoiceAndCondition(texts url: URL) throws {
        let plan = SynthesisPlan.standard
        try plan.validate()
        let texts = try CorpusText.load(url)
        let renditions = texts.indices.map { plan.renditions(forText: $0) }
        let all = renditions.flatMap { $0 }
        #expect(all.count == 120)
        #expect(Set(all.map(\.voice)) == Set(plan.voices))
        #expect(Set(all.map(\.condition)) == Set(plan.conditions))
        // 120 renditions over 18 pairs: every pair used 6 or 7 times, and each voice 20 times.
        var pairs: [SynthesisPlan.Rendition: Int] = [:]
        for rendition in all { pairs[rendition, default: 0] += 1 }
        #expect(pairs.count == 18)
        #expect(pairs.values.allSatisfy { (6...7).contains($0) })
        for voice in plan.voices { #expect(all.count { $0.voice == voice } == 20) }
        // Each text is heard by three different voices, once clean, once in noise, once on the telephone.
        for text in renditions {
            #expect(Set(text.map(\.voice)).count == 3)
            #expect(Set(text.map(\.condition)) == Set(plan.conditions))
        }
        #expect(
            Set(
                texts.enumerated().flatMap { index, text in
                    renditions[index].map { SynthesisPlan.utteranceID(textID: text.id, rendition: $0) }
                }
            ).count == 120)
    }

    @Test func unevenPlansStillCoverEveryPair() throws {
        let plan = SynthesisPlan(
            voices: [.flite("slt"), .flite("awb"), .espeak("en-us+m3"), .espeak("en-us+f3")],
            conditions: [.clean, .noise(snr: 10), .speed(factor: 1.2)], renditionsPerText: 2)
        let all = (0..<6).flatMap { plan.renditions(forText: $0) }
        #expect(Set(all).count == 12)
        #expect((0..<50).allSatisfy { Set(plan.renditions(forText: $0)).count == 2 })
    }

    @Test func impossiblePlansAreRejected() {
        let clean = SynthesisPlan(voices: [.flite("slt")], conditions: [.clean], renditionsPerText: 2)
        #expect(throws: CorpusError.self) { try clean.validate() }
        let twice = SynthesisPlan(voices: [.flite("slt"), .flite("slt")], conditions: [.clean], renditionsPerText: 1)
        #expect(throws: CorpusError.invalidPlan(detail: "two voices share the id token \"slt\"")) {
            try twice.validate()
        }
        let none = SynthesisPlan(voices: [], conditions: [.clean], renditionsPerText: 1)
        #expect(throws: CorpusError.invalidPlan(detail: "no voices")) { try none.validate() }
    }
}
