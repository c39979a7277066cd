import ArgumentParser
import Corpus
import Foundation

/// `gambit corpus`: make test corpora.
struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Make test corpora: synthesize speech from texts with several voices and conditions.",
        subcommands: [Synth.self]
    )
}

extension CorpusCommand {
    /// `gambit corpus synth TEXTS --output DIR`.
    struct Synth: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Synthesize a corpus folder (audio/*.wav and manifest.jsonl) from a texts file.",
            discussion: """
                Each text is spoken in several renditions, each by a different voice under a condition, \
                assigned round-robin so that every voice and condition is used. The same inputs always give \
                the same audio bytes; files whose stamp matches are reused, so running it again is quick.

                """ + ExitStatus.doneOrRefused
        )

        @Argument(help: "texts.tsv (id<TAB>text<TAB>split) or a plain file with one text per line.")
        var texts: String

        @Option(name: .shortAndLong, help: "Corpus folder to write audio/ and manifest.jsonl into.")
        var output: String

        @Option(help: "Comma-separated voices: flite:NAME (slt, awb, rms, kal16, kal) or espeak:LANG+VARIANT.")
        var voices = SynthesisPlan.standard.voices.map(\.description).joined(separator: ",")

        @Option(help: "Comma-separated conditions: clean, noise:SNR_DB, speed:FACTOR, telephone.")
        var conditions = SynthesisPlan.standard.conditions.map(\.description).joined(separator: ",")

        @Option(parsing: .unconditional, help: "Renditions (voice, condition) per text.")
        var renditions = SynthesisPlan.standard.renditionsPerText

        @Option(parsing: .unconditional, help: "Utterances to synthesize at once (default: one per processor).")
        var jobs: Int?

        func run() throws {
            let plan = SynthesisPlan(
                voices: try list(voices, option: "--voices") { text throws(CorpusError) in try Voice(parsing: text) },
                conditions: try list(conditions, option: "--conditions") { text throws(CorpusError) in
                    try Condition(parsing: text)
                },
                renditionsPerText: renditions)
            if let jobs, jobs < 1 { throw ValidationError("--jobs is \(jobs); it must be at least 1") }
            do {
                try plan.validate()
            } catch {
                throw ValidationError(error.description)
            }
            let clock = ContinuousClock()
            let start = clock.now
            let build = try Synthesizer(jobs: jobs).buildCorpus(
                texts: URL(fileURLWithPath: texts), output: URL(fileURLWithPath: output), plan: plan)
            let elapsed = start.duration(to: clock.now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            let textCount = build.entries.count / max(1, plan.renditionsPerText)
            print(
                """
                \(build.entries.count) utterances (\(textCount) texts × \(plan.renditionsPerText) renditions), \
                \(Set(build.entries.compactMap(\.speaker)).count) voices, \
                \(Set(build.entries.compactMap(\.condition)).count) conditions, \
                \(String(format: "%.1f", build.seconds)) s of audio
                synthesized \(build.synthesized), reused \(build.reused) in \(String(format: "%.1f", seconds)) s \
                → \(build.manifest.path)
                """)
        }

        private func list<T>(_ text: String, option: String, _ parse: (String) throws(CorpusError) -> T) throws -> [T] {
            var values: [T] = []
            for item in text.split(separator: ",") where !item.trimmingCharacters(in: .whitespaces).isEmpty {
                do {
                    values.append(try parse(String(item)))
                } catch {
                    throw ValidationError("\(option): \(error.description)")
                }
            }
            return values
        }
    }
}
