import Corpus
import Formats
import Foundation
import Results
import TrainingData

/// Everything a recognizer on another machine needs to transcribe a suite, in one folder (`gambit export`):
/// each corpus's audio and a manifest naming it relative to the folder, each variant's training data as the
/// JSON export and the phrase list, an index (`export.json`) and a README naming the transcript files expected
/// back, which a suite then imports as a recognizer's `transcripts:`.
///
/// The manifests carry no reference text (the recognizer must not see the answers); private training data is
/// withheld unless asked for.
public enum SuiteExport {
    /// The index's format version.
    public static let formatVersion = 1

    /// What `export.json` holds.
    public struct Index: Codable, Sendable, Equatable {
        public struct Corpus: Codable, Sendable, Equatable {
            public var name: String
            /// The manifest, relative to the export: JSON lines of `id`, `audio` (relative to the manifest),
            /// and `speaker`, `split`, `boosted` when the suite's manifest gives them.
            public var manifest: String
            public var utterances: Int
            /// The variants this corpus is decoded with.
            public var variants: [String]
        }

        public struct Variant: Codable, Sendable, Equatable {
            public var name: String
            public var weight: Double
            public var isPrivate: Bool
            /// The training data's JSON export and its phrase list, relative to the export; nil when withheld.
            public var training: String?
            public var phrases: String?
            /// The terms the variant boosts, ranked by their counts in its training data, the list a list-taking
            /// recognizer is given (Apple's contextual strings: its first 100), relative to the export; nil when
            /// withheld (and in exports made before it was written).
            public var terms: String?
            /// Why its data is not here (private data not asked for); nil when it is.
            public var withheld: String?
        }

        public var formatVersion: Int
        public var suite: String
        public var corpora: [Corpus]
        public var variants: [Variant]
        /// Where the transcripts go, relative to the export: `{corpus}` and `{variant}` replaced by names.
        public var baselineTranscripts: String
        public var customizedTranscripts: String
    }

    /// `variants/NAME.terms.json`: a variant's terms ranked for a phrase list.
    public struct Terms: Codable, Sendable, Equatable {
        public struct Term: Codable, Sendable, Equatable {
            public var term: String
            /// The sample counts of the phrases that say it, summed (``PhraseList/ranked(_:in:limits:)``).
            public var count: Double
        }

        public var formatVersion = 1
        public var variant: String
        /// Most said first; equal counts in the order of their text.
        public var terms: [Term]
    }

