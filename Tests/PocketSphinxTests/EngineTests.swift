import Foundation
import GambitTestSupport
import PocketSphinx
import Testing

/// Debian's en-us model, named here rather than through Recognition: this module is below it.
private enum Model {
    static let folder = "/usr/share/pocketsphinx/model/en-us"
    static let arguments = [
        "-hmm", "\(folder)/en-us", "-lm", "\(folder)/en-us.lm.bin", "-dict", "\(folder)/cmudict-en-us.dict",
        "-remove_silence", "no",
    ]
}

/// The samples of a 16 kHz mono WAV file with a 44-byte header (Debian's test recordings).
private func samples(_ url: URL) throws -> [Int16] {
    let data = try Data(contentsOf: url).dropFirst(44)
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

private func decode(_ decoder: SphinxDecoder, _ url: URL) throws -> String {
    try decoder.startUtterance()
    try decoder.process(samples(url), fullUtterance: true)
    try decoder.endUtterance()
    return decoder.hypothesis().text ?? ""
}

@Suite("The engine module", .serialized)
struct EngineTests {
    @Test("A model the engine cannot read is an error naming ngram_model_read, the file and the engine's words")
    func unreadableModel() throws {
        let folder = try TestSupport.temporaryDirectory("engine")
        let file = folder.appendingPathComponent("broken.lm")
        try "\\data\\\nngram 1=2\n\n\\1-grams:\n-1.0 <s>\n".write(to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: EngineError.self) { try NGramModel(contentsOf: file.path, logMath: LogMath()) }
        #expect(error?.call == "ngram_model_read")
        #expect(error?.arguments == [file.path, "NGRAM_AUTO"])
        #expect(error?.status == nil)
        #expect(error?.description.hasPrefix("ngram_model_read(\(file.path), NGRAM_AUTO) failed: ") == true)
    }

    @Test("An unknown decoder argument is an error naming cmd_ln_parse_r and the arguments")
    func unknownArgument() throws {
        let error = #expect(throws: EngineError.self) {
            try DecoderConfiguration(arguments: ["-no_such_setting", "1"])
        }
        #expect(error?.call == "cmd_ln_parse_r")
        #expect(error?.arguments == ["-no_such_setting", "1"])
    }

    @Test("A missing acoustic model is an error naming ps_init, with the engine's own message")
    func missingAcousticModel() throws {
        var arguments = Model.arguments
        arguments[1] = "/nonexistent/en-us"
        let error = #expect(throws: EngineError.self) { try SphinxDecoder(arguments: arguments) }
        #expect(error?.call == "ps_init")
        #expect(error?.message.isEmpty == false, "the engine logged why: \(String(describing: error))")
    }

    @Test("A search that does not exist is an error naming ps_get_lm and the search")
    func missingSearch() throws {
        let decoder = try SphinxDecoder(arguments: Model.arguments)
        let error = #expect(throws: EngineError.self) { try decoder.languageModel(named: "no-such-search") }
        #expect(error?.call == "ps_get_lm" && error?.arguments == ["no-such-search"])
        let status = #expect(throws: EngineError.self) { try decoder.activateSearch(named: "no-such-search") }
        #expect(status?.call == "ps_set_search" && status?.status == -1)
    }

    @Test("Interpolating models that do not share log tables is refused before the C call")
    func separateLogTables() throws {
        let first = try NGramModel(contentsOf: "\(Model.folder)/en-us.lm.bin", logMath: LogMath())
        let second = try NGramModel(contentsOf: "\(Model.folder)/en-us.lm.bin", logMath: LogMath())
        let error = #expect(throws: EngineError.self) {
            try NGramModel.interpolating(base: first, custom: second, weight: 0.5)
        }
        #expect(error?.call == "ngram_model_set_init" && error?.message == "the models do not share log tables")
    }

    @Test("An interpolated model's score lies between its two models' scores")
    func interpolation() throws {
        let folder = try TestSupport.temporaryDirectory("interp")
        let file = folder.appendingPathComponent("cards.lm")
        try """
        \\data\\
        ngram 1=5

        \\1-grams:
        -0.6990 </s>
        -99 <s> 0
        -0.6990 ten 0
        -0.6990 of 0
        -0.6990 clubs 0

        \\end\\

        """.write(to: file, atomically: true, encoding: .utf8)
        let logMath = try LogMath()
        let base = try NGramModel(contentsOf: "\(Model.folder)/en-us.lm.bin", logMath: logMath)
        let custom = try NGramModel(contentsOf: file.path, logMath: logMath)
        let mixed = try NGramModel.interpolating(base: base, custom: custom, weight: 0.5)
        for word in ["ten", "clubs"] {
            let p = [base, custom, mixed].map { exp(logMath.naturalLog($0.logScore(of: word))) }
            #expect(abs(p[2] - (p[0] + p[1]) / 2) < 1e-3 * p[2], "\(word): \(p)")
        }
    }

    @Test("Decoders created and used on two threads at once give the answers of one thread")
    func twoThreads() throws {
        let recordings = Array(TestSupport.librivox.prefix(2))
        let serial = try recordings.map { try decode(SphinxDecoder(arguments: Model.arguments), $0) }
        let answers = Answers()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            // Each thread starts its own decoder and reads its own model: both serialise on the engine lock.
            let text = Result { () throws -> String in
                let decoder = try SphinxDecoder(arguments: Model.arguments)
                _ = try NGramModel(contentsOf: "\(Model.folder)/en-us.lm.bin", logMath: decoder.logMath)
                return try decode(decoder, recordings[index])
            }
            answers.set(index, text)
        }
        #expect(try answers.values(count: 2) == serial)
    }

    @Test("A lattice's best path under the decoder's own model gives the decoder's words")
    func latticeBestPath() throws {
        let decoder = try SphinxDecoder(arguments: Model.arguments)
        let hypothesis = try decode(decoder, TestSupport.librivox[1])
        let lattice = try #require(decoder.lattice())
        let model = try decoder.languageModel(named: "_default")
        let ratio = Float(decoder.configuration.float("-bestpathlw") / decoder.configuration.float("-lw"))
        let words = try #require(
            lattice.bestPath(
                model: model, languageWeightRatio: ratio,
                acousticScale: Float(1 / decoder.configuration.float("-ascale"))))
        let spoken = words.filter { !$0.hasPrefix("<") && !$0.hasPrefix("[") }
        #expect(spoken.joined(separator: " ") == hypothesis)
        #expect(!decoder.segments().isEmpty && decoder.segments().allSatisfy { (0...1).contains($0.posterior) })
    }

    @Test("A lattice written and read back has the same words, frames, best path and posteriors")
    func latticeRoundTrip() throws {
        let decoder = try SphinxDecoder(arguments: Model.arguments)
        let hypothesis = try decode(decoder, TestSupport.librivox[1])
        _ = decoder.logPosterior()
        let lattice = try #require(decoder.lattice())
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-\(UUID().uuidString).lat")
        defer { try? FileManager.default.removeItem(at: file) }
        try lattice.write(to: file.path)
        let read = try decoder.readLattice(from: file.path)
        let model = try decoder.languageModel(named: "_default")
        let ratio = Float(decoder.configuration.float("-bestpathlw") / decoder.configuration.float("-lw"))
        let scale = Float(1 / decoder.configuration.float("-ascale"))
        #expect(read.computePosteriors(model: model, languageWeightRatio: ratio, acousticScale: scale))
        let words = try #require(read.bestPath(model: model, languageWeightRatio: ratio, acousticScale: scale))
        #expect(words.filter { !$0.hasPrefix("<") && !$0.hasPrefix("[") }.joined(separator: " ") == hypothesis)
        func shape(_ nodes: [Lattice.Node]) -> [String] {
            nodes.map { "\($0.word) \($0.startFrame) \($0.firstEndFrame) \($0.lastEndFrame)" }.sorted()
        }
        let (live, back) = (lattice.nodes(), read.nodes())
        #expect(shape(back) == shape(live))
        let best = { (nodes: [Lattice.Node]) in
            Dictionary(nodes.map { ("\($0.word) \($0.startFrame)", $0.posterior) }, uniquingKeysWith: max)
        }
        let (a, b) = (best(live), best(back))
        let far = a.filter { abs($0.value - (b[$0.key] ?? -1)) > 0.01 }
        #expect(far.isEmpty, "posteriors that moved: \(far.prefix(5)) vs \(far.prefix(5).map { b[$0.key] ?? -1 })")
        #expect(throws: EngineError.self) { try decoder.readLattice(from: "/nonexistent/x.lat") }
        // A lattice cut short (a worker's disk filled up) is refused; the engine's reader would crash on it.
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for cut in [lines.count / 3, lines.count - 3] {
            try lines.prefix(cut).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            #expect(throws: EngineError.self) { try decoder.readLattice(from: file.path) }
        }
    }

    @Test(
        "GAMBIT_ENGINE_LOG=1 shows the engine's log from the first model read on, and nothing does otherwise")
    func engineLog() throws {
        let folder = try TestSupport.temporaryDirectory("log")
        let training = folder.appendingPathComponent("cards.yaml")
        try """
        locale: en-US
        identifier: org.gambit.log
        version: "1"
        phrases:
          - {phrase: ten of clubs, count: 10}
        """.write(to: training, atomically: true, encoding: .utf8)
        let audio = TestSupport.cards[0].path
        var environment = ProcessInfo.processInfo.environment
        environment["GAMBIT_CACHE"] = folder.appendingPathComponent("cache").path
        let arguments = ["decode", "--training", training.path, "--alternatives", "0", audio]
        let quiet = try TestSupport.gambit(arguments, environment: environment)
        #expect(quiet.status == 0, "\(quiet.output)")
        #expect(!quiet.output.contains("INFO:"))

        environment["GAMBIT_ENGINE_LOG"] = "1"
        environment["GAMBIT_CACHE"] = folder.appendingPathComponent("cache-2").path
        let logged = try TestSupport.gambit(arguments, environment: environment)
        #expect(logged.status == 0, "\(logged.output)")
        // Preparing reads the base model before any decoder exists (ngram_model_trie.c), and the
        // decoder logs its start (pocketsphinx.c): reading a model no longer turns the log off.
        let lines = logged.output.split(separator: "\n")
        let firstRead = lines.firstIndex { $0.contains("INFO: ngram_model_trie.c") }
        let decoderStart = lines.firstIndex { $0.contains("INFO: pocketsphinx.c") }
        #expect(firstRead != nil && decoderStart != nil && firstRead! < decoderStart!, "\(logged.output.prefix(2000))")
        #expect(logged.output.contains("ten of clubs"))
    }
}

