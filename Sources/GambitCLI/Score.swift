import ArgumentParser
import Audio
import Formats
import Foundation
import Runner
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

    @Option(
        help: """
            Normalization: standard (Gambit's), english (Whisper's rules with their faults fixed), whisper \
            (Whisper's EnglishTextNormalizer exactly, as the Open ASR Leaderboard scores) or verbatim. The \
            default is standard, or with --suite the suite's normalize:.
            """)
    var normalize: String?

    @Option(
        help: """
            Boosted words for B-WER/U-WER and the headline keyword figures, comma separated, for the whole file. A \
            reference with per-utterance biasing lists (a biasing-list file: id, text, JSON list of biased words, \
            JSON list given to the recognizer, tab-separated; or a manifest's "boosted") gives each utterance its \
            own and needs none.
            """)
    var boosted: String?

    @Option(
        help: """
            Terms (one word or more), comma separated, each scored by position on its own row: a hit is the term \
            heard where the alignment puts an occurrence of it in the reference, as a run scores keywords.
            """)
    var terms: String?

    @Option(
        help: """
            A YAML file mapping surface forms to their terms (albin's: albin), as a suite's termForms: each form \
            counts as its term in every figure.
            """)
    var termForms: String?

    @Option(
        help: """
            A suite file: its termForms apply (not with --term-forms) and, with --variant, its variant gives the \
            boosted words, terms and templates.
            """)
    var suite: String?

    @Option(
        help: """
            A variant of --suite: score its boosted words, terms and templates, worked out from its training data \
            as a run scores its customized systems (not with --boosted or --terms). Beside per-utterance lists, \
            each utterance's list gives B-WER and the headline keyword figures, as in a run.
            """)
    var variant: String?

    @Option(help: "A reference utterance without a hypothesis. Either way the report warns and counts them.")
    var missing: MissingOption = .empty

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
        let list = { (text: String?) in
            text?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        }
        if termForms != nil && suite != nil {
            throw ValidationError("--term-forms and --suite both give term forms: give one")
        }
        let suiteFile = try suite.map { try Suite.load(URL(fileURLWithPath: $0)) }
        var normalizer = suiteFile?.normalization ?? .standard
        if let normalize {
            guard let named = Normalizer.named.first(where: { $0.name == normalize })?.normalizer else {
                throw ValidationError("--normalize must be standard, english, whisper or verbatim")
            }
            normalizer = named
        }
        if let termForms {
            normalizer = normalizer.withTermForms(try Suite.loadTermForms(URL(fileURLWithPath: termForms)))
        } else if let suiteFile {
            normalizer = normalizer.withTermForms(suiteFile.termForms)
        }
        var boostedWords = list(boosted)
        var scoredTerms = list(terms)
        var templates: SlotTemplates? = nil
        if let variant {
            guard let suiteFile else { throw ValidationError("--variant names a variant of --suite: give the suite") }
            guard boosted == nil && terms == nil else {
                throw ValidationError("--variant gives the boosted words and terms: leave out --boosted and --terms")
            }
            guard let found = suiteFile.variants.first(where: { $0.name == variant }) else {
                throw ValidationError(
                    "\(suite!) has no variant '\(variant)'; it has "
                        + suiteFile.variants.map(\.name).joined(separator: ", "))
            }
            let scope = try Runner.scoringScope(of: found, toolchain: Toolchain())
            (boostedWords, scoredTerms, templates) = (scope.boostedWords, scope.scoredTerms, scope.templates)
        }
        let referenceFormat = try refFormat ?? Self.format(of: ref, option: "--ref-format")
        let hypothesisFormat = try hypFormat ?? Self.format(of: hyp, option: "--hyp-format")
        let report = try Scorer.score(
            reference: URL(fileURLWithPath: ref), hypothesis: URL(fileURLWithPath: hyp),
            options: ScoringOptions(
                mode: alignment, normalizer: normalizer, boostedWords: boostedWords, terms: scoredTerms,
                boostedWordsBesideLists: variant != nil, templates: templates,
                missingHypothesis: strict ? .error : missing.policy, referenceFormat: referenceFormat,
                hypothesisFormat: hypothesisFormat, breakdownField: by),
            audioLength: Self.audioLength)
        if json {
            // Straight to standard output: a 100,000-utterance report is tens of megabytes.
            FileHandle.standardOutput.write(try report.jsonData() + Data("\n".utf8))
        } else {
            print(report.text)
        }
    }

    /// An audio file's length in seconds, 0 when it cannot be read: what false alarms per hour are over when the
    /// reference is a manifest naming its audio.
    static func audioLength(_ url: URL) -> Double {
        var lengths = AudioLengths()
        return lengths.seconds(url)
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

/// `--missing`'s values as a person types them; each names what it does in the help.
enum MissingOption: String, ExpressibleByArgument, CaseIterable {
    case empty, skip

    var policy: MissingHypothesisPolicy { self == .empty ? .scoreAsEmpty : .skip }

    var defaultValueDescription: String {
        switch self {
        case .empty: "score it as all deletions, as sclite does"
        case .skip: "leave it out of the rates"
        }
    }
}
