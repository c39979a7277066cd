/// Which voices and conditions a synthetic corpus uses, and how many renditions each text gets.
///
/// The assignment is deterministic and spreads the work evenly. Rendition `k` overall (text `i`, rendition `r`,
/// `k = i × renditionsPerText + r`) takes pair `p = k mod (voices × conditions)` of the voice × condition grid,
/// visited diagonally: voice `p mod V`, condition `(voice + p div V) mod C`. So every `V × C` consecutive
/// renditions use every (voice, condition) pair exactly once, each text's renditions have different voices,
/// and no voice is tied to one condition. With the default plan (6 voices, 3 conditions, 3 renditions) every
/// text is heard clean, in noise and over the telephone, and each 6 texts cover all 18 pairs.
public struct SynthesisPlan: Hashable, Sendable {
    /// One spoken version of a text.
    public struct Rendition: Hashable, Sendable {
        public var voice: Voice
        public var condition: Condition

        public init(voice: Voice, condition: Condition) {
            self.voice = voice
            self.condition = condition
        }
    }

    public var voices: [Voice]
    public var conditions: [Condition]
    public var renditionsPerText: Int

    public init(voices: [Voice], conditions: [Condition], renditionsPerText: Int) {
        self.voices = voices
        self.conditions = conditions
        self.renditionsPerText = renditionsPerText
    }

    /// Six voices (four flite, two espeak-ng), three conditions (clean, noise at 15 dB, telephone),
    /// three renditions per text: 120 utterances for a corpus of 40 texts.
    public static let standard = SynthesisPlan(
        voices: [
            .flite("slt"), .flite("awb"), .flite("rms"), .flite("kal16"), .espeak("en-us+m3"), .espeak("en-us+f3"),
        ],
        conditions: [.clean, .noise(snr: 15), .telephone],
        renditionsPerText: 3)

    /// Checks that the plan can be carried out and gives distinct utterance ids.
    ///
    /// - Throws: ``CorpusError/invalidPlan(detail:)`` for no voices or conditions, a repeated voice or condition
    ///   (or two that share an id token), or more renditions per text than there are (voice, condition) pairs.
    public func validate() throws(CorpusError) {
        guard !voices.isEmpty else { throw .invalidPlan(detail: "no voices") }
        guard !conditions.isEmpty else { throw .invalidPlan(detail: "no conditions") }
        guard renditionsPerText >= 1 else { throw .invalidPlan(detail: "renditions per text must be at least 1") }
        if let repeated = firstRepeat(voices.map(\.token)) {
            throw .invalidPlan(detail: "two voices share the id token \"\(repeated)\"")
        }
        if let repeated = firstRepeat(conditions.map(\.token)) {
            throw .invalidPlan(detail: "two conditions share the id token \"\(repeated)\"")
        }
        guard renditionsPerText <= voices.count * conditions.count else {
            throw .invalidPlan(
                detail: "\(renditionsPerText) renditions per text but only \(voices.count * conditions.count) "
                    + "(voice, condition) pairs; add voices or conditions, or lower --renditions")
        }
    }

    /// The renditions of the text at `index` (0-based, in texts-file order).
    public func renditions(forText index: Int) -> [Rendition] {
        guard !voices.isEmpty, !conditions.isEmpty else { return [] }
        let grid = voices.count * conditions.count
        return (0..<max(0, renditionsPerText)).map { offset in
            let pair = (index * renditionsPerText + offset) % grid
            let voice = pair % voices.count
            let condition = (voice + pair / voices.count) % conditions.count
            return Rendition(voice: voices[voice], condition: conditions[condition])
        }
    }

    /// The utterance id of a rendition: `<textid>-<voice>-<condition>`, e.g. `chess-007-slt-noise15`, with any
    /// character other than letters, digits, `_`, `.` and `-` replaced by `_` so it is a safe file name.
    public static func utteranceID(textID: String, rendition: Rendition) -> String {
        let raw = "\(textID)-\(rendition.voice.token)-\(rendition.condition.token)"
        return String(
            raw.unicodeScalars.map { scalar -> Character in
                let safe =
                    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || "_.-".unicodeScalars.contains(scalar)
                return safe ? Character(scalar) : "_"
            })
    }

    private func firstRepeat(_ tokens: [String]) -> String? {
        var seen: Set<String> = []
        for token in tokens where !seen.insert(token).inserted { return token }
        return nil
    }
}
