import Foundation
import Testing
import TrainingData

/// Training data written back as YAML, and a patch in the same format merged into it (`gambit lint --apply`).
@Suite("Training-data patches")
struct PatchTests {
    @Test("Written as YAML and read back, the data is the same, odd text included")
    func roundTrip() throws {
        var data = ChessFixture.swiftData()
        data.isPrivate = true
        data.insert(phrase: "say \"hi\" to o'brien\\ now", count: 3)
        data.insert(term: CustomPronunciation(grapheme: "o'brien", phonemes: ["oU b r aI @ n", "@ b r aI n"]))
        let yaml = data.yaml(
            header: ["made by a test"],
            notes: [
                .phrase("play the winawer variation"): "raised",
                .pronunciation(grapheme: "winawer", phonemes: "w I n aU @r"): "supplied",
            ])
        #expect(yaml.hasPrefix("# made by a test\n"))
        #expect(yaml.contains("count: 5}  # raised\n"))
        #expect(yaml.contains("    # w I n aU @r: supplied\n"))
        let read = try CustomLanguageModelData(yaml: yaml)
        #expect(read == data)
        #expect(try CustomLanguageModelData(yaml: ChessFixture.swiftData().yaml()) == ChessFixture.swiftData())
    }

    @Test("A patch sets counts of phrases and templates by their text, adds new ones, and adds pronunciations")
    func applies() throws {
        let data = ChessFixture.swiftData()
        let patch = try CustomLanguageModelData(
            yaml: """
                locale: en-US
                identifier: com.example.chess
                version: "9"
                phrases:
                  - {phrase: "play the winawer variation", count: 8}
                  - {phrase: "play the albin counter gambit", count: 10}
                  - {phrase: "play the najdorf", count: 4}
                templates:
                  - classes: {piece: [pawn], royal: [queen], rank: ["1"]}
                    items:
                      - {template: "<piece> to <royal> <piece> <rank>", count: 12000}
                      - {template: "<piece> takes <piece>", count: 50}
                pronunciations:
                  - {grapheme: winawer, phonemes: ["w I n aU @r", "w I n @ v @r"]}
                  - {grapheme: najdorf, phonemes: ["n aI d O r f"]}
                """)
        let (merged, changes) = try data.applying(patch)
        #expect(
            changes == [
                "phrase \"play the winawer variation\": count 5 → 8",
                "phrase \"play the najdorf\" added with count 4",
                "template \"<piece> to <royal> <piece> <rank>\": count 10000 → 12000",
                "template \"<piece> takes <piece>\" added with count 50",
                "pronunciation of winawer added: w I n @ v @r",
                "pronunciation of najdorf added: n aI d O r f",
            ])
        #expect(merged.version == "1.0", "the data's version is kept")
        #expect(merged.phraseCounts.map(\.count) == [10, 8, 4])
        #expect(merged.templateGroups.count == 2)
        #expect(merged.templateGroups[0].classes == ChessFixture.classes, "the old group keeps its classes")
        #expect(merged.templateGroups[0].templates.map(\.count) == [12000])
        #expect(merged.pronunciations.map(\.phonemes) == [["w I n aU @r", "w I n @ v @r"], ["n aI d O r f"]])
        // Applying it again changes nothing.
        #expect(try merged.applying(patch).changes.isEmpty)
    }

    @Test(
        "The merged data is private when the data or the patch is: a private patch holds private names",
        arguments: [(false, true, true), (true, false, true), (true, true, true), (false, false, false)])
    func privacyKept(dataIsPrivate: Bool, patchIsPrivate: Bool, merged: Bool) throws {
        var data = ChessFixture.swiftData()
        data.isPrivate = dataIsPrivate
        var patch = CustomLanguageModelData(
            locale: Locale(identifier: "en_US"), identifier: "com.example.chess", version: "2",
            isPrivate: patchIsPrivate)
        patch.insert(phrase: "call siobhan okonkwo", count: 3)
        let result = try data.applying(patch).data
        #expect(result.isPrivate == merged)
        // Written and read back, as `gambit lint --apply` writes it.
        #expect(try CustomLanguageModelData(yaml: result.yaml()).isPrivate == merged)
        #expect(result.yaml().contains("private: true") == merged)
    }

    @Test("A patch for other data is refused, naming the field")
    func refusesOtherData() throws {
        let other = CustomLanguageModelData(
            locale: Locale(identifier: "en_US"), identifier: "com.example.medical", version: "1.0")
        #expect {
            try ChessFixture.swiftData().applying(other)
        } throws: { error in
            "\(error)".contains(
                "identifier is \"com.example.medical\" but the training data's is \"com.example.chess\"")
        }
    }

    @Test("Every phone of the acoustic model is written in X-SAMPA that reads back as that phone")
    func xsampa() throws {
        for phone in XSAMPA.cmuPhones {
            let symbol = try #require(XSAMPA.render([phone]))
            #expect(XSAMPA.parse(symbol).phones == [phone], "\(phone) → \(symbol)")
        }
        #expect(XSAMPA.render(["W", "IH", "N", "AW", "ER"]) == "w I n aU @r")
        #expect(XSAMPA.render(["SIL"]) == nil)
        #expect(XSAMPA.render([]) == nil)
    }
}
