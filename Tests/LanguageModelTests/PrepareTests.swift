import Formats
import Foundation
import GambitTestSupport
import LanguageModel
import NGram
import PocketSphinx
import Recognition
import Runner
import Testing
import TrainingData

/// The seed's training data, written with the Swift API as Apple's WWDC example writes it.
func seedChessData() -> CustomLanguageModelData {
    CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "com.example.chess", version: "1.0") {
        PhraseCount(phrase: "Play the Albin counter gambit", count: 10)
        PhraseCount(phrase: "Play the Queen's gambit", count: 10)
        PhraseCount(phrase: "Play the Winawer variation", count: 10)
        PhraseCount(phrase: "Play the Sicilian defense", count: 10)
        PhraseCountsFromTemplates(classes: [
            "piece": ["pawn", "rook", "knight", "bishop", "queen", "king"],
            "royal": ["queen", "king"],
            "rank": ["one", "two", "three", "four", "five", "six", "seven", "eight"],
        ]) {
            TemplatePhraseCountGenerator.Template("<piece> to <royal> <piece> <rank>", count: 10_000)
        }
        CustomPronunciation(grapheme: "Winawer", phonemes: ["w I n aU @r"])
    }
}

@Suite("Preparing a custom language model")
struct PrepareTests {
    let toolchain = Toolchain(cacheFolder: try! TestSupport.temporaryDirectory("cache"))

    @Test("Prepare writes an ARPA model, a binary model and a vocabulary, and caches by content")
    func prepareAndCache() throws {
        let folder = try TestSupport.temporaryDirectory("prepare")
        let (artifact, cached) = try toolchain.compiler.prepare(seedChessData(), output: folder)
        #expect(!cached)
        for url in [artifact.arpa, artifact.languageModel, artifact.vocabulary] {
            #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)")
        }
        let vocabulary = try String(contentsOf: artifact.vocabulary, encoding: .utf8)
        #expect(vocabulary.contains("winawer W IH N AW ER"))
        #expect(artifact.manifest.boostedWords.contains("winawer"))
        #expect(artifact.manifest.samples == 10_040)
        #expect(artifact.manifest.timings.total > 0)

        let again = try toolchain.compiler.prepare(seedChessData(), output: folder)
        #expect(again.cached)
        let rebuilt = try toolchain.compiler.prepare(seedChessData(), output: folder, ignoreCache: true)
        #expect(!rebuilt.cached && rebuilt.artifact.manifest.fingerprint == artifact.manifest.fingerprint)
    }

    @Test("Every history of the estimated model sums to 1 and held-out perplexity is finite")
    func estimatorIsNormalised() throws {
        let folder = try TestSupport.temporaryDirectory("norm")
        let artifact = try toolchain.compiler.prepare(seedChessData(), output: folder).artifact
        let model = try BackoffModel(arpaFile: artifact.arpa)
        #expect(model.normalizationFailures(tolerance: 1e-4).isEmpty)
        let inDomain = model.perplexity(of: [["knight", "to", "king", "bishop", "three"]])
        let outOfDomain = model.perplexity(of: [["bishop", "king", "to", "three", "knight"]])
        #expect(inDomain.perplexity < outOfDomain.perplexity)
    }

    @Test("Phrases as fragments leave the words around a phrase to the base model; the inner n-grams keep theirs")
    func fragments() throws {
        func model(_ phrases: PhraseFraming) throws -> (BackoffModel, PreparedModel) {
            let folder = try TestSupport.temporaryDirectory("phrases-\(phrases)")
            let artifact = try toolchain.compiler.prepare(
                seedChessData(), output: folder, options: PrepareOptions(phrases: phrases)
            ).artifact
            return (try BackoffModel(arpaFile: artifact.arpa), artifact.manifest)
        }
        let (sentences, sentencesManifest) = try model(.sentences)
        let (fragments, fragmentsManifest) = try model(.fragments)
        #expect(sentencesManifest.boundaryShare == nil && fragmentsManifest.boundaryShare == 0.5)
        #expect(sentencesManifest.inputFingerprint != fragmentsManifest.inputFingerprint)
        #expect(fragments.normalizationFailures(tolerance: 1e-4).isEmpty)
        func p(_ model: BackoffModel, _ word: String, _ context: [String]) throws -> Double {
            try #require(model.logProb(of: word, after: context))
        }
        // "please play the winawer variation": a word the data never starts with may come first, and
        // the phrase may go on after its last word.
        #expect(try p(fragments, "<unk>", ["<s>"]) > p(sentences, "<unk>", ["<s>"]) + 1)
        #expect(try p(fragments, "play", ["<s>"]) < p(sentences, "play", ["<s>"]))
        #expect(try p(fragments, "</s>", ["winawer", "variation"]) < p(sentences, "</s>", ["winawer", "variation"]))
        // Inside the phrase nothing changes.
        let inner = try p(fragments, "variation", ["the", "winawer"]) - p(sentences, "variation", ["the", "winawer"])
        #expect(abs(inner) < 1e-3)
    }

