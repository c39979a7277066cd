import Corpus
import Formats
import Foundation
import StrictYAML

/// A first suite for a team's own corpora and training data (`gambit init`): each corpus a domain corpus, each
/// training file (YAML, or the JSON Apple's `export(to:)` writes) a variant evaluated on all of them, baseline,
/// customized and oracle modes, and Gambit's shipped anti-context corpora, so that what the customization breaks
/// in everyday speech is measured too. It is checked as `gambit run` would read it before it is written.
public enum StarterSuite {
    /// What the suite is made from.
    public struct Input: Sendable {
        /// Corpus folders (holding `manifest.jsonl`) or manifest files.
        public var corpora: [URL]
        /// Training data files, one variant each.
        public var training: [URL]
        /// Gambit's shipped `Corpora` folder, whose anti-context corpora the suite names; nil for none.
        public var shippedCorpora: URL?
        /// Which of the shipped anti-context corpora to name.
        public var antiContext: [String]
        public var name: String

        public init(
            corpora: [URL], training: [URL], shippedCorpora: URL?,
            antiContext: [String] = StarterSuite.shippedAntiContext.map(\.name), name: String = "my-suite"
        ) {
            self.corpora = corpora
            self.training = training
            self.shippedCorpora = shippedCorpora
            self.antiContext = antiContext
            self.name = name
        }
    }

    /// The shipped anti-context corpora: everyday speech (Harvard sentences and commands), near-homophones of the
    /// shipped domains' terms, and real recordings from Debian's PocketSphinx test data.
    public static let shippedAntiContext: [ShippedCorpus] = [
        ShippedCorpus(name: "everyday", synthesized: true),
        ShippedCorpus(name: "soundalike", synthesized: true),
        ShippedCorpus(name: "general", synthesized: false, outside: "/usr/share/pocketsphinx/test/data"),
    ]

    /// One of Gambit's shipped corpora, as a suite names it.
    public struct ShippedCorpus: Sendable {
        public var name: String
        /// Its audio is synthesized from its `texts.tsv` on the first run (test split scored).
        var synthesized: Bool
        /// The folder outside the suite's its audio is in, for `allow-outside-paths`.
        var outside: String?

        /// Its line in a suite's `corpora:`, its files under `base` (the shipped Corpora folder).
        func line(_ base: String) -> String {
            var fields = ["name: \(name)", "manifest: \(q(base + "/" + name + "/manifest.jsonl"))"]
            if synthesized { fields.append("texts: \(q(base + "/" + name + "/texts.tsv"))") }
            fields.append("role: anti-context")
            if synthesized { fields.append("split: test") }
            if let outside { fields.append("allow-outside-paths: \(outside)") }
            return "{" + fields.joined(separator: ", ") + "}"
        }
    }

