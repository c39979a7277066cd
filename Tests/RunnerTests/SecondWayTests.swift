import Foundation
import GambitTestSupport
import Testing

/// Guards against second ways to do one thing coming back: each test fails when a second place starts doing what
/// one place owns (STYLE.md 17 and 25).
@Suite("One way each")
struct SecondWayTests {
    /// The lines of `text` (1-based) that call one of `calls` outside an `Engine.serialized` block, judged on code
    /// only (comments and string literals blanked).
    static func unserializedCalls(in text: String, of calls: [String]) -> [Int] {
        var depth = 0
        var lockDepths: [Int] = []
        var found: [Int] = []
        for (index, line) in CodeShapeTests.code(text).enumerated() {
            let opensLock = line.contains("Engine.serialized")
            if lockDepths.isEmpty, !opensLock, calls.contains(where: { line.contains($0 + "(") }) {
                found.append(index + 1)
            }
            if opensLock { lockDepths.append(depth) }
            for character in line {
                if character == "{" { depth += 1 }
                if character == "}" {
                    depth -= 1
                    if let last = lockDepths.last, depth <= last { lockDepths.removeLast() }
                }
            }
        }
        return found
    }

    /// The calls ``Engine``'s doc says run under its lock: parsing a configuration, `ps_init`, reading a model,
    /// interpolating models (making a set or reweighting one) and installing a search.
    static let lockedCalls = [
        "cmd_ln_parse_r", "ps_init", "ngram_model_read", "ngram_model_set_init", "ngram_model_set_interp",
        "ps_set_lm", "ps_set_jsgf_string", "ps_set_allphone_file",
    ]

    @Test("The guard sees a call outside the lock, and none inside it")
    func lockGuardWorks() {
        let text = """
            func a() {
                try Engine.serialized { () throws(EngineError) in
                    ngram_model_set_interp(pointer, &names, &weights)
                }
                try Engine.serialized { ps_init(configuration) }
                // ps_init( in a comment is no call
                ngram_model_set_interp(pointer, &names, &weights)
            }
            """
        #expect(Self.unserializedCalls(in: text, of: Self.lockedCalls) == [7])
    }

    @Test("Every engine call that builds state (interpolation and reweighting included) runs under Engine's lock")
    func engineStateUnderTheLock() throws {
        let files = try CodeShapeTests.files(under: "Sources/PocketSphinx")
        #expect(!files.isEmpty)
        for file in files {
            let lines = Self.unserializedCalls(in: file.text, of: Self.lockedCalls)
            #expect(lines.isEmpty, "\(file.path), lines \(lines): outside Engine.serialized")
        }
    }
}
