import Audio
import Diagnosis
import Formats
import Foundation
import GambitTestSupport
import LanguageModel
import Recognition
import Results
import Runner
import RunnerTestSupport
import Scoring
import Testing

/// The diagnosis against causes injected on purpose, where the truth is known: a boosted word's pronunciation
/// removed, replaced with a wrong one, the beam narrowed. Each must be named for at least 90% of the errors it
/// causes. (A weight near 0 causes no error on these clean recordings: words only the customization knows are
/// then scored through the base model's unknown-word probability, which the audio overcomes.)
@Suite("gambit diagnose names the cause injected", .serialized)
struct InjectedCauseTests {
    static let boosted: Set<String> = ["albin", "winawer"]
    static let texts = ["play the albin counter gambit", "play the winawer variation"]
    static let voices = ["kal16", "rms", "slt", "awb", "kal"]

    let suite: MiniSuite
    let clips: [(reference: [String], samples: [Int16])]
    let configuration: LanguageModelConfiguration

    init() throws {
        suite = try MiniSuite()
        var clips: [(reference: [String], samples: [Int16])] = []
        for (t, text) in Self.texts.enumerated() {
            for voice in Self.voices {
                let url = suite.folder.appendingPathComponent("diagnose-\(t)-\(voice).wav")
                try TestSupport.synthesize(text, voice: voice, to: url)
                let reference = text.split(separator: " ").map(String.init)
                clips.append((reference, try AudioLoader().load(url).samples))
            }
        }
        self.clips = clips
        let toolchain = Toolchain(cacheFolder: suite.folder.appendingPathComponent("cache"))
        let artifact = try toolchain.prepare(suite.folder.appendingPathComponent("chess.yaml")).artifact
        configuration = Toolchain.configuration(artifact, weight: 0.5)
    }

    /// The errors on the boosted words when decoding with `custom` and `settings`, and their diagnoses.
    func diagnose(
        _ custom: LanguageModelConfiguration, settings: DecoderSettings = .standard,
        diagnostician given: Diagnostician? = nil
    ) throws -> (errors: Int, diagnoses: [ErrorDiagnosis]) {
        let diagnostician = try given ?? Diagnostician(model: .englishUS, settings: settings, custom: custom)
        var utterances: [Diagnostician.Utterance] = []
        for clip in clips {
            let hypothesis = try diagnostician.transcribe(clip.samples)
            let words = Normalizer.standard.normalize(hypothesis)
            let pairs = Aligner.align(reference: clip.reference, hypothesis: words).pairs
            let errors = BoostedWordError.errors(in: pairs, boosted: Self.boosted).filter { $0.kind == .missed }
            if !errors.isEmpty {
                utterances.append(
                    Diagnostician.Utterance(samples: clip.samples, reference: clip.reference, errors: errors))
            }
        }
        let diagnoses = try diagnostician.diagnose(utterances).flatMap { $0 }
        return (diagnoses.count, diagnoses)
    }

