import Formats
import Foundation

@testable import Scoring

/// Deterministic reference/hypothesis pairs with random substitutions, insertions and deletions, plus a few empty
/// references, empty hypotheses and garbage hypotheses.
struct SyntheticCorpus {
    var ids: [String] = []
    var references: [[String]] = []
    var hypotheses: [[String]] = []

    static let vocabulary: [String] = {
        let onsets = ["b", "k", "d", "g", "m", "n", "p", "r", "s", "t"]
        let vowels = ["a", "e", "i", "o", "u"]
        var words: [String] = []
        for onset in onsets {
            for vowel in vowels {
                words.append(onset + vowel)
                words.append(onset + vowel + "n")
            }
        }
        return words + ["queen", "king", "rook", "bishop", "knight", "pawn", "gambit", "albin", "counter"]
    }()

    init(utterances: Int, seed: UInt64, errorRate: Double = 0.15, longEvery: Int = 500) {
        var rng = SplitMix64(seed: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func word() -> String { Self.vocabulary[Int(rng.next(below: UInt64(Self.vocabulary.count)))] }
        for index in 0..<utterances {
            ids.append("spk\(index % 17)_utt\(index)")
            var length = Int(rng.next(below: 30)) + 1
            if index % longEvery == longEvery - 1 { length = 300 + Int(rng.next(below: 200)) }
            if index % 97 == 5 { length = 0 }
            let reference = (0..<length).map { _ in word() }
            var hypothesis: [String] = []
            switch index % 151 {
            case 7: hypothesis = []
            case 8: hypothesis = (0..<Int(rng.next(below: 40))).map { _ in word() }
            default:
                for ref in reference {
                    let roll = uniform()
                    if roll < errorRate * 0.4 {
                        hypothesis.append(word())
                    } else if roll < errorRate * 0.7 {
                        continue
                    } else if roll < errorRate {
                        hypothesis.append(word())
                        hypothesis.append(ref)
                    } else {
                        hypothesis.append(ref)
                    }
                }
                if uniform() < errorRate { hypothesis.append(word()) }
            }
            references.append(reference)
            hypotheses.append(hypothesis)
        }
    }

    /// A second system: the same references, a different error pattern.
    func variant(seed: UInt64, errorRate: Double) -> SyntheticCorpus {
        var other = SyntheticCorpus(utterances: 0, seed: seed)
        var generated = SyntheticCorpus(utterances: ids.count, seed: seed, errorRate: errorRate)
        // Rebuild hypotheses from this corpus's references with the other generator's noise.
        var rng = SplitMix64(seed: seed ^ 0xABCDEF)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func word() -> String { Self.vocabulary[Int(rng.next(below: UInt64(Self.vocabulary.count)))] }
        generated.hypotheses = references.map { reference in
            var hypothesis: [String] = []
            for ref in reference {
                let roll = uniform()
                if roll < errorRate * 0.4 {
                    hypothesis.append(word())
                } else if roll < errorRate * 0.7 {
                    continue
                } else if roll < errorRate {
                    hypothesis.append(word())
                    hypothesis.append(ref)
                } else {
                    hypothesis.append(ref)
                }
            }
            return hypothesis
        }
        other.ids = ids
        other.references = references
        other.hypotheses = generated.hypotheses
        return other
    }

    var referenceUtterances: [Utterance] {
        zip(ids, references).map { Utterance(id: $0, text: $1.joined(separator: " ")) }
    }

    var hypothesisUtterances: [Utterance] {
        zip(ids, hypotheses).map { Utterance(id: $0, text: $1.joined(separator: " ")) }
    }

    func write(to directory: URL) throws -> (reference: URL, hypothesis: URL) {
        let reference = directory.appendingPathComponent("ref.trn")
        let hypothesis = directory.appendingPathComponent("hyp.trn")
        try TranscriptIO.trn(referenceUtterances).write(to: reference, atomically: true, encoding: .utf8)
        try TranscriptIO.trn(hypothesisUtterances).write(to: hypothesis, atomically: true, encoding: .utf8)
        return (reference, hypothesis)
    }
}

/// The textbook unit-cost Levenshtein distance, independent of the code under test.
func referenceLevenshtein<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("scoring-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs a program and returns its standard output.
@discardableResult
func run(_ executable: String, _ arguments: [String], stdin: URL? = nil, in directory: URL? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

enum SCTK {
    static let sclite = "/usr/lib/sctk/bin/sclite"
    static let scStats = "/usr/lib/sctk/bin/sc_stats"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: sclite) && FileManager.default.isExecutableFile(atPath: scStats)
    }

    /// One utterance of sclite's SGML output: the evaluation letters (C, S, D, I) in order.
    struct Path {
        var id: String
        var evaluation: String
        var counts: ErrorCounts {
            var counts = ErrorCounts()
            for letter in evaluation {
                switch letter {
                case "C": counts.record(.correct)
                case "S": counts.record(.substitution)
                case "D": counts.record(.deletion)
                default: counts.record(.insertion)
                }
            }
            return counts
        }
    }

    /// Runs sclite on two trn files and parses its SGML alignment output.
    static func align(reference: URL, hypothesis: URL, name: String, in directory: URL) throws -> [String: Path] {
        try run(
            sclite,
            [
                "-r", reference.path, "trn", "-h", hypothesis.path, "trn", "-i", "rm", "-o", "sgml", "-O",
                directory.path,
                "-n", name,
            ])
        let sgml = try String(contentsOf: directory.appendingPathComponent("\(name).sgml"), encoding: .utf8)
        var paths: [String: Path] = [:]
        var currentID: String?
        for line in sgml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<PATH id=\"(") {
                let afterOpen = line.dropFirst("<PATH id=\"(".count)
                currentID = String(afterOpen.prefix { $0 != ")" })
                paths[currentID!] = Path(id: currentID!, evaluation: "")
            } else if line.hasPrefix("</PATH>") {
                currentID = nil
            } else if let id = currentID, !line.isEmpty {
                let letters = line.split(separator: ":").compactMap(\.first).map(String.init).joined()
                paths[id]!.evaluation += letters
            }
        }
        return paths
    }
}
