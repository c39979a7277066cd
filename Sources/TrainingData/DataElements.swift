import Foundation

/// Something that can be added to ``CustomLanguageModelData`` from its result builder.
public protocol DataInsertable: Sendable {
    /// Adds this element to `data`.
    func insert(into data: inout CustomLanguageModelData)
}

/// A phrase and how many times it should count as seen, like `SFCustomLanguageModelData.PhraseCount`.
public struct PhraseCount: DataInsertable, Hashable, CustomStringConvertible {
    /// The phrase as written; it is tokenized with ``WordTokenizer``.
    public var phrase: String
    /// How many samples of the phrase to train on; must be positive.
    public var count: Int
    /// Where the phrase was defined, for error messages; not part of equality or the export.
    public var location: SourceLocation?

    /// Creates a phrase count.
    /// - Parameters:
    ///   - phrase: The phrase as written.
    ///   - count: The number of samples; must be positive.
    public init(phrase: String, count: Int, fileID: String = #fileID, line: Int = #line) {
        self.init(phrase: phrase, count: count, location: SourceLocation(file: fileID, line: line))
    }

    /// Creates a phrase count read from a file, located where the file says it (a manifest's line, for
    /// phrases made from a corpus's references), so that an error about it names that place.
    public init(phrase: String, count: Int, location: SourceLocation?) {
        self.phrase = phrase
        self.count = count
        self.location = location
    }

    public func insert(into data: inout CustomLanguageModelData) {
        data.insert(phraseCount: self)
    }

    public static func == (lhs: PhraseCount, rhs: PhraseCount) -> Bool {
        lhs.phrase == rhs.phrase && lhs.count == rhs.count
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(phrase)
        hasher.combine(count)
    }

    public var description: String { "\"\(phrase)\" ×\(count)" }
}

/// Something that can appear inside ``PhraseCountsFromTemplates``'s builder.
public protocol TemplateInsertable: Sendable {
    /// The templates this element contributes.
    var templates: [TemplatePhraseCountGenerator.Template] { get }
}

/// Templates over word classes, like `SFCustomLanguageModelData.TemplatePhraseCountGenerator`.
public enum TemplatePhraseCountGenerator {
    /// A template such as `"<piece> to <royal> <piece> <rank>"` and the total samples of its expansions.
    ///
    /// As Apple documents, `count` is the number of samples for all expansions together, divided
    /// evenly among them: 10,000 over 576 expansions gives each 17.36.
    public struct Template: TemplateInsertable, Hashable, CustomStringConvertible {
        /// The template text; `<name>` refers to a class.
        public var body: String
        /// Total samples over all expansions; must be positive.
        public var count: Int
        /// Where the template was defined, for error messages; not part of equality or the export.
        public var location: SourceLocation?

        /// Creates a template.
        /// - Parameters:
        ///   - body: The template text, with classes referenced as `<name>`.
        ///   - count: Total samples shared evenly by all expansions.
        public init(_ body: String, count: Int, fileID: String = #fileID, line: Int = #line) {
            self.init(body, count: count, location: SourceLocation(file: fileID, line: line))
        }

        init(_ body: String, count: Int, location: SourceLocation?) {
            self.body = body
            self.count = count
            self.location = location
        }

        public var templates: [Template] { [self] }

        /// The class names the template refers to (`<piece>` → `piece`), in order, repeats included.
        public var classReferences: [String] {
            body.matches(of: #/<([^<>]*)>/#).map { String($0.output.1).trimmingCharacters(in: .whitespaces) }
        }

        public static func == (lhs: Template, rhs: Template) -> Bool {
            lhs.body == rhs.body && lhs.count == rhs.count
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(body)
            hasher.combine(count)
        }

        public var description: String { "\"\(body)\" ×\(count)" }
    }
}

/// Builds the template list of ``PhraseCountsFromTemplates``.
@resultBuilder
public enum TemplateInsertableBuilder {
    public static func buildExpression(_ expression: any TemplateInsertable) -> [TemplatePhraseCountGenerator.Template]
    {
        expression.templates
    }

    public static func buildBlock(_ parts: [TemplatePhraseCountGenerator.Template]...)
        -> [TemplatePhraseCountGenerator.Template]
    {
        parts.flatMap { $0 }
    }

    public static func buildOptional(_ part: [TemplatePhraseCountGenerator.Template]?)
        -> [TemplatePhraseCountGenerator.Template]
    {
        part ?? []
    }

