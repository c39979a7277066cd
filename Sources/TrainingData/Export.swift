import Foundation

/// The on-disk form of ``CustomLanguageModelData``: JSON with sorted keys, so that export → import →
/// export gives identical bytes, and data written in YAML or Swift exports identically.
struct ExportedForm: Codable, Equatable {
    struct Phrase: Codable, Equatable {
        var phrase: String
        var count: Int
    }

    struct Template: Codable, Equatable {
        var template: String
        var count: Int
    }

    struct TemplateGroup: Codable, Equatable {
        var classes: [String: [String]]
        var templates: [Template]
    }

    struct Pronunciation: Codable, Equatable {
        var grapheme: String
        var phonemes: [String]
    }

    var formatVersion: Int
    var locale: String
    var identifier: String
    var version: String
    var isPrivate: Bool
    var phrases: [Phrase]
    var templateGroups: [TemplateGroup]
    var pronunciations: [Pronunciation]
}

extension CustomLanguageModelData {
    /// The export format version this build writes and reads.
    public static let exportFormatVersion = 1

    var exportedForm: ExportedForm {
        ExportedForm(
            formatVersion: Self.exportFormatVersion,
            locale: localeIdentifier,
            identifier: identifier,
            version: version,
            isPrivate: isPrivate,
            phrases: phraseCounts.map { .init(phrase: $0.phrase, count: $0.count) },
            templateGroups: templateGroups.map { group in
                .init(
                    classes: group.classes, templates: group.templates.map { .init(template: $0.body, count: $0.count) }
                )
            },
            pronunciations: pronunciations.map { .init(grapheme: $0.grapheme, phonemes: $0.phonemes) })
    }

    /// The export file's bytes, without validating.
    public func exportData() throws -> Data {
        try Self.fileBytes(exportedForm)
    }

    /// The bytes of a file Gambit writes for other tools: sorted keys (the same data gives the same bytes),
    /// indented, and a final line break.
    static func fileBytes(_ form: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(form)
        data.append(0x0A)
        return data
    }

    /// Validates the data and writes it as a versioned JSON file.
    /// - Parameters:
    ///   - url: Where to write.
    ///   - limits: The limits to validate against.
    /// - Throws: ``TrainingDataError`` if the data is not valid, or a file system error.
    public func export(to url: URL, limits: TrainingDataLimits = .default) throws {
        try validate(limits: limits)
        try exportData().write(to: url, options: .atomic)
    }

    /// Reads data written by ``export(to:limits:)``.
    /// - Throws: ``TrainingDataError`` if the file is not a readable export, or a file system error.
    public init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        try self.init(exportData: data, file: url.path)
    }

    /// Reads the bytes of an export file.
    /// - Throws: ``TrainingDataError`` if the bytes are not a readable export.
    public init(exportData data: Data, file: String? = nil) throws {
        struct Version: Decodable { var formatVersion: Int? }
        let origin = SourceLocation(file: file)
        let decoder = JSONDecoder()
        let version: Version
        do {
            version = try decoder.decode(Version.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            // The decoder keeps no cause on Linux ("not valid JSON"); the parser's own error says where it breaks.
            var parser: String?
            do { _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) } catch {
                parser = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            }
            throw TrainingDataError(
                .malformedExport(problem: "not a JSON object (\(parser ?? context.debugDescription))"), at: origin)
        } catch {
            throw TrainingDataError(.malformedExport(problem: "not a JSON object (\(error))"), at: origin)
        }
        guard let formatVersion = version.formatVersion else {
            throw TrainingDataError(.malformedExport(problem: "no `formatVersion` field"), at: origin)
        }
        guard formatVersion == Self.exportFormatVersion else {
            throw TrainingDataError(
                .unsupportedFormatVersion(found: formatVersion, supported: Self.exportFormatVersion), at: origin)
        }
        let form: ExportedForm
        do {
            form = try decoder.decode(ExportedForm.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            let path = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            throw TrainingDataError(.malformedExport(problem: "missing `\(path)`"), at: origin)
        } catch let DecodingError.typeMismatch(type, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw TrainingDataError(.malformedExport(problem: "`\(path)` is not \(type)"), at: origin)
        } catch {
            throw TrainingDataError(.malformedExport(problem: "\(error)"), at: origin)
        }
        self.init(locale: Locale(identifier: form.locale), identifier: form.identifier, version: form.version)
        isPrivate = form.isPrivate
        let location = SourceLocation(file: file)
        for phrase in form.phrases {
            insert(phraseCount: PhraseCount(phrase: phrase.phrase, count: phrase.count, location: location))
        }
        for group in form.templateGroups {
            let templates = group.templates.map {
                TemplatePhraseCountGenerator.Template($0.template, count: $0.count, location: location)
            }
            insert(
                templates: PhraseCountsFromTemplates(classes: group.classes, templates: templates, location: location))
        }
        for pronunciation in form.pronunciations {
            insert(
                term: CustomPronunciation(
                    grapheme: pronunciation.grapheme, phonemes: pronunciation.phonemes, location: location))
        }
    }
}

/// The on-disk form of the expanded phrase list (``CustomLanguageModelData/phraseListData(limits:)``).
struct PhraseListForm: Codable, Equatable {
    struct Phrase: Codable, Equatable {
        var phrase: String
        var count: Double
    }

    var formatVersion: Int
    var locale: String
    var identifier: String
    var version: String
    var isPrivate: Bool
    var budget: Int
    var total: Double
    var phrases: [Phrase]
}

extension CustomLanguageModelData {
    /// The phrase list format version this build writes.
    public static let phraseListFormatVersion = 1

    /// The data as one list of phrases with sample counts, what a recognizer's phrase-list API takes: every
    /// phrase, then every expansion of every template with its share of the template's count
    /// (`count / expansions`, so counts may be fractional), as lowercase words. A sentence said by several
    /// phrases or expansions is listed once, where it first appears, with their counts added. Pronunciations
    /// are not in it; ``exportData()`` carries them.
    ///
    /// The data is validated against `limits` first, so the counts are those within the sample budget.
    /// - Throws: ``TrainingDataError`` when the data is not valid, or more expansions than the limits allow.
    public func phraseListData(limits: TrainingDataLimits = .default) throws -> Data {
        var order: [[String]] = []
        var counts: [[String]: Double] = [:]
        for sentence in try weightedSentences(limits: limits) where !sentence.tokens.isEmpty {
            if counts[sentence.tokens] == nil { order.append(sentence.tokens) }
            counts[sentence.tokens, default: 0] += sentence.count
        }
        let phrases = order.map { PhraseListForm.Phrase(phrase: $0.joined(separator: " "), count: counts[$0] ?? 0) }
        let form = PhraseListForm(
            formatVersion: Self.phraseListFormatVersion, locale: localeIdentifier, identifier: identifier,
            version: version, isPrivate: isPrivate, budget: limits.sampleBudget,
            total: phrases.reduce(0) { $0 + $1.count }, phrases: phrases)
        return try Self.fileBytes(form)
    }
}
