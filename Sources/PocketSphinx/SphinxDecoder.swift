internal import CPocketSphinx
import Formats
import Foundation

/// A decoder's settings (`cmd_ln_t`), parsed from `-name value` arguments as PocketSphinx's tools
/// take them. Holds one reference, released in `deinit`.
public final class DecoderConfiguration {
    let pointer: OpaquePointer
    /// The arguments it was parsed from.
    public let arguments: [String]

    /// Parses arguments against PocketSphinx's definitions; an unknown name or a bad value is an error.
    ///
    /// Every value reaches the engine as it is written. `cmd_ln_parse_r` replaces `$(NAME)` in a value with the
    /// environment variable `NAME` (or nothing), so a path holding `$(` (a training file, a cache or output
    /// folder a user named `chess$(x)`) would name another file; such a value is parsed as a placeholder and then
    /// set verbatim with `cmd_ln_set_str_r`, which expands nothing. Only string settings (paths) can take it.
    ///
    /// The corresponding C functions are `cmd_ln_parse_r` over `ps_args()`, and `cmd_ln_set_str_r`.
    public init(arguments: [String]) throws(EngineError) {
        var parsed = arguments
        var verbatim: [(name: String, value: String)] = []
        for index in parsed.indices.dropFirst() where parsed[index].contains("$(") && parsed[index - 1].hasPrefix("-") {
            verbatim.append((parsed[index - 1], parsed[index]))
            parsed[index] = Self.placeholder
        }
        var argv: [UnsafeMutablePointer<CChar>?] = (["gambit"] + parsed).map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        pointer = try Engine.serialized { () throws(EngineError) in
            try EngineError.unwrap("cmd_ln_parse_r", arguments) {
                cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), &argv, 1)
            }
        }
        self.arguments = arguments
        for (name, value) in verbatim {
            cmd_ln_set_str_r(pointer, name, value)
            // cmd_ln_set_str_r leaves a setting that is not a string alone (and only logs why).
            guard string(name) == value else {
                throw EngineError(
                    call: "cmd_ln_set_str_r", arguments: [name, value],
                    message: "\(name) takes no text holding \"$(\", which the engine would read as a variable")
            }
        }
    }

    /// What a value holding `$(` is parsed as, before the value itself is set.
    private static let placeholder = "gambit-verbatim"

    deinit {
        cmd_ln_free_r(pointer)
    }

    /// An integer setting, e.g. `-frate`.
    public func integer(_ name: String) -> Int { Int(cmd_ln_int_r(pointer, name)) }

    /// A floating-point setting, e.g. `-lw`.
    public func float(_ name: String) -> Double { cmd_ln_float_r(pointer, name) }

    /// A string setting, e.g. `-hmm`; nil when unset.
    public func string(_ name: String) -> String? { cmd_ln_str_r(pointer, name).map { String(cString: $0) } }
}

/// One PocketSphinx decoder (`ps_decoder_t`), freed in `deinit`.
///
/// Not thread-safe: a decoder belongs to one task at a time. Decoders on different threads run in
/// parallel; creating them and changing their searches is serialised by ``Engine``.
public final class SphinxDecoder {
    let pointer: OpaquePointer
    /// The settings it was started with.
    public let configuration: DecoderConfiguration
    /// Its log tables; models read to install in it must use them.
    public let logMath: LogMath

    /// One word of a hypothesis, as the engine spells it (`<sil>`, `[NOISE]` and `word(2)` included).
    public struct Segment: Sendable, Hashable {
        public var word: String
        /// First and last frame, inclusive.
        public var startFrame: Int
        public var endFrame: Int
        /// The word's posterior probability in the lattice, 0…1.
        public var posterior: Double
        /// The word's acoustic score and language-model score, in the decoder's log base (larger is better).
        public var acousticScore: Int = 0
        public var languageScore: Int = 0
    }

    /// Starts a decoder: acoustic model, dictionary and language model are read now.
    ///
    /// The corresponding C functions are `cmd_ln_parse_r` and `ps_init`.
    public init(arguments: [String]) throws(EngineError) {
        let configuration = try DecoderConfiguration(arguments: arguments)
        let pointer = try Engine.serialized { () throws(EngineError) in
            try EngineError.unwrap("ps_init", arguments) { ps_init(configuration.pointer) }
        }
        self.pointer = pointer
        self.configuration = configuration
        self.logMath = LogMath(retaining: ps_get_logmath(pointer))
    }

