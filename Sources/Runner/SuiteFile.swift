import LanguageModel
import Yams

/// A value of a user's YAML file with the line it is on, decoded leniently: ``value`` is nil when the node is not a
/// `Value` (a list where a name belongs, a mapping where a list does), so the loader can say what was expected, on
/// that line, in its own words.
struct Lined<Value: Decodable>: Decodable {
    var value: Value?
    var line: Int?
    /// What the file wrote when it is not a `Value` (`a list, [0.5]`), for the message that refuses it.
    var written: String?

    init(from decoder: any Decoder) throws {
        line = decoder.mark?.line
        value = try? Value(from: decoder)
        if value == nil { written = WrittenValue.kind(of: decoder) }
    }
}

/// Any YAML value, read back as text for a message: a scalar as written, a list or a mapping in flow style.
struct WrittenValue: Decodable {
    var text: String

    init(from decoder: any Decoder) throws { text = Self.text(of: decoder) }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value as flow-style YAML (`[0.5]`, `{a: 1}`), cut at 60 characters.
    static func text(of decoder: any Decoder) -> String {
        let text: String
        if let scalar = try? String(from: decoder) {
            text = scalar
        } else if var list = try? decoder.unkeyedContainer() {
            var items: [String] = []
            while !list.isAtEnd, let item = try? list.decode(WrittenValue.self) { items.append(item.text) }
            text = "[" + items.joined(separator: ", ") + "]"
        } else if let mapping = try? decoder.container(keyedBy: Key.self) {
            text =
                "{"
                + mapping.allKeys.map { key in
                    key.stringValue + ": " + ((try? mapping.decode(WrittenValue.self, forKey: key))?.text ?? "?")
                }.joined(separator: ", ") + "}"
        } else {
            text = "?"
        }
        return text.count > 60 ? text.prefix(59) + "…" : text
    }

    /// What kind of value it is, and the value: `a list, [0.5]`, `a mapping, {a: 1}`, or a scalar in quotes.
    static func kind(of decoder: any Decoder) -> String {
        let text = text(of: decoder)
        if text.hasPrefix("["), (try? decoder.unkeyedContainer()) != nil { return "a list, \(text)" }
        if text.hasPrefix("{"), (try? decoder.container(keyedBy: Key.self)) != nil { return "a mapping, \(text)" }
        return "'\(text)'"
    }
}

extension KeyedDecodingContainer {
    /// A key that is there is decoded even when its value is empty or `~` (as the text the file wrote), so that
    /// only an absent key means "not given".
    func decodeIfPresent<Value>(_ type: Lined<Value>.Type, forKey key: Key) throws -> Lined<Value>? {
        contains(key) ? try decode(type, forKey: key) : nil
    }
}

/// One text, or a list of texts each with its line: a recognizer's command, a corpus's allowed folders.
enum TextOrList: Decodable {
    case text(String)
    case list([Lined<String>])

    init(from decoder: any Decoder) throws {
        if let text = try? String(from: decoder) {
            self = .text(text)
        } else {
            self = .list(try [Lined<String>](from: decoder))
        }
    }
}

/// A mapping whose keys the user chooses, in the order written (the `decoder:` settings).
struct OrderedEntries: Decodable {
    var entries: [(key: String, value: Lined<String>)] = []

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        for key in container.allKeys {
            entries.append((key.stringValue, try container.decode(Lined.self, forKey: key)))
        }
    }
}

/// A suite file as written: every key with its line, nothing checked yet but the shape ``Suite/schema`` allows.
/// ``Suite/load(_:)`` decodes it (Yams) and turns it into a ``Suite``, refusing what it cannot use on the line
/// where it is.
struct SuiteFile: Decodable {
    var name: Lined<String>?
    var corpora: Lined<[Lined<CorpusFields>]>?
    var variants: Lined<[Lined<VariantFields>]>?
    var modes: Lined<[Lined<String>]>?
    var recognizers: Lined<[Lined<RecognizerFields>]>?
    var streaming: Lined<StreamingFields>?
    var decoder: Lined<OrderedEntries>?
    var cache: Lined<String>?
    var termForms: Lined<OrderedEntries>?
    var normalize: Lined<String>?

    struct CorpusFields: Decodable {
        var name: Lined<String>?
        var manifest: Lined<String>?
        var role: Lined<String>?
        var split: Lined<String>?
        var texts: Lined<String>?
        var audio: Lined<String>?
        var allowOutsidePaths: Lined<TextOrList>?

        enum CodingKeys: String, CodingKey {
            case name, manifest, role, split, texts, audio
            case allowOutsidePaths = "allow-outside-paths"
        }
    }

    struct VariantFields: Decodable {
        var name: Lined<String>?
        var training: Lined<String>?
        var corpora: Lined<[Lined<String>]>?
        /// The prepare options it gives, by their name in ``PrepareOptions/settings``.
        var options: [String: Lined<String>] = [:]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            name = try container.decodeIfPresent(Lined<String>.self, forKey: Key(stringValue: "name"))
            training = try container.decodeIfPresent(Lined<String>.self, forKey: Key(stringValue: "training"))
            corpora = try container.decodeIfPresent(Lined<[Lined<String>]>.self, forKey: Key(stringValue: "corpora"))
            for setting in PrepareOptions.settings where setting.inSuite {
                options[setting.name] = try container.decodeIfPresent(
                    Lined<String>.self, forKey: Key(stringValue: setting.name))
            }
        }
    }

    struct RecognizerFields: Decodable {
        var name: Lined<String>?
        var command: Lined<TextOrList>?
        var onDevice: Lined<String>?
        var timeout: Lined<String>?
        var corpora: Lined<[Lined<String>]>?
        var version: Lined<String>?
        var customization: Lined<CustomizationFields>?
        var transcripts: Lined<TranscriptFields>?
        var serve: Lined<TextOrList>?
        var phraseLists: Lined<PhraseListFields>?
    }

    struct PhraseListFields: Decodable {
        var decode: Lined<TextOrList>?
        var serve: Lined<TextOrList>?
        var limit: Lined<String>?
        var unit: Lined<String>?
        var modes: Lined<[Lined<String>]>?
        var variants: Lined<[Lined<String>]>?
        var distractors: Lined<String>?
    }

    struct TranscriptFields: Decodable {
        var baseline: Lined<String>?
        var customized: Lined<String>?
        var variants: Lined<[Lined<String>]>?
        var format: Lined<String>?
    }

    struct CustomizationFields: Decodable {
        var prepare: Lined<TextOrList>?
        var decode: Lined<TextOrList>?
        var variants: Lined<[Lined<String>]>?
        var allowPrivate: Lined<String>?
        var prepareTimeout: Lined<String>?
        var serve: Lined<TextOrList>?
    }

    struct StreamingFields: Decodable {
        var utterances: Lined<String>?
        var chunkMilliseconds: Lined<String>?
        var pacing: Lined<String>?
        var trailingSilenceMilliseconds: Lined<String>?
    }
}
