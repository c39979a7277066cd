// Times the normalizers on a million words of the text a Whisper-family recognizer writes ("Dr. Smith", "10mg",
// "$12.50", "It's 3:30pm", "E5", "twenty five", "colour"), generated from a seed, one utterance of about 20 words
// at a time, as scoring calls them.
//
//     swift run -c release NormalizerBenchmark [--words 1000000] [--runs 5] [--reference PYTHON]
//
// Prints the median time and words per second of `standard`, `english` and `whisper`. `--reference PYTHON` also
// times Whisper's own normalizer on the same utterances (scripts/whisper-normalize.py under that interpreter,
// e.g. .venv/whisper-normalizer/bin/python, JSON in and out included) and checks that its output is `whisper`'s.

import Foundation
import Scoring

struct UsageError: Error, CustomStringConvertible { let description: String }

var words = 1_000_000
var runs = 5
var reference: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
do {
    while let argument = arguments.next() {
        switch argument {
        case "--words", "--runs":
            guard let value = arguments.next().flatMap(Int.init), value > 0 else {
                throw UsageError(description: "\(argument) needs a positive number")
            }
            if argument == "--words" { words = value } else { runs = value }
        case "--reference":
            guard let path = arguments.next() else { throw UsageError(description: "--reference needs a path") }
            reference = path
        default:
            throw UsageError(
                description: "unknown argument \(argument)\n"
                    + "usage: NormalizerBenchmark [--words N] [--runs N] [--reference PYTHON]")
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(2)
}

/// Utterances of recognizer-style text, `total` words in all (counting as the text is written, by spaces).
func utterances(words total: Int, seed: UInt64) -> [String] {
    var rng = SplitMix64(seed: seed)
    let plain = [
        "the", "a", "play", "queen", "gambit", "albin", "counter", "and", "to", "of", "we", "it", "patient", "took",
        "call", "mom", "at", "on", "for", "with", "knight", "bishop", "move", "dose", "daily", "meeting", "about",
    ]
    let written = [
        "Dr.", "Mr", "St.", "$12.50", "£3", "€20", "10mg", "5km", "It's", "don't", "won't", "we're", "3:30pm",
        "10:15", "E5", "Nf3", "B12", "twenty five", "one hundred and five", "1,000", "2.5", "50%", "fifty percent",
        "1st", "21st", "colour", "favourite", "centre", "um,", "uh", "[laughter]", "(inaudible)", "O'Brien",
        "queen's", "café", "naïve", "—", "\"quoted\"", "well-known", "1990s", "two and a half", "five dollars",
    ]
    var result: [String] = []
    var count = 0
    while count < total {
        var utterance: [String] = []
        for _ in 0..<20 {
            let word =
                Int.random(in: 0..<10, using: &rng) < 7
                ? plain.randomElement(using: &rng)! : written.randomElement(using: &rng)!
            utterance.append(Bool.random(using: &rng) ? word : word.prefix(1).uppercased() + word.dropFirst())
        }
        let text = utterance.joined(separator: " ") + "."
        count += text.split(separator: " ").count
        result.append(text)
    }
    return result
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let texts = utterances(words: words, seed: 76)
let written = texts.reduce(0) { $0 + $1.split(separator: " ").count }
print("\(texts.count) utterances, \(written) words written, median of \(runs) runs")
for (name, normalizer) in Normalizer.named where name != "verbatim" {
    var produced = 0
    let times = (0..<runs).map { _ in
        seconds {
            produced = 0
            for text in texts { produced += normalizer.normalize(text).count }
        }
    }
    let time = median(times)
    print(
        "\(name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(String(format: "%.3f", time)) s  "
            + "\(String(format: "%.2f", Double(written) / time / 1e6)) M words/s  (\(produced) words out)")
}

if let reference {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/whisper-normalize.py").path
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("normalizer-benchmark.jsonl")
    var lines = Data()
    for text in texts {
        lines.append(try! JSONEncoder().encode(text))
        lines.append(0x0A)
    }
    try! lines.write(to: input)
    var output = Data()
    let time = seconds {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: reference)
        process.arguments = [script]
        process.standardInput = try! FileHandle(forReadingFrom: input)
        let pipe = Pipe()
        process.standardOutput = pipe
        try! process.run()
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
    }
    let answers = output.split(separator: 0x0A).map { try! JSONDecoder().decode(String.self, from: $0) }
    let whisper = WhisperNormalizer()
    let differing = zip(texts, answers).filter { whisper($0) != $1 }.count
    print(
        "reference \(String(format: "%.3f", time)) s  \(String(format: "%.2f", Double(written) / time / 1e6)) "
            + "M words/s  (one run, Python start included; \(differing) of \(answers.count) outputs differ)")
}