    @Test("A boosted word and the words that only ever go with it become one compound token")
    func compounds() throws {
        let data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "c", version: "1") {
            PhraseCount(phrase: "play the albin counter gambit", count: 10)
            PhraseCount(phrase: "play the benko gambit", count: 5)
            PhraseCount(phrase: "play the najdorf", count: 5)
            PhraseCount(phrase: "najdorf sicilian", count: 1)
            PhraseCount(phrase: "call siobhan", count: 5)
            PhraseCount(phrase: "text siobhan now", count: 5)
        }
        let found = Compounds.find(
            in: try data.weightedSentences(), startingWith: ["albin", "benko", "najdorf", "siobhan", "gambit"])
        // "counter" is said only after "albin"; "gambit" also ends "benko gambit", so neither "benko" nor
        // "albin counter" takes it. "najdorf" goes on as "sicilian" 1 time in 6, "siobhan" as "now" half the time.
        #expect(found.phrases == [["albin", "counter"]])
        #expect(
            found.join(["play", "the", "albin", "counter", "gambit"]) == ["play", "the", "albin_counter", "gambit"])
        #expect(found.join(["the", "albin", "attack"]) == ["the", "albin", "attack"])

        let folder = try TestSupport.temporaryDirectory("compounds")
        let artifact = try toolchain.compiler.prepare(seedChessData(), output: folder).artifact
        #expect(artifact.manifest.compounds.contains("albin counter"))
        let vocabulary = try String(contentsOf: artifact.vocabulary, encoding: .utf8)
        #expect(vocabulary.contains("albin_counter AE L B IH N K AW N T ER\n"))
        let model = try BackoffModel(arpaFile: artifact.arpa)
        // The words stay reachable on their own, at a hundredth of the weight.
        let whole = try #require(model.logProb(of: "albin_counter", after: ["play", "the"]))
        let alone = try #require(model.logProb(of: "albin", after: ["play", "the"]))
        #expect(whole > -1 && alone < whole - 1.5)
        let off = try toolchain.compiler.prepare(
            seedChessData(), output: folder.appendingPathComponent("off"), options: PrepareOptions(compounds: false)
        ).artifact
        #expect(off.manifest.compounds.isEmpty)
    }

    @Test("A supplied pronunciation of a known word is kept as an alternate, after the dictionary's own")
    func alternatesForKnownWords() throws {
        let dictionary = PronunciationDictionary(entries: ["tuolumne": [["T UW AH L AH M"]]])
        let vocabulary = Vocabulary.build(
            words: ["tuolumne"], pronunciations: ["tuolumne": [["T W AA L AH M IY"]]], dictionary: dictionary,
            spellingAlternates: false)
        #expect(vocabulary.alternatesForKnownWords == ["tuolumne"])
        #expect(vocabulary.dictionaryText(base: dictionary) == "tuolumne(2) T W AA L AH M IY\n")
    }

    @Test("A word whose only supplied pronunciations lint flagged, and that the dictionary lacks, is listed")
    func onlyFlaggedPronunciations() throws {
        var data = CustomLanguageModelData(locale: Locale(identifier: "en_US"), identifier: "flags", version: "1")
        data.insert(phrase: "zlotnik winawer pawn nimzo", count: 5)
        // "x" has no CMU phone: lint flags it. Pawn is in the dictionary; nimzo has a good one beside the bad.
        for (grapheme, phonemes) in [
            ("Zlotnik", ["z l Q t n I x"]), ("Winawer", ["w I n aU @r"]), ("Pawn", ["p O x"]),
            ("Nimzo", ["n I m z oU", "n I m x"]),
        ] {
            data.insert(term: CustomPronunciation(grapheme: grapheme, phonemes: phonemes))
        }
        let lint = data.lint()
        let accepted = Dictionary(
            lint.pronunciations.filter { !$0.phones.isEmpty }.map { ($0.word, [$0.phones]) }, uniquingKeysWith: +)
        let vocabulary = Vocabulary.build(
            words: ["zlotnik", "winawer", "pawn", "nimzo"], pronunciations: accepted,
            dictionary: try toolchain.compiler.dictionary(), spellingAlternates: false)
        #expect(Set(lint.pronunciationProblems.map(\.grapheme)) == ["Zlotnik", "Pawn", "Nimzo"])
        #expect(vocabulary.wordsWithOnlyFlaggedPronunciations(lint) == ["zlotnik"])
        // It still has a pronunciation: a spelling guess, not the one the data gave.
        #expect(vocabulary.entries.first { $0.word == "zlotnik" }?.source == .spelling)
    }

    @Test("Unknown words get spelling-based pronunciations from flite and are listed")
    func generatedPronunciations() throws {
        let dictionary = try toolchain.compiler.dictionary()
        let vocabulary = Vocabulary.build(
            words: ["apixaban", "pawn", "42"], pronunciations: [:], dictionary: dictionary, spellingAlternates: true)
        let oov = Dictionary(uniqueKeysWithValues: vocabulary.outOfVocabulary.map { ($0.word, $0) })
        #expect(oov["apixaban"]?.resolution == .generated)
        #expect(oov["apixaban"]?.pronunciations.first?.count ?? 0 >= 7)
        #expect(oov["pawn"] == nil)
        #expect(
            vocabulary.entries.contains {
                $0.word == "42"
                    && $0.phones == ["F AO R T IY", "T UW"].flatMap { $0.split(separator: " ").map(String.init) }
            })
    }

    @Test("A truncated or edited artifact is refused at load")
    func corruptArtifact() throws {
        let folder = try TestSupport.temporaryDirectory("corrupt")
        let artifact = try toolchain.compiler.prepare(seedChessData(), output: folder).artifact
        let bytes = try Data(contentsOf: artifact.languageModel)
        try bytes.prefix(bytes.count / 2).write(to: artifact.languageModel)
        #expect(throws: LanguageModelError.self) { try PreparedArtifact(folder: folder) }
    }

    @Test("An artifact prepared for another acoustic model or locale is refused by the recognizer")
    func mismatchedArtifact() throws {
        let folder = try TestSupport.temporaryDirectory("mismatch")
        let artifact = try toolchain.compiler.prepare(seedChessData(), output: folder).artifact
        let recognizer = try SpeechRecognizer(locale: "en-US")
        var configuration = Toolchain.configuration(artifact, weight: 0.5)
        configuration.acousticModelFingerprint = String(repeating: "0", count: 64)
        let request = URLRecognitionRequest(
            url: TestSupport.cards[0],
            options: RecognitionOptions(requiresOnDeviceRecognition: true, customizedLanguageModel: configuration))
        let error = try #require(throws: RecognitionFailure.self) { try recognizer.recognize(request) }
        #expect(error.description.contains("different acoustic model"))
        configuration = Toolchain.configuration(artifact, weight: 0.5)
        configuration.locale = "en-GB"
        let other = URLRecognitionRequest(
            url: TestSupport.cards[0],
            options: RecognitionOptions(requiresOnDeviceRecognition: true, customizedLanguageModel: configuration))
        #expect(throws: RecognitionFailure.self) { try recognizer.recognize(other) }
    }

    @Test(
        "Bad training data is a clear error naming the problem",
        arguments: [
            ("templates:\n  - classes: {piece: [pawn]}\n    items: [{template: \"<pice> to one\", count: 5}]", "pice"),
            ("phrases:\n  - {phrase: \"\", count: 5}", "no words"),
            ("phrases:\n  - {phrase: \"play\", count: 0}", "count"),
            ("phrases:\n  - {phrase: \"play\", count: -3}", "count"),
            ("pronunciations:\n  - {grapheme: winawer, phonemes: [\"w I n aU Y\"]}", "Y"),
            ("phrases:\n  - {phrase: \"play\", count: 2000000}", "budget"),
            ("phrases:\n  - {phrase: \"play\", count: 5\n", "line"),
        ])
    func badInput(body: String, expected: String) throws {
        let yaml = "locale: en-US\nidentifier: test\nversion: \"1\"\n" + body + "\n"
        let folder = try TestSupport.temporaryDirectory("bad")
        let file = folder.appendingPathComponent("training.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: (any Error).self) { try toolchain.prepare(file, output: folder) }
        #expect("\(error)".localizedCaseInsensitiveContains(expected), "\(error)")
    }

    @Test("A word nobody can pronounce is refused with its line, and nothing is written")
    func unpronounceable() throws {
        let yaml = """
            locale: en-US
            identifier: test
            version: "1"
            phrases:
              - {phrase: "call the office", count: 5}
              - {phrase: "fly to 東京 tomorrow", count: 5}

            """
        let folder = try TestSupport.temporaryDirectory("unpronounceable")
        let file = folder.appendingPathComponent("training.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("prepared")
        let error = try #require(throws: LanguageModelError.self) { try toolchain.prepare(file, output: output) }
        #expect("\(error)".contains("training.yaml:6"), "\(error)")
        #expect("\(error)".contains("\"東京\""), "\(error)")
        #expect("\(error)".contains("cannot be pronounced"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        // A pronunciation for the word makes the same data usable.
        try (yaml + "pronunciations:\n  - {grapheme: 東京, phonemes: [\"t oU k j oU\"]}\n")
            .write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: Never.self) { try toolchain.prepare(file, output: output) }
        let (status, lint) = try TestSupport.gambit(["lint", file.path])
        #expect(status == 0, "\(lint)")
    }

    @Test("Lint fails on a word nobody can pronounce and names its line")
    func lintUnpronounceable() throws {
        let folder = try TestSupport.temporaryDirectory("lint-unpronounceable")
        let file = folder.appendingPathComponent("training.yaml")
        try "locale: en-US\nidentifier: test\nversion: \"1\"\nphrases:\n  - {phrase: \"fly to 東京\", count: 5}\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let (status, output) = try TestSupport.gambit(["lint", file.path])
        #expect(status == 1, "\(output)")
        #expect(output.contains("training.yaml:5") && output.contains("\"東京\""), "\(output)")
    }

    @Test("lint --apply merges a patch into a new file, lints it, and refuses what would lose data")
    func lintApply() throws {
        let folder = try TestSupport.temporaryDirectory("lint-apply")
        let training = folder.appendingPathComponent("training.yaml")
        try """
        # Openings, for a test.
        locale: en-US
        identifier: com.example.openings
        version: "1.0"
        phrases:
          - {phrase: "play the winawer variation", count: 25}
          - {phrase: "play the italian game", count: 10}
        pronunciations:
          - {grapheme: winawer, phonemes: ["w I n aU @r"]}
        """.write(to: training, atomically: true, encoding: .utf8)
        let patch = folder.appendingPathComponent("patch.yaml")
        try """
        # Suggestions of gambit diagnose for openings, learned on chess (dev).
        locale: en-US
        identifier: com.example.openings
        version: "1.0"
        phrases:
          - {phrase: "play the winawer variation", count: 31}
        pronunciations:
          - {grapheme: winawer, phonemes: ["w I n @ v @r"]}
        """.write(to: patch, atomically: true, encoding: .utf8)
        let merged = folder.appendingPathComponent("merged.yaml")
        let (status, output) = try TestSupport.gambit([
            "lint", "--apply", patch.path, training.path, "--output", merged.path,
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("wrote \(merged.path): 2 changes"), "\(output)")
        #expect(output.contains("phrase \"play the winawer variation\": count 25 → 31"), "\(output)")
        #expect(output.contains("pronunciation of winawer added: w I n @ v @r"), "\(output)")
        let text = try String(contentsOf: merged, encoding: .utf8)
        // The old file's description and where the patch was learned stay with the data.
        #expect(text.hasPrefix("# Openings, for a test.\n"), "\(text)")
        #expect(text.contains("learned on chess (dev)"), "\(text)")
        let data = try CustomLanguageModelData(yamlFile: merged)
        #expect(data.phraseCounts.map(\.count) == [31, 10])
        #expect(data.pronunciations.first?.phonemes == ["w I n aU @r", "w I n @ v @r"])
        // Never over an input, never as anything but YAML, never for other data.
        for output in [training, patch, folder.appendingPathComponent("merged.bin")] {
            let refused = try TestSupport.gambit([
                "lint", "--apply", patch.path, training.path, "--output", output.path,
            ])
            #expect(refused.status == 2, "\(refused.output)")
        }
        #expect(try String(contentsOf: training, encoding: .utf8).contains("count: 25"))
        try String(contentsOf: patch, encoding: .utf8).replacingOccurrences(
            of: "com.example.openings", with: "com.example.medical"
        ).write(to: patch, atomically: true, encoding: .utf8)
        let other = try TestSupport.gambit(["lint", "--apply", patch.path, training.path, "--output", merged.path])
        #expect(other.status != 0 && other.output.contains("identifier is \"com.example.medical\""), "\(other.output)")
        #expect(try TestSupport.gambit(["lint", training.path, "--output", merged.path]).status == 2)
    }

    @Test("A locale the acoustic model does not have is refused")
    func localeMismatch() throws {
        let yaml = "locale: en-GB\nidentifier: test\nversion: \"1\"\nphrases:\n  - {phrase: \"play\", count: 5}\n"
        let data = try CustomLanguageModelData(yaml: yaml)
        #expect(throws: LanguageModelError.self) {
            try toolchain.compiler.prepare(data, output: try TestSupport.temporaryDirectory("locale"))
        }
    }
}
