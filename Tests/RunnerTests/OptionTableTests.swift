import Foundation
import GambitTestSupport
import LanguageModel
import NGram
import Recognition
import Runner
import Testing

/// A family of options is one table (STYLE.md item 20): the external commands' placeholders and the prepare options
/// are each spelled in one place, and what documents or reads them follows that table.
@Suite("One table per family of options")
struct OptionTableTests {
    /// The rows of a Markdown table whose header starts with `header`, as cells without the outer pipes.
    static func markdownRows(of file: String, header: String) throws -> [[String]] {
        let text = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent(file), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix(header) }, "\(file) has no table '\(header)'")
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    @Test("docs/suites-and-runs.md lists every placeholder, in the table's order, with the commands that may use it")
    func placeholdersDocumented() throws {
        let rows = try Self.markdownRows(of: "docs/suites-and-runs.md", header: "| placeholder | becomes |")
        #expect(rows.map { $0[0] } == CommandPlaceholder.all.map { "`\($0.name)`" })
        func column(_ use: CommandPlaceholder.Use) -> String {
            switch use {
            case .no: ""
            case .yes: "✓"
            case .withPrepare: "with a `prepare`"
            case .required: "✓ (required)"
            }
        }
        for (row, placeholder) in zip(rows, CommandPlaceholder.all) {
            #expect(row[2] == column(placeholder.prepare), "\(placeholder.name)'s prepare column")
            #expect(row[3] == column(placeholder.decode), "\(placeholder.name)'s decode column")
            #expect(row[4] == column(placeholder.list), "\(placeholder.name)'s list decode column")
        }
    }

    @Test("No code outside the table spells a placeholder")
    func placeholdersSpelledOnce() throws {
        let table = "Sources/Recognition/Transcriber/CommandPlaceholder.swift"
        for (path, text) in try CodeShapeTests.files(under: "Sources") where path != table {
            let code = text.split(separator: "\n").filter {
                !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            }
            for placeholder in CommandPlaceholder.all {
                let lines = code.filter { $0.contains(placeholder.name) }
                #expect(lines.isEmpty, "\(path) spells \(placeholder.name) (use CommandPlaceholder): \(lines)")
            }
        }
    }

    @Test("Each command may use the placeholders its row says, and the messages name them")
    func placeholderUses() {
        #expect(CommandPlaceholder.allowed(in: .baseline).map(\.name) == ["{audio}"])
        #expect(
            CommandPlaceholder.allowed(in: .prepare).map(\.name)
                == ["{training}", "{phrases}", "{artifact}", "{weight}", "{locale}"])
        #expect(!CommandPlaceholder.allowed(in: .decode(withPrepare: false)).map(\.name).contains("{artifact}"))
        #expect(CommandPlaceholder.allowed(in: .decode(withPrepare: true)).count == CommandPlaceholder.all.count - 1)
        #expect(CommandPlaceholder.allowed(in: .list).map(\.name) == ["{locale}", "{audio}", "{boosted}", "{list}"])
        let recognizer = ExternalRecognizer(
            name: "r", command: ["asr", "{audio}"], onDevice: true,
            customization: ExternalCustomization(prepare: nil, decode: ["asr", "{audio}", "{artifact}"]))
        #expect(
            recognizer.problem
                == "the customized decode command cannot use the placeholder {artifact} (it may use {audio}, "
                + "{boosted}, {locale}, {phrases}, {training}, {weight})")
        let unknown = ExternalRecognizer(name: "r", command: ["asr", "{audio}", "{nope}"], onDevice: true)
        #expect(
            unknown.problem
                == "the command cannot use the placeholder {nope}: unknown (known: {artifact}, {audio}, {boosted}, "
                + "{list}, {locale}, {phrases}, {training}, {weight})")
    }

    /// Prepare options set only in code (the sweep's and the tests'), not on the command line.
    static let codeOnly: Set = ["compoundSplitShare", "commonWordCount"]

    @Test("Every prepare option a suite may give is a key its variants accept, read with the table's words")
    func prepareOptionsInSuite() throws {
        guard case .mapping(let top) = Suite.schema, case .list(let item)? = top["variants"],
            case .mapping(let variant) = item
        else {
            Issue.record("the suite schema has no variants mapping")
            return
        }
        let rows = PrepareOptions.settings.filter(\.inSuite).map(\.name)
        #expect(Set(variant.keys).subtracting(["name", "training", "corpora"]) == Set(rows))
        let url = try TestSupport.temporaryDirectory("option-table").appendingPathComponent("suite.yaml")
        for setting in PrepareOptions.settings where setting.inSuite {
            // A key the reader did not read would be accepted silently; a list where a value belongs is refused.
            try
                "corpora:\n  - {name: c, manifest: m.jsonl}\nvariants:\n  - {name: v, training: t.yaml, \(setting.name): [1]}\n"
                .write(to: url, atomically: true, encoding: .utf8)
            let error = try #require(throws: RunnerError.self) { try Suite.load(url) }
            #expect("\(error)".contains("'\(setting.name)' must be \(setting.accepts)"), "\(error)")
        }
    }

    @Test("Every prepare option but those set in code is an option of gambit prepare")
    func prepareOptionsOnCommandLine() throws {
        let (status, help) = try TestSupport.gambit(["prepare", "--help"])
        #expect(status == 0)
        for setting in PrepareOptions.settings where !Self.codeOnly.contains(setting.name) {
            let option = setting.option.dropFirst(2)
            #expect(
                help.contains("--\(option) ") || help.contains("--\(option)/") || help.contains("--\(option)\n"),
                "gambit prepare has no \(setting.option)")
        }
        #expect(PrepareOptions.settings.filter { Self.codeOnly.contains($0.name) }.count == Self.codeOnly.count)
    }

    @Test("A prepare option's default is written once, in PrepareOptions, and its range once, in the table")
    func prepareDefaultsWrittenOnce() throws {
        // Where options are read: the command line and the suite.
        let readers =
            try CodeShapeTests.files(under: "Sources/GambitCLI")
            + CodeShapeTests.files(under: "Sources/Runner").filter { $0.path.contains("/Suite") }
        let names = PrepareOptions.settings.map(\.name) + ["keepArpa"]
        let declaration = try Regex(#"var (\w+)\s*=\s*-?[0-9.]"#)
        let fallback = try Regex(#"\?\?\s*-?[0-9.]"#)
        for (path, text) in readers {
            for line in CodeShapeTests.code(text) {
                let declared = line.firstMatch(of: declaration).map { String($0.output[1].substring ?? "") }
                let named = names.filter {
                    declared == $0 || (line.contains(fallback) && line.contains("fields.\($0)"))
                }
                #expect(named.isEmpty, "\(path) writes the default of \(named) again: \(line)")
            }
        }
        let ranges = Set(PrepareOptions.settings.compactMap(\.allowed))
        for (path, text) in try CodeShapeTests.files(under: "Sources")
        where !path.hasSuffix("LanguageModel/PrepareSettings.swift") {
            let lines = text.split(separator: "\n").filter { line in
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                    && ranges.contains { line.contains("within \($0)") || line.contains("\"\($0)\"") }
            }
            #expect(lines.isEmpty, "\(path) spells a prepare option's range: \(lines)")
        }
    }

    @Test("normalized resets to its default each option the mix does not use, as its row says")
    func normalizedByRow() {
        let defaults = PrepareOptions.defaults
        func given(_ mix: LanguageModelMix, _ interpolation: MergeOptions.Interpolation) -> PrepareOptions {
            PrepareOptions(
                backgroundMass: 0.5, mix: mix, weight: 0.7, unigramWeight: 0.1, tempering: 2, boundaryShare: 0.3,
                keepMergedARPA: true, interpolation: interpolation, phrases: .fragments, languageWeight: 8)
        }
        let set = given(.set, .historyDependent).normalized
        #expect(set.weight == defaults.weight && set.unigramWeight == defaults.unigramWeight)
        #expect(set.tempering == defaults.tempering && set.interpolation == defaults.interpolation)
        #expect(!set.keepMergedARPA && set.languageWeight == defaults.languageWeight)
        #expect(set.backgroundMass == 0.5 && set.boundaryShare == 0.3 && set.phrases == .fragments)
        let history = given(.merged, .historyDependent).normalized
        #expect(history.weight == 0.7 && history.unigramWeight == 0.1 && history.tempering == 2)
        #expect(history.backgroundMass == defaults.backgroundMass && history.languageWeight == defaults.languageWeight)
        #expect(history.keepMergedARPA && history.phrases == nil)
        let weighted = given(.merged, .weighted).normalized
        #expect(weighted.backgroundMass == 0.5 && weighted.languageWeight == 8)
        #expect(weighted.unigramWeight == defaults.unigramWeight && weighted.tempering == defaults.tempering)
        let constant = given(.merged, .constant).normalized
        #expect(constant.backgroundMass == defaults.backgroundMass && constant.tempering == defaults.tempering)
        var sentences = given(.set, .weighted)
        sentences.phrases = .sentences
        #expect(sentences.normalized.boundaryShare == defaults.boundaryShare && sentences.normalized.phrases == nil)
        #expect(PrepareOptions(weight: -0.0).normalized.weight.sign == .plus)
    }
}
