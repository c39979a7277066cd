import Foundation
import GambitTestSupport
import Testing

/// The shape the code keeps so that a newcomer can read it: short functions in every module, and concurrency the
/// compiler checks.
@Suite("Code shape")
struct CodeShapeTests {
    /// The Swift files under `folder`, by path relative to the package.
    static func files(under folder: String) throws -> [(path: String, text: String)] {
        let root = TestSupport.packageRoot
        let walker = FileManager.default.enumerator(
            at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        return try (walker?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "swift" }.map {
            (String($0.path.dropFirst(root.path.count + 1)), try String(contentsOf: $0, encoding: .utf8))
        }.sorted { $0.path < $1.path }
    }

    /// Each line's code with comments and the insides of string literals blanked, so that braces count only
    /// where they are code.
    static func code(_ text: String) -> [String] {
        var inBlockString = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var kept = ""
            var inString = false
            var characters = Array(line)[...]
            while let character = characters.first {
                if inBlockString {
                    if characters.starts(with: "\"\"\"") {
                        inBlockString = false
                        characters = characters.dropFirst(3)
                    } else {
                        characters = characters.dropFirst()
                    }
                    continue
                }
                if !inString && characters.starts(with: "\"\"\"") {
                    inBlockString = true
                    characters = characters.dropFirst(3)
                    continue
                }
                if !inString && characters.starts(with: "//") { break }
                if character == "\\" && inString {
                    characters = characters.dropFirst(2)
                    continue
                }
                if character == "\"" { inString.toggle() }
                if !inString { kept.append(character) }
                characters = characters.dropFirst()
            }
            return kept
        }
    }

    /// Every function and initialiser with a body, with its first line and its length in lines.
    static func functions(in text: String) throws -> [(name: String, line: Int, length: Int)] {
        let declaration = try Regex(#"^\s*(@\w+\s+)*([a-z]+\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<])"#)
        let lines = code(text)
        var found: [(String, Int, Int)] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: declaration) else { continue }
            var depth = 0
            var opened = false
            scan: for end in index..<lines.count {
                for character in lines[end] {
                    if character == "{" {
                        depth += 1
                        opened = true
                    } else if character == "}" {
                        depth -= 1
                    }
                    if opened && depth == 0 {
                        let name = String(line[match.range]).trimmingCharacters(in: .whitespaces)
                        found.append((name, index + 1, end - index + 1))
                        break scan
                    }
                }
                // A requirement without a body ends its line without opening one.
                if !opened && end > index && lines[end].firstMatch(of: declaration) != nil { break }
            }
        }
        return found
    }

    @Test("The function finder measures what it should: a body, a nested closure, a brace in a string")
    func finderWorks() throws {
        let text = """
            struct S {
                func short() { print("{") }
                /// A doc comment with a brace {
                public static func long(
                    _ x: Int
                ) -> Int {
                    let f = { (y: Int) in y + 1 }
                    return f(x)
                }
            }
            """
        let found = try Self.functions(in: text)
        #expect(found.map(\.length) == [1, 6], "\(found)")
        #expect(found.map(\.line) == [2, 4])
    }

    /// The `///` doc comment right above line `line` (1-based), its lines without the slashes.
    static func docComment(above line: Int, in text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = line - 2
        var comment: [String] = []
        while index >= 0 {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("///") {
                comment.insert(String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), at: 0)
            } else if !trimmed.hasPrefix("@") {
                break
            }
            index -= 1
        }
        return comment
    }

    /// Orchestration reads as its steps: no function anywhere in Sources is longer than 80 lines, unless it is an
    /// algorithm or a renderer whose maths or layout its doc comment sets out, in a paragraph that starts
    /// `Algorithm:` or `Layout:` (a parser's state machine, a binary format's writer, a report's page).
    @Test(
        "No function in Sources is longer than 80 lines but an algorithm or renderer that documents its maths or layout"
    )
    func shortFunctions() throws {
        var long: [String] = []
        var documented: [String] = []
        for file in try Self.files(under: "Sources") {
            for function in try Self.functions(in: file.text) where function.length > 80 {
                let place = "\(file.path):\(function.line) \(function.name) (\(function.length) lines)"
                let comment = Self.docComment(above: function.line, in: file.text)
                let explained = comment.contains { $0.hasPrefix("Algorithm:") || $0.hasPrefix("Layout:") }
                if explained && comment.count >= 4 { documented.append(place) } else { long.append(place) }
            }
        }
        #expect(long == [], "\(long.joined(separator: "\n"))")
        // The exemption is for the few that need it.
        #expect(documented.count <= 10, "\(documented.joined(separator: "\n"))")
    }

    @Test("A long function's exemption is read from its own doc comment")
    func exemptionIsItsOwn() {
        let text = """
            /// Algorithm: not this one's.
            func other() {}

            /// Sums.
            /// Algorithm: adds them up, one by one,
            /// carrying nothing.
            @inlinable
            func sum() {}
            """
        #expect(Self.docComment(above: 2, in: text) == ["Algorithm: not this one's."])
        #expect(
            Self.docComment(above: 8, in: text) == [
                "Sums.", "Algorithm: adds them up, one by one,", "carrying nothing.",
            ])
        #expect(Self.docComment(above: 4, in: text) == [])
    }

    @Test("At most 3 @unchecked Sendable in Sources, each with its reason beside it")
    func checkedConcurrency() throws {
        var unchecked: [String] = []
        var unexplained: [String] = []
        for file in try Self.files(under: "Sources") {
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable") {
                let place = "\(file.path):\(index + 1)"
                unchecked.append(place)
                let before = index > 0 ? lines[index - 1] : ""
                if !line.contains("//") && !before.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    unexplained.append(place)
                }
            }
        }
        #expect(unchecked.count <= 3, "\(unchecked)")
        #expect(unexplained == [], "each needs a one-line reason: \(unexplained)")
    }
}
