import Audio
import Foundation
import GambitTestSupport
import Recognition
import Testing

private func transcript(_ recognizer: SpeechRecognizer, _ url: URL) throws -> RecognitionResult {
    try recognizer.recognize(URLRecognitionRequest(url: url, options: RecognitionOptions(maximumAlternatives: 0)))
}

/// Runs the stock `pocketsphinx_batch` with the same settings as Gambit's decoder.
private func batchHypotheses(_ files: [URL], settings: DecoderSettings = .standard) throws -> [String: String] {
    let folder = try TestSupport.temporaryDirectory("batch")
    let control = folder.appendingPathComponent("ctl")
    try files.map { $0.deletingPathExtension().lastPathComponent }.joined(separator: "\n")
        .write(to: control, atomically: true, encoding: .utf8)
    let model = AcousticModel.englishUS
    let hyp = folder.appendingPathComponent("out.hyp")
    var arguments = [
        "-hmm", model.hmm.path, "-lm", model.languageModel.path, "-dict", model.dictionary.path,
        "-adcin", "yes", "-adchdr", "44", "-cepext", ".wav", "-cepdir", files[0].deletingLastPathComponent().path,
        "-ctl", control.path, "-hyp", hyp.path,
    ]
    arguments += settings.commandLine
    try TestSupport.run("pocketsphinx_batch", arguments)
    var result: [String: String] = [:]
    for line in try String(contentsOf: hyp, encoding: .utf8).split(separator: "\n") {
        guard let open = line.lastIndex(of: "(") else { continue }
        let id = line[line.index(after: open)...].split(separator: " ")[0]
        result[String(id)] = line[..<open].trimmingCharacters(in: .whitespaces)
    }
    return result
}

