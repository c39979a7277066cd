internal import CPocketSphinx
import Foundation

/// Serialises the parts of PocketSphinx that touch process-wide state: `ps_init` writes globals and
/// sphinxbase's number parser keeps a shared free list, so decoder creation and model reading never
/// run on two threads at once. Decoding itself runs in parallel, one decoder per task.
let engineLock = NSLock()

/// Installs the log capture once per process (or routes logs to stderr with `GAMBIT_ENGINE_LOG=1`).
private let logSetup: Void = {
    if ProcessInfo.processInfo.environment["GAMBIT_ENGINE_LOG"] == "1" {
        gambit_ps_log_to_stderr()
    } else {
        gambit_ps_install_log_capture()
    }
}()

/// The engine's last error message on this thread, for wrapping into Swift errors.
func lastEngineError(_ fallback: String) -> String {
    let message = String(cString: gambit_ps_last_error())
    return message.isEmpty ? fallback : message
}

/// Engine settings that change results; recorded with every run.
public struct DecoderSettings: Sendable, Hashable, Codable {
    /// Extra `-name value` arguments passed to PocketSphinx unchanged (e.g. `-beam 1e-60`).
    public var arguments: [String: String]

    /// Gambit's defaults: silence is kept in the feature stream (`-remove_silence no`) so that word
    /// timestamps are real audio time; everything else is PocketSphinx's default.
    public init(arguments: [String: String] = ["-remove_silence": "no"]) {
        self.arguments = arguments
    }

    /// The arguments in a stable order, as they would be typed.
    public var commandLine: [String] {
        arguments.keys.sorted().flatMap { [$0, arguments[$0]!] }
    }
}

/// The raw output of decoding one utterance, copied out of the engine.
struct DecodedUtterance {
    var hypothesis: String
    var score: Int
    var logPosterior: Int
    var segments: [TranscriptionSegment]
    var alternatives: [Transcription]
}

/// Owns one `ps_decoder_t` and the language-model search it was set up with.
///
/// Not thread-safe: a decoder belongs to one task at a time. The corresponding C type is
/// `ps_decoder_t`; it is freed in `deinit`.
final class Decoder {
    private let ps: OpaquePointer
    private let frameRate: Double
    /// The base language model file, for rescoring lattices without the customization.
    private let baseLanguageModel: URL
    /// True once the decoder has processed audio in chunks: PocketSphinx then switches its cepstral
    /// mean normalisation to live mode for good, so batch results would differ slightly.
    private(set) var hasStreamed = false

    /// Starts PocketSphinx with a model and, optionally, a customized language model.
    ///
    /// The corresponding C functions are `cmd_ln_parse_r`, `ps_init`, `ngram_model_read`,
    /// `ngram_model_set_init`, `ps_set_lm` and `ps_set_search`.
    init(
        model: AcousticModel, settings: DecoderSettings, custom: LanguageModelConfiguration?
    ) throws(RecognitionError) {
        _ = logSetup
        try model.validate()
        engineLock.lock()
        defer { engineLock.unlock() }
        gambit_ps_clear_last_error()

        var dictionary = model.dictionary
        var merged: URL?
        if let custom {
            merged = try Self.mergeDictionary(base: model.dictionary, vocabulary: custom.vocabulary)
            dictionary = merged!
        }
        // PocketSphinx reads the dictionary inside ps_init and never again: the file goes when init
        // returns, so no decoder leaves it behind, even in a worker that is killed.
        defer { if let merged { try? FileManager.default.removeItem(at: merged.deletingLastPathComponent()) } }
        // A merged model already contains the base model: it is the decoder's only language model,
        // so a worker holds one model at a time whatever the number of variants.
        var languageModel = model.languageModel
        if let custom, custom.containsBaseModel, custom.grammar == nil {
            guard FileManager.default.isReadableFile(atPath: custom.languageModel.path) else {
                throw .customModelInvalid(
                    path: custom.languageModel.path, reason: "language model file is missing or unreadable")
            }
            languageModel = custom.languageModel
        }
        var arguments = [
            "-hmm", model.hmm.path, "-lm", languageModel.path, "-dict", dictionary.path,
        ]
        arguments += settings.commandLine
        let config = Self.parseConfig(arguments)
        guard let config else {
            throw .engineInitFailed(lastEngineError("invalid arguments: \(settings.commandLine)"))
        }
        defer { cmd_ln_free_r(config) }
        guard let ps = ps_init(config) else {
            if languageModel != model.languageModel {
                throw .customModelInvalid(
                    path: languageModel.path, reason: lastEngineError("not a readable ARPA or binary n-gram model"))
            }
            throw .engineInitFailed(lastEngineError("ps_init returned NULL"))
        }
        self.ps = ps
        self.baseLanguageModel = model.languageModel
        self.frameRate = Double(cmd_ln_int_r(config, "-frate"))

        if let custom, !custom.containsBaseModel || custom.grammar != nil {
            // Every stored property is set, so a throw from here runs deinit, which frees the decoder:
            // freeing it here too would free it twice.
            try Self.activate(custom, in: ps, config: config)
        }
    }

