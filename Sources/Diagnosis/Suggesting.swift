import Formats
import Foundation
import LanguageModel
import Recognition
import Results
import Runner
import TrainingData

/// The suggestions part of a variant's diagnosis: pronunciations heard in the audio for the terms whose errors are
/// the pronunciation's, and counts from the weights that fix the rest.
extension VariantExamination {
    /// At most this many places a term is said are aligned with each candidate: its errors first.
    static let segmentsPerTerm = 8
    /// A candidate is suggested when it scores better than every current pronunciation on at least this share of
    /// the segments both align (and on two or more), with a positive mean margin.
    static let betterShare = 2.0 / 3.0

    /// Suggestions for the variant, from its diagnosis and the places its terms are said; nil (and a failure
    /// named) when what they need cannot be loaded.
    func suggestions(for variant: VariantDiagnosis, work: Work) -> VariantSuggestions? {
        do {
            return try suggesting(for: variant, work: work)
        } catch {
            failures.append("suggestions: \(error)")
            return nil
        }
    }

    private func suggesting(for variant: VariantDiagnosis, work: Work) throws -> VariantSuggestions {
        let data = try Toolchain.loadTrainingData(spec.training)
        var suggestions = VariantSuggestions(learnedOn: work.splits)
        let pronounced = variant.terms.filter { term in
            (term.missed[.acoustics] ?? 0) + (term.missed[.unpronounceable] ?? 0) > 0
        }
        if !pronounced.isEmpty {
            let dictionary = try toolchain.compiler.dictionary()
            let search = try PronunciationSearch(
                model: toolchain.model, vocabulary: custom.vocabulary, dictionary: dictionary)
            let vocabulary = try PronunciationDictionary(contentsOf: custom.vocabulary)
            // An utterance that says several terms is read once (nil: it could not be).
            var clips: [URL: [Int16]?] = [:]
            for (index, term) in pronounced.enumerated() {
                progress.update("pronunciations: \(shownName)", index, pronounced.count)
                let errors = (term.missed[.acoustics] ?? 0) + (term.missed[.unpronounceable] ?? 0)
                let erring = Set(
                    variant.utterances.filter { utterance in
                        utterance.diagnoses.contains { $0.error.word == term.word && $0.error.kind == .missed }
                    }.map { "\($0.corpus)/\($0.id)" })
                do {
                    switch try pronunciation(
                        of: term.word, errors: errors, erring: erring, said: work.said[term.word] ?? [], data: data,
                        dictionary: dictionary, vocabulary: vocabulary, search: search, clips: &clips)
                    {
                    case .success(let found): suggestions.pronunciations.append(found)
                    case .failure(let why): suggestions.examined[term.word] = why.description
                    }
                } catch {
                    // A private term is not named where the terminal shows it.
                    failures.append("pronunciations of \(data.isPrivate ? "a private term" : term.word): \(error)")
                }
            }
            progress.update("pronunciations: \(shownName)", pronounced.count, pronounced.count)
        }
        suggestions.counts = counts(for: variant, data: data, antiContext: Set(work.antiContext.map(\.corpus)))
        return suggestions
    }

    /// Why no pronunciation was suggested for a term.
    struct NoSuggestion: Error, CustomStringConvertible {
        var description: String
    }