@Suite("PocketSphinx recognizer", .serialized)
struct RecognizerTests {
    @Test(
        "Hypotheses equal pocketsphinx_batch word for word",
        arguments: [("librivox", TestSupport.librivox), ("cards", TestSupport.cards)])
    func matchesBatch(set: String, files: [URL]) throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let expected = try batchHypotheses(files)
        #expect(expected.count == files.count, "pocketsphinx_batch decoded \(expected.count) of \(files.count)")
        for file in files {
            let id = file.deletingPathExtension().lastPathComponent
            let ours = try transcript(recognizer, file).bestTranscription.formattedString
            #expect(ours == expected[id], "\(set)/\(id)")
        }
    }

    /// A suite's `decoder:` block reaches the engine: a narrow beam without the second pass gives
    /// `pocketsphinx_batch`'s hypotheses under the same flags, and not the default's.
    @Test("Engine settings reach the engine: hypotheses equal pocketsphinx_batch's with the same flags")
    func settingsReachTheEngine() throws {
        var settings = DecoderSettings.standard
        try settings.set("beam", to: "1e-20")
        try settings.set("secondPass", to: "false")
        #expect(settings.commandLine == ["-beam", "1e-20", "-fwdflat", "no", "-remove_silence", "no"])
        let files = TestSupport.cards
        let narrow = try SpeechRecognizer(locale: "en-US", settings: settings)
        let standard = try SpeechRecognizer(locale: "en-US")
        let expected = try batchHypotheses(files, settings: settings)
        var differences = 0
        for file in files {
            let id = file.deletingPathExtension().lastPathComponent
            let ours = try transcript(narrow, file).bestTranscription.formattedString
            #expect(ours == expected[id], "\(id)")
            if ours != (try transcript(standard, file).bestTranscription.formattedString) { differences += 1 }
        }
        #expect(differences > 0, "a beam of 1e-20 without the second pass changed no hypothesis")
    }

    @Test("Settings are checked: out of range and unknown names are refused with what they take")
    func settingRanges() throws {
        #expect(DecoderSettings.standard.commandLine == ["-remove_silence", "no"])
        var settings = DecoderSettings.standard
        for (name, text, message) in [
            (
                "beam", "0",
                "decoder setting 'beam' must be a number in (0, 1e-15], e.g. 1e-60 (wider beams crash the engine), not '0'"
            ),
            (
                "beam", "2",
                "decoder setting 'beam' must be a number in (0, 1e-15], e.g. 1e-60 (wider beams crash the engine), not '2'"
            ),
            ("languageWeight", "-1", "decoder setting 'languageWeight' must be a number in (0, 100], not '-1'"),
            ("wordInsertionPenalty", "nan", "must be a number in (0, 100], not 'nan'"),
            ("secondPass", "yes", "decoder setting 'secondPass' must be true or false, not 'yes'"),
            ("bea", "1e-40", "unknown decoder setting 'bea'; the settings are beam, wordBeam, languageWeight"),
        ] {
            let error = try #require(throws: DecoderSettings.Problem.self) { try settings.set(name, to: text) }
            #expect(error.message.contains(message), "\(error.message)")
        }
        #expect(settings == .standard)
        try settings.set("languageWeight", to: "8")
        try settings.set("bestPath", to: "false")
        try settings.set("bestPathLanguageWeight", to: "12")
        #expect(
            settings.commandLine == ["-bestpath", "no", "-bestpathlw", "12.0", "-lw", "8.0", "-remove_silence", "no"])
        try settings.validate()
        // The engine's defaults written out decode the same, so they keep the default command line and key.
        var explicit = DecoderSettings.standard
        for (name, text) in [
            ("beam", "1e-48"), ("languageWeight", "6.5"), ("secondPass", "true"), ("bestPath", "true"),
        ] {
            try explicit.set(name, to: text)
        }
        #expect(explicit.commandLine == DecoderSettings.standard.commandLine)
    }

    @Test("Decoding order does not change any result")
    func orderIndependent() throws {
        let files = TestSupport.librivox + TestSupport.cards
        let forward = try SpeechRecognizer(locale: "en-US")
        let backward = try SpeechRecognizer(locale: "en-US")
        let a = try files.map { try transcript(forward, $0) }
        let b = try files.reversed().map { try transcript(backward, $0) }.reversed()
        for (x, y) in zip(a, b) {
            #expect(x.bestTranscription == y.bestTranscription)
        }
    }

    @Test("Word timestamps are audio time: 1 s of leading silence shifts every word by 1.00 s")
    func timestampsFollowAudio() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let folder = try TestSupport.temporaryDirectory("pad")
        for file in TestSupport.cards.prefix(3) {
            let padded = folder.appendingPathComponent(file.lastPathComponent)
            try TestSupport.run("sox", ["-R", file.path, padded.path, "pad", "1", "0"])
            let plain = try transcript(recognizer, file).bestTranscription
            let shifted = try transcript(recognizer, padded).bestTranscription
            #expect(plain.formattedString == shifted.formattedString)
            try #require(plain.segments.count == shifted.segments.count)
            for (a, b) in zip(plain.segments, shifted.segments) {
                #expect(abs(b.timestamp - a.timestamp - 1.0) <= 0.02, "\(a.substring): \(a.timestamp) → \(b.timestamp)")
            }
        }
    }

    @Test("Segments carry durations and posterior confidences")
    func segments() throws {
        let result = try transcript(try SpeechRecognizer(locale: "en-US"), TestSupport.cards[4])
        let segments = result.bestTranscription.segments
        #expect(segments.map(\.substring).joined(separator: " ") == result.bestTranscription.formattedString)
        #expect(segments.allSatisfy { $0.duration > 0 && (0...1).contains($0.confidence) })
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.timestamp + $0.duration <= $1.timestamp + 1e-9 })
    }

    @Test("Alternatives are distinct and sorted by score")
    func alternatives() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let result = try recognizer.recognize(
            URLRecognitionRequest(url: TestSupport.cards[0], options: RecognitionOptions(maximumAlternatives: 5)))
        let texts = result.transcriptions.map(\.formattedString)
        #expect(texts.count > 1)
        #expect(Set(texts).count == texts.count)
        let scores = result.transcriptions.dropFirst().compactMap(\.score)
        #expect(scores == scores.sorted(by: >))
    }

    @Test("A stereo 44.1 kHz copy decodes like its 16 kHz mono original")
    func stereoDecodesLikeOriginal() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let folder = try TestSupport.temporaryDirectory("stereo")
        for file in TestSupport.cards + TestSupport.librivox.prefix(2) {
            let stereo = folder.appendingPathComponent(file.lastPathComponent)
            try TestSupport.run("sox", ["-R", file.path, "-r", "44100", "-c", "2", stereo.path])
            #expect(
                try transcript(recognizer, stereo).bestTranscription.formattedString
                    == transcript(recognizer, file).bestTranscription.formattedString)
        }
    }

    @Test("Streaming in 100 ms buffers reports partial results and a final one")
    func streaming() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let clip = try AudioLoader().load(TestSupport.cards[4])
        var request = AudioBufferRecognitionRequest(options: RecognitionOptions(shouldReportPartialResults: true))
        for chunk in AudioBufferRecognitionRequest.chunks(of: clip) { request.append(chunk) }
        request.endAudio()
        var partials: [RecognitionResult] = []
        let final = try recognizer.recognize(request) { _, result in partials.append(result) }
        #expect(final.isFinal)
        #expect(partials.allSatisfy { !$0.isFinal })
        #expect(partials.contains { !$0.bestTranscription.formattedString.isEmpty })
        #expect(final.bestTranscription.formattedString.split(separator: " ").count >= 6)
    }

    @Test("An unsupported locale is a clear error")
    func unsupportedLocale() {
        #expect(throws: RecognitionError.unsupportedLocale("fr-FR", supported: ["en-US"])) {
            try SpeechRecognizer(locale: "fr-FR")
        }
        #expect((try? SpeechRecognizer(locale: "en_US"))?.locale == "en-US")
    }

    @Test("A customized model on a request not forced on-device is not used, and the result says so")
    func onDeviceEnforced() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let custom = LanguageModelConfiguration(
            languageModel: URL(fileURLWithPath: "/nonexistent.lm"),
            vocabulary: URL(fileURLWithPath: "/nonexistent.dict"))
        let result = try recognizer.recognize(
            URLRecognitionRequest(
                url: TestSupport.cards[0],
                options: RecognitionOptions(requiresOnDeviceRecognition: false, customizedLanguageModel: custom)))
        guard case .ignored(let reason) = result.customization else {
            Issue.record("customization should be ignored, got \(result.customization)")
            return
        }
        #expect(reason.contains("on-device"))
    }

    @Test("A corrupt customized model is an error at load, never a silent fallback")
    func corruptCustomModel() throws {
        let recognizer = try SpeechRecognizer(locale: "en-US")
        let folder = try TestSupport.temporaryDirectory("corrupt")
        let lm = folder.appendingPathComponent("custom.lm")
        let vocabulary = folder.appendingPathComponent("custom.dict")
        try Data("\\data\\\nngram 1=3\n\n\\1-grams:\n-0.5 <s>".utf8).write(to: lm)
        try Data("winawer W IH N AW ER\n".utf8).write(to: vocabulary)
        let options = RecognitionOptions(
            requiresOnDeviceRecognition: true,
            customizedLanguageModel: LanguageModelConfiguration(languageModel: lm, vocabulary: vocabulary))
        #expect(throws: RecognitionFailure.self) {
            try recognizer.recognize(URLRecognitionRequest(url: TestSupport.cards[0], options: options))
        }
        try Data("winawer W IH N AW XX\n".utf8).write(to: vocabulary)
        let error = try #require(throws: RecognitionFailure.self) {
            try recognizer.recognize(URLRecognitionRequest(url: TestSupport.cards[0], options: options))
        }
        #expect(error.description.contains("XX"))
    }
}

