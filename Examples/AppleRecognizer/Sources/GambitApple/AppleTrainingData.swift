import Foundation
import Speech
import TrainingData

/// Gambit's training data as Apple's, element for element: each phrase with its count, each template group as one
/// generator, each pronunciation as written.
func appleData(from data: CustomLanguageModelData, locale: Locale) -> SFCustomLanguageModelData {
    let apple = SFCustomLanguageModelData(locale: locale, identifier: data.identifier, version: data.version)
    for phrase in data.phraseCounts {
        apple.insert(phraseCount: SFCustomLanguageModelData.PhraseCount(phrase: phrase.phrase, count: phrase.count))
    }
    for group in data.templateGroups {
        // One generator per group, because a class is defined per group: two groups may give <name> other values.
        let generator = SFCustomLanguageModelData.TemplatePhraseCountGenerator()
        for (name, values) in group.classes.sorted(by: { $0.key < $1.key }) {
            generator.define(className: name, values: values)
        }
        for template in group.templates {
            generator.insert(template: template.body, count: template.count)
        }
        apple.insert(phraseCountGenerator: generator)
    }
    for term in data.pronunciations {
        // Gambit stores X-SAMPA, symbols separated by spaces, which is what Apple's phonemes are.
        apple.insert(
            term: SFCustomLanguageModelData.CustomPronunciation(grapheme: term.grapheme, phonemes: term.phonemes))
    }
    return apple
}

/// Exports `data` in Apple's format, prepares the model from it in `folder`, and returns the configuration a
/// request names the model by.
func prepareModel(_ data: CustomLanguageModelData, weight: Double, locale: Locale, in folder: URL) async throws
    -> SFSpeechLanguageModel.Configuration
{
    // Gambit's checks first: Apple silently ignores a pronunciation with an unsupported symbol, and wants the
    // recognizer's locale.
    try data.validate(requestedLocale: locale)
    guard (0...1).contains(weight) else {
        throw ToolError("weight \(weight) is outside 0...1, the range Apple's configuration takes")
    }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let asset = folder.appendingPathComponent("training.bin")
    try await appleData(from: data, locale: locale).export(to: asset)
    let configuration = modelConfiguration(
        languageModel: folder.appendingPathComponent("lm"), vocabulary: folder.appendingPathComponent("vocabulary"),
        weight: weight)
    // Deprecated in macOS 26 for prepareCustomLanguageModel(for:configuration:completion:), which SDKs before 26
    // may not declare; this one is in every SDK from macOS 14 on.
    try await SFSpeechLanguageModel.prepareCustomLanguageModel(
        for: asset, clientIdentifier: Bundle.main.bundleIdentifier ?? "org.gambit.apple-recognizer",
        configuration: configuration)
    return configuration
}

private func modelConfiguration(languageModel: URL, vocabulary: URL, weight: Double)
    -> SFSpeechLanguageModel.Configuration
{
    // The weight is new in macOS 26, declared by its SDK, which comes with Swift 6.2 (Xcode 26).
    #if compiler(>=6.2)
        if #available(macOS 26, *) {
            return SFSpeechLanguageModel.Configuration(
                languageModel: languageModel, vocabulary: vocabulary, weight: NSNumber(value: weight))
        }
    #endif
    report("weight \(weight) not passed: Apple's configuration takes a weight from macOS 26 (built with Xcode 26) on")
    return SFSpeechLanguageModel.Configuration(languageModel: languageModel, vocabulary: vocabulary)
}
