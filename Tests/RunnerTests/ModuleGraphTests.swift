import Foundation
import GambitTestSupport
import Testing

/// Arrows one way: each module of Sources imports only modules that come before it in the pipeline, and
/// Package.swift's dependency list of every target says exactly what its files import, no more and no less. The
/// order is written here and in docs/architecture.md; a new module takes its place in both.
@Suite("The module graph")
struct ModuleGraphTests {
    /// Gambit's modules in pipeline order: the files underneath, then a stage after the stages it reads. A module
    /// may import any module before it (and the C modules, which come first of all), never one after it.
    static let pipeline = [
        "Formats", "Hashing", "StrictYAML", "Audio", "TrainingData", "Corpus", "NGram", "PocketSphinx",
        "LanguageModel", "Recognition", "Scoring", "Results", "Runner", "Tuning", "Diagnosis", "Reporting", "Gate",
        "Publishing", "GambitCLI",
    ]

    /// Modules of the toolchain and the system, which no target lists.
    static let system: Set<String> = ["Foundation", "Glibc", "Synchronization", "Testing", "Dispatch", "XCTest"]

    /// A target of Package.swift: its name, the folder of its files, and the modules it lists.
    struct Target {
        var name: String
        var folder: String
        var dependencies: Set<String>
    }

    /// The targets Package.swift declares (C system libraries left out: they have no Swift files), read from its
    /// text: each `.target(`, `.executableTarget(` or `.testTarget(` call up to its closing parenthesis.
    static func targets() throws -> [Target] {
        let text = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let code = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : String($0) }.joined(separator: "\n")
        var targets: [Target] = []
        var rest = code[...]
        while let open = rest.firstMatch(of: /\.(target|executableTarget|testTarget)\(/) {
            var depth = 0
            var end = open.range.upperBound
            for index in code[code.index(before: open.range.upperBound)...].indices {
                if code[index] == "(" { depth += 1 }
                if code[index] == ")" { depth -= 1 }
                if depth == 0 {
                    end = index
                    break
                }
            }
            let call = code[open.range.lowerBound...end]
            let name = String(try #require(call.firstMatch(of: /name: "([^"]+)"/)).output.1)
            let kind = open.output.1
            let folder =
                call.firstMatch(of: /path: "([^"]+)"/).map { String($0.output.1) }
                ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            var dependencies: Set<String> = []
            if let list = call.firstMatch(of: /dependencies: \[([^\]]*)\]/) {
                // A product is listed by its name (`.product(name: "Yams", package: "Yams")`), the module it gives.
                let names = list.output.1.replacing(/package: "[^"]+"/, with: "")
                for match in names.matches(of: /"([^"]+)"/) { dependencies.insert(String(match.output.1)) }
            }
            targets.append(Target(name: name, folder: folder, dependencies: dependencies))
            rest = code[end...]
        }
        return targets
    }

    /// The modules the Swift files under `folder` import, with the files importing each.
    static func imports(under folder: String) throws -> [String: [String]] {
        let root = TestSupport.packageRoot
        var imports: [String: [String]] = [:]
        let walker = FileManager.default.enumerator(
            at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        for case let url as URL in walker ?? FileManager.DirectoryEnumerator() where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let match = line.wholeMatch(of: /(?:@testable |public |internal |package )?import (\w+)/)
                else { continue }
                imports[String(match.output.1), default: []].append(String(url.path.dropFirst(root.path.count + 1)))
            }
        }
        return imports
    }

    @Test("Package.swift lists what each target imports, no more and no less")
    func dependenciesAreImports() throws {
        let targets = try Self.targets()
        #expect(targets.count > 30, "Package.swift's targets were not read")
        // A C target (Sources/C) has no Swift files: its dependencies are the C headers' business.
        for target in targets where !target.folder.hasPrefix("Sources/C/") {
            let imported = try Self.imports(under: target.folder)
            let modules = Set(imported.keys).subtracting(Self.system)
            for missing in modules.subtracting(target.dependencies).sorted() {
                Issue.record(
                    "\(target.name) imports \(missing) (\(imported[missing]?.sorted().first ?? "")) without listing it")
            }
            for extra in target.dependencies.subtracting(modules).sorted() {
                Issue.record("\(target.name) lists \(extra), which none of its files under \(target.folder) imports")
            }
        }
    }

    @Test("No module imports one that comes after it in the pipeline")
    func arrowsPointOneWay() throws {
        let sources = try FileManager.default.contentsOfDirectory(
            atPath: TestSupport.packageRoot.appendingPathComponent("Sources").path
        ).filter { $0 != "C" && !$0.hasPrefix(".") }
        #expect(Set(sources) == Set(Self.pipeline), "every module of Sources has its place in the pipeline")
        let cModules = try FileManager.default.contentsOfDirectory(
            atPath: TestSupport.packageRoot.appendingPathComponent("Sources/C").path)
        for (position, module) in Self.pipeline.enumerated() {
            let allowed = Set(Self.pipeline.prefix(position)).union(cModules)
            for (imported, files) in try Self.imports(under: "Sources/\(module)").sorted(by: { $0.key < $1.key })
            where Self.pipeline.contains(imported) && !allowed.contains(imported) {
                Issue.record(
                    "\(module) imports \(imported), which comes after it (\(files.sorted().joined(separator: ", ")))")
            }
        }
    }
}
