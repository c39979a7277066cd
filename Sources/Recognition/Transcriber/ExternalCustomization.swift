import Foundation
import Hashing

/// How an external recognizer is customized, as Apple's `prepareCustomLanguageModel` customizes its own: a
/// prepare command run once per variant, before any decode, that turns the variant's training data into an
/// artifact folder, and a decode command that gets that artifact beside the audio.
///
/// Commands name their inputs as placeholders (`{training}`, `{artifact}`, …), replaced wherever they occur in an
/// argument: ``CommandPlaceholder/all`` lists them, what each becomes and which commands may use it.
public struct ExternalCustomization: Sendable, Hashable, Codable {
    /// Program and arguments run once per variant; nil when the decode command takes the data itself (a
    /// phrase-list API that needs no preparation).
    public var prepare: [String]?
    /// Program and arguments of a customized decode.
    public var decode: [String]
    /// The variants it is decoded with (of those evaluated on each corpus); nil for all of them.
    public var variants: [String]?
    /// Private training data may go to this recognizer although it runs off the device: the suite says so for
    /// this recognizer by name, and every report says it did.
    public var allowPrivate: Bool
    /// How long a prepare may take before it is killed.
    public var prepareTimeoutSeconds: Double
    /// The long-lived form of ``decode``, started once per worker and prepared artifact (its placeholders are
    /// ``decode``'s but for the audio and the biasing list, which come with each request); nil when every
    /// customized decode starts ``decode``.
    public var serve: [String]?

    public init(
        prepare: [String]?, decode: [String], variants: [String]? = nil, allowPrivate: Bool = false,
        prepareTimeoutSeconds: Double = 600
    ) {
        self.prepare = prepare
        self.decode = decode
        self.variants = variants
        self.allowPrivate = allowPrivate
        self.prepareTimeoutSeconds = prepareTimeoutSeconds
    }

    /// Why the commands cannot be used, or nil.
    var problem: String? {
        if let prepare, let problem = CommandPlaceholder.problem(of: prepare, as: .prepare) { return problem }
        return CommandPlaceholder.problem(of: decode, as: .decode(withPrepare: prepare != nil))
    }

    /// What a customized decode is given: the files and values its placeholders become.
    public struct Inputs: Sendable, Hashable, Codable {
        public var training: String
        public var phrases: String
        /// The prepared artifact's folder; nil without a prepare command.
        public var artifact: String?
        public var weight: Double
        public var locale: String
        /// The utterance's biasing list; nil when the manifest gives none.
        public var boosted: [String]?
        /// The phrase list of a list system (``PhraseListLever``), for this utterance; nil for any other decode,
        /// which its presence tells apart: a decode given a list runs the list command.
        public var list: [String]?

        public init(
            training: String, phrases: String, artifact: String?, weight: Double, locale: String,
            boosted: [String]? = nil, list: [String]? = nil
        ) {
            self.training = training
            self.phrases = phrases
            self.artifact = artifact
            self.weight = weight
            self.locale = locale
            self.boosted = boosted
            self.list = list
        }

        /// Words as one JSON list, what `{boosted}` becomes.
        public static func jsonList(_ words: [String]) -> String {
            let data =
                (try? JSONSerialization.data(withJSONObject: words, options: [.withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// What one prepare did.
    public struct Preparation: Sendable, Equatable {
        public var seconds: Double
        /// How the command was cut off from the network: `network namespace (unshare -n)`, or why it was not.
        public var isolation: String
        /// It ran in a network namespace of its own.
        public var networkDenied: Bool
        /// What it said of its work: the last line it printed on standard output (what a prompt kept and dropped,
        /// say), at most ``reportLimit`` characters; nil when it printed nothing.
        public var report: String? = nil

        public static let reportLimit = 500

        /// The last non-empty line of `output`, cut at ``reportLimit`` characters.
        static func report(of output: Data) -> String? {
            let text = String(decoding: output, as: UTF8.self)
            guard
                let line = text.split(whereSeparator: \.isNewline).last(where: {
                    !$0.trimmingCharacters(in: .whitespaces).isEmpty
                })
            else { return nil }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.count > reportLimit ? String(trimmed.prefix(reportLimit)) + "…" : trimmed
        }
    }

    /// Runs the prepare command of `recognizer` with `inputs` (whose ``Inputs/artifact`` folder it fills), in a
    /// network namespace of its own when `denyNetwork` and the machine allows one.
    ///
    /// - Throws: ``ExternalRecognizerError`` naming the recognizer and the training file, with the command's
    ///   status and the end of what it printed on standard error.
    public static func prepare(
        _ recognizer: ExternalRecognizer, inputs: Inputs, trainingName: String, denyNetwork: Bool
    ) throws -> Preparation {
        guard let command = recognizer.customization?.prepare else {
            // Nothing ran, so nothing reached the network.
            return Preparation(seconds: 0, isolation: "nothing to prepare", networkDenied: true)
        }
        let timeout = recognizer.customization?.prepareTimeoutSeconds ?? 600
        var arguments = command.map { CommandPlaceholder.substitute($0, CommandPlaceholder.values(inputs, audio: nil)) }
        if !arguments[0].contains("/") { arguments.insert("/usr/bin/env", at: 0) }
        let (launcher, isolation) = NetworkNamespace.launcher(deny: denyNetwork)
        func failure(_ reason: String, timedOut: Bool = false) -> ExternalRecognizerError {
            ExternalRecognizerError(
                recognizer: recognizer.name, audio: trainingName, reason: "prepare: " + reason, timedOut: timedOut)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let run: ChildProcess.Outcome
        do {
            run = try ChildProcess.run(launcher + arguments, timeoutSeconds: timeout)
        } catch {
            throw failure(error.message)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if let (reason, timedOut) = run.failure(program: command[0], timeoutSeconds: timeout) {
            throw failure(reason, timedOut: timedOut)
        }
        return Preparation(
            seconds: seconds, isolation: isolation, networkDenied: !launcher.isEmpty,
            report: Preparation.report(of: run.standardOutput))
    }
}
