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
        text.contains(Normalizer.privacyMaskOpening)
    }

    /// Collects the private words of `results`.
    public init(_ results: RunResults) {
        self.init(variants: results.variants, normalizer: results.run.settings.normalizer)
    }

    /// Collects the private words of the variants marked private, numbered as results listing these variants in
    /// this order number them: what a command prints before there are results (`gambit run`'s first line, its
    /// plan) is masked as its reports will be.
    /// - Parameters:
    ///   - variants: The variants, in the order the results list them.
    ///   - normalizer: The normalizer the results are scored with.
    public init(variants: [VariantInfo], normalizer: Normalizer) {
        self.normalizer = normalizer
        var masks: [String: String] = [:]
        var counters: [String: Int] = [:]
        func add(_ phrase: String, label: String) {
            for word in normalizer.normalize(phrase) where masks[word] == nil {
                counters[label, default: 0] += 1
                masks[word] = Normalizer.privacyMask(label: label, number: counters[label]!)
            }
        }
        for variant in variants where variant.isPrivate {
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

    /// Masks names (of corpora, variants, recognizers, utterances) so that distinct names stay distinct.
    ///
    /// A name is masked as ``fragment(_:)`` masks it. Two names that mask alike (`calls-siobhan` and
    /// `calls-Siobhan` both read `calls-‹contact-1›`) would merge two corpora into one, in tables and in the
    /// `trn`/`ctm` file names made from them: the later one gets a number (`calls-‹contact-1›-2`). Names with
    /// nothing private keep themselves, so only masked names are ever numbered.
    /// - Parameter names: The names, in the order the results list them (which decides the numbers).
    /// - Returns: Each name → its mask; one-to-one.
    public func names(_ names: [String]) -> [String: String] {
        var map: [String: String] = [:]
        var taken = Set<String>()
        var masked: [(name: String, mask: String)] = []
        var pending = Set<String>()
        for name in names where map[name] == nil && !pending.contains(name) {
            let mask = fragment(name)
            if mask == name {
                map[name] = name
                taken.insert(name)
            } else {
                masked.append((name, mask))
                pending.insert(name)
            }
        }
        for (name, mask) in masked {
            var candidate = mask
            var number = 2
            while taken.contains(candidate) {
                candidate = "\(mask)-\(number)"
                number += 1
            }
            map[name] = candidate
            taken.insert(candidate)
        }
        return map
    }
}

/// The masks of a run's names, one map per kind of name, so that every place a name appears reads the same.
extension RunResults {
    /// The diagnosis with every private word, and the names that hold one, masked as the records are.
    fileprivate static func mask(_ report: DiagnosisReport, masker: PrivateTermMasker, names: NameMasks)
        -> DiagnosisReport
    {
        var copy = report
        copy.suite = masker.fragment(copy.suite)
        for v in copy.variants.indices {
            copy.variants[v].variant = names.variant(copy.variants[v].variant)
            copy.variants[v].failures = copy.variants[v].failures?.map(names.text)
            if var cost = copy.variants[v].antiContext {
                cost.corpora = cost.corpora.map(names.corpus)
                copy.variants[v].antiContext = cost
            }
            for t in copy.variants[v].terms.indices {
                copy.variants[v].terms[t].word = masker.word(copy.variants[v].terms[t].word)
            }
            if var suggestions = copy.variants[v].suggestions {
                suggestions.learnedOn = Dictionary(
                    suggestions.learnedOn.map { (names.corpus($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
                for p in suggestions.pronunciations.indices {
                    let word = suggestions.pronunciations[p].word
                    let masked = masker.word(word)
                    guard masked != word else { continue }
                    // A private name's pronunciation spells it out: only the evidence stays.
                    suggestions.pronunciations[p].word = masked
                    suggestions.pronunciations[p].phones = []
                    suggestions.pronunciations[p].xsampa = "•"
                    suggestions.pronunciations[p].current = []
                }
                for c in suggestions.counts.indices {
                    suggestions.counts[c].word = masker.word(suggestions.counts[c].word)
                    suggestions.counts[c].text = masker.text(suggestions.counts[c].text)
                }
                suggestions.examined = Dictionary(
                    suggestions.examined.map { word, why in
                        let masked = masker.word(word)
                        return (masked, masked == word ? why : "no candidate fit clearly better")
                    }, uniquingKeysWith: { a, _ in a })
                copy.variants[v].suggestions = suggestions
            }
            for u in copy.variants[v].utterances.indices {
                var utterance = copy.variants[v].utterances[u]
                utterance.corpus = names.corpus(utterance.corpus)
                utterance.id = names.utterance(utterance.id)
                utterance.reference = masker.text(utterance.reference)
                utterance.hypothesis = masker.text(utterance.hypothesis)
                for d in utterance.diagnoses.indices {
                    utterance.diagnoses[d].error.word = masker.word(utterance.diagnoses[d].error.word)
                    utterance.diagnoses[d].error.competitor = utterance.diagnoses[d].error.competitor.map(masker.word)
                }
                copy.variants[v].utterances[u] = utterance
            }
        }
        return copy
    }
}

private struct NameMasks {
    let masker: PrivateTermMasker
    let corpora: [String: String]
    let variants: [String: String]
    let recognizers: [String: String]
    let utterances: [String: String]
    /// Names whose mask carries a number (see ``PrivateTermMasker/names(_:)``), longest first: free text that
    /// names them (a check's name or message) gets the numbered mask, as tables and file names do.
    let numbered: [(name: String, mask: String)]

    init(_ results: RunResults, masker: PrivateTermMasker) {
        self.masker = masker
        corpora = masker.names(
            results.corpora.map(\.name) + results.systems.map(\.corpus)
                + (results.sweep.map { [$0.corpus] + ($0.antiContextCorpus.map { [$0] } ?? []) } ?? [])
                + (results.listSweep.map { [$0.corpus] + $0.points.flatMap { $0.antiContext.map(\.corpus) } } ?? []))
        variants = masker.names(
            results.variants.map(\.name) + results.systems.compactMap(\.variant)
                + (results.sweep.map { [$0.variant] } ?? []) + (results.listSweep.map { [$0.variant] } ?? []))
        recognizers = masker.names(
            (results.run.externalRecognizers ?? []).map(\.name) + results.systems.compactMap(\.recognizer)
                + (results.listSweep.map { [$0.recognizer] } ?? []))
        utterances = masker.names(results.systems.flatMap { $0.utterances.map(\.id) })
        numbered = [corpora, variants, recognizers].flatMap { $0.filter { masker.fragment($0.key) != $0.value } }
            .map { (name: $0.key, mask: $0.value) }.sorted { ($0.name.count, $0.name) > ($1.name.count, $1.name) }
    }

    func corpus(_ name: String) -> String { corpora[name] ?? masker.fragment(name) }
    func variant(_ name: String) -> String { variants[name] ?? masker.fragment(name) }
    func recognizer(_ name: String) -> String { recognizers[name] ?? masker.fragment(name) }
    func utterance(_ id: String) -> String { utterances[id] ?? masker.fragment(id) }

    /// Free text that may name corpora and variants: numbered names first, then every private word.
    func text(_ text: String) -> String {
        var text = text
        for (name, mask) in numbered where text.contains(name) {
            text = text.replacingOccurrences(of: name, with: mask)
        }
        return masker.fragment(text)
    }
}

extension RunResults {
    /// The results with every term of private training data masked, ready for any report.
    ///
    /// Masks private variants' boosted words, multi-word terms and template class values, and those words wherever
    /// they occur: references, hypotheses, alignments, word timings, term tables, latency keys, utterance ids,
    /// audio paths, speakers, conditions, breakdown labels, failure and check messages, in every system (a private
    /// name recognized on another corpus is masked too). Names are masked the same way wherever they appear: the
    /// suite's name and path, the names of corpora, variants and recognizers and every training file's path, so
    /// that a heading, a table or a `trn`/`ctm` file name does not print a private term; distinct names stay
    /// distinct (see ``PrivateTermMasker/names(_:)``). Numbers are untouched. Without private variants the results
    /// come back unchanged.
    public func redactingPrivateTerms() -> RunResults {
        let masker = PrivateTermMasker(self)
        guard !masker.isEmpty else { return self }
        let names = NameMasks(self, masker: masker)
        var copy = self
        // Names: a suite, corpus, variant or training file named after a private term would print it in every
        // heading, table and file name of the reports.
        copy.run.suite.name = masker.fragment(copy.run.suite.name)
        copy.run.suite.path = masker.fragment(copy.run.suite.path)
        copy.run.suite.pathFromOutput = copy.run.suite.pathFromOutput.map(masker.fragment)
        copy.run.externalRecognizers = copy.run.externalRecognizers?.map {
            Self.mask($0, masker: masker, names: names)
        }
        Self.maskWorkerNames(&copy.timings, names: names)
        for v in copy.variants.indices {
            copy.variants[v].name = names.variant(copy.variants[v].name)
            copy.variants[v].trainingDataFile = masker.fragment(copy.variants[v].trainingDataFile)
        }
        for c in copy.corpora.indices { copy.corpora[c].name = names.corpus(copy.corpora[c].name) }
        for c in copy.comparisons.indices {
            copy.comparisons[c].corpus = names.corpus(copy.comparisons[c].corpus)
            copy.comparisons[c].variant = names.variant(copy.comparisons[c].variant)
            copy.comparisons[c].recognizer = copy.comparisons[c].recognizer.map(names.recognizer)
        }
        copy.sweep = copy.sweep.map { Self.mask($0, names: names) }
        copy.listSweep = copy.listSweep.map { Self.mask($0, masker: masker, names: names) }
        for v in copy.variants.indices where copy.variants[v].isPrivate {
            copy.variants[v] = Self.maskTrainingTerms(of: copy.variants[v], masker: masker)
        }
        let baseSeed = run.settings.bootstrap.seed
        copy.systems = copy.systems.map { Self.mask($0, masker: masker, names: names, baseSeed: baseSeed) }
        copy.checks = copy.checks.map { check in
            var c = check
            c.name = names.text(c.name)
            c.message = names.text(c.message)
            c.corpus = c.corpus.map(names.corpus)
            c.variant = c.variant.map(names.variant)
            return c
        }
        copy.networkDenial.detail = masker.fragment(copy.networkDenial.detail)
        copy.diagnosis = copy.diagnosis.map { Self.mask($0, masker: masker, names: names) }
        return copy
    }

    /// The external recognizer with its name, command and customizations' variants and failures masked, as the
    /// rest of the results name them.
    private static func mask(
        _ recognizer: ExternalRecognizerInfo, masker: PrivateTermMasker, names: NameMasks
    ) -> ExternalRecognizerInfo {
        var r = recognizer
        r.name = names.recognizer(r.name)
        r.command = r.command.map(masker.fragment)
        r.customizations = r.customizations?.map { customization in
            var c = customization
            c.variant = names.variant(c.variant)
            c.failure = c.failure.map(names.text)
            return c
        }
        return r
    }

    /// Masks the external recognizer's name inside each worker's name in the timings, since the workers' time
    /// names each external recognizer.
    private static func maskWorkerNames(_ timings: inout RunTimings?, names: NameMasks) {
        for w in timings?.workers.indices ?? 0..<0 {
            let name = timings!.workers[w].name
            guard name.hasPrefix(RunTimings.externalPrefix) else { continue }
            timings!.workers[w].name =
                RunTimings.externalPrefix + names.recognizer(String(name.dropFirst(RunTimings.externalPrefix.count)))
        }
    }

    /// The sweep with the names of its variant and corpora masked, and the recommendation's reason, which may
    /// name them.
    private static func mask(_ sweep: SweepResults, names: NameMasks) -> SweepResults {
        var sweep = sweep
        sweep.variant = names.variant(sweep.variant)
        sweep.corpus = names.corpus(sweep.corpus)
        sweep.antiContextCorpus = sweep.antiContextCorpus.map(names.corpus)
        sweep.points = sweep.points.map { point in
            var p = point
            p.antiContextChecks = p.antiContextChecks?.map { check in
                var c = check
                c.corpus = names.corpus(c.corpus)
                return c
            }
            return p
        }
        if let reason = sweep.recommendation?.reason { sweep.recommendation?.reason = names.text(reason) }
        return sweep
    }

    /// The list sweep with its names masked as the rest of the results name them.
    private static func mask(_ sweep: ListSweepResults, masker: PrivateTermMasker, names: NameMasks)
        -> ListSweepResults
    {
        func mask(_ comparison: Comparison) -> Comparison {
            var c = comparison
            c.corpus = names.corpus(c.corpus)
            c.variant = names.variant(c.variant)
            c.recognizer = c.recognizer.map(names.recognizer)
            if let source = c.list?.distractorSource { c.list?.distractorSource = masker.fragment(source) }
            return c
        }
        func mask(_ anti: [ListSweepAntiContext]) -> [ListSweepAntiContext] {
            anti.map {
                var a = $0
                a.corpus = names.corpus(a.corpus)
                return a
            }
        }
        var sweep = sweep
        sweep.recognizer = names.recognizer(sweep.recognizer)
        sweep.variant = names.variant(sweep.variant)
        sweep.corpus = names.corpus(sweep.corpus)
        sweep.distractorSource = masker.fragment(sweep.distractorSource)
        sweep.points = sweep.points.map { point in
            var p = point
            p.domain = mask(p.domain)
            p.antiContext = mask(p.antiContext)
            return p
        }
        if var r = sweep.recommendation {
            r.reason = names.text(r.reason)
            r.test = mask(r.test)
            r.testAntiContext = mask(r.testAntiContext)
            sweep.recommendation = r
        }
        return sweep
    }

    /// The private variant with its boosted words, multi-word terms and templates masked: they are the private
    /// training data itself.
    private static func maskTrainingTerms(of variant: VariantInfo, masker: PrivateTermMasker) -> VariantInfo {
        var variant = variant
        variant.boostedWords = variant.boostedWords.map(masker.text)
        variant.multiWordTerms = variant.multiWordTerms.map(masker.text)
        if let templates = variant.templates {
            variant.templates = SlotTemplates(
                templates: templates.templates.map { $0.map(masker.text) },
                classes: templates.classes.mapValues { $0.map(masker.text) })
        }
        return variant
    }

    /// The system with its names, term table, breakdown labels and every record masked.
    private static func mask(
        _ system: SystemResults, masker: PrivateTermMasker, names: NameMasks, baseSeed: UInt64
    ) -> SystemResults {
        var system = system
        system.corpus = names.corpus(system.corpus)
        system.variant = system.variant.map(names.variant)
        system.recognizer = system.recognizer.map(names.recognizer)
        if var keywords = system.metrics.keywords {
            for t in keywords.terms.indices { keywords.terms[t].term = masker.phrase(keywords.terms[t].term) }
            keywords.falseAlarmUtterances = Dictionary(
                keywords.falseAlarmUtterances.map { (masker.phrase($0.key), $0.value.map(names.utterance)) },
                uniquingKeysWith: { $0 + $1 })
            system.metrics.keywords = keywords
        }
        // Breakdown labels are speakers and conditions, masked as the records' are. An interval's seed is
        // derived from its label, so it is derived again from the masked one: the original would let a
        // reader test guesses of a private name.
        system.breakdowns = system.breakdowns?.map { breakdown in
            var b = breakdown
            for g in b.groups.indices {
                let label = masker.fragment(b.groups[g].label)
                let seed = Breakdown.seed(base: baseSeed, field: b.field, label: label)
                b.groups[g].label = label
                b.groups[g].wordErrorRateInterval?.seed = seed
                b.groups[g].boostedWordErrorRateInterval?.seed = Breakdown.boostedSeed(seed)
            }
            return b
        }
        system.utterances = system.utterances.map { Self.mask($0, masker: masker, names: names) }
        return system
    }

    /// The utterance record with its id, audio path, speaker, condition, texts, alignment, word timings and
    /// latency keys masked.
    private static func mask(
        _ record: UtteranceRecord, masker: PrivateTermMasker, names: NameMasks
    ) -> UtteranceRecord {
        var r = record
        r.id = names.utterance(r.id)
        r.audioPath = masker.fragment(r.audioPath)
        r.speaker = r.speaker.map(masker.fragment)
        r.condition = r.condition.map(masker.fragment)
        r.reference = masker.text(r.reference)
        r.biasingList = r.biasingList?.map(masker.text)
        r.hypothesis = masker.text(r.hypothesis)
        r.failure = r.failure.map(masker.fragment)
        r.customizationNote = r.customizationNote.map(masker.text)
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
}
