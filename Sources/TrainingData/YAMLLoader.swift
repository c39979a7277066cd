import Foundation
import StrictYAML
import Yams

extension CustomLanguageModelData {
    /// Reads training data from a YAML file.
    ///
    /// See ``init(yaml:file:)`` for the schema.
    /// - Throws: ``TrainingDataError`` with the file and line of the problem, or a file system error.
    public init(yamlFile url: URL) throws {
        let data = try Data(contentsOf: url)
        switch UTF8Text.decode(data) {
        case .success(let text):
            try self.init(yaml: text, file: url.path)
        case .failure(let invalid):
            throw TrainingDataError(
                .malformedYAML(problem: invalid.explanation), at: SourceLocation(file: url.path, line: invalid.line))
        }
    }

    /// Reads training data from YAML text.
    ///
    /// ```yaml
    /// locale: en-US
    /// identifier: com.example.chess
    /// version: "1.0"
    /// private: false            # optional
    /// phrases:                  # optional
    ///   - {phrase: "play the albin counter gambit", count: 10}
    /// templates:                # optional
    ///   - classes: {piece: [pawn, queen], rank: ["1", "2"]}
    ///     items:
    ///       - {template: "<piece> to <rank>", count: 10000}
    /// pronunciations:           # optional
    ///   - {grapheme: winawer, phonemes: ["w I n aU @r"]}   # phonemes may also be one string
    /// ```
    /// Unknown keys are errors, so that a typo does not silently drop data.
    /// - Parameters:
    ///   - yaml: The YAML text.
    ///   - file: The file name to put in error locations.
    /// - Throws: ``TrainingDataError`` with the line of the problem.
    public init(yaml: String, file: String? = nil) throws {
        let reader = YAMLReader(file: file)
        let top = try Self.readTopLevel(of: yaml, reader: reader)
        self.init(
            locale: Locale(identifier: try reader.string(top["locale"]!, key: "locale")),
            identifier: try reader.string(top["identifier"]!, key: "identifier"),
            version: try reader.string(top["version"]!, key: "version"))
        if let node = top["private"] {
            guard let flag = node.scalar.flatMap(Bool.construct) else {
                throw reader.wrongType(node, key: "private", expected: "true or false")
            }
            isPrivate = flag
        }
        if let node = top["phrases"] {
            for phrase in try Self.readPhraseCounts(in: node, reader: reader) { insert(phraseCount: phrase) }
        }
        if let node = top["templates"] {
            for (index, item) in try reader.sequence(node, key: "templates").enumerated() {
                insert(templates: try Self.readTemplateGroup(item, context: "templates[\(index)]", reader: reader))
            }
        }
        if let node = top["pronunciations"] {
            for term in try Self.readPronunciations(in: node, reader: reader) { insert(term: term) }
        }
    }

