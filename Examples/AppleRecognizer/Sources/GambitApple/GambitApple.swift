import ArgumentParser
import Foundation
import Speech
import TrainingData

@main
struct GambitApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gambit-apple",
        abstract: "Transcribe a `gambit export` folder with Apple's on-device recognizer, without and with each "
            + "variant (its custom language model; on macOS 26 also DictationTranscriber with its contextual "
            + "strings), into its transcripts/ folder.")

    @Argument(help: ArgumentHelp("The folder `gambit export` wrote.", valueName: "export-folder"))
    var folder: String

    @Option(name: .customLong("corpus"), help: "Only this corpus (repeatable).")
    var onlyCorpora: [String] = []

    @Option(name: .customLong("variant"), help: "Only this variant (repeatable); the baseline is always transcribed.")
    var onlyVariants: [String] = []

    @Flag(
        help: "Skip DictationTranscriber with contextual strings (macOS 26), Apple's second lever; by default it runs "
            + "where the system has it.")
    var noContextualStrings = false

    mutating func run() async throws {
        let folder = URL(fileURLWithPath: self.folder)
        let index = try ExportIndex.read(from: folder)
        try Self.check(onlyCorpora, among: index.corpora.map(\.name), "corpus")
        try Self.check(onlyVariants, among: index.variants.map(\.name), "variant")
        let corpora = index.corpora.filter { onlyCorpora.isEmpty || onlyCorpora.contains($0.name) }
        let wanted = Set(corpora.flatMap(\.variants)).filter { onlyVariants.isEmpty || onlyVariants.contains($0) }

        // Gambit's training data is for US English only (its validation refuses other locales).
        let locale = Locale(identifier: "en-US")
        let transcriber = try await AppleTranscriber(locale: locale)
        // Every model first, so that a variant Apple cannot prepare stops the run before hours of transcribing.
        var models: [String: SFSpeechLanguageModel.Configuration] = [:]
        for variant in index.variants where wanted.contains(variant.name) {
            guard let training = variant.training else {
                report("variant \(variant.name) skipped: \(variant.withheld ?? "the export has no training data")")
                continue
            }
            let file = folder.appendingPathComponent(training)
            // Named as its training file, which Gambit already made a safe file name.
            let modelFolder = folder.appendingPathComponent("apple-models")
                .appendingPathComponent(file.deletingPathExtension().lastPathComponent)
            models[variant.name] = try await prepareModel(
                CustomLanguageModelData(contentsOf: file), weight: variant.weight, locale: locale, in: modelFolder)
            report("variant \(variant.name): model prepared in \(modelFolder.path)")
        }
        for corpus in corpora {
            let utterances = try corpus.utterances(in: folder)
            try await transcriber.transcribe(
                utterances, model: nil, into: index.transcripts(of: corpus, variant: nil, in: folder))
            for variant in corpus.variants {
                guard let model = models[variant] else { continue }
                try await transcriber.transcribe(
                    utterances, model: model, into: index.transcripts(of: corpus, variant: variant, in: folder))
            }
        }
        if noContextualStrings { return }
        if #available(macOS 26.0, *) {
            try await contextualStrings(index, corpora: corpora, wanted: wanted, in: folder, locale: locale)
        } else {
            report("DictationTranscriber with contextual strings needs macOS 26: skipped (--no-contextual-strings)")
        }
    }

    /// Each corpus with `DictationTranscriber`, without contextual strings and with each variant's list.
    @available(macOS 26.0, *)
    private func contextualStrings(
        _ index: ExportIndex, corpora: [ExportIndex.Corpus], wanted: Set<String>, in folder: URL, locale: Locale
    ) async throws {
        var lists: [String: [String]] = [:]
        for variant in index.variants where wanted.contains(variant.name) {
            guard let terms = variant.terms else {
                report("variant \(variant.name): no ranked terms in the export, so no contextual strings")
                continue
            }
            lists[variant.name] = try DictationContext.list(from: folder.appendingPathComponent(terms))
        }
        let dictation = DictationContext(locale: locale)
        for corpus in corpora {
            let utterances = try corpus.utterances(in: folder)
            try await writeTranscripts(
                of: utterances, into: index.dictationTranscripts(of: corpus, variant: nil, in: folder)
            ) { try await dictation.transcribe($0, contextualStrings: []) }
            for variant in corpus.variants {
                guard let list = lists[variant] else { continue }
                try await writeTranscripts(
                    of: utterances, into: index.dictationTranscripts(of: corpus, variant: variant, in: folder)
                ) { try await dictation.transcribe($0, contextualStrings: list) }
            }
        }
    }

    private static func check(_ names: [String], among known: [String], _ what: String) throws {
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw ValidationError("the export has no \(what) '\(unknown)' (it has \(known.joined(separator: ", ")))")
        }
    }
}

/// Progress and each utterance's error go to stderr.
func report(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
