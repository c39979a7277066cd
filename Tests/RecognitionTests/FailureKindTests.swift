import Audio
import Formats
import Foundation
import GambitTestSupport
import Results
import Scoring
import Synchronization
import Testing

@testable import Recognition

/// A failed utterance says what kind of failure it was, so reports and tests read the kind, not the words.
@Suite struct FailureKindTests {
    @Test("The worker tells the audio, the engine and an external recognizer's failures apart")
    func kinds() {
        #expect(RequestDecoder.kind(of: AudioError.missing(path: "/a.wav")) == .audio)
        #expect(RequestDecoder.kind(of: RecognitionFailure.audio(.empty(path: "/a.wav"))) == .audio)
        let engine = RecognitionError.customModelInvalid(path: "/m.lm", reason: "wrong vocabulary")
        #expect(RequestDecoder.kind(of: RecognitionFailure.engine(engine)) == .engine)
        #expect(RequestDecoder.kind(of: engine) == .engine)
        let late = ExternalRecognizerError(recognizer: "cli", audio: "/a.wav", reason: "no answer", timedOut: true)
        #expect(RequestDecoder.kind(of: late) == .timeout)
        let garbled = ExternalRecognizerError(recognizer: "cli", audio: "/a.wav", reason: "not JSON")
        #expect(RequestDecoder.kind(of: garbled) == .recognizerOutput)
    }

    /// The answer a recognizer gives for the 1.1 s "cards" clip when it prints `output` (its bytes as they are).
    func externalAnswer(printing output: Data, name: String) throws -> WorkResponse {
        let folder = try TestSupport.temporaryDirectory("recognizer-output")
        let printed = folder.appendingPathComponent("answer")
        try output.write(to: printed)
        let script = folder.appendingPathComponent("recognizer.sh")
        try "#!/bin/sh\ncat '\(printed.path)'\n".write(to: script, atomically: true, encoding: .utf8)
        try TestSupport.makeExecutable(script)
        let transcriber = try Transcriber(mode: .inProcess)
        var request = transcriber.request(audio: TestSupport.cards[0], configuration: nil)
        request.external = ExternalRecognizer(
            name: name, command: [script.path, "{audio}"], onDevice: false, timeoutSeconds: 60)
        return try #require(try transcriber.transcribe([request])[request.key])
    }