    /// Writes the suite to `file` and returns it as read back.
    ///
    /// - Throws: ``RunnerError`` when a corpus has no manifest or no utterance, a training file does not read, a
    ///   name is asked for twice, the shipped corpora are not found, or `file` exists (an edited suite is never
    ///   written over).
    @discardableResult
    public static func write(_ input: Input, to file: URL) throws -> Suite {
        guard !FileManager.default.fileExists(atPath: file.path) else {
            throw RunnerError.invalidSuite(
                path: file.path, line: nil, message: "it exists already; gambit init writes a new suite, never over one"
            )
        }
        let text = try text(input, folder: file.deletingLastPathComponent())
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file, options: .withoutOverwriting)
        } catch {
            throw RunnerError.invalidSuite(path: file.path, line: nil, message: "cannot be written: \(error)")
        }
        do {
            return try Suite.load(file)
        } catch {
            // A suite gambit run would refuse is not left behind to be run.
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// The suite's YAML, with paths relative to `folder` (where it will be written).
    public static func text(_ input: Input, folder: URL) throws -> String {
        guard !input.corpora.isEmpty else {
            throw RunnerError.invalidSuite(path: "gambit init", line: nil, message: "name at least one corpus")
        }
        var names: Set<String> = []
        func unique(_ base: String, _ what: String) throws -> String { try Self.unique(base, what, in: &names) }
        var corpusLines: [String] = []
        var domains: [String] = []
        for corpus in input.corpora {
            let manifest =
                corpus.hasDirectoryPath || corpus.pathExtension.isEmpty
                ? corpus.appendingPathComponent("manifest.jsonl") : corpus
            let entries: [CorpusEntry]
            do {
                entries = try CorpusManifest.load(manifest)
            } catch {
                throw RunnerError.invalidSuite(path: manifest.path, line: nil, message: "\(error)")
            }
            guard !entries.isEmpty else {
                throw RunnerError.invalidSuite(path: manifest.path, line: nil, message: "the manifest has no utterance")
            }
            let folderName = manifest.deletingLastPathComponent().lastPathComponent
            let name = try unique(slug(folderName), "corpus")
            domains.append(name)
            // Score the test split when the corpus has one (gambit corpus import makes dev and test): dev is for
            // tuning (gambit sweep --split dev).
            let split = entries.contains { $0.split == "test" } ? ", split: test" : ""
            corpusLines.append(
                "  - {name: \(name), manifest: \(q(RelativePath.from(folder, to: manifest))), role: domain\(split)}")
        }
        if !input.antiContext.isEmpty {
            guard let shipped = input.shippedCorpora else {
                throw RunnerError.invalidSuite(
                    path: "gambit init", line: nil,
                    message: "Gambit's shipped corpora (its Corpora folder) were not found for the anti-context "
                        + "corpora; give --shipped-corpora, or --anti-context none")
            }
            let base = RelativePath.from(folder, to: shipped)
            for wanted in input.antiContext {
                guard let corpus = shippedAntiContext.first(where: { $0.name == wanted }) else {
                    throw RunnerError.invalidSuite(
                        path: "gambit init", line: nil,
                        message: "no shipped anti-context corpus \(wanted); they are "
                            + shippedAntiContext.map(\.name).joined(separator: ", "))
                }
                _ = try unique(corpus.name, "corpus")
                corpusLines.append("  - " + corpus.line(base))
            }
        }
        let variantLines = try input.training.map { file in
            try variantLine(file, folder: folder, domains: domains, names: &names)
        }
        return """
            # Written by `gambit init`: your corpora, a variant for each training file (evaluated on every one of
            # your corpora), and Gambit's shipped anti-context corpora, where customization must not make everyday
            # speech worse. Edit it freely (docs/suites-and-runs.md); `gambit run` runs it.
            name: \(q(input.name))
            corpora:
            \(corpusLines.joined(separator: "\n"))
            variants:\(variantLines.isEmpty ? " []" : "\n" + variantLines.joined(separator: "\n"))
            modes: [baseline, customized, oracle]
            # Latency: the first 10 utterances of each corpus, streamed in real time (docs/latency.md).
            streaming: {utterances: 10, chunkMilliseconds: 100, pacing: realTime}

            """
    }

    /// A variant's line: the training file, read as a run will read it, evaluated on every domain corpus.
    static func variantLine(_ file: URL, folder: URL, domains: [String], names: inout Set<String>) throws -> String {
        do {
            _ = try Toolchain.loadTrainingData(file)
        } catch {
            throw RunnerError.invalidSuite(path: file.path, line: nil, message: "\(error)")
        }
        let name = try unique(slug(file.deletingPathExtension().lastPathComponent), "variant", in: &names)
        return "  - {name: \(name), training: \(q(RelativePath.from(folder, to: file))), weight: 0.5, "
            + "corpora: [\(domains.joined(separator: ", "))]}"
    }

    /// `base` as a name no earlier corpus or variant has.
    static func unique(_ base: String, _ what: String, in names: inout Set<String>) throws -> String {
        let name = base.isEmpty ? what : base
        guard names.insert(name).inserted else {
            throw RunnerError.invalidSuite(
                path: "gambit init", line: nil,
                message: "two \(what)s would both be called \(name); rename a folder or file")
        }
        return name
    }

    /// A name a suite takes: letters, digits, `-`, `_` and `.`, anything else `-`.
    static func slug(_ text: String) -> String {
        String(
            text.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "-" })
    }

    static func q(_ text: String) -> String { quotedString(text) }
}