    public static func buildEither(first part: [TemplatePhraseCountGenerator.Template])
        -> [TemplatePhraseCountGenerator.Template]
    {
        part
    }

    public static func buildEither(second part: [TemplatePhraseCountGenerator.Template])
        -> [TemplatePhraseCountGenerator.Template]
    {
        part
    }

    public static func buildArray(_ parts: [[TemplatePhraseCountGenerator.Template]])
        -> [TemplatePhraseCountGenerator.Template]
    {
        parts.flatMap { $0 }
    }
}

/// Word classes and the templates that use them, like `SFCustomLanguageModelData.PhraseCountsFromTemplates`.
///
/// A word may be in several classes (`queen` in both `piece` and `royal`); each class reference in a
/// template is expanded independently.
public struct PhraseCountsFromTemplates: DataInsertable, Hashable {
    /// Class name → values. Values are phrases and may have several words.
    public var classes: [String: [String]]
    /// The templates, in order.
    public var templates: [TemplatePhraseCountGenerator.Template]
    /// Where the group was defined, for error messages; not part of equality or the export.
    public var location: SourceLocation?

    /// Creates templates over classes with a result builder.
    public init(
        classes: [String: [String]], fileID: String = #fileID, line: Int = #line,
        @TemplateInsertableBuilder templates: () -> [TemplatePhraseCountGenerator.Template]
    ) {
        self.init(classes: classes, templates: templates(), location: SourceLocation(file: fileID, line: line))
    }

    /// Creates templates over classes from a list gathered at run time.
    public init(
        classes: [String: [String]], templates: [TemplatePhraseCountGenerator.Template],
        location: SourceLocation? = nil
    ) {
        self.classes = classes
        self.templates = templates
        self.location = location
    }

    public func insert(into data: inout CustomLanguageModelData) {
        data.insert(templates: self)
    }

    public static func == (lhs: PhraseCountsFromTemplates, rhs: PhraseCountsFromTemplates) -> Bool {
        lhs.classes == rhs.classes && lhs.templates == rhs.templates
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(classes)
        hasher.combine(templates)
    }
}

/// A word and how it is pronounced, like `SFCustomLanguageModelData.CustomPronunciation`.
public struct CustomPronunciation: DataInsertable, Hashable {
    /// The word as written.
    public var grapheme: String
    /// One or more pronunciations, each an X-SAMPA string such as `"w I n aU @r"`.
    public var phonemes: [String]
    /// Where the pronunciation was defined, for error messages; not part of equality or the export.
    public var location: SourceLocation?

    /// Creates a custom pronunciation.
    /// - Parameters:
    ///   - grapheme: The word as written.
    ///   - phonemes: Alternative pronunciations in X-SAMPA, symbols separated by spaces.
    public init(grapheme: String, phonemes: [String], fileID: String = #fileID, line: Int = #line) {
        self.init(grapheme: grapheme, phonemes: phonemes, location: SourceLocation(file: fileID, line: line))
    }

    init(grapheme: String, phonemes: [String], location: SourceLocation?) {
        self.grapheme = grapheme
        self.phonemes = phonemes
        self.location = location
    }

    public func insert(into data: inout CustomLanguageModelData) {
        data.insert(term: self)
    }

    public static func == (lhs: CustomPronunciation, rhs: CustomPronunciation) -> Bool {
        lhs.grapheme == rhs.grapheme && lhs.phonemes == rhs.phonemes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(grapheme)
        hasher.combine(phonemes)
    }
}

/// Builds the contents of ``CustomLanguageModelData``.
@resultBuilder
public enum DataInsertableBuilder {
    public static func buildExpression(_ expression: any DataInsertable) -> [any DataInsertable] {
        [expression]
    }

    public static func buildBlock(_ parts: [any DataInsertable]...) -> [any DataInsertable] {
        parts.flatMap { $0 }
    }

    public static func buildOptional(_ part: [any DataInsertable]?) -> [any DataInsertable] {
        part ?? []
    }

    public static func buildEither(first part: [any DataInsertable]) -> [any DataInsertable] {
        part
    }

    public static func buildEither(second part: [any DataInsertable]) -> [any DataInsertable] {
        part
    }

    public static func buildArray(_ parts: [[any DataInsertable]]) -> [any DataInsertable] {
        parts.flatMap { $0 }
    }
}