    deinit {
        ps_free(pointer)
    }

    /// The n-gram model of a search (`_default` is the one `-lm` set up), as the decoder scores with
    /// it: a set wrapping the model, its words mapped to the dictionary.
    ///
    /// The corresponding C function is `ps_get_lm`.
    public func languageModel(named name: String) throws(EngineError) -> NGramModel {
        let model = try EngineError.unwrap("ps_get_lm", [name]) { ps_get_lm(pointer, name) }
        return NGramModel(retaining: model, logMath: logMath)
    }

    /// Installs a model as a named search, replacing a search of that name; the decoder keeps its
    /// own reference.
    ///
    /// The corresponding C function is `ps_set_lm`.
    public func setLanguageModel(_ model: NGramModel, named name: String) throws(EngineError) {
        try Engine.serialized { () throws(EngineError) in
            try EngineError.check("ps_set_lm", [name]) { ps_set_lm(pointer, name, model.pointer) }
        }
    }

    /// Installs a JSGF grammar as a named search (closed-world: a result outside it comes back empty).
    ///
    /// The corresponding C function is `ps_set_jsgf_string`.
    public func setGrammar(_ jsgf: String, named name: String) throws(EngineError) {
        try Engine.serialized { () throws(EngineError) in
            try EngineError.check("ps_set_jsgf_string", [name, "\(jsgf.utf8.count) bytes of JSGF"]) {
                ps_set_jsgf_string(pointer, name, jsgf)
            }
        }
    }

    /// Installs a phone loop as a named search: phones rather than words, under a phonetic language model
    /// (Debian's `en-us-phone.lm.bin`); the segments of its result are phones.
    ///
    /// The corresponding C function is `ps_set_allphone_file`.
    public func setPhoneLoop(languageModel path: String, named name: String) throws(EngineError) {
        try Engine.serialized { () throws(EngineError) in
            try EngineError.check("ps_set_allphone_file", [name, path]) { ps_set_allphone_file(pointer, name, path) }
        }
    }

    /// Makes a named search the one the next utterance is decoded with.
    ///
    /// The corresponding C function is `ps_set_search`.
    public func activateSearch(named name: String) throws(EngineError) {
        try EngineError.check("ps_set_search", [name]) { ps_set_search(pointer, name) }
    }

    /// Starts an utterance on a fresh stream, so that voice-activity and normalisation state do not
    /// carry over from what the decoder heard before.
    ///
    /// The corresponding C functions are `ps_start_stream` and `ps_start_utt`.
    public func startUtterance() throws(EngineError) {
        try EngineError.check("ps_start_stream") { ps_start_stream(pointer) }
        try EngineError.check("ps_start_utt") { ps_start_utt(pointer) }
    }

    /// Feeds 16 kHz samples; `fullUtterance` when they are the whole utterance (batch decoding).
    /// Returns the number of frames searched.
    ///
    /// The corresponding C function is `ps_process_raw`.
    @discardableResult
    public func process(_ samples: [Int16], fullUtterance: Bool) throws(EngineError) -> Int {
        let arguments = ["\(samples.count) samples", "no_search=0", "full_utt=\(fullUtterance ? 1 : 0)"]
        return Int(
            try EngineError.check("ps_process_raw", arguments) {
                samples.withUnsafeBufferPointer {
                    ps_process_raw(pointer, $0.baseAddress, $0.count, 0, fullUtterance ? 1 : 0)
                }
            })
    }

    /// Whether the engine's voice-activity detector heard speech in the last samples fed. Only meaningful when the
    /// decoder drops silence (`-remove_silence yes`); otherwise the detector is never consulted and this stays true.
    ///
    /// The corresponding C function is `ps_get_in_speech`.
    public var inSpeech: Bool { ps_get_in_speech(pointer) != 0 }

    /// Ends the utterance and runs the passes that follow the first (flat lexicon, best path).
    ///
    /// The corresponding C function is `ps_end_utt`.
    public func endUtterance() throws(EngineError) {
        try EngineError.check("ps_end_utt") { ps_end_utt(pointer) }
    }