    deinit {
        ps_free(ps)
    }

    private static func parseConfig(_ arguments: [String]) -> OpaquePointer? {
        var argv: [UnsafeMutablePointer<CChar>?] = (["gambit"] + arguments).map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        return cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), &argv, 1)
    }

    /// Writes the base dictionary followed by the custom vocabulary into a private temporary file:
    /// adding words to a live search corrupts PocketSphinx's binary LM (see ENGINE-NOTES.md), a
    /// merged dictionary read at `ps_init` does not.
    private static func mergeDictionary(base: URL, vocabulary: URL) throws(RecognitionError) -> URL {
        guard let extra = try? Data(contentsOf: vocabulary) else {
            throw .customModelInvalid(path: vocabulary.path, reason: "vocabulary file is missing or unreadable")
        }
        let text = String(decoding: extra, as: UTF8.self)
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !fields.isEmpty else { continue }
            guard fields.count >= 2 else {
                throw .customModelInvalid(
                    path: vocabulary.path, reason: "line \(number + 1): a word with no pronunciation")
            }
            if let bad = fields.dropFirst().first(where: { !Phones.english.contains(String($0)) }) {
                throw .customModelInvalid(
                    path: vocabulary.path,
                    reason: "line \(number + 1): phone \(bad) is not in the acoustic model (wrong model or locale?)")
            }
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("gambit-dict-\(UUID().uuidString)")
        let merged = folder.appendingPathComponent("merged.dict")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var data = try Data(contentsOf: base)
            if data.last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
            data.append(extra)
            try data.write(to: merged)
        } catch {
            throw .customModelInvalid(path: vocabulary.path, reason: "could not write merged dictionary: \(error)")
        }
        return merged
    }

    /// Interpolates the custom model with the base model and makes it the active search.
    private static func activate(
        _ custom: LanguageModelConfiguration, in ps: OpaquePointer, config: OpaquePointer
    ) throws(RecognitionError) {
        if let grammar = custom.grammar {
            gambit_ps_clear_last_error()
            guard ps_set_jsgf_string(ps, "grammar", grammar) >= 0, ps_set_search(ps, "grammar") >= 0 else {
                throw .customModelInvalid(path: "grammar", reason: lastEngineError("JSGF grammar rejected"))
            }
            return
        }
        let path = custom.languageModel.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .customModelInvalid(path: path, reason: "language model file is missing or unreadable")
        }
        guard (0...1).contains(custom.weight) else {
            throw .customModelInvalid(path: path, reason: "weight \(custom.weight) is outside [0, 1]")
        }
        guard let base = ps_get_lm(ps, "_default") else {
            throw .engineInitFailed("the base language model search is missing")
        }
        gambit_ps_clear_last_error()
        guard let customModel = ngram_model_read(config, path, NGRAM_AUTO, ps_get_logmath(ps)) else {
            throw .customModelInvalid(path: path, reason: lastEngineError("not a readable ARPA or binary n-gram model"))
        }
        // log(0) is undefined in the interpolation: keep the weights strictly inside (0, 1).
        let weight = Float(min(max(custom.weight, 1e-6), 1 - 1e-6))
        var models: [OpaquePointer?] = [base, customModel]
        var weights: [Float] = [1 - weight, weight]
        var names: [UnsafeMutablePointer<CChar>?] = [strdup("base"), strdup("custom")]
        defer { for name in names { free(name) } }
        let set = ngram_model_set_init(config, &models, &names, &weights, 2)
        ngram_model_free(customModel)
        guard let set else {
            throw .customModelInvalid(path: path, reason: lastEngineError("could not interpolate with the base model"))
        }
        let status = ps_set_lm(ps, "custom", set)
        ngram_model_free(set)
        guard status >= 0, ps_set_search(ps, "custom") >= 0 else {
            throw .customModelInvalid(path: path, reason: lastEngineError("could not activate the custom search"))
        }
    }

    /// Decodes one whole utterance, independent of anything decoded before.
    ///
    /// The corresponding C functions are `ps_start_stream`, `ps_start_utt`, `ps_process_raw` (with
    /// `full_utt`), `ps_end_utt`, `ps_get_hyp`, `ps_seg_iter` and `ps_nbest`.
    func decode(_ samples: [Int16], alternatives: Int) throws(RecognitionError) -> DecodedUtterance {
        gambit_ps_clear_last_error()
        // A fresh stream resets the voice-activity and normalisation state, so the result does not
        // depend on what this decoder heard before.
        guard ps_start_stream(ps) >= 0, ps_start_utt(ps) >= 0 else {
            throw .decodeFailed(lastEngineError("ps_start_utt failed"))
        }
        let processed = samples.withUnsafeBufferPointer { ps_process_raw(ps, $0.baseAddress, $0.count, 0, 1) }
        guard processed >= 0 else {
            ps_end_utt(ps)
            throw .decodeFailed(lastEngineError("ps_process_raw failed"))
        }
        guard ps_end_utt(ps) >= 0 else { throw .decodeFailed(lastEngineError("ps_end_utt failed")) }
        return collect(alternatives: alternatives)
    }

    /// Decodes one utterance and keeps its word lattice for rescoring.
    ///
    /// The corresponding C functions are `ps_get_lattice` and `ps_lattice_retain`.
    func decodeKeepingLattice(_ samples: [Int16]) throws(RecognitionError) -> (String, OpaquePointer?) {
        let decoded = try decode(samples, alternatives: 0)
        let lattice = ps_get_lattice(ps).flatMap { ps_lattice_retain($0) }
        return (decoded.hypothesis, lattice)
    }

    /// The best path through each lattice under another language model: the base model alone, a
    /// merged model alone (`containsBaseModel`), or the base interpolated with a custom model at `weight`.
    ///
    /// `ps_lattice_bestpath` scores with dictionary word ids, so the model is first installed as a
    /// search with `ps_set_lm`: this version wraps it in a set of its own whose words are mapped to the
    /// dictionary (`ngram_search_update_widmap`), and that wrapper, from `ps_get_lm`, is what the lattice
    /// is scored with, exactly as the decoder's own best-path pass does.
    func rescore(
        _ lattices: [OpaquePointer?], customModel: URL?, weight: Double, containsBaseModel: Bool = false
    ) throws(RecognitionError) -> [String] {
        let config = ps_get_config(ps)
        gambit_ps_clear_last_error()
        // The decoder's own search may be a merged model: read the models to score with from files.
        let first = containsBaseModel ? (customModel ?? baseLanguageModel) : baseLanguageModel
        func read(_ url: URL) throws(RecognitionError) -> OpaquePointer {
            engineLock.lock()
            defer { engineLock.unlock() }
            guard let model = ngram_model_read(config, url.path, NGRAM_AUTO, ps_get_logmath(ps)) else {
                throw .customModelInvalid(path: url.path, reason: lastEngineError("unreadable model"))
            }
            return model
        }
        var models: [OpaquePointer?] = [try read(first)]
        var weights: [Float] = [1]
        var names: [UnsafeMutablePointer<CChar>?] = [strdup("base")]
        if let customModel, !containsBaseModel {
            let custom: OpaquePointer
            do {
                custom = try read(customModel)
            } catch {
                ngram_model_free(models[0])
                for name in names { free(name) }
                throw error
            }
            let w = Float(min(max(weight, 1e-6), 1 - 1e-6))
            models.append(custom)
            weights = [1 - w, w]
            names.append(strdup("custom"))
        }
        defer { for name in names { free(name) } }
        let set = ngram_model_set_init(config, &models, &names, &weights, Int32(models.count))
        for model in models { ngram_model_free(model) }
        guard let set else { throw .decodeFailed(lastEngineError("could not build the rescoring model")) }
        let status = ps_set_lm(ps, "rescore", set)
        guard status >= 0 else {
            ngram_model_free(set)
            throw .decodeFailed(lastEngineError("could not install the rescoring model"))
        }
        let lwf = Float(cmd_ln_float_r(config, "-bestpathlw") / cmd_ln_float_r(config, "-lw"))
        let ascale = Float(1 / cmd_ln_float_r(config, "-ascale"))
        ngram_model_free(set)
        guard let mapped = ps_get_lm(ps, "rescore") else { throw .decodeFailed("the rescoring search is missing") }
        return lattices.map { lattice -> String in
            guard let lattice, let last = ps_lattice_bestpath(lattice, mapped, lwf, ascale) else { return "" }
            return Self.words(of: last, in: lattice)
        }
    }

    /// The words along a best path, from its final link back to the start.
    private static func words(of last: OpaquePointer, in lattice: OpaquePointer) -> String {
        var words: [String] = []
        var link: OpaquePointer? = last
        while let current = link {
            var source: OpaquePointer?
            _ = ps_latlink_nodes(current, &source)
            if let source, let word = ps_latnode_baseword(lattice, source) { words.append(String(cString: word)) }
            link = ps_latlink_pred(current)
        }
        return EngineWords.clean(words.reversed().joined(separator: " "))
    }

    /// Starts an utterance fed in chunks.
    func beginStream() throws(RecognitionError) {
        hasStreamed = true
        gambit_ps_clear_last_error()
        guard ps_start_stream(ps) >= 0, ps_start_utt(ps) >= 0 else {
            throw .decodeFailed(lastEngineError("ps_start_utt failed"))
        }
    }

    /// Feeds one chunk and returns the current partial hypothesis.
    func feed(_ chunk: [Int16]) throws(RecognitionError) -> String {
        let processed = chunk.withUnsafeBufferPointer { ps_process_raw(ps, $0.baseAddress, $0.count, 0, 0) }
        guard processed >= 0 else { throw .decodeFailed(lastEngineError("ps_process_raw failed")) }
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(ps, &score) else { return "" }
        return EngineWords.clean(String(cString: hyp))
    }

    /// Ends a streamed utterance and returns the final result.
    func endStream(alternatives: Int) throws(RecognitionError) -> DecodedUtterance {
        guard ps_end_utt(ps) >= 0 else { throw .decodeFailed(lastEngineError("ps_end_utt failed")) }
        return collect(alternatives: alternatives)
    }

    private func collect(alternatives: Int) -> DecodedUtterance {
        var score: Int32 = 0
        let hypothesis = ps_get_hyp(ps, &score).map { String(cString: $0) } ?? ""
        // ps_get_prob runs the lattice posterior computation that ps_seg_prob then reads.
        let logPosterior = Int(ps_get_prob(ps))
        var segments: [TranscriptionSegment] = []
        var iterator = ps_seg_iter(ps)
        while let segment = iterator {
            let word = String(cString: ps_seg_word(segment))
            if let display = EngineWords.display(word) {
                var start: Int32 = 0
                var end: Int32 = 0
                ps_seg_frames(segment, &start, &end)
                // A compound is one engine word: its time is shared among its words by their length.
                let words = display.split(separator: " ")
                let letters = Double(words.reduce(0) { $0 + $1.count })
                var timestamp = Double(start) / frameRate
                let duration = Double(end - start + 1) / frameRate
                let confidence = min(1, max(0, gambit_ps_seg_posterior(ps, segment)))
                for part in words {
                    let share = duration * Double(part.count) / letters
                    segments.append(
                        TranscriptionSegment(
                            substring: String(part), timestamp: timestamp, duration: share, confidence: confidence))
                    timestamp += share
                }
            }
            iterator = ps_seg_next(segment)
        }
        return DecodedUtterance(
            hypothesis: EngineWords.clean(hypothesis), score: Int(score), logPosterior: logPosterior,
            segments: segments, alternatives: alternatives > 0 ? nbest(limit: alternatives) : [])
    }

    /// Distinct n-best hypotheses, best score first. PocketSphinx's list repeats hypotheses that
    /// differ only in fillers or pronunciation variants and is not sorted.
    private func nbest(limit: Int) -> [Transcription] {
        var best: [String: Int] = [:]
        var iterator = ps_nbest(ps)
        var visited = 0
        while let current = iterator, visited < limit * 10 {
            var score: Int32 = 0
            if let hyp = ps_nbest_hyp(current, &score) {
                let text = EngineWords.clean(String(cString: hyp))
                if best[text].map({ Int(score) > $0 }) ?? true { best[text] = Int(score) }
            }
            visited += 1
            iterator = ps_nbest_next(current)
        }
        if let iterator { ps_nbest_free(iterator) }
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
        var word = word
        if word.hasSuffix(")"), let open = word.lastIndex(of: "("), open > word.startIndex {
            word = String(word[..<open])
        }
        // A custom model's compound ("albin_counter") is read as its words.
        return word.replacingOccurrences(of: "_", with: " ")
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