    /// The best candidate pronunciation of `word`, when it fits its segments clearly better than the current ones.
    func pronunciation(
        of word: String, errors: Int, erring: Set<String>,
        said: [(corpus: String, id: String, url: URL, reference: [String], index: Int)],
        data: CustomLanguageModelData, dictionary: PronunciationDictionary, vocabulary: PronunciationDictionary,
        search: PronunciationSearch, clips: inout [URL: [Int16]?]
    ) throws -> Result<PronunciationSuggestion, NoSuggestion> {
        // The segments: where it was missed first, then where it was heard, at most ``segmentsPerTerm``.
        let ordered =
            said.filter { erring.contains("\($0.corpus)/\($0.id)") }
            + said.filter { !erring.contains("\($0.corpus)/\($0.id)") }
        var occurrences: [PronunciationSearch.Occurrence] = []
        for place in ordered.prefix(Self.segmentsPerTerm) {
            if clips[place.url] == nil { clips[place.url] = .some((try? loader.load(place.url))?.samples) }
            guard let samples = clips[place.url] ?? nil else { continue }
            occurrences.append(.init(samples: samples, reference: place.reference, index: place.index))
        }
        guard !occurrences.isEmpty else {
            return .failure(
                NoSuggestion(
                    description: said.isEmpty
                        ? "the domain corpora examined never say it" : "no audio of it could be read"))
        }
        var current: [[String]] = []
        for phones in dictionary.pronunciations(of: word) + vocabulary.pronunciations(of: word)
        where !current.contains(phones) {
            current.append(phones)
        }
        var candidates: [([String], PronunciationSuggestion.Source)] = []
        func offer(_ phones: [String], _ source: PronunciationSuggestion.Source) {
            guard !phones.isEmpty, !current.contains(phones), !candidates.contains(where: { $0.0 == phones }) else {
                return
            }
            candidates.append((phones, source))
        }
        for supplied in data.pronunciations where supplied.word == word {
            for phones in supplied.cmuPhones { offer(phones, .supplied) }
        }
        let spelling = GraphemeToPhoneme.pronounce(word)
        if let spelling { offer(spelling, .spelling) }
        for phones in Self.partPronunciations(of: word, in: dictionary) { offer(phones, .dictionaryParts) }
        let (heard, comparisons) = try search.compare(
            current: current, anchors: spelling.map { [$0] } ?? [], candidates: candidates.map(\.0),
            over: occurrences)
        let sources = candidates.map(\.1) + heard.map { _ in PronunciationSuggestion.Source.phoneLoop }
        let clear = comparisons.filter { comparison in
            if current.isEmpty { return comparison.segments > 0 }
            return comparison.segments >= 2 && comparison.margin > 0
                && Double(comparison.better) >= Self.betterShare * Double(comparison.segments)
        }
        // Best first: aligned on the most segments, then the largest margin.
        guard let best = clear.first(where: { XSAMPA.render($0.phones) != nil }),
            let xsampa = XSAMPA.render(best.phones)
        else {
            let top = comparisons.first
            return .failure(
                NoSuggestion(
                    description: "\(candidates.count + heard.count) candidates over \(occurrences.count) segments; "
                        + (top.map {
                            "the best, \($0.phones.joined(separator: " ")), fits \($0.better) of \($0.segments) better"
                        } ?? "none aligned")))
        }
        return .success(
            PronunciationSuggestion(
                word: word, phones: best.phones, xsampa: xsampa, source: sources[best.index], current: current,
                margin: best.margin, better: best.better, segments: best.segments, errors: errors))
    }

    /// The dictionary's pronunciations of a word's parts, joined: a compound token's words (`albin_counter`), or
    /// two dictionary words the spelling splits into (`stonewall`: stone + wall); at most four.
    static func partPronunciations(of word: String, in dictionary: PronunciationDictionary) -> [[String]] {
        var splits: [[String]] = []
        if word.contains(Compounds.separator) {
            splits.append(word.split(separator: Character(Compounds.separator)).map(String.init))
        } else if word.count >= 6 {
            for cut in 3...(word.count - 3) {
                let head = String(word.prefix(cut))
                let tail = String(word.dropFirst(cut))
                if dictionary.contains(head), dictionary.contains(tail) { splits.append([head, tail]) }
            }
        }
        var joined: [[String]] = []
        for parts in splits {
            var products: [[String]] = [[]]
            for part in parts {
                let options = dictionary.pronunciations(of: part).prefix(2)
                products = products.flatMap { prefix in options.map { prefix + $0 } }
            }
            joined += products.filter { !$0.isEmpty }
        }
        return Array(joined.prefix(4))
    }

