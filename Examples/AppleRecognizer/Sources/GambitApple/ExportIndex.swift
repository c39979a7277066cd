import Foundation

/// `export.json`, the index `gambit export` writes (format version 1), as far as this tool reads it. Gambit's own
/// type for it is in a module that needs the engine's libraries, so its fields are mirrored here.
struct ExportIndex: Decodable {
    struct Corpus: Decodable {
        var name: String
        var manifest: String
        var variants: [String]
    }

    struct Variant: Decodable {
        var name: String
        var weight: Double
        /// Nil when the export withholds the training data (private data not asked for).
        var training: String?
        var withheld: String?
        /// The variant's boosted terms ranked by count (`variants/NAME.terms.json`); nil when withheld, or in an
        /// export of a Gambit that did not write them.
        var terms: String?
    }

    var formatVersion: Int
    var corpora: [Corpus]
    var variants: [Variant]
    var baselineTranscripts: String
    var customizedTranscripts: String

    static func read(from folder: URL) throws -> ExportIndex {
        let file = folder.appendingPathComponent("export.json")
        let index = try JSONDecoder().decode(ExportIndex.self, from: Data(contentsOf: file))
        guard index.formatVersion == 1 else {
            throw ToolError("\(file.path) has format version \(index.formatVersion); this tool reads version 1")
        }
        return index
    }

    /// Where `DictationTranscriber`'s transcripts of `corpus` go: `transcripts/{corpus}.dictation.baseline.jsonl`
    /// without contextual strings, `transcripts/{corpus}.{variant}.dictation.jsonl` with the variant's.
    func dictationTranscripts(of corpus: Corpus, variant: String?, in folder: URL) -> URL {
        let name = variant.map { "\(corpus.name).\($0).dictation.jsonl" } ?? "\(corpus.name).dictation.baseline.jsonl"
        return folder.appendingPathComponent("transcripts").appendingPathComponent(name)
    }

    /// Where the transcripts of `corpus` go; without customization when `variant` is nil.
    func transcripts(of corpus: Corpus, variant: String?, in folder: URL) -> URL {
        let path = (variant == nil ? baselineTranscripts : customizedTranscripts)
            .replacingOccurrences(of: "{corpus}", with: corpus.name)
            .replacingOccurrences(of: "{variant}", with: variant ?? "")
        return folder.appendingPathComponent(path)
    }
}

struct Utterance {
    var id: String
    var audio: URL
}

extension ExportIndex.Corpus {
    /// The manifest's utterances; it names their audio relative to its own folder.
    func utterances(in folder: URL) throws -> [Utterance] {
        // `speaker`, `split` and `boosted` are for Gambit's report, not for the recognizer.
        struct Line: Decodable {
            var id: String
            var audio: String
        }
        let file = folder.appendingPathComponent(manifest)
        let lines = try String(contentsOf: file, encoding: .utf8).split(whereSeparator: \.isNewline)
        return try lines.enumerated().map { number, text in
            guard let line = try? JSONDecoder().decode(Line.self, from: Data(text.utf8)) else {
                throw ToolError("\(file.path):\(number + 1): not a line of `id` and `audio`")
            }
            return Utterance(id: line.id, audio: file.deletingLastPathComponent().appendingPathComponent(line.audio))
        }
    }
}

/// An error that says in a sentence what went wrong (how ArgumentParser and `report` print it).
struct ToolError: LocalizedError {
    var errorDescription: String?
    init(_ description: String) { errorDescription = description }
}
