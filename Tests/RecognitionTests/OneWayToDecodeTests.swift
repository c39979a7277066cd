import Foundation
import GambitTestSupport
import Testing

/// Gambit decodes through one door, `Transcriber`: only the Recognition module creates recognizers, decoders and
/// worker processes, and the engine settings have one constructor, so that no path decodes with settings or a
/// model of its own.
@Suite("One way to decode")
struct OneWayToDecodeTests {
    /// Every Swift source file under `Sources/`, `Benchmarks/` and `Fuzz/`, by path relative to the package, with
    /// its code lines (comments dropped, since they may name what they do not call).
    static func sources() throws -> [(path: String, lines: [String])] {
        let root = TestSupport.packageRoot
        var files: [(String, [String])] = []
        for folder in TestSupport.codeFolders {
            guard
                let walker = FileManager.default.enumerator(
                    at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    return trimmed.hasPrefix("//") ? "" : String(line)
                }
                files.append((String(url.path.dropFirst(root.path.count + 1)), code))
            }
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Where each construction is found, as `path:line`.
    static func uses(of pattern: String, in files: [(path: String, lines: [String])]) throws -> [String] {
        let expression = try Regex(pattern)
        return files.flatMap { file in
            file.lines.enumerated().compactMap { index, line in
                line.contains(expression) ? "\(file.path):\(index + 1)" : nil
            }
        }
    }

    @Test("Only Recognition creates a recognizer, a decoder, a lattice pass or a worker process")
    func onlyRecognitionDecodes() throws {
        let files = try Self.sources()
        #expect(files.count > 100, "the sources were not found under \(TestSupport.packageRoot.path)")
        let outside = files.filter { !$0.path.hasPrefix("Sources/Recognition/") }
        for pattern in [
            #"\bSpeechRecognizer\("#, #"\bLatticeRescorer\("#, #"(^|[^A-Za-z])Decoder\((model|arguments)"#,
            #"\bSphinxDecoder\("#, #"\bWorkerProcess\("#, #"\bWorkerPool\("#, #"\bRequestDecoder\("#,
        ] {
            #expect(try Self.uses(of: pattern, in: outside) == [], "\(pattern) outside Sources/Recognition")
        }
        // The patterns find what they look for: Recognition's own constructions.
        #expect(try !Self.uses(of: #"(^|[^A-Za-z])Decoder\((model|arguments)"#, in: files).isEmpty)
        #expect(try !Self.uses(of: #"\bWorkerProcess\("#, in: files).isEmpty)
        // Inside Recognition, the engine's decoder is made in one place, and recognizers by the transcriber's
        // request decoder alone.
        #expect(
            try Self.uses(of: #"\bSphinxDecoder\("#, in: files).allSatisfy {
                $0.hasPrefix("Sources/Recognition/Decoder.swift:")
            })
        #expect(
            try Self.uses(of: #"\bSpeechRecognizer\("#, in: files).allSatisfy {
                $0.hasPrefix("Sources/Recognition/Transcriber/Worker.swift:")
            })
    }

    @Test("Every engine decoder is a Decoder, started by its own initialisers with DecoderSettings")
    func oneDoorToTheEngine() throws {
        let files = try Self.sources()
        let door = "Sources/Recognition/Decoder.swift:"
        // The engine's search-installing and utterance calls, and a side door for a raw engine: inside Decoder alone
        // (the engine's own module, Sources/PocketSphinx, defines them; Decoder's engine handle is private). A name
        // after a dot is matched explicitly: for Unicode word boundaries `a.b` is one word.
        let engineModule = files.filter { !$0.path.hasPrefix("Sources/PocketSphinx/") }
        let name = "(^|[^A-Za-z0-9_])"
        for call in ["SphinxDecoder", "setGrammar", "setPhoneLoop", "startUtterance", "activateSearch", "bareEngine"] {
            let found = try Self.uses(of: name + call + "[(]", in: engineModule)
            #expect(found.allSatisfy { $0.hasPrefix(door) }, "\(call) outside Decoder: \(found)")
        }
        #expect(
            try Self.uses(of: #"[.]process[(][^)]*fullUtterance"#, in: engineModule).allSatisfy { $0.hasPrefix(door) })
        #expect(try !Self.uses(of: name + "setGrammar[(]", in: engineModule).isEmpty)
        // Decoders are made by the transcriber's recognizer, the lattice pass and diagnosis's engine experiments,
        // each through Decoder's initialisers, which take DecoderSettings (never raw engine flags).
        let makers = try Self.uses(of: #"(^|[^A-Za-z])Decoder\("#, in: files).map {
            String($0.prefix { $0 != ":" })
        }
        #expect(
            Set(makers)
                == [
                    "Sources/Recognition/SpeechRecognizer.swift", "Sources/Recognition/LatticeRescorer.swift",
                    "Sources/Recognition/DiagnosticEngine.swift", "Sources/Recognition/PronunciationSearch.swift",
                ], "\(makers)")
        #expect(try Self.uses(of: #"arguments:\s*\["-"#, in: files) == [], "raw engine flags")
    }

    @Test("DecoderSettings( is constructed in one place outside the tests")
    func settingsHaveOneConstructor() throws {
        let uses = try Self.uses(of: #"\bDecoderSettings\("#, in: try Self.sources())
        #expect(uses.count == 1 && uses[0].hasPrefix("Sources/Recognition/DecoderSettings.swift:"), "\(uses)")
    }
}
