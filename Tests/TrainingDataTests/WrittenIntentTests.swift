import Foundation
import Testing

@testable import TrainingData

/// Training data that used to lose part of what its author wrote with no word said: a spaced class reference, a
/// template group without templates, a class no template uses, a phrase given twice, a patch's phrase in other
/// case, a patch's bad count.
@Suite("Training data keeps what the user wrote")
struct WrittenIntentTests {
    static let header = """
        locale: en-US
        identifier: test
        version: "1"

        """

    /// The data read from `yaml` as the file `data.yaml`.
    func read(_ yaml: String) throws -> CustomLanguageModelData {
        try CustomLanguageModelData(yaml: Self.header + yaml, file: "data.yaml")
    }

    @Test("A class reference with spaces inside its brackets is an error with its line, not the class")
    func spacedReferenceInTemplate() throws {
        let data = try read(
            """
            templates:
              - classes: {piece: [pawn, queen]}
                items:
                  - {template: "<piece> takes <piece>", count: 5}
                  - {template: "< piece > to e4", count: 10}
            """)
        let problems = data.problems()
        #expect(problems.count == 1, "\(problems)")
        let error = try #require(problems.first)
        #expect(error.location?.line == 8)
        #expect(
            error.description.contains(
                "data.yaml:8: error: template \"< piece > to e4\" is malformed: \"< piece >\" has spaces inside its"
                    + " brackets (write <piece>)"),
            "\(error)")
    }

    @Test(
        "A phrase that holds a class reference is an error with its line; a marker and a lone < are as before",
        arguments: [
            ("move < piece > now", "< piece >"), ("move <piece> now", "<piece>"), ("say <Royal > x", "<Royal >"),
        ])
    func referenceInPhrase(phrase: String, reference: String) throws {
        let data = try read("phrases:\n  - {phrase: hello, count: 1}\n  - {phrase: \"\(phrase)\", count: 3}\n")
        let error = try #require(data.problems().first)
        #expect(error.location?.line == 6)
        #expect(error.kind == .classReferenceInPhrase(text: phrase, reference: reference))
        #expect(error.description.contains("a phrase is taken word for word"), "\(error)")
        let marker = try read("phrases:\n  - {phrase: \"play the <unk> gambit\", count: 3}\n")
        #expect(
            marker.problems().first?.kind
                == .reservedToken(what: "phrase", text: "play the <unk> gambit", token: "<unk>"))
        #expect(try read("phrases:\n  - {phrase: \"1 < 2, isn't it?\", count: 3}\n").problems().isEmpty)
    }

    @Test("A template group with an empty items list is an error at the group's line")
    func emptyItems() throws {
        let data = try read(
            """
            phrases:
              - {phrase: pawn to e4, count: 1}
            templates:
              - classes: {piece: [pawn, queen]}
                items: []
            """)
        let error = try #require(data.problems().first)
        #expect(error.kind == .emptyTemplateGroup(classes: ["piece"]))
        #expect(error.location == SourceLocation(file: "data.yaml", line: 7))
        #expect(error.description.contains("has no templates (`items` is empty)"), "\(error)")
        #expect(throws: TrainingDataError.self) { try data.validate() }
    }

    @Test("A class no template uses is a warning at its group's line, naming the class and its values")
    func unusedClass() throws {
        let data = try read(
            """
            templates:
              - classes: {piece: [pawn, queen], royal: [king], rank: [one, two, three, four]}
                items:
                  - {template: "<piece> to <rank>", count: 10}
            """)
        #expect(data.problems().isEmpty, "a warning, not an error: the data is usable")
        let warnings = data.warnings()
        #expect(warnings.map(\.kind) == [.unusedClass(name: "royal", values: ["king"])])
        let warning = try #require(warnings.first)
        #expect(warning.isWarning)
        #expect(
            warning.description.hasPrefix(
                "data.yaml:5: warning: class <royal> is defined but no template of its group uses it"),
            "\(warning)")
        #expect(data.lint().warnings == [warning.description])
    }

    @Test("A phrase that says the same words as an earlier one is a warning naming both and the total")
    func duplicatePhrase() throws {
        let data = try read(
            """
            phrases:
              - {phrase: "call zoe now", count: 1}
              - {phrase: "pawn to e4", count: 2}
              - {phrase: "Call Zoe now!", count: 4}
            """)
        #expect(data.problems().isEmpty)
        let warning = try #require(data.warnings().first)
        #expect(warning.location?.line == 7)
        #expect(
            warning.description
                == "data.yaml:7: warning: phrase \"Call Zoe now!\" says the same words as \"call zoe now\""
                + " (data.yaml:5), so their counts add up to 5. Give the words once, with the count you mean.")
        let report = data.lint()
        #expect(report.phrases.map(\.effectiveCount) == [5, 2, 5], "still summed")
        #expect(report.redacted().warnings.allSatisfy { $0.hasPrefix("‹private›") })
    }

    @Test("A patch's phrase in other case or punctuation sets the count of the data's phrase, not a second one")
    func patchPhraseInOtherCase() throws {
        let data = try read("phrases:\n  - {phrase: \"pawn to e4\", count: 3}\n")
        let patch = try CustomLanguageModelData(
            yaml: Self.header + "phrases:\n  - {phrase: \"Pawn to E4!\", count: 5}\n", file: "patch.yaml")
        let (merged, changes) = try data.applying(patch)
        #expect(merged.phraseCounts.map(\.phrase) == ["pawn to e4"])
        #expect(merged.phraseCounts.map(\.count) == [5])
        #expect(changes == ["phrase \"pawn to e4\": count 3 → 5"])
        #expect(merged.warnings().isEmpty)
    }

    @Test(
        "A patch with a bad count or X-SAMPA is refused at the patch's line, before anything is merged",
        arguments: [
            ("phrases:\n  - {phrase: knight to f3, count: 0}\n", 5, "has count 0"),
            ("pronunciations:\n  - {grapheme: winawer, phonemes: [\"w I n aU @r x\"]}\n", 5, "unsupported X-SAMPA"),
            (
                "templates:\n  - classes: {p: [pawn]}\n    items:\n      - {template: \"<p> to e4\", count: -2}\n", 7,
                "has count -2"
            ),
        ])
    func badPatch(body: String, line: Int, message: String) throws {
        let data = try read("phrases:\n  - {phrase: \"pawn to e4\", count: 3}\n")
        let patch = try CustomLanguageModelData(yaml: Self.header + body, file: "patch.yaml")
        let error = try #require(throws: TrainingDataError.self) { try data.applying(patch) }
        #expect(error.location == SourceLocation(file: "patch.yaml", line: line), "\(error)")
        #expect(error.description.contains(message), "\(error)")
    }

    @Test("A template a patch adds comes in a group of only the classes it uses")
    func patchAddsOnlyUsedClasses() throws {
        let data = try read(
            """
            templates:
              - classes: {piece: [pawn], royal: [queen]}
                items:
                  - {template: "<piece> to <royal>", count: 10}
            """)
        let patch = try CustomLanguageModelData(
            yaml: Self.header
                + """
                templates:
                  - classes: {piece: [pawn], royal: [queen]}
                    items:
                      - {template: "<piece> to <royal>", count: 20}
                      - {template: "<piece> takes <piece>", count: 5}
                """,
            file: "patch.yaml")
        let merged = try data.applying(patch).data
        let classes: [[String: [String]]] = [["piece": ["pawn"], "royal": ["queen"]], ["piece": ["pawn"]]]
        #expect(merged.templateGroups.map(\.classes) == classes)
        #expect(merged.warnings().isEmpty && merged.problems().isEmpty)
    }
}
