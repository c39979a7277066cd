import Foundation
import Testing

@testable import Recognition

/// A recognizer process that stays loaded, with a stand-in program: it counts its requests, answers each with
/// its own process id and count, dies on `die`, hangs on `hang`, and writes an endless line on `flood`.
@Suite struct ServedProcessTests {
    /// The stand-in's command. It is run through the interpreter, not executed itself: a script just written can
    /// be "busy" to `exec` while a test running beside this one forks.
    static func program() throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("serve.py")
        try """
        #!/usr/bin/env python3
        import json, os, sys, time
        print("model loaded", file=sys.stderr, flush=True)
        served = 0
        for line in sys.stdin:
            request = json.loads(line)
            served += 1
            if request["audio"] == "die":
                print("out of memory", file=sys.stderr, flush=True)
                os._exit(3)
            if request["audio"] == "hang":
                time.sleep(60)
            if request["audio"] == "flood":
                sys.stdout.write("x" * 100000)
                sys.stdout.flush()
                time.sleep(60)
            print(json.dumps({"transcript": request["audio"], "pid": os.getpid(), "served": served}), flush=True)
        """.write(to: script, atomically: true, encoding: .utf8)
        return ["/usr/bin/python3", script.path]
    }

    struct Answer: Decodable, Equatable {
        var transcript: String
        var pid: Int32
        var served: Int
    }

    static func ask(_ process: ServedProcess, _ audio: String, timeout: Double = 20) throws -> Answer {
        let line = try process.request(
            JSONEncoder().encode(["audio": audio]), timeoutSeconds: timeout, outputLimit: 10_000)
        return try JSONDecoder().decode(Answer.self, from: line)
    }

    @Test func answersManyRequestsFromOneStart() throws {
        let process = ServedProcess(arguments: try Self.program())
        let answers = try (1...5).map { try Self.ask(process, "utterance \($0)") }
        #expect(answers.map(\.transcript) == (1...5).map { "utterance \($0)" })
        #expect(answers.map(\.served) == [1, 2, 3, 4, 5])
        #expect(Set(answers.map(\.pid)).count == 1)
        #expect(process.starts == 1 && process.isRunning)
        process.stop()
        #expect(!process.isRunning)
    }

    @Test func aProgramThatDiesFailsItsRequestAndStartsAgain() throws {
        let process = ServedProcess(arguments: try Self.program())
        let first = try Self.ask(process, "a")
        #expect(throws: ServedProcess.Failure.died("model loaded\nout of memory")) { try Self.ask(process, "die") }
        #expect(!process.isRunning)
        let again = try Self.ask(process, "b")
        #expect(again.pid != first.pid && again.served == 1)
        #expect(process.starts == 2)
    }

    @Test func aRequestThatHangsTimesOutAndTheNextStartsAgain() throws {
        let process = ServedProcess(arguments: try Self.program())
        _ = try Self.ask(process, "a")
        #expect(throws: ServedProcess.Failure.timedOut) { try Self.ask(process, "hang", timeout: 0.5) }
        #expect(throws: ServedProcess.Failure.tooLong(10_000)) { try Self.ask(process, "flood") }
        #expect(try Self.ask(process, "b").served == 1)
        #expect(process.starts == 3)
    }

    @Test func aMissingProgramCannotStart() {
        let process = ServedProcess(arguments: ["/nonexistent/serve"])
        #expect(throws: ServedProcess.Failure.self) { try Self.ask(process, "a") }
        #expect(process.starts == 0)
    }
}
