import Foundation
import GambitTestSupport
import Runner
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

    @Test("A Slurm chain's jobs depend on the ids the earlier ones got; a dry run prints the same chain")
    func oneSlurmChain() throws {
        let jobs = SlurmJobs(
            gambit: "/usr/bin/gambit", suite: "/s/suite.yaml", output: "/s/out", tasks: 4, cacheFolder: "/s/cache",
            workingDirectory: "/s")
        var submitted: [[String]] = []
        var ids = ["11", "12", "13"].makeIterator()
        let got = jobs.submitChain(shards: [1, 3]) { arguments in
            submitted.append(arguments)
            return ids.next() ?? ""
        }
        #expect([got.prepare, got.array, got.merge] == ["11", "12", "13"])
        #expect(
            submitted == [
                ["--parsable", jobs.prepareScript.path],
                [
                    "--parsable", "--array=1,3", "--dependency=afterok:11", "--kill-on-invalid-dep=yes",
                    jobs.arrayScript.path,
                ],
                ["--parsable", "--dependency=afterany:12", jobs.mergeScript.path],
            ])
        // A second chain (the dry run's own list, as there was) would spell a dependency again.
        let spelling = try CodeShapeTests.files(under: "Sources").filter { $0.text.contains("--dependency=") }
        #expect(spelling.map(\.path) == ["Sources/Runner/Slurm.swift"])
    }

    @Test("Network isolation is probed in one place: only NetworkNamespace names unshare's program")
    func oneNetworkProbe() throws {
        let probing = try CodeShapeTests.files(under: "Sources").filter { file in
            file.text.split(separator: "\n").contains { line in
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains("/usr/bin/unshare")
            }
        }
        #expect(probing.map(\.path) == ["Sources/Recognition/Transcriber/NetworkNamespace.swift"])
    }

    @Test("Files are fingerprinted one way: only Hashing runs a SHA-256 over files")
    func oneFileFingerprint() throws {
        // Compiler's input fingerprint hashes the exported data and the options (a cache key), not files.
        let hashing = try CodeShapeTests.files(under: "Sources").filter { $0.text.contains("SHA256()") }
        #expect(
            hashing.map(\.path) == ["Sources/Hashing/FileFingerprint.swift", "Sources/LanguageModel/Compiler.swift"])
    }

    @Test("No error is turned into Foundation's localizedDescription, which drops its cause")
    func noLocalizedDescription() throws {
        // File-system errors go through FileSystemReason; Gambit's own errors keep their type or their description.
        let dropping = try CodeShapeTests.files(under: "Sources").filter { file in
            CodeShapeTests.code(file.text).contains { $0.contains(".localizedDescription") }
        }
        #expect(dropping.map(\.path) == [])
    }
}