    /// New counts for the phrases and templates that hold a term whose language-model errors a weight fixes:
    /// raised for its misses in the domain corpora, lowered for its insertions in anti-context speech when a lighter
    /// weight (above 0, the base model alone) removes them. A raise whose weight puts more boosted words into
    /// anti-context speech is not suggested.
    func counts(for variant: VariantDiagnosis, data: CustomLanguageModelData, antiContext: Set<String>)
        -> [CountSuggestion]
    {
        var raise: [String: Double] = [:]
        var lower: [String: Double] = [:]
        for utterance in variant.utterances {
            for diagnosis in utterance.diagnoses where diagnosis.cause == .languageModel {
                guard let weight = diagnosis.fixingWeight else { continue }
                let word = diagnosis.error.word
                switch diagnosis.error.kind {
                case .missed where !antiContext.contains(utterance.corpus):
                    raise[word] = max(raise[word] ?? 0, weight)
                case .inserted where antiContext.contains(utterance.corpus) && weight > 0:
                    // Weight 0 is the base model alone: no count of one phrase equals dropping the customization.
                    lower[word] = min(lower[word] ?? 1, weight)
                default: break
                }
            }
        }
        for (word, weight) in raise {
            let cost = variant.antiContext?.weights.first { $0.weight == weight }
            if let cost, let own = variant.antiContext?.own, cost.boostedInsertions > own.boostedInsertions {
                raise[word] = nil
            }
        }
        let languageWeight = suite.decoder.effectiveLanguageWeight
        // Raises before lowers, each in word order; a phrase that holds two terms takes the larger change (a
        // raise wins over a lower).
        let ordered =
            raise.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            + lower.sorted { $0.key < $1.key }.filter { raise[$0.key] == nil }.map { ($0.key, $0.value) }
        var targets:
            [(kind: CountSuggestion.Kind, text: String, from: Int, word: String, fixing: Double, factor: Double)] =
                []
        func offer(_ kind: CountSuggestion.Kind, _ text: String, _ from: Int, word: String, fixing: Double) {
            guard
                let factor = CountTargeting.factor(
                    weight: spec.weight, fixing: fixing, languageWeight: languageWeight),
                factor != 1
            else { return }
            let new = (kind, text, from, word, fixing, factor)
            if let index = targets.firstIndex(where: { $0.kind == kind && $0.text == text }) {
                let old = targets[index]
                if (old.factor > 1) == (factor > 1) && abs(log(factor)) > abs(log(old.factor)) { targets[index] = new }
            } else {
                targets.append(new)
            }
        }
        for (word, fixing) in ordered {
            for phrase in data.phraseCounts where WordTokenizer.tokenize(phrase.phrase).contains(word) {
                offer(.phrase, phrase.phrase, phrase.count, word: word, fixing: fixing)
            }
            // A template's own words only: a class value shares its template's count with every other value, so
            // its count would move them all.
            for group in data.templateGroups {
                for template in group.templates where WordTokenizer.tokenize(template.body).contains(word) {
                    offer(.template, template.body, template.count, word: word, fixing: fixing)
                }
            }
        }
        // A change to most of the data is the weight's, not a count's: its shares barely move, and every count
        // falls or grows to make up for it.
        guard 2 * targets.reduce(0, { $0 + $1.from }) <= data.totalSamples else { return [] }
        // All sized at once, so that raising some phrases does not undo itself through the total.
        guard
            let counts = CountTargeting.counts(
                targets.map { ($0.from, $0.factor) }, total: data.totalSamples)
        else { return [] }
        let suggested = zip(targets, counts).filter { $0.0.from != $0.1 }.map { target, to in
            CountSuggestion(
                kind: target.kind, text: target.text, from: target.from, to: to, word: target.word,
                fixingWeight: target.fixing, variantWeight: spec.weight,
                cost: variant.antiContext?.phrase(at: target.fixing))
        }
        return suggested.sorted { ($0.word, $0.text) < ($1.word, $1.text) }
    }

}

extension VariantSuggestions {
    /// The suggestions as a patch in the training-data format (`gambit lint --apply`), with why as comments.
    func patch(for data: CustomLanguageModelData, variant: String, training: String) -> String {
        var patch = CustomLanguageModelData(
            locale: data.locale, identifier: data.identifier, version: data.version, isPrivate: data.isPrivate)
        var notes: [CustomLanguageModelData.Note: String] = [:]
        for count in counts where count.kind == .phrase {
            patch.insert(phrase: count.text, count: count.to)
            notes[.phrase(count.text)] = "was \(count.from); \(count.evidence)"
        }
        for group in data.templateGroups {
            let changed = group.templates.compactMap { template -> TemplatePhraseCountGenerator.Template? in
                guard let count = counts.first(where: { $0.kind == .template && $0.text == template.body }) else {
                    return nil
                }
                notes[.template(template.body)] = "was \(count.from); \(count.evidence)"
                var new = template
                new.count = count.to
                return new
            }
            if !changed.isEmpty {
                patch.insert(templates: PhraseCountsFromTemplates(classes: group.classes, templates: changed))
            }
        }
        for pronunciation in pronunciations {
            patch.insert(term: CustomPronunciation(grapheme: pronunciation.word, phonemes: [pronunciation.xsampa]))
            notes[.pronunciation(grapheme: pronunciation.word, phonemes: pronunciation.xsampa)] =
                "\(pronunciation.evidence); \(pronunciation.errors) errors on pronunciation or acoustics"
        }
        let header = [
            "Suggestions of gambit diagnose for \(variant) (\(training)), \(provenance).",
            "Merge them into a new file, and run it as a variant beside the old one:",
            "  gambit lint --apply THIS_FILE \(training) --output NEW.yaml",
        ]
        return patch.yaml(header: header, notes: notes)
    }
}
