import Formats
import Foundation
import PocketSphinx

/// The raw output of decoding one utterance, copied out of the engine.
struct DecodedUtterance {
    var hypothesis: String
    var score: Int
    var logPosterior: Int
    var segments: [TranscriptionSegment]
    var alternatives: [Transcription]
}

/// One engine decoder set up with a model and, optionally, a customized language model: what
/// Recognition adds to the engine module's ``SphinxDecoder`` is the merged dictionary, the choice of
/// search, the errors a user can act on, and words as a person reads them.
///
/// Not thread-safe: a decoder belongs to one task at a time.
final class Decoder {
    private let engine: SphinxDecoder
    private let frameRate: Double
    /// The base language model file, for rescoring lattices without the customization.
    private let baseLanguageModel: URL
    /// Models read to rescore lattices with, by file.
    private var rescoringModels: [URL: NGramModel] = [:]
    /// The scorers installed for rescoring, by model files and weight: installing one builds a search over the
    /// dictionary, which costs far more than scoring a lattice.
    private var rescoringScorers: [String: NGramModel] = [:]
    /// The customized model the decoder was started with, and the set its search scores with (set mix only).
    private let custom: LanguageModelConfiguration?
    private var ownSet: NGramModel?
    /// Sets installed for rescoring at any weight, by custom model file: the set (reweighted in place for each
    /// weight) and the search model that scores with it.
    private var reweightable: [URL: (set: NGramModel, scorer: NGramModel)] = [:]
    /// True once the decoder has processed audio in chunks: PocketSphinx then switches its cepstral
    /// mean normalisation to live mode for good, so batch results would differ slightly.
    private(set) var hasStreamed = false

    /// Starts PocketSphinx with a model and, optionally, a customized language model.
    init(
        model: AcousticModel, settings: DecoderSettings, custom: LanguageModelConfiguration?
    ) throws(RecognitionError) {
        // A merged model already contains the base model: it is the decoder's only language model,
        // so a worker holds one model at a time whatever the number of variants. Built at weight 0 it is the
        // base model alone (up to its quantisation), which is then what the decoder loads, as a set at weight 0 does.
        var languageModel = model.languageModel
        if let custom, custom.containsBaseModel, custom.grammar == nil, custom.weight > 0 {
            guard FileManager.default.isReadableFile(atPath: custom.languageModel.path) else {
                throw .customModelInvalid(
                    path: custom.languageModel.path, reason: "language model file is missing or unreadable")
            }
            languageModel = custom.languageModel
        }
        engine = try Self.start(
            model: model, languageModel: languageModel, settings: settings, vocabulary: custom?.vocabulary)
        baseLanguageModel = model.languageModel
        self.custom = custom
        frameRate = Double(engine.configuration.integer("-frate"))
        if let custom, !custom.containsBaseModel || custom.grammar != nil {
            ownSet = try Self.activate(custom, in: engine)
        }
    }

    /// What a decoder without a language model searches.
    enum Search {
        /// A loop over the acoustic model's phones (its phonetic language model): what the audio holds, with no
        /// words in the way (``phones(_:)``).
        case phoneLoop
        /// Grammars installed one alignment at a time (``align(rule:named:_:posteriors:)``).
        case alignment
    }

    /// A decoder with no language model, for diagnosis's own searches.
    /// - Parameters:
    ///   - settings: Usually ``DecoderSettings/phoneLoop`` or ``DecoderSettings/pronunciationAlignment``.
    ///   - vocabulary: A variant's vocabulary, merged after the base dictionary; nil for the base dictionary alone.
    ///   - addedWords: More words an alignment may say (candidate pronunciations), merged after the vocabulary.
    init(
        model: AcousticModel, settings: DecoderSettings, search: Search, vocabulary: URL? = nil,
        addedWords: [(word: String, phones: [String])] = []
    ) throws(RecognitionError) {
        engine = try Self.start(
            model: model, languageModel: nil, settings: settings, vocabulary: vocabulary, addedWords: addedWords)
        baseLanguageModel = model.languageModel
        custom = nil
        frameRate = Double(engine.configuration.integer("-frate"))
        if search == .phoneLoop {
            do {
                try engine.setPhoneLoop(languageModel: model.phoneLanguageModel.path, named: "phones")
                try engine.activateSearch(named: "phones")
            } catch {
                throw .engineInitFailed(error)
            }
        }
    }

