import Corpus
import Foundation
import Results
import Runner
import Scoring
import TrainingData

/// One parser of a file that users or other tools write, driven the way the `gambit` command line drives it.
///
/// Each case writes the input where the command line would find such a file (a temporary file with the
/// extension the command line looks at) and calls the same entry point as the command line. A thrown
/// error is a normal outcome: bad input must be refused with a message, never crash. The fuzzer
/// (`scripts/fuzz.sh`) runs these under libFuzzer and AddressSanitizer; the regression tests replay
/// what it found.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Training data as YAML (`gambit prepare|lint`, a suite variant's `training:`).
    case trainingYAML = "training-yaml"
    /// Training data as an exported file (`CustomLanguageModelData` JSON).
    case trainingExport = "training-export"
    /// A suite file (`gambit run|sweep`).
    case suite
    /// A corpus manifest in Gambit's JSON lines, format detected as the runner does.
    case manifestJSONL = "manifest-jsonl"
    /// A corpus manifest in NeMo's JSON lines.
    case manifestNeMo = "manifest-nemo"
    /// A corpus manifest as sclite `trn` lines.
    case manifestTRN = "manifest-trn"
    /// A transcript in sclite `trn` (`gambit score`).
    case transcriptTRN = "transcript-trn"
    /// A transcript in sclite `ctm`.
    case transcriptCTM = "transcript-ctm"
    /// A transcript in sclite `stm`.
    case transcriptSTM = "transcript-stm"
    /// A transcript in JSON lines.
    case transcriptJSONL = "transcript-jsonl"
    /// A transcript whose format is told by its content (`.txt`): Kaldi `text` unless its first line
    /// shows another format.
    case transcriptKaldi = "transcript-kaldi"
    /// A reference with per-utterance biasing lists (tab-separated, JSON lists), scored per utterance.
    case transcriptBiasing = "transcript-biasing"
    /// A run's `results.json` (`gambit report|gate|sweep`).
    case results
    /// A custom pronunciation in X-SAMPA.
    case xsampa
    /// A corpus, variant or recognizer name as it becomes a report's file name (``PathComponent``): the
    /// file must land inside the output folder. Names joined into one file name are separated by a
    /// unit separator (0x1F) in the input.
    case pathName = "path-name"

    /// The name of the file the input is written to: the extension decides the format, as it does for users.
    public var fileName: String {
        switch self {
        case .trainingYAML: "training.yaml"
        case .trainingExport: "training.bin"
        case .suite: "suite.yaml"
        case .manifestJSONL: "manifest.jsonl"
        case .manifestNeMo: "manifest.json"
        case .manifestTRN: "manifest.trn"
        case .transcriptTRN: "transcript.trn"
        case .transcriptCTM: "transcript.ctm"
        case .transcriptSTM: "transcript.stm"
        case .transcriptJSONL: "transcript.jsonl"
        case .transcriptKaldi: "transcript.txt"
        case .transcriptBiasing: "transcript.tsv"
        case .results: "results.json"
        case .xsampa: "pronunciation.txt"
        case .pathName: "name.txt"
        }
    }

    /// Feeds one input to the parser.
    ///
    /// - Parameters:
    ///   - input: The file's bytes.
    ///   - folder: A folder of the caller's to write the file into (reused between calls).
    /// - Returns: `nil` when the parser accepted the input, or the error it threw.
    @discardableResult
    public func run(_ input: Data, in folder: URL) -> (any Error)? {
        if self == .xsampa {
            _ = XSAMPA.parse(String(decoding: input, as: UTF8.self))
            return nil
        }
        if self == .pathName {
            Self.checkPathRule(String(decoding: input, as: UTF8.self), in: folder)
            return nil
        }
        let file = folder.appendingPathComponent(fileName)
        do {
            try input.write(to: file)
        } catch {
            fatalError("cannot write the fuzz input to \(file.path): \(error)")
        }
        do {
            switch self {
            case .trainingYAML, .trainingExport: _ = try Toolchain.loadTrainingData(file)
            case .suite: _ = try Suite.load(file)
            case .manifestJSONL, .manifestTRN: _ = try CorpusManifest.load(file)
            case .manifestNeMo: _ = try CorpusManifest.load(file, format: .nemo)
            case .transcriptTRN, .transcriptCTM, .transcriptSTM, .transcriptJSONL, .transcriptKaldi,
                .transcriptBiasing:
                // `gambit score` reads both sides with the same reader; scoring a file against itself
                // also walks the alignment and the counts over whatever the parser let through.
                _ = try Scorer.score(reference: file, hypothesis: file)
            case .results: _ = try RunResults.load(from: file)
            case .xsampa, .pathName: break
            }
            return nil
        } catch {
            return error
        }
    }

    /// The path rule, whose breach is a crash (the finding): a name's file is one safe component, and the
    /// output check places it inside `folder`, under `trn/`.
    private static func checkPathRule(_ name: String, in folder: URL) {
        let parts = name.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        for component in [PathComponent(name), PathComponent(joining: parts)] {
            let value = component.value
            precondition(
                !value.isEmpty && !value.hasPrefix(".") && !value.contains("/") && !value.utf8.contains(0)
                    && value.utf8.count <= PathComponent.maximumBytes,
                "unsafe component \(value.debugDescription) for \(name.debugDescription)")
            do {
                let file = try OutputPath.file(in: folder, ["trn"], component, pathExtension: "trn")
                precondition(
                    file.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path
                        == folder.standardizedFileURL.path,
                    "\(file.path) is not in \(folder.path)/trn")
            } catch {
                preconditionFailure("\(name.debugDescription): \(error)")
            }
        }
    }
}