    /// The current best hypothesis (partial during an utterance) in engine spelling, and its path
    /// score; the text is nil when there is none.
    ///
    /// The corresponding C function is `ps_get_hyp`.
    public func hypothesis() -> (text: String?, score: Int) {
        var score: Int32 = 0
        let text = ps_get_hyp(pointer, &score).map { String(cString: $0) }
        return (text, Int(score))
    }

    /// The log posterior of the best hypothesis; computing it also gives the segments their posteriors.
    ///
    /// The corresponding C function is `ps_get_prob`.
    public func logPosterior() -> Int {
        Int(ps_get_prob(pointer))
    }

    /// The words of the best hypothesis with their frames and posteriors.
    ///
    /// The corresponding C functions are `ps_seg_iter`, `ps_seg_word`, `ps_seg_frames`, `ps_seg_prob`
    /// and `ps_seg_next`.
    public func segments() -> [Segment] {
        var segments: [Segment] = []
        var iterator = ps_seg_iter(pointer)
        while let segment = iterator {
            var start: Int32 = 0
            var end: Int32 = 0
            ps_seg_frames(segment, &start, &end)
            var acoustic: Int32 = 0
            var language: Int32 = 0
            var backoff: Int32 = 0
            _ = ps_seg_prob(segment, &acoustic, &language, &backoff)
            segments.append(
                Segment(
                    word: String(cString: ps_seg_word(segment)), startFrame: Int(start), endFrame: Int(end),
                    posterior: gambit_ps_seg_posterior(pointer, segment), acousticScore: Int(acoustic),
                    languageScore: Int(language)))
            iterator = ps_seg_next(segment)
        }
        return segments
    }

    /// The first `limit` entries of the n-best list, as the engine gives them: unsorted, with
    /// repeats that differ only in fillers or pronunciation variants.
    ///
    /// The corresponding C functions are `ps_nbest`, `ps_nbest_hyp`, `ps_nbest_next` and
    /// `ps_nbest_free`.
    public func nbest(limit: Int) -> [(text: String, score: Int)] {
        var entries: [(text: String, score: Int)] = []
        var iterator = ps_nbest(pointer)
        var visited = 0
        while let current = iterator, visited < limit {
            var score: Int32 = 0
            if let text = ps_nbest_hyp(current, &score) { entries.append((String(cString: text), Int(score))) }
            visited += 1
            iterator = ps_nbest_next(current)
        }
        // The list frees itself when it runs out; one left early is freed here.
        if let iterator { ps_nbest_free(iterator) }
        return entries
    }

    /// The word lattice of the last utterance, or nil when the search made none.
    ///
    /// The corresponding C functions are `ps_get_lattice` and `ps_lattice_retain`.
    public func lattice() -> Lattice? {
        ps_get_lattice(pointer).map { Lattice(retaining: $0, decoder: self) }
    }

    /// Reads a lattice that ``Lattice/write(to:)`` wrote, its words looked up in this decoder's dictionary
    /// (which must hold them: the dictionary of the decoder that made it), with this decoder's filler
    /// penalties (`-pip`, `-silprob`, `-fillprob`: those of the decoder that made it). It has no posteriors
    /// until ``Lattice/computePosteriors(model:languageWeightRatio:acousticScale:)``.
    ///
    /// Debian's `ps_lattice_read` undoes neither of two things its writer and its decoder do: `ps_lattice_write`
    /// scales each link's acoustic score up by 2^10 (`SENSCR_SHIFT`), which the reader keeps, so acoustics
    /// outweigh the language model a thousandfold; and the reader penalises every link into a filler word
    /// (`<sil>`, `[NOISE]`), which the decoder had already done through the bypass links it wrote. Read as
    /// written, the best path under the decoder's own model is not the decoder's hypothesis, and the
    /// posteriors underflow to 0. So the file is read through a corrected copy: each score scaled back, and the
    /// reader's penalty taken off each link into a filler, so that adding it gives the score the decoder had.
    ///
    /// The corresponding C function is `ps_lattice_read`.
    public func readLattice(from path: String) throws(EngineError) -> Lattice {
        let corrected = FileManager.default.temporaryDirectory
            .appendingPathComponent("gambit-lattice-\(UUID().uuidString).lat")
        defer { try? FileManager.default.removeItem(at: corrected) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw EngineError(call: "ps_lattice_read", arguments: [path], message: "cannot read the file")
        }
        do {
            guard let fixed = correctedLattice(text) else {
                throw EngineError(
                    call: "ps_lattice_read", arguments: [path],
                    message: "not a whole lattice (no End line, or an edge to a node it does not have)")
            }
            try fixed.write(to: corrected, atomically: false, encoding: .utf8)
        } catch let error as EngineError {
            throw error
        } catch {
            throw EngineError(
                call: "ps_lattice_read", arguments: [path], message: "cannot write a corrected copy: \(error)")
        }
        let read = try EngineError.unwrap("ps_lattice_read", [path]) { ps_lattice_read(pointer, corrected.path) }
        return Lattice(taking: read, decoder: self)
    }