    /// `ps_init` with the acoustic model, a language model (none for a search installed later) and the base
    /// dictionary, merged with a vocabulary and added words when there are any: the one place Gambit starts the
    /// engine.
    private static func start(
        model: AcousticModel, languageModel: URL?, settings: DecoderSettings, vocabulary: URL?,
        addedWords: [(word: String, phones: [String])] = []
    ) throws(RecognitionError) -> SphinxDecoder {
        try model.validate()
        var dictionary = model.dictionary
        var merged: URL?
        if vocabulary != nil || !addedWords.isEmpty {
            merged = try Self.mergeDictionary(base: model.dictionary, vocabulary: vocabulary, addedWords: addedWords)
            dictionary = merged!
        }
        // PocketSphinx reads the dictionary inside ps_init and never again: the file goes when init
        // returns, so no decoder leaves it behind, even in a worker that is killed.
        defer { if let merged { try? FileManager.default.removeItem(at: merged.deletingLastPathComponent()) } }
        var arguments = ["-hmm", model.hmm.path]
        if let languageModel { arguments += ["-lm", languageModel.path] }
        arguments += ["-dict", dictionary.path]
        do {
            return try SphinxDecoder(arguments: arguments + settings.commandLine)
        } catch  where error.call == "ps_init" && languageModel != nil && languageModel != model.languageModel {
            throw .customModelInvalid(path: languageModel!.path, reason: error.description)
        } catch {
            throw .engineInitFailed(error)
        }
    }

