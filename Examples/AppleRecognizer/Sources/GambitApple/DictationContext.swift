import AVFoundation
import Foundation
import Speech

/// Apple's second customization lever (macOS 26): `DictationTranscriber` given contextual strings, Apple's phrase
/// list, instead of a custom language model. Its baseline is the same transcriber without them, so each variant's
/// list is compared with its own recognizer: the transcripts go to files of their own, imported as a recognizer of
/// their own (README.md).
@available(macOS 26.0, *)
struct DictationContext {
    /// Apple's documentation asks for no more than 100 contextual strings across all tags.
    static let limit = 100

    let locale: Locale

    /// A variant's list: the first ``limit`` of the terms `gambit export` ranked by their counts in its training data
    /// (`variants/NAME.terms.json`), the cut Gambit makes for a list-taking recognizer.
    static func list(from file: URL) throws -> [String] {
        struct Terms: Decodable {
            struct Term: Decodable { var term: String }
            var formatVersion: Int
            var terms: [Term]
        }
        let terms = try JSONDecoder().decode(Terms.self, from: Data(contentsOf: file))
        guard terms.formatVersion == 1 else {
            throw ToolError("\(file.path) has format version \(terms.formatVersion); this tool reads version 1")
        }
        return Array(terms.terms.map(\.term).prefix(limit))
    }

    /// The transcript of `audio`, with `contextualStrings` as the analysis context (none for the baseline).
    func transcribe(_ audio: URL, contextualStrings: [String]) async throws -> String {
        // Final results only, with punctuation (Gambit's normalization removes it before scoring).
        let preset = DictationTranscriber.Preset.shortDictation
        let transcriber = DictationTranscriber(
            locale: locale, contentHints: preset.contentHints, transcriptionOptions: preset.transcriptionOptions,
            reportingOptions: preset.reportingOptions, attributeOptions: preset.attributeOptions)
        let context = AnalysisContext()
        if !contextualStrings.isEmpty {
            context.contextualStrings[.general] = Array(contextualStrings.prefix(Self.limit))
        }
        let file = try AVAudioFile(forReading: audio)
        // The results are read while the analyzer runs; it finishes after the file, which ends the sequence.
        async let text = transcriber.results.reduce(into: [String]()) { $0.append(String($1.text.characters)) }
        let analyzer = try await SpeechAnalyzer(
            inputAudioFile: file, modules: [transcriber], analysisContext: context, finishAfterFile: true)
        let phrases = try await text
        // The analyzer stays alive until its results have all been read.
        withExtendedLifetime(analyzer) {}
        return phrases.joined(separator: " ")
    }
}