    @Test("A recognizer's answer that is not UTF-8 fails its utterance as recognizer output, naming the byte")
    func notUTF8() throws {
        var output = Data(#"{"transcript": "ten of clubs caf"#.utf8)
        let offset = output.count
        output.append(contentsOf: [0xE9] + Array(#" au lait"}"#.utf8))
        let answer = try externalAnswer(printing: output, name: "latin1")
        #expect(answer.failureKind == .recognizerOutput)
        #expect(answer.hypothesis.isEmpty && !answer.hypothesis.contains("\u{FFFD}"))
        let failure = try #require(answer.failure)
        #expect(failure.contains("external recognizer latin1 on \(TestSupport.cards[0].path)"), "\(failure)")
        #expect(failure.contains("standard output is not UTF-8: byte 0xE9 at offset \(offset)"), "\(failure)")
    }

    @Test("A recognizer that prints more words than its audio can hold fails that utterance, its output read capped")
    func runawayOutput() throws {
        // The 1.1 s clip: at most 22 + 50 words.
        let seconds = try AudioLoader().load(TestSupport.cards[0]).duration
        #expect(String(format: "%.1f", seconds) == "1.1")
        #expect(RecognizerOutput.maximumWords(audioSeconds: seconds) == 71)
        let words = String(repeating: "gambit ", count: 1000)
        let wordy = try externalAnswer(printing: Data(#"{"transcript": "\#(words)"}"#.utf8), name: "wordy")
        #expect(wordy.failureKind == .recognizerOutput && wordy.hypothesis.isEmpty)
        let failure = try #require(wordy.failure)
        #expect(failure.contains("has 1000 words for 1.1 s of audio, over the limit of 71"), "\(failure)")
        #expect(failure.contains("20 words per second of audio plus 50"), "\(failure)")

        // Two million words: what is read stops at the byte limit, long before the whole answer.
        let bytes = RecognizerOutput.maximumBytes(audioSeconds: seconds)
        let runaway = String(repeating: "gambit ", count: 2_000_000)
        let answer = try externalAnswer(printing: Data(#"{"transcript": "\#(runaway)"}"#.utf8), name: "runaway")
        #expect(answer.failureKind == .recognizerOutput && answer.hypothesis.isEmpty)
        let cut = try #require(answer.failure)
        #expect(cut.contains("printed more than \(bytes) bytes on standard output for 1.1 s of audio"), "\(cut)")
    }

    @Test("A bad file decoded by a worker comes back as an audio failure naming the file, and is journaled so")
    func throughTheWorker() throws {
        let folder = try TestSupport.temporaryDirectory("failure-kind")
        let bad = folder.appendingPathComponent("not-audio.wav")
        try Data("this is text".utf8).write(to: bad)
        let transcriber = try Transcriber(mode: .inProcess)
        let request = transcriber.request(audio: bad, configuration: nil)
        let answers = try transcriber.transcribe([request], journal: folder.appendingPathComponent("j.jsonl"))
        let answer = try #require(answers[request.key])
        #expect(answer.failureKind == .audio)
        #expect(answer.failure?.contains("not-audio.wav") == true)
        let journaled = try #require(Journal.read(folder.appendingPathComponent("j.jsonl"))[request.key])
        #expect(journaled.failureKind == .audio)
    }

    /// A recognizer that answers after `seconds` seconds, run on the 1.1 s "cards" clip by `transcriber`.
    func slowRequest(_ transcriber: Transcriber, seconds: Double, timeout: Double) throws -> WorkRequest {
        let folder = try TestSupport.temporaryDirectory("slow-recognizer")
        let script = folder.appendingPathComponent("slow.sh")
        try "#!/bin/sh\nsleep \(seconds)\necho '{\"transcript\": \"ten of clubs\"}'\n".write(
            to: script, atomically: true, encoding: .utf8)
        try TestSupport.makeExecutable(script)
        var request = transcriber.request(audio: TestSupport.cards[0], configuration: nil)
        request.external = ExternalRecognizer(
            name: "slow", command: [script.path, "{audio}"], onDevice: true, timeoutSeconds: timeout)
        return request
    }

    @Test("A recognizer past its timeout fails its utterance naming the audio, the limit and the audio's length")
    func timeoutSaysTheAudioLength() throws {
        let transcriber = try Transcriber(mode: .inProcess)
        let request = try slowRequest(transcriber, seconds: 5, timeout: 1)
        let answer = try #require(try transcriber.transcribe([request])[request.key])
        #expect(answer.failureKind == .timeout)
        let failure = try #require(answer.failure)
        #expect(failure.contains("external recognizer slow on \(TestSupport.cards[0].path)"), "\(failure)")
        #expect(failure.contains("no answer within 1 s (killed), on 1.1 s of audio"), "\(failure)")
        #expect(failure.contains("raise the recognizer's timeout"), "\(failure)")
    }

    @Test("A decode in a worker that runs long is told of while it runs: which request, its audio and its time")
    func heartbeat() throws {
        let transcriber = try Transcriber(mode: .workers(executable: TestSupport.gambitExecutable, count: 1))
        transcriber.denyNetwork = false
        let told = Mutex<[LongDecode]>([])
        transcriber.heartbeat = DecodeHeartbeat(interval: 0.2) { decode in told.withLock { $0.append(decode) } }
        let request = try slowRequest(transcriber, seconds: 1.5, timeout: 60)
        let answer = try #require(try transcriber.transcribe([request])[request.key])
        #expect(answer.failure == nil, "\(answer)")
        let reports = told.withLock { $0 }
        let first = try #require(reports.first, "nothing was told while the recognizer took 1.5 s")
        #expect(reports.allSatisfy { $0.request.key == request.key })
        #expect(first.seconds >= 0.2 && first.seconds < 1.5, "\(reports.map(\.seconds))")
        #expect(String(format: "%.1f", first.audioSeconds ?? 0) == "1.1")
        // Nothing is told once the decode has answered.
        let count = reports.count
        Thread.sleep(forTimeInterval: 0.5)
        #expect(told.withLock { $0.count } == count)
    }
}
