import Foundation
import StrictYAML

/// Training data written back as the YAML ``CustomLanguageModelData/init(yaml:file:)`` reads, and a patch in the
/// same format merged into it (`gambit lint --apply`).
extension CustomLanguageModelData {
    /// A note on one element of the written YAML, written as a comment after it.
    public enum Note: Hashable, Sendable {
        case phrase(String)
        case template(String)
        case pronunciation(grapheme: String, phonemes: String)
    }

    /// The data as training-data YAML: reading it back gives equal data. Comments: `header` lines first, then
    /// each element's note after it.
    public func yaml(header: [String] = [], notes: [Note: String] = [:]) -> String {
        var lines = header.map { $0.isEmpty ? "#" : "# " + $0 }
        func note(_ key: Note) -> String { notes[key].map { "  # " + $0 } ?? "" }
        lines += [
            "locale: " + Self.quoted(localeIdentifier), "identifier: " + Self.quoted(identifier),
            "version: " + Self.quoted(version),
        ]
        if isPrivate { lines.append("private: true") }
        if !phraseCounts.isEmpty {
            lines.append("phrases:")
            for phrase in phraseCounts {
                lines.append(
                    "  - {phrase: \(Self.quoted(phrase.phrase)), count: \(phrase.count)}" + note(.phrase(phrase.phrase))
                )
            }
        }
        if !templateGroups.isEmpty {
            lines.append("templates:")
            for group in templateGroups {
                lines.append("  - classes:" + (group.classes.isEmpty ? " {}" : ""))
                for name in group.classes.keys.sorted() {
                    let values = group.classes[name]!.map(Self.quoted).joined(separator: ", ")
                    lines.append("      \(Self.quoted(name)): [\(values)]")
                }
                lines.append("    items:" + (group.templates.isEmpty ? " []" : ""))
                for template in group.templates {
                    lines.append(
                        "      - {template: \(Self.quoted(template.body)), count: \(template.count)}"
                            + note(.template(template.body)))
                }
            }
        }
        if !pronunciations.isEmpty {
            lines.append("pronunciations:")
            for pronunciation in pronunciations {
                lines.append(
                    "  - {grapheme: \(Self.quoted(pronunciation.grapheme)), phonemes: ["
                        + pronunciation.phonemes.map(Self.quoted).joined(separator: ", ") + "]}")
                for phonemes in pronunciation.phonemes {
                    if let text = notes[.pronunciation(grapheme: pronunciation.grapheme, phonemes: phonemes)] {
                        lines.append("    # \(phonemes): \(text)")
                    }
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A YAML double-quoted scalar.
    static func quoted(_ text: String) -> String { quotedString(text) }

    /// This data with `patch` merged in: a phrase of the patch sets the count of the phrase that says the same
    /// words (the same text first, else the same words in other case or punctuation), or adds the phrase; a
    /// template sets the count of the template with the same text (or adds it in a group of the classes it uses),
    /// and a pronunciation adds its X-SAMPA strings to the word's (or adds the word). The data's locale,
    /// identifier and version are kept; the merged data is private when either is, since a private patch holds
    /// private phrases and names.
    /// - Returns: The merged data and one line per change ("phrase \"…\": count 25 → 38").
    /// - Throws: ``TrainingDataError/Kind/patchMismatch(field:data:patch:)`` when the patch's locale or identifier
    ///   is not the data's, or the patch's first problem (a count that is not positive, an unsupported X-SAMPA
    ///   symbol…), located in the patch, so that nothing is merged from a patch that is wrong.
    public func applying(_ patch: CustomLanguageModelData) throws(TrainingDataError) -> (
        data: CustomLanguageModelData, changes: [String]
    ) {
        try checkPatchable(patch)
        var changes: [String] = []
        var merged = CustomLanguageModelData(
            locale: locale, identifier: identifier, version: version, isPrivate: isPrivate || patch.isPrivate)
        for phrase in patchedPhraseCounts(with: patch, changes: &changes) { merged.insert(phraseCount: phrase) }
        for group in patchedTemplateGroups(with: patch, changes: &changes) { merged.insert(templates: group) }
        for pronunciation in patchedPronunciations(with: patch, changes: &changes) {
            merged.insert(term: pronunciation)
        }
        return (merged, changes)
    }

    /// Throws unless `patch` is for this data (same locale and identifier) and has no problem of its own, so that
    /// nothing is merged from a patch that is wrong.
    private func checkPatchable(_ patch: CustomLanguageModelData) throws(TrainingDataError) {
        guard patch.localeIdentifier == localeIdentifier else {
            throw TrainingDataError(
                .patchMismatch(field: "locale", data: localeIdentifier, patch: patch.localeIdentifier))
        }
        guard patch.identifier == identifier else {
            throw TrainingDataError(.patchMismatch(field: "identifier", data: identifier, patch: patch.identifier))
        }
        // The patch's own problems, where the patch says them; the budget and the locale are the merged data's
        // to answer for.
        let unlimited = TrainingDataLimits(sampleBudget: .max, maxTemplateExpansions: .max)
        if let problem = patch.problems(limits: unlimited).first(where: { problem in
            if case .unsupportedLocale = problem.kind { return false }
            return true
        }) {
            throw problem
        }
    }

    /// The data's phrase counts with the patch's merged in: a patch phrase sets the count of the phrase with the
    /// same text, else with the same words, or is added. Appends one line per change to `changes`.
    private func patchedPhraseCounts(with patch: CustomLanguageModelData, changes: inout [String]) -> [PhraseCount] {
        var phraseCounts = self.phraseCounts
        for change in patch.phraseCounts {
            let words = WordTokenizer.tokenize(change.phrase)
            if let index = phraseCounts.firstIndex(where: { $0.phrase == change.phrase })
                ?? phraseCounts.firstIndex(where: { WordTokenizer.tokenize($0.phrase) == words })
            {
                guard phraseCounts[index].count != change.count else { continue }
                changes.append(
                    "phrase \(Self.quoted(phraseCounts[index].phrase)): count \(phraseCounts[index].count) → "
                        + "\(change.count)")
                phraseCounts[index].count = change.count
            } else {
                changes.append("phrase \(Self.quoted(change.phrase)) added with count \(change.count)")
                phraseCounts.append(change)
            }
        }
        return phraseCounts
    }

    /// The data's template groups with the patch's merged in: a patch template sets the count of the template
    /// with the same text, preferring the group with the patch group's classes; the others are added in a new
    /// group. Appends one line per change to `changes`.
    private func patchedTemplateGroups(
        with patch: CustomLanguageModelData, changes: inout [String]
    ) -> [PhraseCountsFromTemplates] {
        var groups = templateGroups
        for group in patch.templateGroups {
            var added: [TemplatePhraseCountGenerator.Template] = []
            for change in group.templates {
                // The group with the patch's classes first, else the first with that text.
                let holding = groups.indices.compactMap { g in
                    groups[g].templates.firstIndex { $0.body == change.body }.map { (g, $0) }
                }
                let found = holding.first { groups[$0.0].classes == group.classes } ?? holding.first
                if let (g, t) = found {
                    guard groups[g].templates[t].count != change.count else { continue }
                    changes.append(
                        "template \(Self.quoted(change.body)): count \(groups[g].templates[t].count) → \(change.count)")
                    groups[g].templates[t].count = change.count
                } else {
                    added.append(change)
                }
            }
            if !added.isEmpty {
                changes += added.map { "template \(Self.quoted($0.body)) added with count \($0.count)" }
                // Only the classes the added templates use: the patch's others name the group it changes, and
                // would sit unused in the new one.
                let used = Set(added.flatMap(\.classReferences))
                groups.append(
                    PhraseCountsFromTemplates(
                        classes: group.classes.filter { used.contains($0.key) }, templates: added,
                        location: group.location))
            }
        }
        return groups
    }

    /// The data's pronunciations with the patch's merged in: the patch's X-SAMPA strings a word lacks are added
    /// to it, and a new word is added whole. Appends one line per added string to `changes`.
    private func patchedPronunciations(
        with patch: CustomLanguageModelData, changes: inout [String]
    ) -> [CustomPronunciation] {
        var pronunciations = self.pronunciations
        for change in patch.pronunciations {
            if let index = pronunciations.firstIndex(where: { $0.word == change.word }) {
                let new = change.phonemes.filter { !pronunciations[index].phonemes.contains($0) }
                pronunciations[index].phonemes += new
                changes += new.map { "pronunciation of \(change.grapheme) added: \($0)" }
            } else {
                pronunciations.append(change)
                changes += change.phonemes.map { "pronunciation of \(change.grapheme) added: \($0)" }
            }
        }
        return pronunciations
    }
}
