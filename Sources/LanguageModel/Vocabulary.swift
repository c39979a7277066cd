import Formats
import PocketSphinx
import TrainingData

/// Where a pronunciation in the prepared vocabulary came from.
public enum PronunciationSource: String, Codable, Sendable, Hashable {
    /// The base dictionary already had it.
    case dictionary
    /// The training data supplied it in X-SAMPA.
    case supplied
    /// Spelled by flite's lexicon or letter-to-sound rules.
    case spelling
    /// Spelled out from digits.
    case number
    /// Joined from the pronunciations of a compound's words.
    case compound
}

/// One dictionary line of the prepared vocabulary.
public struct VocabularyEntry: Codable, Sendable, Hashable {
    /// The word as the language model spells it.
    public var word: String
    /// CMU phones, uppercase, no stress.
    public var phones: [String]
    public var source: PronunciationSource
}

/// The words a prepared model adds to the recognizer, and what became of every word it needed.
public struct Vocabulary: Codable, Sendable, Hashable {
    /// New dictionary entries (new words, and new pronunciations of known words), in a stable order.
    public var entries: [VocabularyEntry]
    /// Every language-model word the base dictionary lacked, and how it was resolved.
    public var outOfVocabulary: [OOVWord]
    /// Supplied pronunciations of words the base dictionary already had, kept as alternates.
    public var alternatesForKnownWords: [String]

    /// Builds the vocabulary for a set of language-model words.
    ///
    /// - Parameters:
    ///   - words: The words the custom language model contains.
    ///   - pronunciations: Supplied pronunciations, by word.
    ///   - dictionary: The recognizer's base dictionary.
    ///   - spellingAlternates: Also add a spelling-based pronunciation beside each supplied one.
    public static func build(
        words: [String], pronunciations: [String: [[String]]], dictionary: PronunciationDictionary,
        spellingAlternates: Bool
    ) -> Vocabulary {
        var entries: [VocabularyEntry] = []
        var oov: [OOVWord] = []
        var alternates: [String] = []
        let all = Set(words).union(pronunciations.keys).sorted()
        for word in all where !word.hasPrefix("<") {
            let known = dictionary.pronunciations(of: word)
            var have = Set(known)
            var added: [VocabularyEntry] = []
            func add(_ phones: [String], _ source: PronunciationSource) {
                guard !phones.isEmpty, !have.contains(phones) else { return }
                have.insert(phones)
                added.append(VocabularyEntry(word: word, phones: phones, source: source))
            }
            for phones in pronunciations[word] ?? [] { add(phones, .supplied) }
            if !(pronunciations[word] ?? []).isEmpty, !known.isEmpty, !added.isEmpty { alternates.append(word) }
            if known.isEmpty {
                if let spoken = NumberSpeller.words(word) {
                    let phones = spoken.flatMap { dictionary.pronunciations(of: $0).first ?? [] }
                    add(phones, .number)
                } else if added.isEmpty || spellingAlternates, let phones = GraphemeToPhoneme.pronounce(word) {
                    add(phones, .spelling)
                }
                let resolution: OOVWord.Resolution =
                    added.contains { $0.source == .supplied }
                    ? .customPronunciation : (added.isEmpty ? .unresolved : .generated)
                oov.append(
                    OOVWord(
                        word: word, resolution: resolution, pronunciations: added.map(\.phones),
                        source: Set(added.map(\.source.rawValue)).sorted().joined(separator: "+")))
            } else if spellingAlternates, !(pronunciations[word] ?? []).isEmpty,
                let phones = GraphemeToPhoneme.pronounce(word)
            {
                add(phones, .spelling)
            }
            entries += added
        }
        return Vocabulary(entries: entries, outOfVocabulary: oov, alternatesForKnownWords: alternates)
    }

    /// One error per word that got no pronunciation at all (not in the base dictionary, none
    /// supplied, none from spelling rules), located at the first place the data uses it.
    public func unpronounceableProblems(in data: CustomLanguageModelData) -> [TrainingDataError] {
        outOfVocabulary.filter { $0.resolution == .unresolved }.map { word in
            let use = data.firstUse(of: word.word)
            return TrainingDataError(
                .unpronounceable(word: word.word, what: use?.what, text: use?.text), at: use?.location)
        }
    }

    /// Words the training data gave pronunciations that lint flagged (X-SAMPA symbols with no CMU phone),
    /// none it accepted, and that the base dictionary lacks: what the recognizer has of them is a spelling
    /// guess (or nothing), not what the data says.
    public func wordsWithOnlyFlaggedPronunciations(_ lint: LintReport) -> Set<String> {
        let flagged = Set(lint.pronunciationProblems.map { $0.grapheme.lowercased() })
        let accepted = Set(lint.pronunciations.filter { !$0.phones.isEmpty }.map(\.word))
        let guessed = Set(outOfVocabulary.filter { $0.resolution != .customPronunciation }.map(\.word))
        return flagged.subtracting(accepted).intersection(guessed)
    }

    /// Adds a dictionary entry for each compound's token, joined from its words' pronunciations
    /// (base dictionary first, then this vocabulary's own). A compound with a word that has no
    /// pronunciation gets none, and the recognizer cannot propose it.
    public mutating func addCompounds(_ compounds: Compounds, dictionary: PronunciationDictionary) {
        var own: [String: [[String]]] = [:]
        for entry in entries { own[entry.word, default: []].append(entry.phones) }
        for phrase in compounds.phrases {
            let joined = Compounds.pronunciations(of: phrase) { dictionary.pronunciations(of: $0) + (own[$0] ?? []) }
            for phones in joined {
                entries.append(VocabularyEntry(word: Compounds.token(phrase), phones: phones, source: .compound))
            }
        }
    }

    /// The dictionary file's text. Alternates are numbered after the base dictionary's own, as
    /// PocketSphinx expects (`word(2)`, `word(3)`, …).
    public func dictionaryText(base dictionary: PronunciationDictionary) -> String {
        var seen: [String: Int] = [:]
        var lines: [String] = []
        for entry in entries {
            let index = seen[entry.word, default: dictionary.pronunciations(of: entry.word).count] + 1
            seen[entry.word] = index
            let name = index == 1 ? entry.word : "\(entry.word)(\(index))"
            lines.append("\(name) \(entry.phones.joined(separator: " "))")
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }
}
