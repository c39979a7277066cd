import ArgumentParser
import Foundation
import Runner

/// `gambit init --corpus DIR --training FILE`: a starter suite for your own corpora and training data.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a starter suite for your own corpora and training data, ready for gambit run.",
        discussion: """
            Each --corpus (a folder with manifest.jsonl, as gambit corpus import writes, or a manifest) becomes a \
            domain corpus, scored on its test split when it has one; each --training file (YAML, or the JSON \
            Apple's export(to:) writes) becomes a variant evaluated on all of them; the modes are baseline, \
            customized and oracle; and Gambit's shipped anti-context corpora (everyday, soundalike, general) are \
            added, so that what the customization makes worse in everyday speech is measured too. The suite is \
            checked as gambit run reads it before it is written, and never written over an existing file.

            Exit codes: 0 written; 2 refused input (a corpus or training file that does not read, a name taken \
            twice, an existing suite).
            """)

    @Option(name: .customLong("corpus"), help: "A corpus folder (with manifest.jsonl) or manifest; repeat for more.")
    var corpora: [String] = []

    @Option(name: .customLong("training"), help: "A training data file (YAML or Apple's JSON export); repeat for more.")
    var training: [String] = []

    @Option(name: .shortAndLong, help: "The suite file to write.")
    var output = "suite.yaml"

    @Option(help: "The suite's name.")
    var name = "my-suite"

    @Option(
        help: ArgumentHelp(
            "Shipped anti-context corpora to add, comma separated, or none.",
            discussion: "everyday: Harvard sentences and commands; soundalike: near-homophones of the shipped "
                + "domains' terms; general: real recordings from Debian's PocketSphinx test data."))
    var antiContext = StarterSuite.shippedAntiContext.map(\.name).joined(separator: ",")

    @Option(help: "Gambit's shipped Corpora folder (default: ./Corpora, else the one beside this gambit's checkout).")
    var shippedCorpora: String?

    func validate() throws {
        if corpora.isEmpty { throw ValidationError("name at least one --corpus") }
    }

    func run() throws {
        let wanted = antiContext == "none" ? [] : antiContext.split(separator: ",").map { String($0) }
        let file = URL(fileURLWithPath: output)
        let suite = try StarterSuite.write(
            StarterSuite.Input(
                corpora: corpora.map { URL(fileURLWithPath: $0) }, training: training.map { URL(fileURLWithPath: $0) },
                shippedCorpora: shippedCorpora.map { URL(fileURLWithPath: $0) } ?? Self.findShippedCorpora(),
                antiContext: wanted, name: name),
            to: file)
        let yours = suite.corpora.filter { $0.role == .domain }.count
        print(
            "wrote \(output): \(Output.count(suite.corpora.count, "corpus", plural: "corpora")) "
                + "(\(yours) yours), \(Output.count(suite.variants.count, "variant")), modes "
                + suite.modes.map(\.rawValue).joined(separator: ", "))
        print("next: gambit run \(output) --output Reports")
    }

    /// `./Corpora` when it holds the shipped suite, else the `Corpora` folder of the checkout this executable was
    /// built in (`.build/release/gambit` → `Corpora`).
    static func findShippedCorpora() -> URL? {
        var candidates = [URL(fileURLWithPath: "Corpora")]
        var folder = Run.executable().deletingLastPathComponent()
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            candidates.append(folder.appendingPathComponent("Corpora"))
        }
        return candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("everyday/texts.tsv").path)
        }?.standardizedFileURL
    }
}
