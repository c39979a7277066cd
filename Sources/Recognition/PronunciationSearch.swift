import Formats
import Foundation
import PocketSphinx

/// What the audio says where a word was said, and how well each candidate pronunciation fits it, through
/// PocketSphinx's own searches: a phone loop over the word's frames (the phonetic language model the acoustic
/// model ships with, allphone search), and a forced alignment of each occurrence's reference with a candidate in
/// the word's place (a one-sentence grammar with wide beams). No acoustic model of its own. Not thread-safe: one
/// owner.
public final class PronunciationSearch {
    /// One place the word was said: the utterance's samples, its reference words, and where the word is among
    /// them.
    public struct Occurrence: Sendable {
        public var samples: [Int16]
        public var reference: [String]
        public var index: Int

        public init(samples: [Int16], reference: [String], index: Int) {
            self.samples = samples
            self.reference = reference
            self.index = index
        }
    }

    private let model: AcousticModel
    /// The words the alignment may say besides the candidates: the base dictionary and the variant's vocabulary.
    private let vocabulary: URL?
    private var phoneDecoder: Decoder?
    /// The words of the base dictionary and the vocabulary: what an alignment may say besides the candidates.
    private let knownWords: Set<String>
    /// The token a candidate stands as in the alignment's dictionary.
    static func token(_ index: Int) -> String { "gambitcandidate\(index)" }
    /// Frames either side of a word's span that the phone loop also hears, so that its first and last phones
    /// are not cut.
    static let margin = 5

    /// - Parameters:
    ///   - vocabulary: The customized model's vocabulary (its words may be in a reference), or nil.
    ///   - dictionary: The base dictionary, when the caller has read it already (else it is read here).
    public init(model: AcousticModel, vocabulary: URL?, dictionary: PronunciationDictionary? = nil)
        throws(RecognitionError)
    {
        try model.validate()
        self.model = model
        self.vocabulary = vocabulary
        var words = Set((dictionary ?? (try? PronunciationDictionary(contentsOf: model.dictionary)))?.words ?? [])
        if let vocabulary, let extra = try? PronunciationDictionary(contentsOf: vocabulary) {
            words.formUnion(extra.words)
        }
        knownWords = words
    }

    /// The phones a phone loop hears over `frames` of `samples`: it decodes ``margin`` frames more either side, and
    /// keeps the phones whose middle frame is within `frames`; silence and noise dropped, in the acoustic model's
    /// phone set.
    public func phoneLoop(_ samples: [Int16], frames: ClosedRange<Int>) throws(RecognitionError) -> [String] {
        if phoneDecoder == nil {
            phoneDecoder = try Decoder(model: model, settings: .phoneLoop, search: .phoneLoop)
        }
        let perFrame = 160  // 16 kHz, 100 frames a second
        let start = max(0, (frames.lowerBound - Self.margin) * perFrame)
        let end = min(samples.count, (frames.upperBound + 1 + Self.margin) * perFrame)
        guard start < end else { return [] }
        let heard = try phoneDecoder!.phones(Array(samples[start..<end]))
        // The margin lets the loop hear the word's edges whole; a phone whose middle lies outside the span is the
        // neighbour's.
        let offset = start / perFrame
        return heard.filter { segment in
            let middle = offset + (segment.startFrame + segment.endFrame) / 2
            return Phones.english.contains(segment.word) && segment.word != "SIL" && frames.contains(middle)
        }
        .map(\.word)
    }

    /// How well each candidate fits each occurrence: the path score (the engine's log units, larger is better) of
    /// the occurrence's reference
    /// force-aligned with the candidate in the word's place, and the candidate's frames there; nil where a word of
    /// the reference is outside the dictionary or no path survives. Scores of one occurrence compare across
    /// candidates: the rest of the path is the same words.
    ///
    /// - Parameter candidates: Pronunciations in the acoustic model's phones (`W IH N AW ER`).
    /// - Returns: One row per candidate, one entry per occurrence.
    public func fits(_ candidates: [[String]], over occurrences: [Occurrence]) throws(RecognitionError)
        -> [[(score: Double, frames: ClosedRange<Int>)?]]
    {
        let valid = candidates.map { !$0.isEmpty && $0.allSatisfy { Phones.english.contains($0) && $0 != "SIL" } }
        let added = candidates.indices.filter { valid[$0] }.map { (word: Self.token($0), phones: candidates[$0]) }
        let words = knownWords.union(added.map(\.word))
        // Wide beams: what the search keeps is not what decides; every senone scored in every frame
        // (``DecoderSettings/pronunciationAlignment``).
        let aligner = try Decoder(
            model: model, settings: .pronunciationAlignment, search: .alignment, vocabulary: vocabulary,
            addedWords: added)
        return try candidates.indices.map { (c: Int) throws(RecognitionError) in
            try occurrences.map { (occurrence: Occurrence) throws(RecognitionError) in
                guard valid[c] else { return nil }
                var sentence = occurrence.reference
                sentence[occurrence.index] = Self.token(c)
                guard sentence.allSatisfy(words.contains) else { return nil }
                let path = try aligner.align(rule: sentence.joined(separator: " "), named: "fit", occurrence.samples)
                guard path.hypothesis != nil,
                    let segment = path.segments.first(where: { $0.word == Self.token(c) })
                else { return nil }
                return (Double(path.score), segment.startFrame...segment.endFrame)
            }
        }
    }

