import ArgumentParser
import Diagnosis
import Foundation
import Publishing
import Reporting
import Results
import Runner

/// `gambit diagnose RUN_DIR`: why each boosted-word error of a finished run happened.
struct Diagnose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Explain each boosted-word error of a finished run: unpronounceable, language model, pruned, acoustics.",
        discussion: """
            For every boosted reference word a customized decode got wrong, and every boosted word it put where \
            nobody said it, its lattice is read from the run (gambit run keeps those a diagnosis needs; an \
            utterance without one is decoded again), its reference is force-aligned \
            through PocketSphinx's own search, and the lattice is rescored at other weights: \
            unpronounceable (no pronunciation in the dictionary, or only a guess in place of the ones lint flagged); fixable by count or weight (in the lattice where \
            it was said; the smallest weight that fixes it is given); pruned by search (not in the lattice, yet \
            the reference fits the audio at least as well: widen the beam); pronunciation or acoustics (the \
            reference fits worse). The diagnosis joins the run's results (.gambit/results.json) and its reports \
            (report.html, report.json, summary.md), private terms masked as elsewhere.

            """ + ExitStatus.doneOrRefused)

    @Argument(help: "The output folder of `gambit run` (or of a merge).")
    var runFolder: String

    @Option(help: "Only this variant (repeatable).")
    var variant: [String] = []

    @Option(help: "The suite file (default: the one the run names, found from the run's folder).")
    var suite: String?

    @Option(help: "The models' cache (default: the run's, as `gambit run` finds it).")
    var cacheDir: String?

    @Flag(help: "Read audio wherever manifests point (as `gambit run --allow-outside-paths`).")
    var allowOutsidePaths = false

    @Flag(help: "Ignore the diagnosis journal and examine every utterance again.")
    var fresh = false

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Write suggestions/VARIANT.yaml: pronunciations heard in the audio and phrase counts.",
            discussion:
                "A patch in the training-data format for each variant with something to suggest; "
                + "merge it with `gambit lint --apply`. Learn them on a dev split (gambit run --split dev) "
                + "and judge the new variant on test."))
    var suggest = true

    func run() throws {
        var request = DiagnosisRequest(runFolder: URL(fileURLWithPath: runFolder))
        request.variants = variant
        request.suite = suite.map { URL(fileURLWithPath: $0) }
        request.cacheFolder = cacheDir.map { URL(fileURLWithPath: $0) }
        request.allowOutsidePaths = allowOutsidePaths
        request.fresh = fresh
        request.suggest = suggest
        let progress = ProgressLine.standardError()
        defer { progress.finish() }
        let outcome: DiagnosisOutcome
        do {
            let shown = DiagnosisProgress(
                update: { progress.update($0, $1, $2) }, log: { progress.log($0) }, finish: { progress.finish() })
            outcome = try Diagnoser.diagnose(request, progress: shown) { publication in
                try RunFolder(request.runFolder).record(diagnosis: publication)
            }
        } catch let error as DiagnosisError {
            throw ValidationError(error.description)
        }
        progress.finish()
        for variant in outcome.examined { print(Self.text(variant)) }
        print("wrote the diagnosis into \(runFolder)/report.html, report.json and summary.md")
        for file in outcome.suggestionFiles { print("wrote suggestions: \(file)") }
    }

    /// A variant's sentence, its terms and its utterances, as the terminal shows them.
    static func text(_ variant: VariantDiagnosis) -> String {
        var lines = ["\(variant.variant) (weight \(variant.weight)): \(variant.sentence)"]
        if let twin = variant.weightsTriedWith {
            lines.append(
                "  other weights tried with the \(twin) twin of the weighted merge (the same custom model, interpolated at "
                    + "decode time)")
        }
        if !variant.terms.isEmpty {
            let width = max(4, variant.terms.map(\.word.count).max() ?? 0)
            lines.append("  " + "term".padding(toLength: width, withPad: " ", startingAt: 0) + "  said  errors  causes")
            for term in variant.terms {
                let fix = term.smallestFix(cost: variant.antiContext)
                lines.append(
                    "  " + term.word.padding(toLength: width, withPad: " ", startingAt: 0)
                        + String(term.occurrences).leftPadded(to: 6) + String(term.errors).leftPadded(to: 8) + "  "
                        + ([term.causes] + (fix.map { [$0] } ?? [])).joined(separator: "; "))
            }
        }
        if !variant.utterances.isEmpty {
            var source = ""
            if let read = variant.latticesRead, let decoded = variant.decodedAgain {
                source = "; \(read) read from the run's lattices, \(decoded) decoded again"
            }
            lines.append(
                "  \(variant.examined) in \(Output.seconds(variant.diagnoseSeconds)) "
                    + "(their customized decode: \(Output.seconds(variant.decodeSeconds))\(source))")
        }
        if let cost = variant.antiContext {
            lines.append(
                "  cost of the fixing weights: \(cost.utterances) anti-context utterances rescored in "
                    + "\(Output.seconds(cost.seconds)) (their customized decode: \(Output.seconds(cost.decodeSeconds)))"
            )
        }
        if let suggestions = variant.suggestions {
            lines.append("  suggestions (\(suggestions.provenance)): \(suggestions.tally)")
            for found in suggestions.pronunciations {
                let phones = found.phones.isEmpty ? "" : " (\(found.phones.joined(separator: " ")))"
                lines.append("    \(found.word): \(found.xsampa)\(phones), \(found.evidence)")
            }
            for word in suggestions.examined.keys.sorted() {
                lines.append("    \(word): no pronunciation fits clearly better (\(suggestions.examined[word]!))")
            }
            for count in suggestions.counts {
                lines.append(
                    "    \(count.kind.rawValue) \"\(count.text)\": \(count.from) → \(count.to), \(count.evidence)")
            }
        }
        for failure in variant.failures ?? [] { lines.append("  not examined: \(failure)") }
        return lines.joined(separator: "\n")
    }
}
