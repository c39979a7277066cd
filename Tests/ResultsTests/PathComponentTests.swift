import Foundation
import Scoring
import Testing

@testable import Results

/// A fresh folder under `$TMPDIR`, for one test.
private func scratchFolder(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("Names become paths")
struct PathComponentTests {
    /// Names a suite may hold, and what each becomes.
    static let cases: [(String, String)] = [
        ("chess-full", "chess-full"),
        ("v1.2_b", "v1.2_b"),
        ("../x", "%2E.%2Fx"),
        ("/abs", "%2Fabs"),
        ("a/b", "a%2Fb"),
        ("..", "%2E."),
        (".", "%2E"),
        (".gambit", "%2Egambit"),
        ("", "%"),
        (" ", "%20"),
        ("con|fuse", "con%7Cfuse"),
        ("two\nlines", "two%0Alines"),
        ("café", "caf%C3%A9"),
        ("100%", "100%25"),
        ("nul\0byte", "nul%00byte"),
    ]

    @Test("a name becomes one readable, safe component", arguments: cases)
    func encodes(name: String, expected: String) {
        #expect(PathComponent(name).value == expected)
    }

    @Test("joined names keep their parts apart: a dot inside a name is encoded")
    func joins() {
        #expect(PathComponent(joining: ["chess", "customized", "chess-full"]).value == "chess.customized.chess-full")
        #expect(PathComponent(joining: ["a.b", "c"]) != PathComponent(joining: ["a", "b.c"]))
        #expect(PathComponent(joining: ["..", "ref"]).value == "%2E%2E.ref")
        #expect(PathComponent(joining: ["", "ref"]).value == "%.ref")
    }

    @Test("a long name is cut to a readable start and a digest, and two long names stay apart")
    func shortens() {
        let long = String(repeating: "é", count: 300)
        let component = PathComponent(long)
        #expect(component.value.utf8.count <= PathComponent.maximumBytes)
        #expect(component.value.hasPrefix("%C3%A9"))
        #expect(component.value.contains("~"))
        #expect(PathComponent(long + "x") != component)
        #expect(PathComponent(String(repeating: "a", count: PathComponent.maximumBytes)).value.count == 200)
    }

    @Test("the output check refuses a file outside the folder, and the folder itself")
    func check() throws {
        let folder = try scratchFolder("check")
        defer { try? FileManager.default.removeItem(at: folder) }
        try OutputPath.check(folder.appendingPathComponent("trn/a.trn"), isInside: folder)
        try OutputPath.check(folder.appendingPathComponent("new/../b.trn"), isInside: folder)
        for outside in ["../x.trn", "trn/../../x.trn", "/etc/passwd", ".", ""] {
            let file = outside.hasPrefix("/") ? URL(fileURLWithPath: outside) : folder.appendingPathComponent(outside)
            let error = #expect(throws: OutputPathError.self, "\(outside)") {
                try OutputPath.check(file, isInside: folder)
            }
            #expect(error?.description.contains("outside the output folder") == true)
        }
        // A sibling whose name starts with the folder's is not inside it.
        #expect(throws: OutputPathError.self) {
            try OutputPath.check(URL(fileURLWithPath: folder.path + "-evil/x"), isInside: folder)
        }
    }

    @Test("the output check resolves symbolic links: a link inside the folder that leads out is refused")
    func symbolicLinks() throws {
        let root = try scratchFolder("links")
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appendingPathComponent("out")
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: output.appendingPathComponent("trn"), withDestinationURL: elsewhere)
        #expect(throws: OutputPathError.self) {
            try OutputPath.check(output.appendingPathComponent("trn/chess.ref.trn"), isInside: output)
        }
        // The output folder itself may be a link: what counts is where it leads.
        let link = root.appendingPathComponent("link-to-out")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: output)
        try OutputPath.check(link.appendingPathComponent("report.html"), isInside: link)
        try OutputPath.check(output.appendingPathComponent("report.html"), isInside: link)
    }

    /// Random names, many of them hostile: every one lands inside the folder, and no two share a file.
    @Test("property: 5,000 random names never leave the output folder and never collide")
    func property() throws {
        let folder = try scratchFolder("property")
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SplitMix64(seed: 0x6A4D_B17E)
        let pieces = [
            "/", "..", ".", "\0", "%", "%2F", "~", "é", "e\u{301}", "字", "🙂", "\n", "\t", " ", "|", "\\", ":",
            "a", "B", "7", "-", "_", "ref", "trn", ".gambit", "\u{202E}", "\u{FEFF}",
        ]
        var seen: [String: String] = [:]
        var written = Set<[UInt8]>()
        for index in 0..<5000 {
            var name = ""
            let length =
                index % 50 == 0
                ? Int.random(in: 200...400, using: &generator) : Int.random(in: 0...12, using: &generator)
            for _ in 0..<length { name += pieces.randomElement(using: &generator)! }
            for component in [PathComponent(name), PathComponent(joining: [name, "ref"])] {
                let value = component.value
                #expect(
                    !value.isEmpty && value != "." && value != ".." && !value.hasPrefix("."), "\(name.debugDescription)"
                )
                #expect(!value.contains("/") && !value.utf8.contains(0), "\(name.debugDescription)")
                #expect(value.utf8.count <= PathComponent.maximumBytes, "\(name.debugDescription)")
            }
            let value = PathComponent(name).value
            // Swift's `==` on strings is canonical equivalence; names are bytes to a file system, so
            // compare their UTF-8.
            let key = String(decoding: Array(name.utf8), as: UTF8.self)
            if let earlier = seen[value] {
                #expect(
                    Array(earlier.utf8) == Array(key.utf8),
                    "\(earlier.debugDescription) and \(name.debugDescription) share \(value)")
            }
            seen[value] = key
            let file = try OutputPath.file(
                in: folder, ["trn"], PathComponent(joining: [name, "ref"]), pathExtension: "trn")
            try OutputPath.check(file, isInside: folder)
            // And the file system agrees: the file is made where the check says, one per name.
            if index % 10 == 0 {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(name.utf8).write(to: file, options: .atomic)
                written.insert(Array(name.utf8))
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("trn").path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["trn"])
        #expect(files.count == written.count)
    }
}