    /// How a candidate compares with the current pronunciations over a term's occurrences.
    public struct Comparison: Sendable {
        /// The candidate's index among those compared (hearings come after the caller's candidates).
        public var index: Int
        public var phones: [String]
        /// Its score minus the best current pronunciation's, averaged over the occurrences both align (engine
        /// units; with no current pronunciation, against the first anchor).
        public var margin: Double
        /// Occurrences where it scores above every current pronunciation, of those both align (a hearing is not
        /// judged on the occurrences it was heard on).
        public var better: Int
        public var segments: Int
    }

    /// Candidates for a word against its current pronunciations, over the places it was said: the current ones
    /// (or, for a word without any, `anchors`) locate the word in each occurrence; a phone loop over each span adds
    /// what the audio holds; every candidate is force-aligned over every occurrence, and a hearing is judged on the
    /// occurrences it was not heard on.
    /// - Parameters:
    ///   - current: The word's pronunciations in the variant, in phones; may be empty.
    ///   - anchors: Used to find the word's span when `current` is empty (flite's spelling guess).
    ///   - candidates: Other pronunciations to try (supplied, spelling, dictionary parts).
    /// - Returns: The candidates heard by the phone loop (appended after `candidates`, new ones only) and the
    ///   comparison of each candidate, best total first.
    public func compare(
        current: [[String]], anchors: [[String]] = [], candidates: [[String]], over occurrences: [Occurrence]
    ) throws(RecognitionError) -> (heard: [[String]], comparisons: [Comparison]) {
        let reference = current.isEmpty ? anchors : current
        guard !reference.isEmpty, !occurrences.isEmpty else { return ([], []) }
        let located = try fits(reference, over: occurrences)
        // Per occurrence: the best current score, and where that pronunciation put the word.
        let best: [(score: Double, frames: ClosedRange<Int>)?] = occurrences.indices.map { o in
            located.compactMap { $0[o] }.max { $0.score < $1.score }
        }
        var known = Set(reference.map { $0.joined(separator: " ") } + candidates.map { $0.joined(separator: " ") })
        var heard: [[String]] = []
        // The occurrences each hearing came from: it is judged on the others only, as what a phone loop hears on
        // one segment fits that segment best by construction.
        var heardOn: [String: Set<Int>] = [:]
        for (o, (occurrence, fit)) in zip(occurrences, best).enumerated() {
            guard let fit else { continue }
            let phones = try phoneLoop(occurrence.samples, frames: fit.frames)
            guard !phones.isEmpty else { continue }
            let key = phones.joined(separator: " ")
            if known.insert(key).inserted { heard.append(phones) }
            heardOn[key, default: []].insert(o)
        }
        let all = candidates + heard
        let scored = try fits(all, over: occurrences)
        let comparisons = all.indices.map { c in
            var (margin, better, segments) = (0.0, 0, 0)
            let own = c < candidates.count ? [] : heardOn[all[c].joined(separator: " ")] ?? []
            for o in occurrences.indices where !own.contains(o) {
                guard let fit = scored[c][o], let base = best[o] else { continue }
                margin += fit.score - base.score
                segments += 1
                if fit.score > base.score { better += 1 }
            }
            return Comparison(
                index: c, phones: all[c], margin: segments == 0 ? 0 : margin / Double(segments), better: better,
                segments: segments)
        }
        return (heard, comparisons.sorted { ($0.segments, $0.margin) > ($1.segments, $1.margin) })
    }
}
