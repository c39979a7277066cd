/// One placeholder of an external recognizer's commands: its text, what it becomes, and which commands may use it.
///
/// Commands name their inputs as placeholders, replaced wherever they occur in an argument (no shell is involved).
/// The table ``all`` is the only place a placeholder is spelled: substitution (``values(_:audio:)``), the check of
/// each command (``ExternalRecognizer/problem``) and its messages, and docs/suites-and-runs.md's table (a test
/// compares them) all read it. A new placeholder is one row, plus the field of ``ExternalCustomization/Inputs`` that
/// holds its value.
public struct CommandPlaceholder: Sendable {
    /// The placeholder as a command writes it: `{training}`.
    public var name: String
    /// What it becomes, for documentation.
    public var becomes: String
    /// Whether the prepare command may use it.
    public var prepare: Use
    /// Whether a customized decode command may use it.
    public var decode: Use
    /// Whether the baseline (uncustomized) decode command may use it.
    public var baseline: Use
    /// Whether a phrase-list decode command (``PhraseListLever``) may use it.
    public var list: Use = .no
    /// Its value; nil when the command is run without it.
    let value: @Sendable (_ inputs: ExternalCustomization.Inputs?, _ audio: String?) -> String?

    /// How one command may use a placeholder.
    public enum Use: Sendable, Equatable {
        /// It may not.
        case no
        /// It may.
        case yes
        /// Only when the recognizer has a prepare command (a decode's `{artifact}`).
        case withPrepare
        /// It must, as an argument of its own.
        case required
    }

    /// The commands of an external recognizer, as messages name them.
    public enum Command: Sendable, Equatable, CustomStringConvertible {
        case baseline
        case prepare
        case decode(withPrepare: Bool)
        case list

        public var description: String {
            switch self {
            case .baseline: "the command"
            case .prepare: "the prepare command"
            case .decode: "the customized decode command"
            case .list: "the phrase-list decode command"
            }
        }
    }

    /// How `command` may use this placeholder.
    public func use(in command: Command) -> Use {
        switch command {
        case .baseline: baseline
        case .prepare: prepare
        case .decode(let withPrepare): decode == .withPrepare ? (withPrepare ? .yes : .no) : decode
        case .list: list
        }
    }

    /// The audio file: every decode command's own argument.
    public static let audio = CommandPlaceholder(
        name: "{audio}", becomes: "the audio file", prepare: .no, decode: .required, baseline: .required,
        list: .required
    ) { _, audio in audio }

    /// The utterance's biasing list: a decode given it depends on the utterance's list.
    public static let boosted = CommandPlaceholder(
        name: "{boosted}", becomes: "the utterance's biasing list from the manifest, as a JSON list (`[]` without one)",
        prepare: .no, decode: .yes, baseline: .no, list: .yes
    ) { inputs, _ in inputs.map { ExternalCustomization.Inputs.jsonList($0.boosted ?? []) } }

    /// The phrase list Gambit derived for a list system and utterance: a decode given it depends on it.
    public static let list = CommandPlaceholder(
        name: "{list}",
        becomes: "the phrase list Gambit derived for the system (and, for a local list, the utterance), as a JSON list",
        prepare: .no, decode: .no, baseline: .no, list: .required
    ) { inputs, _ in inputs?.list.map { ExternalCustomization.Inputs.jsonList($0) } }

    /// Every placeholder, in the order the documentation lists them.
    public static let all: [CommandPlaceholder] = [
        CommandPlaceholder(
            name: "{training}",
            becomes: "the variant's training data as Gambit's JSON export (`docs/training-data.md`)",
            prepare: .yes, decode: .yes, baseline: .no
        ) { inputs, _ in inputs?.training },
        CommandPlaceholder(
            name: "{phrases}", becomes: "the expanded phrase list with sample counts, after the budget",
            prepare: .yes, decode: .yes, baseline: .no
        ) { inputs, _ in inputs?.phrases },
        CommandPlaceholder(
            name: "{artifact}", becomes: "the folder the prepare command fills, handed to every decode",
            prepare: .yes, decode: .withPrepare, baseline: .no
        ) { inputs, _ in inputs?.artifact },
        CommandPlaceholder(
            name: "{weight}", becomes: "the variant's weight", prepare: .yes, decode: .yes, baseline: .no
        ) { inputs, _ in inputs.map { "\($0.weight)" } },
        CommandPlaceholder(
            name: "{locale}", becomes: "the training data's locale (`en-US`)", prepare: .yes, decode: .yes,
            baseline: .no, list: .yes
        ) { inputs, _ in inputs?.locale },
        audio,
        boosted,
        list,
    ]

    /// The placeholders `command` may use.
    public static func allowed(in command: Command) -> [CommandPlaceholder] {
        all.filter { $0.use(in: command) != .no }
    }

    /// Each placeholder's value for a command given `inputs` (a customized command) and `audio` (a decode); a
    /// placeholder without a value is left as written.
    static func values(_ inputs: ExternalCustomization.Inputs?, audio: String?) -> [String: String] {
        var values: [String: String] = [:]
        for placeholder in all {
            if let value = placeholder.value(inputs, audio) { values[placeholder.name] = value }
        }
        return values
    }

    /// Why `arguments` cannot be used as `command`, or nil: it must name a program, pass each required placeholder
    /// as an argument of its own, and use only placeholders `command` may use.
    static func problem(of arguments: [String], as command: Command) -> String? {
        let what = "\(command)"
        guard let program = arguments.first, !program.isEmpty else { return "\(what) is empty" }
        let allowed = allowed(in: command)
        for required in allowed where required.use(in: command) == .required && !arguments.contains(required.name) {
            return "\(what) must pass \(required.name == audio.name ? "the audio path" : "the list") as the argument "
                + required.name
        }
        for argument in arguments {
            for name in names(in: argument) where !allowed.contains(where: { $0.name == name }) {
                let known = all.contains { $0.name == name }
                return "\(what) cannot use the placeholder \(name)"
                    + (known
                        ? " (it may use \(allowed.map(\.name).sorted().joined(separator: ", ")))"
                        : ": unknown (known: \(all.map(\.name).sorted().joined(separator: ", ")))")
            }
        }
        return nil
    }

    /// Every `{…}` in an argument.
    static func names(in argument: String) -> [String] {
        var found: [String] = []
        var rest = argument[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.append(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }

    /// `argument` with every placeholder of `values` replaced, in one pass from left to right: a value that holds a
    /// placeholder's text (a biasing-list word, a path) is never expanded again.
    static func substitute(_ argument: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = argument[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let placeholder = String(rest[open...close])
            result += rest[..<open]
            result += values[placeholder] ?? placeholder
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
