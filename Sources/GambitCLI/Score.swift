import ArgumentParser
import Formats
import Foundation
import Scoring

struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Score hypotheses against references (trn, ctm, stm, JSONL, Kaldi text, biasing lists) from any recognizer.",
        discussion: ExitStatus.doneOrRefused
    )

    @Option(help: "Reference transcripts.")
    var ref: String

    @Option(help: "Hypothesis transcripts.")
    var hyp: String

    @Option(
        help: """
            The reference's format. Without it, the file's extension names it or, for any other name, the \
            one format all its lines read as, said on standard error; a file whose lines are not all in one \
            format is refused, naming the line.
            """)
    var refFormat: TranscriptFormat?

    @Option(help: "The hypothesis's format, as for --ref-format.")
    var hypFormat: TranscriptFormat?

    @Option(help: "Alignment: sclite (costs 0/3/3/4, matches NIST sclite) or minimal (unit-cost edit distance).")
    var mode: String = "sclite"

    @Option(help: "Normalization: standard, english (Whisper-style) or verbatim.")
    var normalize: String = "standard"

    @Option(
        help: """
            Boosted words for B-WER/U-WER, comma separated, for the whole file. A biasing-list reference             (id, text, JSON list of biased words, JSON list given to the recognizer; tab-separated) gives             each utterance its own and needs none.
            """)
    var boosted: String?

    @Option(help: "Terms (may have several words) for recall/precision/F1, comma separated.")
    var terms: String?

    @Option(
        help: """
            A reference utterance without a hypothesis: empty (score it as all deletions, as sclite \
            does) or skip (leave it out of the rates). Either way the report warns and counts them.
            """)
    var missing: MissingHypothesisPolicy = .scoreAsEmpty

    @Flag(help: "Refuse to score when any reference utterance has no hypothesis.")
    var strict = false

    @Option(
        help: """
            Break WER and B-WER down by a label, each with a 95% bootstrap interval: speaker, or any string \
            field of a JSON-lines reference such as a Gambit manifest (condition, split…).
            """)
    var by: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        guard let alignment = AlignmentMode(rawValue: mode) else {
            throw ValidationError("--mode must be sclite or minimal")
        }
        let normalizer: Normalizer
        switch normalize {
        case "standard": normalizer = .standard
        case "english": normalizer = .standardEnglish
        case "verbatim": normalizer = .verbatim
        default: throw ValidationError("--normalize must be standard, english or verbatim")
        }
        let list = { (text: String?) in
            text?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        }
        let referenceFormat = try refFormat ?? Self.format(of: ref, option: "--ref-format")
        let hypothesisFormat = try hypFormat ?? Self.format(of: hyp, option: "--hyp-format")
        let report = try Scorer.score(
            reference: URL(fileURLWithPath: ref), hypothesis: URL(fileURLWithPath: hyp),
            options: ScoringOptions(
                mode: alignment, normalizer: normalizer, boostedWords: list(boosted), terms: list(terms),
                missingHypothesis: strict ? .error : missing, referenceFormat: referenceFormat,
                hypothesisFormat: hypothesisFormat, breakdownField: by))
        if json {
            // Straight to standard output: a 100,000-utterance report is tens of megabytes.
            FileHandle.standardOutput.write(try report.jsonData() + Data("\n".utf8))
        } else {
            print(report.text)
        }
    }

    /// The format of a file given without one; said on standard error when it was guessed from the file's lines.
    static func format(of path: String, option: String) throws -> TranscriptFormat {
        let (format, fromContent) = try TranscriptIO.format(of: URL(fileURLWithPath: path))
        if fromContent {
            let note =
                "note: \(path): read as \(format.name), the one format all its lines are in (\(option) names "
                + "another)\n"
            FileHandle.standardError.write(Data(note.utf8))
        }
        return format
    }
}

extension TranscriptFormat: ExpressibleByArgument {}

extension MissingHypothesisPolicy: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "empty": self = .scoreAsEmpty
        case "skip": self = .skip
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["empty", "skip"] }
    public var defaultValueDescription: String { self == .skip ? "skip" : "empty" }
}