    /// Writes the base dictionary followed by the custom vocabulary (and any added words) into a private temporary
    /// file: adding words to a live search corrupts PocketSphinx's binary LM (valgrind shows out-of-bounds
    /// reads, and it crashed after a few utterances with a dozen words added), a
    /// merged dictionary read at `ps_init` does not.
    private static func mergeDictionary(
        base: URL, vocabulary: URL?, addedWords: [(word: String, phones: [String])]
    ) throws(RecognitionError) -> URL {
        var extra = Data()
        if let vocabulary {
            guard let data = try? Data(contentsOf: vocabulary) else {
                throw .customModelInvalid(path: vocabulary.path, reason: "vocabulary file is missing or unreadable")
            }
            try checkVocabulary(data, at: vocabulary)
            extra = data
        }
        for (word, phones) in addedWords {
            extra.append(Data("\n\(word) \(phones.joined(separator: " "))\n".utf8))
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("gambit-dict-\(UUID().uuidString)")
        let merged = folder.appendingPathComponent("merged.dict")
        var data: Data
        do {
            data = try Data(contentsOf: base)
        } catch {
            throw .customModelInvalid(
                path: vocabulary?.path ?? merged.path,
                reason: "could not read the base dictionary \(base.path): \(FileSystemReason.reading(base, error))")
        }
        if vocabulary != nil, data.last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
        data.append(extra)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: merged)
        } catch {
            throw .customModelInvalid(
                path: vocabulary?.path ?? merged.path,
                reason: "could not write merged dictionary: \(FileSystemReason.writing(merged, error))")
        }
        return merged
    }

    /// Every word of a vocabulary has a pronunciation in the acoustic model's phones.
    private static func checkVocabulary(_ data: Data, at vocabulary: URL) throws(RecognitionError) {
        var problem: String?
        PronunciationDictionary.forEachEntry(in: data) { entry in
            guard problem == nil else { return }
            if entry.phones.isEmpty {
                problem = "line \(entry.line): a word with no pronunciation"
            } else if let bad = entry.phones.first(where: { !Phones.english.contains($0) }) {
                problem = "line \(entry.line): phone \(bad) is not in the acoustic model (wrong model or locale?)"
            }
        }
        if let problem { throw .customModelInvalid(path: vocabulary.path, reason: problem) }
    }

    /// Interpolates the custom model with the base model (or installs its grammar) and makes it the
    /// active search; returns the interpolated set.
    @discardableResult
    private static func activate(_ custom: LanguageModelConfiguration, in engine: SphinxDecoder)
        throws(RecognitionError) -> NGramModel?
    {
        if let grammar = custom.grammar {
            do {
                try engine.setGrammar(grammar, named: "grammar")
                try engine.activateSearch(named: "grammar")
            } catch {
                throw .customModelInvalid(path: "grammar", reason: error.description)
            }
            return nil
        }
        let path = custom.languageModel.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .customModelInvalid(path: path, reason: "language model file is missing or unreadable")
        }
        guard (0...1).contains(custom.weight) else {
            throw .customModelInvalid(path: path, reason: "weight \(custom.weight) is outside [0, 1]")
        }
        let base: NGramModel
        do {
            base = try engine.languageModel(named: "_default")
        } catch {
            throw .engineInitFailed(error)
        }
        do {
            let customModel = try NGramModel(
                contentsOf: path, logMath: engine.logMath, configuration: engine.configuration)
            let set = try NGramModel.interpolating(
                base: base, custom: customModel, weight: custom.weight, configuration: engine.configuration)
            try engine.setLanguageModel(set, named: "custom")
            try engine.activateSearch(named: search(for: custom, weight: custom.weight))
            return set
        } catch {
            throw .customModelInvalid(path: path, reason: error.description)
        }
    }

    /// Decodes one utterance with the decoder's own search, the custom model at `weight` rather than its own (set
    /// mix only): the set is reweighted for this decode and put back after it.
    /// The lattice is taken before the weight is put back: the engine builds it when first asked, scoring its links
    /// with the model as it is then.
    func decode(_ samples: [Int16], customWeight weight: Double) throws(RecognitionError) -> (
        hypothesis: String, lattice: Lattice?
    ) {
        guard let ownSet, let custom else {
            throw .customModelInvalid(
                path: custom?.languageModel.path ?? "-", reason: "only a set mix's weight can change")
        }
        do {
            try ownSet.reweight(custom: weight)
            try engine.activateSearch(named: Self.search(for: custom, weight: weight))
        } catch {
            throw .decodeFailed(error)
        }
        defer {
            try? ownSet.reweight(custom: custom.weight)
            try? activateOwnSearch()
        }
        let decoded = try decode(samples, alternatives: 0)
        return (decoded.hypothesis, engine.lattice())
    }

    /// Makes the decoder's own model its search again, after a grammar or a rescoring model was made active.
    func activateOwnSearch() throws(RecognitionError) {
        do {
            try engine.activateSearch(named: Self.search(for: custom, weight: custom?.weight ?? 0))
        } catch {
            throw .decodeFailed(error)
        }
    }

    /// The search that decodes with `custom` at `weight`: its grammar, the set of the base and custom models, or the
    /// base model alone (no customization, a merged model, which is its own base model, or a set at weight 0).
    ///
    /// Weight 0 is the base model alone, as rescoring and diagnosis take it: the engine's set never scores a weight
    /// of exactly 0 (it keeps the custom side at 10⁻⁶, and adds that after the language weight, where it still
    /// outweighs the base model's rare words), so a set at 0 decoded much as one at 0.5. The vocabulary stays in the
    /// dictionary; the base model's search does not reach words its model lacks.
    private static func search(for custom: LanguageModelConfiguration?, weight: Double) -> String {
        guard let custom else { return "_default" }
        if custom.grammar != nil { return "grammar" }
        return custom.containsBaseModel || weight == 0 ? "_default" : "custom"
    }

    /// Decodes one whole utterance, independent of anything decoded before.
    func decode(_ samples: [Int16], alternatives: Int) throws(RecognitionError) -> DecodedUtterance {
        try process(samples)
        return collect(alternatives: alternatives)
    }

    /// Decodes one utterance and keeps its word lattice for rescoring.
    func decodeKeepingLattice(_ samples: [Int16]) throws(RecognitionError) -> (String, Lattice?) {
        let decoded = try decode(samples, alternatives: 0)
        return (decoded.hypothesis, engine.lattice())
    }

    /// The word lattice of the last utterance decoded, nil when the engine kept none.
    func lattice() -> Lattice? { engine.lattice() }

    /// Runs `samples` through the active search as one whole utterance.
    private func process(_ samples: [Int16]) throws(RecognitionError) {
        do throws(EngineError) {
            try engine.startUtterance()
            do throws(EngineError) {
                try engine.process(samples, fullUtterance: true)
            } catch {
                try? engine.endUtterance()
                throw error
            }
            try engine.endUtterance()
        } catch {
            throw .decodeFailed(error)
        }
    }

    /// The phones a phone-loop decoder (``Search/phoneLoop``) hears in `samples`, with their frames counted from
    /// the first sample; silence and noise included, as the engine gives them.
    func phones(_ samples: [Int16]) throws(RecognitionError) -> [SphinxDecoder.Segment] {
        try process(samples)
        return engine.segments()
    }

    /// Forced alignment: the best path through a one-rule grammar (JSGF `rule`, e.g. `( a b ) | ( c d )`) over
    /// `samples`, searched with the decoder's settings. The grammar is made the active search; an alignment
    /// decoder that also has a language model gets it back with ``activateOwnSearch()``.
    /// - Parameter posteriors: Also compute the lattice's posteriors (`ps_get_prob`), which the segments'
    ///   posteriors read.
    /// - Returns: The engine's hypothesis (nil when no path survived), its path score, and the path's segments.
    func align(rule: String, named name: String, _ samples: [Int16], posteriors: Bool = false)
        throws(RecognitionError) -> (hypothesis: String?, score: Int, segments: [SphinxDecoder.Segment])
    {
        let grammar = "#JSGF V1.0;\ngrammar \(name);\npublic <sentence> = \(rule) ;\n"
        do {
            try engine.setGrammar(grammar, named: name)
            try engine.activateSearch(named: name)
        } catch {
            throw .decodeFailed(error)
        }
        try process(samples)
        let (hypothesis, score) = engine.hypothesis()
        if posteriors { _ = engine.logPosterior() }
        return (hypothesis, score, engine.segments())
    }

    /// The best path through each lattice under another language model: the base model alone, a
    /// merged model alone (`containsBaseModel`), or the base interpolated with a custom model at `weight`.
    ///
    /// `ps_lattice_bestpath` scores with dictionary word ids, so the model is first installed as a
    /// search with `ps_set_lm`: this version wraps it in a set of its own whose words are mapped to the
    /// dictionary (`ngram_search_update_widmap`), and that wrapper, from `ps_get_lm`, is what the lattice
    /// is scored with, exactly as the decoder's own best-path pass does.
    func rescore(
        _ lattices: [Lattice?], customModel: URL?, weight: Double, containsBaseModel: Bool = false
    ) throws(RecognitionError) -> [String] {
        let scorer = try scorer(customModel: customModel, weight: weight, containsBaseModel: containsBaseModel)
        let (languageWeightRatio, acousticScale) = bestPathScales
        return lattices.map { lattice -> String in
            guard
                let words = lattice?.bestPath(
                    model: scorer, languageWeightRatio: languageWeightRatio, acousticScale: acousticScale)
            else { return "" }
            return EngineWords.clean(words.joined(separator: " "))
        }
    }

    /// The scales the decoder's own best-path pass scores a lattice with: the language weight's ratio
    /// (`-bestpathlw` over `-lw`) and the acoustic scale (1 / `-ascale`).
    private var bestPathScales: (languageWeightRatio: Float, acousticScale: Float) {
        let configuration = engine.configuration
        return (
            Float(configuration.float("-bestpathlw") / configuration.float("-lw")),
            Float(1 / configuration.float("-ascale"))
        )
    }

    /// Reads a lattice a decode with this decoder's dictionary wrote (``SphinxDecoder/readLattice(from:)``), with
    /// its posteriors computed under the model it was decoded with: `custom` at its weight, as the decode's own
    /// lattice has them.
    func readLattice(_ file: URL, custom: LanguageModelConfiguration) throws(RecognitionError) -> Lattice {
        // The engine reads the lattice through the active search's dictionary; a grammar's (the aligner's, after an
        // alignment) fails an assertion in `dict_filler_word` and aborts.
        try activateOwnSearch()
        let lattice: Lattice
        do {
            lattice = try engine.readLattice(from: file.path)
        } catch {
            throw .decodeFailed(error)
        }
        let scorer = try scorer(
            customModel: custom.languageModel, weight: custom.weight, containsBaseModel: custom.containsBaseModel)
        let (languageWeightRatio, acousticScale) = bestPathScales
        guard
            lattice.computePosteriors(
                model: scorer, languageWeightRatio: languageWeightRatio, acousticScale: acousticScale)
        else {
            throw .decodeFailed(EngineError(call: "ps_lattice_bestpath", arguments: [file.path], message: "no path"))
        }
        return lattice
    }

    /// The model lattices are scored with for a model and weight (see ``rescore(_:customModel:weight:containsBaseModel:)``),
    /// installed once per decoder. A set at weight 0 is the base model alone, as its decode is
    /// (``search(for:weight:)``).
    private func scorer(customModel requested: URL?, weight: Double, containsBaseModel: Bool) throws(RecognitionError)
        -> NGramModel
    {
        let customModel = containsBaseModel || weight > 0 ? requested : nil
        let configuration = engine.configuration
        // The decoder's own search may be a merged model: read the models to score with from files, once per
        // decoder (a sweep or a diagnosis rescores at many weights; each set holds its own references).
        func read(_ url: URL) throws(RecognitionError) -> NGramModel {
            if let model = rescoringModels[url] { return model }
            do {
                let model = try NGramModel(contentsOf: url.path, logMath: engine.logMath, configuration: configuration)
                rescoringModels[url] = model
                return model
            } catch {
                throw .customModelInvalid(path: url.path, reason: error.description)
            }
        }
        let name = "rescore \(customModel?.path ?? "-") \(containsBaseModel) \(weight)"
        let scorer: NGramModel
        if let custom, custom.grammar == nil, customModel == custom.languageModel,
            containsBaseModel == custom.containsBaseModel, containsBaseModel || weight == custom.weight
        {
            // The decoder's own search scores with this model already.
            do {
                return try engine.languageModel(named: containsBaseModel ? "_default" : "custom")
            } catch {
                throw .decodeFailed(error)
            }
        } else if let customModel, !containsBaseModel {
            // One set per custom model, reweighted for each weight: making a set merges the vocabularies.
            if let installed = reweightable[customModel] {
                do {
                    try installed.set.reweight(custom: weight)
                } catch {
                    throw .decodeFailed(error)
                }
                return installed.scorer
            }
            let (base, customLM) = (try read(baseLanguageModel), try read(customModel))
            let set: NGramModel
            do throws(EngineError) {
                set = try NGramModel.interpolating(
                    base: base, custom: customLM, weight: weight, configuration: configuration)
                let name = "rescore \(customModel.path)"
                try engine.setLanguageModel(set, named: name)
                scorer = try engine.languageModel(named: name)
            } catch {
                throw .decodeFailed(error)
            }
            reweightable[customModel] = (set, scorer)
        } else if let installed = rescoringScorers[name] {
            scorer = installed
        } else {
            let first = try read(containsBaseModel ? (customModel ?? baseLanguageModel) : baseLanguageModel)
            let second = try customModel.flatMap { url throws(RecognitionError) in
                containsBaseModel ? nil : try read(url)
            }
            do {
                let set = try NGramModel.interpolating(
                    base: first, custom: second, weight: weight, configuration: configuration)
                try engine.setLanguageModel(set, named: name)
                scorer = try engine.languageModel(named: name)
            } catch {
                throw .decodeFailed(error)
            }
            rescoringScorers[name] = scorer
        }
        return scorer
    }

    /// Starts an utterance fed in chunks.
    func beginStream() throws(RecognitionError) {
        hasStreamed = true
        do {
            try engine.startUtterance()
        } catch {
            throw .decodeFailed(error)
        }
    }

    /// Feeds one chunk and returns the current partial hypothesis, and whether the engine's voice-activity detector
    /// hears speech (meaningful only for a decoder that drops silence, ``DecoderSettings/detectsSpeech``).
    func feed(_ chunk: [Int16]) throws(RecognitionError) -> (text: String, inSpeech: Bool) {
        do {
            try engine.process(chunk, fullUtterance: false)
        } catch {
            throw .decodeFailed(error)
        }
        return (engine.hypothesis().text.map(EngineWords.clean) ?? "", engine.inSpeech)
    }

    /// Ends a streamed utterance and returns the final result.
    func endStream(alternatives: Int) throws(RecognitionError) -> DecodedUtterance {
        do {
            try engine.endUtterance()
        } catch {
            throw .decodeFailed(error)
        }
        return collect(alternatives: alternatives)
    }

    /// Ends a streamed utterance and returns the final hypothesis alone: the passes that end an utterance and the
    /// best path (which `ps_get_hyp` runs), without what ``collect(alternatives:)`` adds for a full result.
    func endStreamHypothesis() throws(RecognitionError) -> String {
        do {
            try engine.endUtterance()
        } catch {
            throw .decodeFailed(error)
        }
        return engine.hypothesis().text.map(EngineWords.clean) ?? ""
    }

    private func collect(alternatives: Int) -> DecodedUtterance {
        let (hypothesis, score) = engine.hypothesis()
        // ps_get_prob runs the lattice posterior computation that the segments' posteriors then read.
        let logPosterior = engine.logPosterior()
        var segments: [TranscriptionSegment] = []
        for segment in engine.segments() {
            guard let display = EngineWords.display(segment.word) else { continue }
            // A compound is one engine word: its time is shared among its words by their length.
            let words = display.split(separator: " ")
            let letters = Double(words.reduce(0) { $0 + $1.count })
            var timestamp = Double(segment.startFrame) / frameRate
            let duration = Double(segment.endFrame - segment.startFrame + 1) / frameRate
            let confidence = min(1, max(0, segment.posterior))
            for part in words {
                let share = duration * Double(part.count) / letters
                segments.append(
                    TranscriptionSegment(
                        substring: String(part), timestamp: timestamp, duration: share, confidence: confidence))
                timestamp += share
            }
        }
        return DecodedUtterance(
            hypothesis: EngineWords.clean(hypothesis ?? ""), score: score, logPosterior: logPosterior,
            segments: segments, alternatives: alternatives > 0 ? nbest(limit: alternatives) : [])
    }

    /// Distinct n-best hypotheses, best score first. PocketSphinx's list repeats hypotheses that
    /// differ only in fillers or pronunciation variants and is not sorted.
    private func nbest(limit: Int) -> [Transcription] {
        var best: [String: Int] = [:]
        for (text, score) in engine.nbest(limit: limit * 10) {
            let text = EngineWords.clean(text)
            if best[text].map({ score > $0 }) ?? true { best[text] = score }
        }
        return best.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(limit)
            .map { Transcription(formattedString: $0.key, score: $0.value) }
    }
}

/// The engine's word spellings, turned into what a person reads.
enum EngineWords {
    /// The word without an alternate-pronunciation marker, or nil for silence, sentence markers and
    /// noise fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++NOISE++`).
    static func display(_ word: String) -> String? {
        if word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("++") { return nil }
        // A custom model's compound ("albin_counter") is read as its words.
        return PronunciationDictionary.baseSpelling(word).replacingOccurrences(of: "_", with: " ")
    }

    /// A hypothesis string with fillers dropped and markers stripped.
    static func clean(_ hypothesis: String) -> String {
        hypothesis.split(separator: " ").compactMap { display(String($0)) }.joined(separator: " ")
    }
}

/// The phone set of Debian's en-us acoustic model.
enum Phones {
    static let english: Set<String> = [
        "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY",
        "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y",
        "Z", "ZH", "SIL",
    ]
}
