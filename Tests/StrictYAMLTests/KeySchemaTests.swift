import Foundation
import StrictYAML
import Testing
import Yams

@Suite("Strict keys")
struct KeySchemaTests {
    static let schema = KeySchema.mapping([
        "name": .value,
        "variants": .list(.mapping(["name": .value, "weight": .value, "training": .value])),
        "gate": .mapping(["corpora": .namedEntries(.mapping(["maxIncrease": .value]))]),
    ])

    static func check(_ yaml: String) throws -> UnknownKeyError? {
        let node = try #require(try Yams.compose(yaml: yaml))
        do {
            try schema.check(node)
            return nil
        } catch {
            return error
        }
    }

    @Test("A misspelt key is an error with its place, line, column and the nearest known key")
    func misspelt() throws {
        let error = try #require(
            try Self.check(
                """
                name: chess
                variants:
                  - name: seed
                    training: seed.yaml
                  - name: full
                    wieght: 0.7
                """))
        #expect(error.key == "wieght")
        #expect(error.context == "variants[1]")
        #expect(error.line == 6 && error.column == 5)
        #expect(error.suggestion == "weight")
        #expect(
            error.description
                == "unknown key `wieght` in variants[1]; did you mean `weight`? Allowed keys: `name`, `training`, `weight`."
        )
    }

    @Test("Names the user chooses are not keys, but what is under them is checked")
    func namedEntries() throws {
        #expect(try Self.check("gate:\n  corpora:\n    any-corpus-name: {maxIncrease: 1}\n") == nil)
        let error = try #require(try Self.check("gate:\n  corpora:\n    chess: {maxIncrase: 1}\n"))
        #expect(error.context == "gate.corpora.chess" && error.suggestion == "maxIncrease" && error.line == 3)
    }

    @Test("A single value where a list belongs is checked as one item; a far-off key suggests nothing")
    func singleItemAndNoSuggestion() throws {
        let error = try #require(try Self.check("variants: {name: seed, colour: red}\n"))
        #expect(error.context == "variants" && error.key == "colour" && error.suggestion == nil)
        #expect(!error.description.contains("did you mean"))
    }

    @Test("The first unknown key in document order is the one reported")
    func documentOrder() throws {
        let error = try #require(try Self.check("zeta: 1\nname: x\nalpha: 2\n"))
        #expect(error.key == "zeta" && error.line == 1)
    }

    @Test("Nearest key: one edit, a swap of neighbours, or a third of the length; case does not count")
    func nearest() {
        #expect(nearestKey(to: "modse", in: ["modes", "models"]) == "modes")
        #expect(nearestKey(to: "WEIGHT", in: ["weight"]) == "weight")
        #expect(nearestKey(to: "corpra", in: ["corpora", "variants"]) == "corpora")
        #expect(nearestKey(to: "xyz", in: ["corpora", "variants"]) == nil)
        #expect(nearestKey(to: "ab", in: ["ax", "ay"]) == "ax")
    }

    @Test("A quoted string reads back as itself in YAML and JSON, control characters escaped")
    func quoted() throws {
        for text in ["plain", "with \"quotes\" and \\", "tab\there\nnew line", "bell\u{07} del\u{7F}", "zoë иван"] {
            let quoted = quotedString(text)
            #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
            #expect(try Yams.load(yaml: "key: \(quoted)") as? [String: String] == ["key": text])
            let json = try JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String]
            #expect(json == [text])
        }
    }
}
