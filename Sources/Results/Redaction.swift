import Foundation
import Scoring

/// Replaces the words of private training data with stable masks such as `‹contact-2›`.
///
/// The words come from every private variant's template class values, multi-word terms and boosted words. Each
/// distinct word (normalized, so case and punctuation do not matter) gets one mask, numbered per label in order of
/// first appearance: the class name for class values, `term` otherwise. A phrase is masked word by word, so the
/// same term always reads the same and counts stay readable.
public struct PrivateTermMasker: Sendable {
    /// Normalized private word → mask.
    public private(set) var masks: [String: String] = [:]
    private let normalizer: Normalizer
    /// Private words long enough to be masked inside other text (ids, paths, possessives), longest first.
    private let substrings: [(word: String, mask: String)]

    /// Whether `text` holds a mask, i.e. was changed by masking (a masked audio path no longer names a file).
    public static func containsMask(_ text: String) -> Bool {
        text.contains("‹")
    }

    /// Collects the private words of `results`.
    public init(_ results: RunResults) {
        normalizer = results.run.settings.normalizer
        var masks: [String: String] = [:]
        var counters: [String: Int] = [:]
        func add(_ phrase: String, label: String) {
            for word in results.run.settings.normalizer.normalize(phrase) where masks[word] == nil {
                counters[label, default: 0] += 1
                masks[word] = "‹\(label)-\(counters[label]!)›"
            }
        }
        for variant in results.variants where variant.isPrivate {
            if let classes = variant.templates?.classes {
                for name in classes.keys.sorted() {
                    for value in classes[name]! { add(value, label: name) }
                }
            }
            for term in variant.multiWordTerms + variant.boostedWords { add(term, label: "term") }
        }
        self.masks = masks
        substrings = masks.filter { $0.key.count >= 3 }.map { (word: $0.key, mask: $0.value) }
            .sorted { ($0.word.count, $0.word) > ($1.word.count, $1.word) }
    }

    /// Whether there is anything to mask.
    public var isEmpty: Bool { masks.isEmpty }

    /// Masks one normalized word (as found in alignments and term lists).
    public func word(_ word: String) -> String {
        if let mask = masks[word] { return mask }
        return fragment(word)
    }

    /// Masks free text: whole tokens whose normalized form is private, then private words inside other tokens.
    public func text(_ text: String) -> String {
        guard !masks.isEmpty else { return text }
        let tokens = text.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            let words = normalizer.normalize(String(token))
            guard !words.isEmpty, words.contains(where: { masks[$0] != nil }) else { return String(token) }
            return words.map { masks[$0] ?? $0 }.joined(separator: " ")
        }
        return fragment(tokens.joined(separator: " "))
    }

    /// Masks a phrase of normalized words separated by spaces.
    public func phrase(_ phrase: String) -> String {
        phrase.split(separator: " ").map { word(String($0)) }.joined(separator: " ")
    }

    /// Replaces private words inside identifiers, paths and messages (case-insensitive), where they
    /// stand as words of their own: delimited by anything but a letter, so `siobhan` is masked in
    /// `call-siobhan.wav` while `text` is not masked inside `anti-context`.
    public func fragment(_ text: String) -> String {
        var text = text
        for (word, mask) in substrings where text.range(of: word, options: .caseInsensitive) != nil {
            let pattern = "(?<![\\p{L}])" + NSRegularExpression.escapedPattern(for: word) + "(?![\\p{L}])"
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else {
                continue
            }
            text = expression.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text),
                withTemplate: NSRegularExpression.escapedTemplate(for: mask))
        }
        return text
    }
}

extension RunResults {
    /// The results with every term of private training data masked, ready for any report.
    ///
    /// Masks private variants' boosted words, multi-word terms and template class values, and those words wherever
    /// they occur: references, hypotheses, alignments, word timings, term tables, latency keys, utterance ids,
    /// audio paths, speakers, failure and check messages, in every system (a private name recognized on another
    /// corpus is masked too). Numbers are untouched. Without private variants the results come back unchanged.
    public func redactingPrivateTerms() -> RunResults {
        let masker = PrivateTermMasker(self)
        guard !masker.isEmpty else { return self }
        var copy = self
        for v in copy.variants.indices where copy.variants[v].isPrivate {
            copy.variants[v].boostedWords = copy.variants[v].boostedWords.map(masker.text)
            copy.variants[v].multiWordTerms = copy.variants[v].multiWordTerms.map(masker.text)
            if let templates = copy.variants[v].templates {
                copy.variants[v].templates = SlotTemplates(
                    templates: templates.templates.map { $0.map(masker.text) },
                    classes: templates.classes.mapValues { $0.map(masker.text) })
            }
        }
        for s in copy.systems.indices {
            var system = copy.systems[s]
            if var terms = system.metrics.terms {
                for t in terms.terms.indices { terms.terms[t].term = masker.phrase(terms.terms[t].term) }
                system.metrics.terms = terms
            }
            system.utterances = system.utterances.map { record in
                var r = record
                r.id = masker.fragment(r.id)
                r.audioPath = masker.fragment(r.audioPath)
                r.speaker = r.speaker.map(masker.fragment)
                r.reference = masker.text(r.reference)
                r.hypothesis = masker.text(r.hypothesis)
                r.failure = r.failure.map(masker.fragment)
                r.alignment = r.alignment.map { pair in
                    var p = pair
                    p.reference = p.reference.map(masker.word)
                    p.hypothesis = p.hypothesis.map(masker.word)
                    return p
                }
                r.words = r.words?.map { timing in
                    var t = timing
                    t.word = masker.text(t.word)
                    return t
                }
                if var latency = r.latency {
                    latency.firstCorrectEmission = Dictionary(
                        latency.firstCorrectEmission.map { (masker.phrase($0.key), $0.value) },
                        uniquingKeysWith: min)
                    r.latency = latency
                }
                return r
            }
            copy.systems[s] = system
        }
        copy.checks = copy.checks.map { check in
            var c = check
            c.name = masker.fragment(c.name)
            c.message = masker.fragment(c.message)
            return c
        }
        copy.networkDenial.detail = masker.fragment(copy.networkDenial.detail)
        return copy
    }
}