    /// Writes the export of `suite` into `folder` (which must be new or empty).
    /// - Parameters:
    ///   - includePrivate: Write private variants' training data too (it leaves with the folder).
    ///   - allowOutsidePaths: Read audio wherever the manifests point.
    /// - Returns: The index written.
    /// - Throws: ``RunnerError/exportFolderNotEmpty(path:)``, or what reading a corpus or training file throws.
    @discardableResult
    public static func write(
        suite: Suite, to folder: URL, includePrivate: Bool, allowOutsidePaths: Bool, toolchain: Toolchain = Toolchain()
    ) throws -> Index {
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !contents.isEmpty {
            throw RunnerError.exportFolderNotEmpty(path: folder.path)
        }
        try OutputFolder.checkSeparate(folder, from: suite)
        try OutputFolder.prepare(folder)
        var index = Index(
            formatVersion: formatVersion, suite: suite.name, corpora: [], variants: [],
            baselineTranscripts: "transcripts/{corpus}.baseline.jsonl",
            customizedTranscripts: "transcripts/{corpus}.{variant}.jsonl")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("transcripts"), withIntermediateDirectories: true)
        for corpus in suite.corpora {
            let entries = try suite.scoredEntries(of: corpus, allowOutsidePaths: allowOutsidePaths)
            let name = PathComponent(corpus.name).value
            let manifest = try OutputPath.file(
                in: folder, ["corpora", name], PathComponent("manifest"), pathExtension: "jsonl")
            try FileManager.default.createDirectory(
                at: manifest.deletingLastPathComponent().appendingPathComponent("audio"),
                withIntermediateDirectories: true)
            var lines: [String] = []
            for entry in entries {
                let ext = entry.audio.pathExtension.isEmpty ? "wav" : entry.audio.pathExtension
                let audio = try OutputPath.file(
                    in: folder, ["corpora", name, "audio"], PathComponent(entry.id), pathExtension: ext)
                try FileManager.default.copyItem(at: entry.audio, to: audio)
                var line: [String: Any] = ["id": entry.id, "audio": "audio/\(audio.lastPathComponent)"]
                if let speaker = entry.speaker { line["speaker"] = speaker }
                if let split = entry.split { line["split"] = split }
                if let boosted = entry.boosted { line["boosted"] = boosted }
                let data = try JSONSerialization.data(
                    withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
                lines.append(String(decoding: data, as: UTF8.self))
            }
            try (lines.joined(separator: "\n") + "\n").write(to: manifest, atomically: true, encoding: .utf8)
            index.corpora.append(
                Index.Corpus(
                    name: corpus.name, manifest: "corpora/\(name)/manifest.jsonl", utterances: entries.count,
                    variants: suite.variants(for: corpus).map(\.name)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        for variant in suite.variants {
            let data = try Toolchain.loadTrainingData(variant.training)
            var entry = Index.Variant(name: variant.name, weight: variant.weight, isPrivate: data.isPrivate)
            if data.isPrivate && !includePrivate {
                entry.withheld = "private training data: export with --include-private to send it"
            } else {
                let name = PathComponent(variant.name)
                let training = try OutputPath.file(in: folder, ["variants"], name, pathExtension: "json")
                let phrases = try OutputPath.file(in: folder, ["variants"], name, pathExtension: "phrases.json")
                try FileManager.default.createDirectory(
                    at: training.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.exportData().write(to: training)
                try data.phraseListData().write(to: phrases)
                entry.training = "variants/\(training.lastPathComponent)"
                entry.phrases = "variants/\(phrases.lastPathComponent)"
                let terms = try OutputPath.file(in: folder, ["variants"], name, pathExtension: "terms.json")
                let boosted = try toolchain.compiler.boosted(data, options: variant.prepareOptions).terms
                let ranked = try PhraseList.ranked(boosted, in: data).map { Terms.Term(term: $0.text, count: $0.count) }
                try encoder.encode(Terms(variant: variant.name, terms: ranked)).write(to: terms)
                entry.terms = "variants/\(terms.lastPathComponent)"
            }
            index.variants.append(entry)
        }
        try encoder.encode(index).write(to: folder.appendingPathComponent("export.json"))
        try readme(index, suite: suite, folder: folder).write(
            to: folder.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        return index
    }

    /// What the folder is and what to send back.
    static func readme(_ index: Index, suite: Suite, folder: URL) -> String {
        let fromSuite = RelativePath.from(suite.folder, to: folder)
        var text = """
            # Transcripts wanted: suite \(index.suite)

            Written by `gambit export`. Transcribe every utterance of each corpus with your recognizer, once without
            customization and once with each variant the corpus lists, and put one JSON-lines file per corpus and
            system in `transcripts/`, one line per utterance: `{"id": "<the manifest's id>", "text": "<transcript>"}`
            (trn, ctm and Kaldi text are read too). The manifests hold no reference text.

            | corpus | utterances | files expected back |
            |---|---:|---|

            """
        for corpus in index.corpora {
            let files =
                ["transcripts/\(corpus.name).baseline.jsonl"]
                + corpus.variants.filter { name in index.variants.contains { $0.name == name && $0.withheld == nil } }
                .map { "transcripts/\(corpus.name).\($0).jsonl" }
            text += "| \(corpus.name) | \(corpus.utterances) | \(files.map { "`\($0)`" }.joined(separator: "<br>")) |\n"
        }
        text +=
            "\nVariants (training data as Gambit's JSON export, `variants/NAME.json`, its expanded phrases, "
            + "`NAME.phrases.json`, and its boosted terms ranked by count, `NAME.terms.json`, the list a phrase-list "
            + "lever such as Apple's contextual strings takes from the top):\n\n"
        for variant in index.variants {
            text +=
                "- \(variant.name), weight \(variant.weight)" + (variant.withheld.map { ": withheld, \($0)" } ?? "")
                + "\n"
        }
        text += """

            Then import them as a recognizer of the suite and run it:

            ```yaml
            recognizers:
              - name: my-recognizer
                onDevice: true          # declared: Gambit reports it as declared, not verified
                transcripts:
                  baseline: \(fromSuite)/\(index.baselineTranscripts)
                  customized: \(fromSuite)/\(index.customizedTranscripts)
            ```

            """
        return text
    }
}
