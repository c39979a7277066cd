import Audio
import Foundation
import GambitTestSupport
import Results
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
}
