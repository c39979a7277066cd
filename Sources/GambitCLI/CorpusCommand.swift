import ArgumentParser
import Corpus
import Foundation

/// `gambit corpus`: make test corpora.
struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract:
            "Make test corpora: import your own recordings, or synthesize speech from texts with several voices and "
            + "conditions.",
        subcommands: [Import.self, Synth.self]
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

extension CorpusCommand {
    /// `gambit corpus import FOLDER --transcripts FILE --output DIR`.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a corpus folder (audio/*.wav and manifest.jsonl) from your own recordings.",
            discussion: """
                Reads every recording under FOLDER (WAV, FLAC, Ogg or anything libsndfile reads; any rate, \
                mono or stereo), converts it to 16 kHz mono, times and checks it, and pairs it with what was said: \
                a CSV or TSV with a header (a column for the file: file, audio, path, filename, wav_filename, \
                audio_filepath or id; one for the text: text, transcript, transcription, sentence or reference; \
                and perhaps speaker, speaker_id or client_id), Kaldi text (id, then the words; the id is the \
                file's name without its extension), or, without --transcripts, a .txt beside each recording.

                Every problem is listed with its file or row and counted: a recording with no transcript, a \
                transcript with no recording, a row without a file or text, unreadable, empty or silent audio, \
                over --max-seconds, or a duplicate id leaves that utterance out; clipping is listed and kept. \
                Speakers come from the column, else from each recording's folder. The dev/test split is \
                deterministic, by a hash of the speaker (no speaker in both), or of the id without one.

                Then `gambit init` writes a suite for the corpus.

                Exit codes: 0 the corpus was written (problems, if any, listed); 2 nothing could be imported, or \
                refused input.
                """
        )

        @Argument(help: "The folder of recordings (searched with its subfolders).")
        var folder: String

        @Option(
            help: "What was said: a .csv or .tsv with a header, or Kaldi text. Default: a .txt beside each recording.")
        var transcripts: String?

        @Option(name: .shortAndLong, help: "Corpus folder to write audio/ and manifest.jsonl into.")
        var output: String

        @Option(help: "The spreadsheet's speaker column (default: speaker, speaker_id or client_id, else the folders).")
        var speakerColumn: String?

        @Option(parsing: .unconditional, help: "Percent of speakers (or utterances) in the dev split, 0 to 100.")
        var devPercent = 40

        @Option(parsing: .unconditional, help: "Leave out recordings longer than this many seconds.")
        var maxSeconds = 60.0

        func run() throws {
            guard (0...100).contains(devPercent) else {
                throw ValidationError("--dev-percent is \(devPercent); give a whole number from 0 to 100")
            }
            guard maxSeconds.isFinite, maxSeconds > 0 else {
                throw ValidationError("--max-seconds is \(maxSeconds); it must be a number of seconds above 0")
            }
            let outcome = try CorpusImport.run(
                audioFolder: URL(fileURLWithPath: folder), output: URL(fileURLWithPath: output),
                options: CorpusImport.Options(
                    transcripts: transcripts.map { URL(fileURLWithPath: $0) }, speakerColumn: speakerColumn,
                    devPercent: devPercent, maximumSeconds: maxSeconds))
            for problem in outcome.problems { print(problem) }
            let entries = outcome.entries
            let seconds = entries.compactMap(\.duration).reduce(0, +)
            let dev = entries.filter { $0.split == "dev" }.count
            print(
                "\(Output.count(entries.count, "utterance")) (\(dev) dev, \(entries.count - dev) test), "
                    + "\(Output.count(Set(entries.compactMap(\.speaker)).count, "speaker")), "
                    + String(format: "%.1f", seconds / 60) + " min of audio; \(outcome.converted) converted to 16 kHz "
                    + "mono → \(outcome.manifest.path)")
            let left = outcome.problems.filter(\.leftOut).count
            if !outcome.problems.isEmpty {
                print(
                    "\(Output.count(outcome.problems.count, "problem")) (\(left) left out): "
                        + outcome.counts.map { "\($0.count) × \($0.kind.rawValue)" }.joined(separator: ", "))
            }
            if entries.isEmpty {
                throw ValidationError("nothing could be imported from \(folder): see the problems above")
            }
        }
    }
}
