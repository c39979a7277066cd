import ArgumentParser
import Formats
import Foundation
import LanguageModel
import Results
import Runner
import Scoring
import TrainingData

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check training data and print its accounting: counts, budget, new words and their pronunciations.",
        discussion: ExitStatus.help([
            .success: "no problem found (warnings, if any, are printed)",
            .checkFailed: "problems found (listed with their lines)",
            .refused: "the file cannot be read or parsed, or bad usage",
        ])
    )

    @Argument(help: "Training data: YAML, or a file exported by Gambit.")
    var training: String

    @Option(parsing: .unconditional, help: ArgumentHelp(PrepareOptions.setting("budget").help))
    var budget = PrepareOptions.defaults.limits.sampleBudget

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Merge this patch into the training data, write it to --output, and lint that.",
            discussion:
                "A patch is training data in the same format, such as the suggestions/VARIANT.yaml gambit diagnose "
                + "writes: its phrases set counts (or are added), its templates set the count of the template with "
                + "the same text, its pronunciations are added. Locale and identifier must match.",
            valueName: "patch"))
    var apply: String?

    @Option(help: "With --apply: the merged training data's file (never the training file itself).")
    var output: String?

    func validate() throws {
        if apply != nil, output == nil { throw ValidationError("--apply needs --output: where the merged data goes") }
        if apply == nil, output != nil { throw ValidationError("--output is for --apply") }
        if let output {
            let real = OutputPath.realPath(URL(fileURLWithPath: output))
            let inputs = [training] + (apply.map { [$0] } ?? [])
            if inputs.contains(where: { OutputPath.realPath(URL(fileURLWithPath: $0)) == real }) {
                throw ValidationError(
                    "--output \(output): the merged data never replaces the training file or the patch")
            }
            guard ["yaml", "yml"].contains(URL(fileURLWithPath: output).pathExtension.lowercased()) else {
                throw ValidationError("--output \(output): the merged data is YAML; name it .yaml")
            }
        }
    }

    /// `--apply`: the merged data written to `--output`, the changes printed; the file to lint.
    func merge() throws -> URL {
        guard let apply, let output else { return URL(fileURLWithPath: training) }
        let patchURL = URL(fileURLWithPath: apply)
        let patch = try Toolchain.loadTrainingData(patchURL)
        let (merged, changes) = try Toolchain.loadTrainingData(URL(fileURLWithPath: training)).applying(patch)
        // The patch's own header (what made it, where it was learned) stays with the data.
        let provenance =
            (try? String(contentsOf: patchURL, encoding: .utf8))?.split(separator: "\n")
            .prefix { $0.hasPrefix("#") }.map { String($0.dropFirst()).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("gambit lint --apply") && !$0.hasPrefix("Merge them") } ?? []
        // And so do the training file's own opening comments.
        let described =
            (try? String(contentsOf: URL(fileURLWithPath: training), encoding: .utf8))?
            .split(separator: "\n", omittingEmptySubsequences: false).prefix { $0.hasPrefix("#") }
            .map { String($0.dropFirst()).trimmingCharacters(in: .whitespaces) } ?? []
        let header =
            described + ["", "\(training) with \(apply) merged by gambit lint --apply."] + provenance
            + (changes.isEmpty ? ["No change: the patch holds nothing new."] : changes)
        let url = URL(fileURLWithPath: output)
        do {
            try merged.yaml(header: header).write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw LanguageModelError.writeFailed(
                path: output, reason: FileSystemReason.writing(url, error) + "; choose another --output")
        }
        if !json {
            print("wrote \(output): \(changes.count) \(changes.count == 1 ? "change" : "changes")")
            for change in changes { print("  \(change)") }
        }
        return url
    }

    func run() throws {
        let url = try merge()
        let data = try Toolchain.loadTrainingData(url)
        let limits = TrainingDataLimits(sampleBudget: budget)
        try PrepareOptions(limits: limits).validateAsOptions()
        var report = data.lint(limits: limits, requestedLocale: Locale(identifier: "en-US"))
        let toolchain = Toolchain()
        let dictionary = try toolchain.compiler.dictionary()
        var supplied: [String: [[String]]] = [:]
        for pronunciation in data.pronunciations {
            supplied[pronunciation.word, default: []] += pronunciation.cmuPhones.filter { !$0.isEmpty }
        }
        let vocabulary = Vocabulary.build(
            words: report.vocabulary, pronunciations: supplied, dictionary: dictionary, spellingAlternates: true)
        report.oov = vocabulary.outOfVocabulary
        report.problems += vocabulary.unpronounceableProblems(in: data).map(\.description)
        if json {
            print(try Output.json(report))
        } else {
            print(Self.text(report, alternates: vocabulary.alternatesForKnownWords))
        }
        if !report.problems.isEmpty { throw ExitCode(ExitStatus.checkFailed.rawValue) }
    }

    static func text(_ report: LintReport, alternates: [String]) -> String {
        var lines: [String] = []
        lines.append("\(report.identifier) \(report.version) (\(report.locale))\(report.isPrivate ? ", private" : "")")
        lines.append(
            String(
                format: "budget: %ld of %ld samples (%.1f%%)", report.budget.used, report.budget.budget,
                report.budget.share * 100))
        if !report.phrases.isEmpty {
            lines.append("phrases:")
            for phrase in report.phrases {
                lines.append(
                    String(format: "  %8ld  %5.2f%%  ", phrase.effectiveCount, phrase.shareOfBudget * 100)
                        + phrase.phrase)
            }
        }
        for template in report.templates {
            lines.append(
                String(
                    format: "template \"%@\": %ld samples over %ld expansions = %.3f each (%.2f%% of budget)",
                    template.template, template.count, template.expansions, template.countPerExpansion,
                    template.shareOfBudget * 100))
            for sample in template.sampleExpansions.prefix(5) {
                lines.append(String(format: "  %10.3f  ", sample.count) + sample.text)
            }
            if template.expansions > 5 { lines.append("  … \(template.expansions - 5) more") }
        }
        lines.append("vocabulary: \(report.vocabularySize) words")
        if report.oov.isEmpty {
            lines.append("new words: none (every word is in the base dictionary)")
        } else {
            lines.append("new words (not in the base dictionary):")
            for word in report.oov {
                let phones = word.pronunciations.map { $0.joined(separator: " ") }.joined(separator: " | ")
                lines.append("  \(word.word): \(word.resolution.rawValue) [\(word.source ?? "")] \(phones)")
            }
        }
        if !alternates.isEmpty {
            lines.append(
                "supplied pronunciations kept as alternates for known words: \(alternates.joined(separator: ", "))")
        }
        for problem in report.pronunciationProblems {
            lines.append(
                "pronunciation problem: \(problem.grapheme) \"\(problem.pronunciation)\": unsupported "
                    + problem.unsupportedSymbols.joined(separator: " "))
        }
        // Each warning is a whole "file:line: warning: …" line; they do not change the exit status.
        lines += report.warnings
        for problem in report.problems { lines.append("error: \(problem)") }
        return lines.joined(separator: "\n")
    }
}
