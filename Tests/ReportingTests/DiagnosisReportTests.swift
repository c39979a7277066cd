import Foundation
import Reporting
import Results
import ResultsFixtures
import Testing

/// The diagnosis section of the reports, once `gambit diagnose` has added a diagnosis to a run's results.
@Suite("Reports: diagnosis")
struct DiagnosisReportTests {
    /// The fixture with its customized decodes made as bad as the baseline's, and a diagnosis of their
    /// boosted-word errors: causes given in turn, with lattice evidence, so that every cause and every kind of
    /// evidence is rendered.
    static func diagnosed() -> RunResults {
        var results = Fixture.results()
        let causes = ErrorCause.allCases
        var report = DiagnosisReport(suite: results.run.suite.name, variants: [])
        for (corpus, variantInfo) in [("chess", Fixture.chess), ("contacts", Fixture.contacts)] {
            let baseline = results.system(corpus: corpus, mode: .baseline)!
            let index = results.systems.firstIndex { $0.corpus == corpus && $0.variant == variantInfo.name }!
            results.systems[index].utterances = baseline.utterances
            let boosted = Set(variantInfo.boostedWords)
            var utterances: [UtteranceDiagnosis] = []
            var n = 0
            for record in baseline.utterances {
                let errors = BoostedWordError.errors(in: record.alignment, boosted: boosted)
                guard !errors.isEmpty else { continue }
                let diagnoses = errors.map { error in
                    defer { n += 1 }
                    let cause = causes[n % causes.count]
                    return ErrorDiagnosis(
                        error: error, cause: cause, inLattice: cause == .languageModel,
                        referenceFits: cause != .acoustics, fixingWeight: cause == .languageModel ? 0.8 : nil,
                        posterior: cause == .languageModel ? 0.12 : nil,
                        competitorPosterior: cause == .languageModel ? 0.86 : nil)
                }
                utterances.append(
                    UtteranceDiagnosis(
                        corpus: corpus, id: record.id, reference: record.reference, hypothesis: record.hypothesis,
                        diagnoses: diagnoses))
            }
            let occurrences = Dictionary(
                baseline.utterances.flatMap { $0.alignment.compactMap(\.reference).filter(boosted.contains) }.map {
                    ($0, 1)
                }, uniquingKeysWith: +)
            report.variants.append(
                VariantDiagnosis(
                    variant: variantInfo.name, weight: variantInfo.weight, utterances: utterances,
                    terms: VariantDiagnosis.terms(utterances, occurrences: occurrences, weight: variantInfo.weight),
                    decodeSeconds: 4, diagnoseSeconds: 1.5))
        }
        results.diagnosis = report
        return results
    }

    @Test("HTML and Markdown show each variant's sentence, its terms and each error's cause and evidence")
    func sections() throws {
        let results = Self.diagnosed()
        let chess = try #require(results.diagnosis?.variants.first)
        #expect(chess.diagnoses.count >= 4)
        let page = HTMLReport(results.redactingPrivateTerms()).render()
        // Only the section is compared, so that a failure prints it rather than the whole page.
        let start = try #require(page.range(of: "<section id=\"diagnosis\">"))
        let html = String(page[start.lowerBound...].prefix { $0 != "\n" })
        #expect(page.contains("<a href=\"#diagnosis\">Diagnosis</a>"))
        #expect(html.contains(chess.sentence.prefix(1).uppercased() + chess.sentence.dropFirst()))
        #expect(html.contains("<span class=\"cause language-model\">"))
        #expect(html.contains("weight 0.8 fixes its misses"))
        #expect(html.contains("in the lattice (posterior 0.12;"))
        #expect(html.contains("the hypothesis fits the audio better than the reference"))
        // The error is shown inside the customized decode's alignment.
        #expect(html.contains("<s>najdorf</s>dorf</span>"))
        #expect(html.contains("<b>najdorf → dorf</b>: in the lattice (posterior 0.12; dorf 0.86)"))
        let markdown = MarkdownReport(results.redactingPrivateTerms()).render()
        #expect(markdown.contains("### Diagnosis"))
        #expect(markdown.contains("- **chess-full**: \(chess.sentence)."))
        #expect(markdown.contains("| najdorf | 1 | 1 |"))
    }

    @Test("without a diagnosis there is no section and no link to one")
    func absent() {
        let html = HTMLReport(Fixture.results().redactingPrivateTerms()).render()
        #expect(!html.contains("diagnosis"), "the page names a diagnosis")
        #expect(!MarkdownReport(Fixture.results().redactingPrivateTerms()).render().contains("Diagnosis"))
    }

    @Test("the diagnosis masks private terms in every format, and the JSON keeps it")
    func privacy() throws {
        let directory = try temporaryDirectory("diagnosis")
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = Self.diagnosed()
        #expect(results.diagnosis?.variants[1].diagnoses.isEmpty == false)
        let files = try Reporter.write(results, formats: [.html, .json, .markdown], to: directory)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for term in Fixture.privateTerms {
                #expect(
                    text.range(of: term, options: .caseInsensitive) == nil,
                    "\(file.lastPathComponent) shows the private term \(term)")
            }
        }
        let json = try RunResults.load(from: directory.appendingPathComponent("report.json"))
        let contacts = try #require(json.diagnosis?.variants.last)
        #expect(contacts.terms.allSatisfy { $0.word.hasPrefix("‹contact-") })
        #expect(contacts.utterances.first?.reference.hasPrefix("call ‹contact-") == true)
    }
}
