import Foundation
import NGram
import Reporting
import Results
import RunnerTestSupport
import Testing

@testable import Runner

@Suite("The customization canary")
struct CanaryTests {
    @Test("Samples the highest order with real words, down to unigrams for one-word phrases")
    func fallsBackToLowerOrders() throws {
        let unigramsOnly = """
            \\data\\
            ngram 1=4
            ngram 2=2

            \\1-grams:
            -99\t<s>\t-0.3
            -0.5\t</s>
            -0.6\tsertraline\t-0.2
            -0.7\tapixaban\t-0.2

            \\2-grams:
            -0.1\t<s> sertraline
            -0.1\tsertraline </s>

            \\end\\
            """
        #expect(
            CanaryPhrases.sample(from: try BackoffModel(arpaText: unigramsOnly), limit: 20) == [
                ["sertraline"], ["apixaban"],
            ])
        let withTrigrams = """
            \\data\\
            ngram 1=5
            ngram 2=3
            ngram 3=2

            \\1-grams:
            -99\t<s>\t-0.3
            -0.5\t</s>
            -0.6\tplay\t-0.2
            -0.7\tthe\t-0.2
            -0.7\twinawer

            \\2-grams:
            -0.1\t<s> play\t-0.1
            -0.1\tplay the\t-0.1
            -0.1\tthe winawer

            \\3-grams:
            -0.2\tplay the winawer
            -0.3\t<s> play the

            \\end\\
            """
        #expect(
            CanaryPhrases.sample(from: try BackoffModel(arpaText: withTrigrams), limit: 20) == [
                ["play", "the", "winawer"]
            ])
    }

    @Test("With modes: [baseline] a variant's canary is skipped and says why, in the summary and in JUnit")
    func skippedWithoutCustomizedMode() throws {
        let suite = try MiniSuite(modes: ["baseline"])
        let results = try suite.run(output: "out")
        let canary = try #require(results.checks.first { $0.kind == .canary })
        #expect(canary.isSkipped)
        #expect(canary.message.hasPrefix("skipped: no utterance was decoded with this variant"))
        let failing = results.checks.filter { !$0.passed }.map(\.message)
        #expect(failing.isEmpty, "\(failing)")
        let junit = JUnitReport(results).render()
        #expect(junit.contains("<skipped message=\"skipped: no utterance was decoded"))
        #expect(!junit.contains("<failure"))
    }
}