/// Answers collected from several threads.
private final class Answers: @unchecked Sendable {  // Every access holds `lock`.
    private let lock = NSLock()
    private var results: [Int: Result<String, any Error>] = [:]

    func set(_ index: Int, _ result: Result<String, any Error>) {
        lock.lock()
        defer { lock.unlock() }
        results[index] = result
    }

    func values(count: Int) throws -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return try (0..<count).map { try results[$0]!.get() }
    }
}

@Suite("One door to the engine")
struct EngineBoundaryTests {
    /// Every Swift file under Sources, Benchmarks and Fuzz, with its path relative to the package.
    static func sources() throws -> [(path: String, text: String)] {
        let root = TestSupport.packageRoot
        let files = TestSupport.codeFolders.flatMap { folder in
            FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        }
        return try files.map {
            (String($0.path.dropFirst(root.path.count + 1)), try String(contentsOf: $0, encoding: .utf8))
        }
    }

    @Test("Only Sources/PocketSphinx imports the C module or calls sphinxbase and PocketSphinx functions")
    func onlyTheEngineModuleTouchesC() throws {
        let call = try Regex(#"\b(ps|ngram|logmath|cmd_ln|err|gambit_ps)_[a-z_0-9]+\("#)
        var offenders: [String] = []
        for (path, text) in try Self.sources() where !path.hasPrefix("Sources/PocketSphinx/") {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                if code.contains("import CPocketSphinx") || code.contains(call) {
                    offenders.append("\(path):\(number + 1): \(code)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test("Models are interpolated in one place and the engine has one lock")
    func oneInterpolationOneLock() throws {
        let sources = try Self.sources()
        let interpolations = sources.flatMap { file in
            file.text.split(separator: "\n").filter { $0.contains("ngram_model_set_init(") }.map {
                "\(file.path): \($0)"
            }
        }
        #expect(interpolations.count == 1, "\(interpolations)")
        let engineLocks = sources.filter { $0.path.hasPrefix("Sources/PocketSphinx/") }
            .flatMap { file in file.text.split(separator: "\n").filter { $0.contains("NSLock()") } }
        #expect(engineLocks.count == 1)
    }
}
