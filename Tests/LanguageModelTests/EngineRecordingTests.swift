import Audio
import Foundation
import GambitTestSupport
import LanguageModel
import NGram
import Recognition
import Runner
import Testing
import TrainingData

/// What the engine makes of Debian's real recordings, compared with what it made before the engine
/// was last restructured (`Recorded/engine.json`). Every way Gambit drives PocketSphinx is here: the
/// base model, an interpolated set, a merged model, a JSGF grammar, streamed chunks, n-best lists,
/// word times and posteriors, lattice rescoring, and sphinxbase's scores of sentences under a model
/// read from file and under an interpolated one.
///
/// A change that moves any of them fails this test with the first difference. If the change is
/// meant (a new engine version, a deliberate change of settings), record again with
/// `GAMBIT_RECORD_ENGINE=1 swift test --filter EngineRecordingTests` and say in the commit which
/// entries moved and why.
@Suite("The engine's answers on real recordings", .serialized)
struct EngineRecordingTests {
    static let recorded = TestSupport.packageRoot.appendingPathComponent(
        "Tests/LanguageModelTests/Recorded/engine.json")

    /// Phrases from the LibriVox chapter's own sentences and from the cards game: the words the
    /// recordings say, so that customization has something to move.
    static func trainingData() -> CustomLanguageModelData {
        CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "org.gambit.engine", version: "1") {
            PhraseCount(phrase: "mister John Dashwood had then leisure to consider", count: 20)
            PhraseCount(phrase: "he was not an ill disposed young man", count: 20)
            PhraseCount(phrase: "a more amiable woman", count: 10)
            PhraseCount(phrase: "rather cold hearted and rather selfish", count: 10)
            PhraseCountsFromTemplates(classes: [
                "rank": ["ace", "two", "four", "five", "seven", "eight", "ten", "queen"],
                "suit": ["clubs", "spades", "hearts"],
            ]) {
                TemplatePhraseCountGenerator.Template("<rank> of <suit>", count: 500)
            }
        }
    }

    struct Word: Codable, Equatable {
        var word: String
        var start: Double
        var duration: Double
        var confidence: Double
    }

    struct Answer: Codable, Equatable {
        var hypothesis: String
        var score: Int?
        var logPosterior: Int?
        var words: [Word]
        var alternatives: [String]

        init(_ result: RecognitionResult) {
            func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
            hypothesis = result.bestTranscription.formattedString
            score = result.bestTranscription.score
            logPosterior = result.logPosterior
            words = result.bestTranscription.segments.map {
                Word(
                    word: $0.substring, start: rounded($0.timestamp), duration: rounded($0.duration),
                    confidence: rounded($0.confidence))
            }
            alternatives = result.transcriptions.dropFirst().map(\.formattedString)
        }
    }

    /// Everything recorded, keyed by system, then recording.
    struct Recording: Codable, Equatable {
        var decodes: [String: [String: Answer]] = [:]
        var rescored: [String: [String]] = [:]
        var scores: [String: Double] = [:]
    }

    @Test("Base, set, merged, grammar, streamed and rescored answers match the recorded ones")
    func matchesRecording() throws {
        let folder = try TestSupport.temporaryDirectory("engine")
        let toolchain = Toolchain(cacheFolder: folder)
        let set = try toolchain.compiler.prepare(
            Self.trainingData(), output: folder.appendingPathComponent("set"), options: PrepareOptions(mix: .set)
        ).artifact
        // The recording's merged answers are the history-dependent merge's (the default mix before the weighted merge).
        let merged = try toolchain.compiler.prepare(
            Self.trainingData(), output: folder.appendingPathComponent("merged"),
            options: PrepareOptions(mix: .merged, interpolation: .historyDependent)
        ).artifact
        let setConfiguration = Toolchain.configuration(set, weight: 0.5)
        var grammar = setConfiguration
        grammar.grammar = try String(
            contentsOf: TestSupport.testData.appendingPathComponent("cards/cards.gram"), encoding: .utf8)
        let systems: [(String, LanguageModelConfiguration?)] = [
            ("base", nil), ("set", setConfiguration), ("merged", Toolchain.configuration(merged, weight: 0.5)),
            ("grammar", grammar),
        ]
        let recordings = TestSupport.librivox + TestSupport.cards
        let clips = try recordings.map { try AudioLoader().load($0) }
        func name(_ index: Int) -> String { recordings[index].deletingPathExtension().lastPathComponent }

        var recording = Recording()
        let recognizer = try SpeechRecognizer(locale: "en-US")
        for (system, configuration) in systems {
            var options = RecognitionOptions(requiresOnDeviceRecognition: true, maximumAlternatives: 3)
            options.customizedLanguageModel = configuration
            for (index, clip) in clips.enumerated() {
                recording.decodes[system, default: [:]][name(index)] = Answer(
                    try recognizer.recognize(clip, options: options))
            }
        }
        // Streamed in 100 ms chunks, as the runner's streaming mode feeds them.
        var streamed = RecognitionOptions(requiresOnDeviceRecognition: true, maximumAlternatives: 0)
        streamed.customizedLanguageModel = setConfiguration
        for (index, clip) in clips.enumerated() {
            var request = AudioBufferRecognitionRequest(options: streamed)
            for chunk in AudioBufferRecognitionRequest.chunks(of: clip) { request.append(chunk) }
            request.endAudio()
            recording.decodes["set-streamed", default: [:]][name(index)] = Answer(try recognizer.recognize(request))
        }

        let rescorer = try LatticeRescorer(model: toolchain.model, configuration: setConfiguration)
        for clip in clips { try rescorer.add(clip) }
        recording.rescored["first pass"] = rescorer.firstPass
        recording.rescored["base"] = try rescorer.rescore(customModel: nil, weight: 0)
        recording.rescored["set 0.2"] = try rescorer.rescore(customModel: set.languageModel, weight: 0.2)
        recording.rescored["set 0.8"] = try rescorer.rescore(customModel: set.languageModel, weight: 0.8)
        recording.rescored["merged"] = try rescorer.rescore(
            customModel: merged.languageModel, weight: 0.5, containsBaseModel: true)

        let custom = try SphinxLanguageModel(contentsOf: set.languageModel)
        let base = try SphinxLanguageModel(contentsOf: toolchain.model.languageModel, sharingLogTablesWith: custom)
        let mixed = try base.interpolated(with: custom, weight: 0.3)
        let sentences = [
            "he was not an ill disposed young man", "ten of clubs", "he might even have been made amiable himself",
        ]
        for sentence in sentences {
            let words = sentence.split(separator: " ").map(String.init)
            recording.scores["custom: \(sentence)"] = (custom.logProbability(of: words) * 1e4).rounded() / 1e4
            recording.scores["mixed 0.3: \(sentence)"] = (mixed.logProbability(of: words) * 1e4).rounded() / 1e4
        }
        let perplexity = mixed.perplexity(of: sentences.map { $0.split(separator: " ").map(String.init) })
        recording.scores["mixed 0.3 perplexity"] = (perplexity.perplexity * 1e4).rounded() / 1e4

        if ProcessInfo.processInfo.environment["GAMBIT_RECORD_ENGINE"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try FileManager.default.createDirectory(
                at: Self.recorded.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(recording).write(to: Self.recorded)
            return
        }
        let expected = try JSONDecoder().decode(Recording.self, from: Data(contentsOf: Self.recorded))
        #expect(recording.decodes.keys.sorted() == expected.decodes.keys.sorted())
        for (system, answers) in expected.decodes {
            for (recordingName, answer) in answers.sorted(by: { $0.key < $1.key }) {
                #expect(recording.decodes[system]?[recordingName] == answer, "\(system) on \(recordingName)")
            }
        }
        #expect(recording.rescored == expected.rescored)
        #expect(recording.scores == expected.scores)
    }
}