    /// The filler words of the decoder's noise dictionary (`<s>` and `</s>` are not fillers).
    private func fillerWords() -> Set<String> {
        let file = configuration.string("-fdict") ?? configuration.string("-hmm").map { $0 + "/noisedict" }
        guard let file, let noise = try? PronunciationDictionary(contentsOf: URL(fileURLWithPath: file)) else {
            return ["<sil>", "[NOISE]", "[SPEECH]"]
        }
        return Set(noise.words).subtracting(["<s>", "</s>"])
    }

    /// `text` with its edges' scores as ``readLattice(from:)`` must give them to `ps_lattice_read`; nil when it is
    /// not a whole lattice (cut short, or an edge names a node it lacks), which the engine's reader would not
    /// refuse but crash on.
    private func correctedLattice(_ text: String) -> String? {
        let shift = 10  // SENSCR_SHIFT
        let insertion = logMath.score(ofProbability: configuration.float("-pip"))
        let silence = insertion + logMath.score(ofProbability: configuration.float("-silprob"))
        let filler = insertion + logMath.score(ofProbability: configuration.float("-fillprob"))
        let fillers = fillerWords()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Node lines ("id word sf fef lef ; ...") between "Nodes" and "Initial"; edges between "Edges" and "End".
        var words: [Int: String] = [:]
        var (section, initial, final, ended, nodes) = ("", -1, -1, false, -1)
        for (index, line) in lines.enumerated() {
            let fields = line.split(separator: " ")
            guard let first = fields.first, !line.hasPrefix("#") else { continue }
            switch first {
            case "Nodes", "Edges":
                section = String(first)
                if first == "Nodes" { nodes = fields.count > 1 ? Int(fields[1]) ?? -1 : -1 }
                continue
            case "Initial":
                initial = fields.count > 1 ? Int(fields[1]) ?? -1 : -1
                section = ""
            case "Final":
                final = fields.count > 1 ? Int(fields[1]) ?? -1 : -1
            case "End":
                section = ""
                ended = true
            default:
                break
            }
            if section == "Nodes", fields.count >= 2, let id = Int(fields[0]) {
                words[id] = String(fields[1])
            } else if section == "Edges" {
                guard fields.count == 3, let from = Int(fields[0]), let to = Int(fields[1]),
                    let score = Int32(fields[2]), (0..<nodes).contains(from), (0..<nodes).contains(to)
                else { return nil }
                var corrected = score >> shift
                if to != initial, to != final, let word = words[to] {
                    let base = word.split(separator: "(").first.map(String.init) ?? word
                    if fillers.contains(base) { corrected -= base == "<sil>" ? silence : filler }
                }
                lines[index] = "\(fields[0]) \(fields[1]) \(corrected)"
            }
        }
        guard ended, nodes > 0, words.count == nodes, (0..<nodes).contains(initial), (0..<nodes).contains(final)
        else { return nil }
        return lines.joined(separator: "\n")
    }
}

/// A word lattice (`ps_lattice_t`) kept from a decode, to find its best path under other language
/// models without decoding again. Holds one reference, released in `deinit`, and keeps its decoder
/// alive, whose dictionary its words are in.
public final class Lattice {
    private let pointer: OpaquePointer
    private let decoder: SphinxDecoder