@Suite("Durations")
struct DurationTests {
    @Test("Every duration is finite and within its range, by one check; a chunk given in code never overflows")
    func bounded() throws {
        for text in ["1e30", "inf", "nan", "0", "-1", "604801", "soon", ""] {
            let error = try #require(throws: DurationSettingError.self) { try DurationSetting.timeout.value(of: text) }
            #expect(error.description.hasPrefix("`timeout` is "), "\(error)")
            #expect(error.description.hasSuffix("it must be a number of seconds within 1…604800 (7 days)"))
        }
        #expect(try DurationSetting.prepareTimeout.value(of: "600") == 600)
        #expect(throws: DurationSettingError.self) { try DurationSetting.prepareTimeout.check(.infinity) }
        #expect(throws: DurationSettingError.self) { try DurationSetting.chunkMilliseconds.check(.nan) }
        // 10⁻³ s of samples per millisecond, times Int.max, used to trap in the worker.
        let clip = AudioClip(samples: [Int16](repeating: 1, count: 1600), sampleRate: 16_000)
        #expect(AudioBufferRecognitionRequest.chunks(of: clip, milliseconds: .max) == [clip.samples])
        #expect(AudioBufferRecognitionRequest.chunks(of: clip, milliseconds: 50).count == 2)
    }
}

@Suite("Acoustic model fingerprint")
struct AcousticModelFingerprintTests {
    @Test("A model file that is missing is an error naming it, not a fingerprint of the rest")
    func missingFile() throws {
        let installed = AcousticModel.englishUS
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hmm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: installed.hmm.appendingPathComponent("mdef"), to: folder.appendingPathComponent("mdef"))
        let model = AcousticModel(
            locale: installed.locale, hmm: folder, languageModel: installed.languageModel,
            dictionary: installed.dictionary)
        let missing = folder.appendingPathComponent("feat.params").path
        #expect(throws: RecognitionError.modelMissing(path: missing, hint: AcousticModelFingerprintTests.hint)) {
            try model.fingerprint
        }
        #expect(model.fingerprintForKeys == "missing:\(missing)")
        #expect(try installed.fingerprint.count == 64)
    }

    static let hint = "install Debian's pocketsphinx-en-us, or set GAMBIT_MODEL_DIR"
}