    /// The vocabulary with the boosted words' lines replaced by `lines` (none: removed).
    func vocabulary(replacingWith lines: [String]) throws -> URL {
        let text = try String(contentsOf: configuration.vocabulary, encoding: .utf8)
        // A compound token (albin_counter) says the word too: it goes with it.
        let kept = text.split(separator: "\n").filter { line in
            let token = line.split(separator: " ").first.map { String($0.split(separator: "(")[0]) } ?? ""
            return !token.split(separator: "_").contains { Self.boosted.contains(String($0)) }
        }
        let url = suite.folder.appendingPathComponent("vocabulary-\(UUID().uuidString.prefix(6)).dict")
        try ((kept.map(String.init) + lines).joined(separator: "\n") + "\n").write(
            to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func share(_ cause: ErrorCause, _ result: (errors: Int, diagnoses: [ErrorDiagnosis])) -> Double {
        Double(result.diagnoses.filter { $0.cause == cause }.count) / Double(max(1, result.errors))
    }

    static func summary(_ result: (errors: Int, diagnoses: [ErrorDiagnosis])) -> String {
        result.diagnoses.map {
            "\($0.error.word): \($0.cause.rawValue) (lattice \($0.inLattice.map(String.init) ?? "-"), fits \($0.referenceFits.map(String.init) ?? "-"))"
        }
        .joined(separator: "; ")
    }

    @Test("Pronunciation removed: unpronounceable")
    func removed() throws {
        var custom = configuration
        custom.vocabulary = try vocabulary(replacingWith: [])
        let result = try diagnose(custom)
        // albin is in the base dictionary too: only winawer loses its pronunciation.
        #expect(result.errors >= 5, "every winawer is missed: \(Self.summary(result))")
        #expect(Self.share(.unpronounceable, result) >= 0.9, "\(Self.summary(result))")
    }

    @Test("Pronunciation replaced with a wrong one: pronunciation or acoustics")
    func wrong() throws {
        var custom = configuration
        custom.vocabulary = try vocabulary(replacingWith: ["winawer SH OY M AE G"])
        let result = try diagnose(custom)
        #expect(result.errors >= 5, "\(Self.summary(result))")
        #expect(Self.share(.acoustics, result) >= 0.9, "\(Self.summary(result))")
    }

    @Test("Only pronunciations lint flagged: unpronounceable, and said so")
    func flagged() throws {
        // The data's pronunciation of winawer was flagged, so the vocabulary has a guess in its place: a wrong one.
        var custom = configuration
        custom.vocabulary = try vocabulary(replacingWith: ["winawer SH OY M AE G"])
        let diagnostician = try Diagnostician(
            model: .englishUS, settings: .standard, custom: custom, flaggedPronunciations: ["winawer"])
        let result = try diagnose(custom, diagnostician: diagnostician)
        #expect(result.errors >= 5, "\(Self.summary(result))")
        #expect(Self.share(.unpronounceable, result) >= 0.9, "\(Self.summary(result))")
        #expect(result.diagnoses.allSatisfy { $0.flaggedPronunciation == true })
        #expect(result.diagnoses.first?.evidence.hasPrefix("its only pronunciations are ones lint flagged") == true)
    }

    @Test("Beam narrowed: pruned by search")
    func narrow() throws {
        var settings = DecoderSettings.standard
        settings.beam = 1e-12
        settings.wordBeam = 1e-6
        let result = try diagnose(configuration, settings: settings)
        #expect(result.errors >= 5, "\(Self.summary(result))")
        #expect(Self.share(.pruned, result) >= 0.9, "\(Self.summary(result))")
    }

    @Test("Pronunciation removed: a phone loop over the word's audio recovers one that decodes it on held-back audio")
    func recovered() throws {
        let spoken = clips.filter { $0.reference.contains("winawer") }
        let (learned, heldBack) = (Array(spoken.prefix(3)), Array(spoken.dropFirst(3)))
        var removed = configuration
        removed.vocabulary = try vocabulary(replacingWith: [])
        let search = try PronunciationSearch(model: .englishUS, vocabulary: removed.vocabulary)
        let occurrences = learned.map {
            PronunciationSearch.Occurrence(
                samples: $0.samples, reference: $0.reference, index: $0.reference.firstIndex(of: "winawer")!)
        }
        // Where the word was said: aligned with the spelling's guess, what a word without a pronunciation gets; a
        // phone loop over each span; each hearing fit over every occurrence, the best overall first.
        let guess = try #require(GraphemeToPhoneme.pronounce("winawer"))
        let (heard, comparisons) = try search.compare(current: [], anchors: [guess], candidates: [], over: occurrences)
        #expect(!heard.isEmpty && heard.allSatisfy { $0.count >= 3 }, "\(heard)")
        let best = try #require(comparisons.first)
        // Judged on the occurrences it was not heard on.
        #expect(best.segments == occurrences.count - 1, "\(comparisons)")
        let phones = best.phones.joined(separator: " ")
        // Without a pronunciation the word is never heard; with the one recovered it is, on audio it never saw.
        let without = try Diagnostician(model: .englishUS, settings: .standard, custom: removed)
        var recovered = configuration
        recovered.vocabulary = try vocabulary(replacingWith: ["winawer \(phones)"])
        let with = try Diagnostician(model: .englishUS, settings: .standard, custom: recovered)
        for clip in heldBack {
            #expect(!(try without.transcribe(clip.samples)).contains("winawer"))
            let hypothesis = try with.transcribe(clip.samples)
            #expect(hypothesis.contains("winawer"), "\(phones) (heard \(heard)): \(hypothesis)")
        }
    }
}