    /// The top-level mapping of the YAML text, with its keys checked: an empty document, a YAML error, an unknown
    /// key or a missing required one throws, located in the text.
    private static func readTopLevel(of yaml: String, reader: YAMLReader) throws -> [String: Node] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw reader.error(from: error)
        }
        guard let root else {
            throw TrainingDataError(
                .malformedYAML(problem: "the document is empty"), at: SourceLocation(file: reader.file))
        }
        do {
            try schema.check(root)
        } catch {
            throw TrainingDataError(
                .unknownKey(key: error.key, context: error.context, allowed: error.allowed),
                at: SourceLocation(file: reader.file, line: error.line))
        }
        return try reader.mapping(
            root, context: "the top level",
            allowed: ["locale", "identifier", "version", "private", "phrases", "templates", "pronunciations"],
            required: ["locale", "identifier", "version"])
    }

    /// The keys training data may have, checked before any value is read, as a suite's are: a misspelt key is an
    /// error with its line and the nearest known key, never a default left in force.
    static let schema = KeySchema.mapping([
        "locale": .value, "identifier": .value, "version": .value, "private": .value,
        "phrases": .list(.mapping(["phrase": .value, "count": .value])),
        "templates": .list(
            .mapping(["classes": .value, "items": .list(.mapping(["template": .value, "count": .value]))])),
        "pronunciations": .list(.mapping(["grapheme": .value, "phonemes": .value])),
    ])

    /// The phrase counts of the `phrases` list, in order, each located at its item.
    private static func readPhraseCounts(in node: Node, reader: YAMLReader) throws -> [PhraseCount] {
        var phraseCounts: [PhraseCount] = []
        for (index, item) in try reader.sequence(node, key: "phrases").enumerated() {
            let fields = try reader.mapping(
                item, context: "phrases[\(index)]", allowed: ["phrase", "count"], required: ["phrase", "count"])
            phraseCounts.append(
                PhraseCount(
                    phrase: try reader.string(fields["phrase"]!, key: "phrase"),
                    count: try reader.int(fields["count"]!, key: "count"),
                    location: reader.location(item)))
        }
        return phraseCounts
    }

    /// One item of the `templates` list: its classes and its templates, located at the item; `context` names the
    /// item in errors.
    private static func readTemplateGroup(
        _ item: Node, context: String, reader: YAMLReader
    ) throws -> PhraseCountsFromTemplates {
        let fields = try reader.mapping(
            item, context: context, allowed: ["classes", "items"], required: ["classes", "items"])
        var classes: [String: [String]] = [:]
        let classNode = fields["classes"]!
        guard case .mapping(let classMapping) = classNode else {
            throw reader.wrongType(classNode, key: "classes", expected: "a mapping of class name to values")
        }
        for (nameNode, valuesNode) in classMapping {
            let name = try reader.string(nameNode, key: "class name")
            classes[name] = try reader.sequence(valuesNode, key: "classes.\(name)").map {
                try reader.string($0, key: "value of class \(name)")
            }
        }
        var templates: [TemplatePhraseCountGenerator.Template] = []
        for (itemIndex, templateNode) in try reader.sequence(fields["items"]!, key: "items").enumerated() {
            let templateFields = try reader.mapping(
                templateNode, context: "\(context).items[\(itemIndex)]", allowed: ["template", "count"],
                required: ["template", "count"])
            templates.append(
                TemplatePhraseCountGenerator.Template(
                    try reader.string(templateFields["template"]!, key: "template"),
                    count: try reader.int(templateFields["count"]!, key: "count"),
                    location: reader.location(templateNode)))
        }
        return PhraseCountsFromTemplates(classes: classes, templates: templates, location: reader.location(item))
    }

    /// The pronunciations of the `pronunciations` list, in order, each located at its item; an item's phonemes
    /// may be a list of strings or one string.
    private static func readPronunciations(in node: Node, reader: YAMLReader) throws -> [CustomPronunciation] {
        var pronunciations: [CustomPronunciation] = []
        for (index, item) in try reader.sequence(node, key: "pronunciations").enumerated() {
            let fields = try reader.mapping(
                item, context: "pronunciations[\(index)]", allowed: ["grapheme", "phonemes"],
                required: ["grapheme", "phonemes"])
            let phonemesNode = fields["phonemes"]!
            let phonemes: [String]
            if case .sequence = phonemesNode {
                phonemes = try reader.sequence(phonemesNode, key: "phonemes").map {
                    try reader.string($0, key: "phonemes")
                }
            } else {
                phonemes = [try reader.string(phonemesNode, key: "phonemes")]
            }
            pronunciations.append(
                CustomPronunciation(
                    grapheme: try reader.string(fields["grapheme"]!, key: "grapheme"), phonemes: phonemes,
                    location: reader.location(item)))
        }
        return pronunciations
    }
}

/// Typed, located access to a composed YAML tree.
private struct YAMLReader {
    var file: String?

    func location(_ node: Node) -> SourceLocation {
        SourceLocation(file: file, line: node.mark?.line)
    }

    func error(from error: YamlError) -> TrainingDataError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            var text = problem
            if let context { text += " (\(context.text) at line \(context.mark.line))" }
            return TrainingDataError(.malformedYAML(problem: text), at: SourceLocation(file: file, line: mark.line))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return TrainingDataError(
                .malformedYAML(
                    problem: "duplicate key \(duplicates.joined(separator: ", ")); each key may appear once"),
                at: SourceLocation(file: file, line: context.mark.line))
        default:
            return TrainingDataError(.malformedYAML(problem: "\(error)"), at: SourceLocation(file: file))
        }
    }

    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain, node.null != nil { return "nothing (null)" }
            return "\"\(scalar.string)\""
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    func wrongType(_ node: Node, key: String, expected: String) -> TrainingDataError {
        TrainingDataError(.wrongType(key: key, expected: expected, found: describe(node)), at: location(node))
    }

    /// The mapping's values by key, its required keys present. Its keys were checked against
    /// ``CustomLanguageModelData/schema`` before anything was read; `allowed` names them in the message for a
    /// value that is not a mapping.
    func mapping(_ node: Node, context: String, allowed: [String], required: [String]) throws -> [String: Node] {
        guard case .mapping(let mapping) = node else {
            throw wrongType(node, key: context, expected: "a mapping with keys \(allowed.joined(separator: ", "))")
        }
        var fields: [String: Node] = [:]
        for (keyNode, value) in mapping {
            fields[keyNode.scalar?.string ?? describe(keyNode)] = value
        }
        for key in required where fields[key] == nil {
            throw TrainingDataError(.missingKey(key: key, context: context), at: location(node))
        }
        return fields
    }

    func sequence(_ node: Node, key: String) throws -> [Node] {
        guard case .sequence(let sequence) = node else {
            throw wrongType(node, key: key, expected: "a list")
        }
        return Array(sequence)
    }

    func string(_ node: Node, key: String) throws -> String {
        guard case .scalar(let scalar) = node, !(scalar.style == .plain && node.null != nil) else {
            throw wrongType(node, key: key, expected: "a string")
        }
        return scalar.string
    }

    func int(_ node: Node, key: String) throws -> Int {
        guard case .scalar(let scalar) = node, let value = Int.construct(from: scalar) else {
            throw wrongType(node, key: key, expected: "a whole number")
        }
        return value
    }
}
