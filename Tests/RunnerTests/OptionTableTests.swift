import Foundation
import GambitTestSupport
import LanguageModel
import Recognition
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
        #expect(CommandPlaceholder.allowed(in: .decode(withPrepare: true)).count == CommandPlaceholder.all.count)
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
                + "{locale}, {phrases}, {training}, {weight})")
    }
}