    init(retaining pointer: OpaquePointer, decoder: SphinxDecoder) {
        self.pointer = ps_lattice_retain(pointer)
        self.decoder = decoder
    }

    /// Takes over the one reference a lattice was created with.
    init(taking pointer: OpaquePointer, decoder: SphinxDecoder) {
        self.pointer = pointer
        self.decoder = decoder
    }

    /// Writes the lattice in PocketSphinx's own text format: nodes with their words and frames, links with
    /// their acoustic scores (language-model scores are recomputed by whatever model reads it).
    ///
    /// The corresponding C function is `ps_lattice_write`.
    public func write(to path: String) throws(EngineError) {
        try EngineError.check("ps_lattice_write", [path]) { ps_lattice_write(pointer, path) }
    }

    /// Computes the posteriors of the lattice's nodes under `model` (a search model, as for
    /// ``bestPath(model:languageWeightRatio:acousticScale:)``): what the decoder does for its own lattice when
    /// asked for ``SphinxDecoder/logPosterior()``, for a lattice read from a file. False when it has no path.
    ///
    /// The corresponding C functions are `ps_lattice_bestpath` and `ps_lattice_posterior`.
    @discardableResult
    public func computePosteriors(model: NGramModel, languageWeightRatio: Float, acousticScale: Float) -> Bool {
        guard ps_lattice_bestpath(pointer, model.pointer, languageWeightRatio, acousticScale) != nil else {
            return false
        }
        _ = ps_lattice_posterior(pointer, model.pointer, acousticScale)
        return true
    }

    deinit {
        ps_lattice_free(pointer)
    }

    /// One word hypothesis of the lattice: the word (base spelling, without a pronunciation number) and
    /// the frames it starts at and may end at.
    public struct Node: Sendable, Hashable {
        public var word: String
        public var startFrame: Int
        public var firstEndFrame: Int
        public var lastEndFrame: Int
        /// The best posterior probability of the node's exits, 0…1; 0 unless the decoder computed the
        /// lattice's posteriors (``SphinxDecoder/logPosterior()`` does).
        public var posterior: Double = 0
    }

    /// Every node of the lattice.
    ///
    /// The corresponding C functions are `ps_latnode_iter`, `ps_latnode_iter_node`, `ps_latnode_iter_next`,
    /// `ps_latnode_times`, `ps_latnode_baseword` and `ps_latnode_prob`.
    public func nodes() -> [Node] {
        var nodes: [Node] = []
        var iterator = ps_latnode_iter(pointer)
        // The iterator frees itself when it runs out.
        while let current = iterator {
            if let node = ps_latnode_iter_node(current) {
                var firstEnd: Int16 = 0
                var lastEnd: Int16 = 0
                let start = ps_latnode_times(node, &firstEnd, &lastEnd)
                if let word = ps_latnode_baseword(pointer, node) {
                    nodes.append(
                        Node(
                            word: String(cString: word), startFrame: Int(start), firstEndFrame: Int(firstEnd),
                            lastEndFrame: Int(lastEnd),
                            posterior: gambit_ps_latnode_posterior(decoder.pointer, pointer, node)))
                }
            }
            iterator = ps_latnode_iter_next(current)
        }
        return nodes
    }

    /// The words along the best path under `model` (engine spellings, fillers included), or nil
    /// when the lattice has no path.
    ///
    /// `model` must score with the decoder's dictionary word ids: a search model from
    /// ``SphinxDecoder/languageModel(named:)``.
    ///
    /// The corresponding C functions are `ps_lattice_bestpath`, `ps_latlink_nodes`,
    /// `ps_latnode_baseword` and `ps_latlink_pred`.
    public func bestPath(model: NGramModel, languageWeightRatio: Float, acousticScale: Float) -> [String]? {
        guard let last = ps_lattice_bestpath(pointer, model.pointer, languageWeightRatio, acousticScale) else {
            return nil
        }
        var words: [String] = []
        var link: OpaquePointer? = last
        while let current = link {
            var source: OpaquePointer?
            _ = ps_latlink_nodes(current, &source)
            if let source, let word = ps_latnode_baseword(pointer, source) { words.append(String(cString: word)) }
            link = ps_latlink_pred(current)
        }
        return words.reversed()
    }
}
