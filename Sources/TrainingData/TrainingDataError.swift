import Foundation
import StrictYAML

/// Where a piece of training data came from: a YAML file and line, or a Swift call site.
///
/// Locations are carried for error messages only; they are not part of the exported data, so the
/// same data written in YAML and in Swift exports to identical bytes.
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file the data came from (a YAML path, a Swift `#fileID`), if known.
    public var file: String?
    /// The 1-based line in `file`, if known.
    public var line: Int?

    /// Creates a location.
    public init(file: String? = nil, line: Int? = nil) {
        self.file = file
        self.line = line
    }

    public var description: String {
        switch (file, line) {
        case (let file?, let line?): return "\(file):\(line)"
        case (let file?, nil): return file
        case (nil, let line?): return "line \(line)"
        case (nil, nil): return "<unknown location>"
        }
    }
}

/// A problem with custom language model training data, with where it is and what to do about it.
public struct TrainingDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// A template names a class (`<pice>`) that its `classes` do not define.
        case unknownClass(name: String, template: String, known: [String])
        /// A template has a `<` without a matching `>`, or an empty `<>`.
        case malformedTemplate(template: String, problem: String)
        /// A class used by a template has no values.
        case emptyClass(name: String)
        /// A phrase (or template, class value, grapheme) has no words once tokenized.
        case emptyPhrase(what: String, text: String)
        /// A custom pronunciation's grapheme is more than one word once tokenized.
        case multiWordGrapheme(grapheme: String, words: [String])
        /// Text holds a decoder marker (`</s>`, `<unk>`, `[noise]`, `++breath++`) that the tokenizer
        /// would turn into an ordinary word.
        case reservedToken(what: String, text: String, token: String)
        /// A word has no pronunciation from any source, so the recognizer can never produce it.
        case unpronounceable(word: String, what: String?, text: String?)
        /// A count is zero or negative.
        case nonPositiveCount(what: String, count: Int)
        /// A pronunciation uses X-SAMPA symbols the locale does not support.
        case unsupportedPhonemes(grapheme: String, pronunciation: String, symbols: [String])
        /// A custom pronunciation has no pronunciation strings, or an empty one.
        case emptyPronunciation(grapheme: String)
        /// The data's locale is not the one it is being used for.
        case localeMismatch(data: String, requested: String)
        /// No phone set is known for the locale.
        case unsupportedLocale(String)
        /// The total number of samples is over the budget.
        case budgetExceeded(total: Int, budget: Int)
        /// A template would expand to more phrases than the limit.
        case expansionTooLarge(template: String, expansions: Int?, limit: Int)
        /// The YAML text could not be parsed.
        case malformedYAML(problem: String)
        /// A required key is missing.
        case missingKey(key: String, context: String)
        /// A key is not one this format knows.
        case unknownKey(key: String, context: String, allowed: [String])
        /// A value has the wrong type.
        case wrongType(key: String, expected: String, found: String)
        /// An exported file has a format version this build cannot read.
        case unsupportedFormatVersion(found: Int, supported: Int)
        /// An exported file could not be read.
        case malformedExport(problem: String)
        /// A patch (`gambit lint --apply`) is for other data: its locale or identifier differs.
        case patchMismatch(field: String, data: String, patch: String)
        /// A template group has classes but no templates (`items: []`), so nothing of it is trained.
        case emptyTemplateGroup(classes: [String])
        /// A phrase holds what reads as a class reference (`< piece >`); phrases are taken word for word.
        case classReferenceInPhrase(text: String, reference: String)
        /// Warning: a class no template of its group uses, so its values are never trained.
        case unusedClass(name: String, values: [String])
        /// Warning: a phrase says the same words as an earlier one, so their counts add up.
        case duplicatePhrase(text: String, first: String, firstLocation: SourceLocation?, total: Int)
    }

    /// What went wrong.
    public var kind: Kind
    /// Where it went wrong, if known.
    public var location: SourceLocation?

    /// Creates an error.
    public init(_ kind: Kind, at location: SourceLocation? = nil) {
        self.kind = kind
        self.location = location
    }

    /// Whether this is a warning: the data can be used as written, but probably says less than its author meant.
    /// ``CustomLanguageModelData/warnings()`` gives these, and
    /// ``CustomLanguageModelData/problems(limits:requestedLocale:)`` never does.
    public var isWarning: Bool {
        switch kind {
        case .unusedClass, .duplicatePhrase: true
        default: false
        }
    }

    public var description: String {
        let severity = isWarning ? "warning" : "error"
        let prefix = location.map { "\($0): \(severity): " } ?? "\(severity): "
        return prefix + message
    }

    /// The message without the location prefix.
    public var message: String {
        switch kind {
        case .unknownClass(let name, let template, let known):
            var text = "template \"\(template)\" uses unknown class <\(name)>"
            if let suggestion = nearestKey(to: name, in: known) {
                text += "; did you mean <\(suggestion)>?"
            }
            let list = known.isEmpty ? "none" : known.map { "<\($0)>" }.joined(separator: ", ")
            return text + " Defined classes: \(list). Define the class under `classes` or fix the name."
        case .malformedTemplate(let template, let problem):
            return "template \"\(template)\" is malformed: \(problem). Write class references as <name>."
        case .emptyClass(let name):
            return "class <\(name)> has no values; give it at least one value or remove it from the templates."
        case .emptyPhrase(let what, let text):
            return "\(what) \"\(text)\" has no words once punctuation is removed; remove it or add words."
        case .multiWordGrapheme(let grapheme, let words):
            return "custom pronunciation of \"\(grapheme)\" is for \(words.count) words"
                + " (\(words.joined(separator: ", "))); a pronunciation is for one word."
                + " Give each word its own entry, or write the grapheme as one word."
        case .reservedToken(let what, let text, let token):
            return "\(what) \"\(text)\" contains \"\(token)\", a recognizer marker, not a word;"
                + " it would become the word \"\(WordTokenizer.tokenize(token).joined(separator: " "))\"."
                + " Remove it: sentence boundaries are added for you, and noise is not trained."
        case .unpronounceable(let word, let what, let text):
            let place = what.map { w in text.map { " in \(w) \"\($0)\"" } ?? " in \(w)" } ?? ""
            return "word \"\(word)\"\(place) cannot be pronounced: the base dictionary lacks it, the data gives no"
                + " pronunciation and the spelling rules produce none, so it can never be recognised."
                + " Add a `pronunciations` entry for it (X-SAMPA), or write it in Latin letters."
        case .nonPositiveCount(let what, let count):
            return "\(what) has count \(count); counts must be positive whole numbers (1 or more)."
        case .unsupportedPhonemes(let grapheme, let pronunciation, let symbols):
            let list = symbols.map { "\"\($0)\"" }.joined(separator: ", ")
            return "pronunciation \"\(pronunciation)\" of \"\(grapheme)\" uses unsupported X-SAMPA symbol"
                + (symbols.count == 1 ? " " : "s ") + list
                + ". Use the symbols from CustomLanguageModelData.supportedPhonemes(locale:),"
                + " separated by spaces (e.g. \"w I n aU @r\")."
        case .emptyPronunciation(let grapheme):
            return "custom pronunciation of \"\(grapheme)\" has no phonemes; give at least one X-SAMPA string."
        case .localeMismatch(let data, let requested):
            return "the training data is for locale \(data) but the recognizer uses \(requested);"
                + " build the data for \(requested) or recognize with \(data)."
        case .unsupportedLocale(let locale):
            return "locale \(locale) is not supported; only en-US has an acoustic model and phone set."
        case .budgetExceeded(let total, let budget):
            return "the data has \(total) samples, \(total - budget) over the budget of \(budget);"
                + " lower phrase or template counts, or raise the budget."
        case .expansionTooLarge(let template, let expansions, let limit):
            let size = expansions.map { "\($0)" } ?? "more than \(Int.max)"
            return "template \"\(template)\" expands to \(size) phrases, over the limit of \(limit);"
                + " split it into smaller templates or use smaller classes."
        case .malformedYAML(let problem):
            return "malformed YAML: \(problem)"
        case .missingKey(let key, let context):
            return "missing required key `\(key)` in \(context)."
        case .unknownKey(let key, let context, let allowed):
            return UnknownKeyError(key: key, context: context, line: nil, allowed: allowed).description
        case .wrongType(let key, let expected, let found):
            return "`\(key)` must be \(expected), found \(found)."
        case .unsupportedFormatVersion(let found, let supported):
            return "export file has formatVersion \(found); this build reads version \(supported)."
                + " Re-export the data with this version of Gambit."
        case .malformedExport(let problem):
            return "cannot read the exported training data: \(problem)"
        case .patchMismatch(let field, let data, let patch):
            return "the patch's \(field) is \"\(patch)\" but the training data's is \"\(data)\"; "
                + "a patch applies only to the data it was made for"
        case .emptyTemplateGroup(let classes):
            let list = classes.isEmpty ? "no classes" : "classes " + classes.map { "<\($0)>" }.joined(separator: ", ")
            return "a template group with \(list) has no templates (`items` is empty), so none of it is trained;"
                + " add a template under `items`, or remove the group."
        case .classReferenceInPhrase(let text, let reference):
            let words = WordTokenizer.tokenize(reference).joined(separator: " ")
            return "phrase \"\(text)\" holds \"\(reference)\", which reads as a class reference, but a phrase is"
                + " taken word for word (it would train the word \"\(words)\"). Put it in a template, written"
                + " <\(words)> with a class of that name, or write the words themselves."
        case .unusedClass(let name, let values):
            let shown = values.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ") + (values.count > 3 ? ", …" : "")
            return "class <\(name)> is defined but no template of its group uses it, so its values (\(shown)) are"
                + " never trained. Use it in a template as <\(name)>, or remove it."
        case .duplicatePhrase(let text, let first, let firstLocation, let total):
            let place = firstLocation.map { " (\($0))" } ?? ""
            return "phrase \"\(text)\" says the same words as \"\(first)\"\(place), so their counts add up to"
                + " \(total). Give the words once, with the count you mean."
        }
    }
}
