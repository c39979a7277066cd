/// The second lever of a recognizer that takes a list of phrases instead of a language model (Apple's
/// `DictationTranscriber` with contextual strings, a Whisper prompt, a cloud phrase set): Gambit derives each
/// variant's list itself, from the terms the variant boosts ranked by their counts in its training data, cut at
/// the recognizer's limit, and hands it to the list decode command as `{list}`.
///
/// Each of ``modes`` is a customized system of its own per variant, compared with the recognizer's baseline:
/// - `global`: the variant's list, the same for every utterance, the inventory an app would register once;
/// - `local`: each utterance's own list, the variant's terms its reference says (or its manifest's biasing list
///   where the corpus gives one), as the field's per-clip keyword lists are made: an upper bound that knows what
///   is said;
/// - either with `+N` distractors: N terms from other variants (or a file) drawn into the list.
public struct PhraseListLever: Sendable, Hashable, Codable {
    /// Program and arguments of a decode given a list (`{list}`, `{audio}`).
    public var decode: [String]
    /// The long-lived form of ``decode``; the list comes with each request, as the audio does.
    public var serve: [String]?
    /// The most the recognizer takes, in ``countsWords`` words or else phrases (Apple's contextual strings: 100
    /// phrases).
    public var limit: Int
    /// The limit counts words, not phrases.
    public var countsWords: Bool
    /// The lists decoded, each a system per variant.
    public var modes: [Mode]
    /// The variants it is decoded with (of those evaluated on each corpus); nil for all of them.
    public var variants: [String]?
    /// A file of distractor terms, one per line, relative to the suite's folder; nil to draw them from the other
    /// variants' terms.
    public var distractorFile: String?

    public init(
        decode: [String], serve: [String]? = nil, limit: Int, countsWords: Bool = false, modes: [Mode],
        variants: [String]? = nil, distractorFile: String? = nil
    ) {
        self.decode = decode
        self.serve = serve
        self.limit = limit
        self.countsWords = countsWords
        self.modes = modes
        self.variants = variants
        self.distractorFile = distractorFile
    }

    /// One list system: its kind and how many distractors each list gets.
    public struct Mode: Sendable, Hashable, Codable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            case global, local
        }

        public var kind: Kind
        public var distractors: Int

        public init(_ kind: Kind, distractors: Int = 0) {
            self.kind = kind
            self.distractors = distractors
        }

        /// `global`, `local`, `global+100`: how a suite writes it and results name it.
        public var description: String { kind.rawValue + (distractors > 0 ? "+\(distractors)" : "") }

        /// The mode a suite writes as `text`; nil when it is not one.
        public init?(_ text: String) {
            let parts = text.split(separator: "+", omittingEmptySubsequences: false)
            guard let kind = Kind(rawValue: String(parts[0])), parts.count <= 2 else { return nil }
            var distractors = 0
            if parts.count == 2 {
                guard let count = Int(parts[1]), count > 0, String(count) == parts[1] else { return nil }
                distractors = count
            }
            self.init(kind, distractors: distractors)
        }
    }

    /// Why the commands cannot be used, or nil.
    var problem: String? {
        if limit < 1 { return "the phrase list's limit must be at least 1" }
        if modes.isEmpty { return "the phrase list names no mode (global, local, global+N, local+N)" }
        if let duplicate = Dictionary(grouping: modes, by: \.self).first(where: { $0.value.count > 1 })?.key {
            return "the phrase list names the mode \(duplicate) twice"
        }
        if let problem = CommandPlaceholder.problem(of: decode, as: .list) { return problem }
        if let serve { return ServedDecoding.problem(of: serve, as: .list) }
        return nil
    }
}
