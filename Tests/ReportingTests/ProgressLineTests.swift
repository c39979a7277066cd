import Foundation
import Synchronization
import Testing

@testable import Reporting

/// What a person sees of a long stage: on a terminal one line redrawn in place, piped a line every 10%.
@Suite struct ProgressLineTests {
    /// Collects what the line writes, with a clock the test moves.
    final class Screen: Sendable {
        let text = Mutex("")
        let now = Mutex(0.0)

        func line(interactive: Bool, colour: Bool = false) -> ProgressLine {
            ProgressLine(
                interactive: interactive, colour: colour, write: { piece in self.text.withLock { $0 += piece } },
                clock: { self.now.withLock { $0 } })
        }

        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
        var written: String { text.withLock { $0 } }
    }

    @Test("Piped: one plain line per tenth, with the rate and the time left, and the total time at the end")
    func piped() {
        let screen = Screen()
        let progress = screen.line(interactive: false)
        for done in 0...200 {
            progress.update("decoding", done, 200)
            screen.advance(0.5)
        }
        let lines = screen.written.split(separator: "\n").map(String.init)
        #expect(lines.count == 11, "\(lines)")
        #expect(lines.first == "  decoding: 0/200, 0%, ETA …")
        // 20 utterances every 10 s: 2 a second, 180 left.
        #expect(lines[1] == "  decoding: 20/200, 10%, 2.0/s, ETA 1m30s")
        #expect(lines.last == "  decoding: 200/200, 100%, in 1m40s")
        #expect(!screen.written.contains("\u{1B}"))
    }

    @Test("On a terminal: redrawn in place at most ten times a second, ended with a newline when done")
    func terminal() {
        let screen = Screen()
        let progress = screen.line(interactive: true)
        for done in 1...100 {
            progress.update("lattice pass", done, 100)
            screen.advance(0.01)
        }
        let written = screen.written
        let draws = written.components(separatedBy: "\r\u{1B}[K").dropFirst()
        // One draw per 0.1 s over 1 s, plus the last.
        #expect((9...12).contains(draws.count), "\(draws.count) draws")
        #expect(written.hasSuffix("100/100  100%  in 1s\n"), "\(written.suffix(60))")
        #expect(written.filter { $0 == "\n" }.count == 1)
        #expect(!written.contains("\u{1B}[1m"), "no colour unless asked for")
    }

    @Test("A message printed mid-stage clears the line first; a new stage starts a new line")
    func logAndStages() {
        let screen = Screen()
        let progress = screen.line(interactive: true, colour: true)
        progress.update("synthesis: chess", 3, 10)
        progress.log("prepared chess-full")
        #expect(screen.written.hasSuffix("\r\u{1B}[Kprepared chess-full\n"))
        progress.update("synthesis: chess", 4, 10)
        progress.update("prepare", 1, 6)
        #expect(screen.written.contains("\u{1B}[1mprepare\u{1B}[0m"), "the stage in bold")
        let lines = screen.written.split(separator: "\n")
        #expect(lines.count == 3, "\(lines)")
        progress.finish()
        #expect(screen.written.hasSuffix("\n"))
    }

    @Test("A stage run again, or interleaved with another, keeps its own start, rate and tenths")
    func passes() {
        let screen = Screen()
        let progress = screen.line(interactive: false)
        for pass in 0..<2 {
            progress.update("decoding", 0, 10)
            for done in 1...10 {
                screen.advance(1)
                progress.update("decoding", done, 10)
                if pass == 1 { progress.update("points", done, 10) }
            }
        }
        let lines = screen.written.split(separator: "\n").map(String.init)
        // Both passes print their tenths and their own time, counted from their own start.
        let finished = lines.filter { $0.hasPrefix("  decoding: 10/10") }
        #expect(finished == Array(repeating: "  decoding: 10/10, 100%, in 10s", count: 2), "\(lines)")
        #expect(
            lines.filter { $0.hasPrefix("  decoding: 5/10") }
                == Array(repeating: "  decoding: 5/10, 50%, 1.0/s, ETA 5s", count: 2))
        #expect(lines.contains("  points: 5/10, 50%, 1.0/s, ETA 5s"), "\(lines)")
        #expect(lines.contains("  points: 10/10, 100%, in 9s"), "\(lines)")
        // Told again that it is done, a finished stage prints nothing more.
        let before = screen.written
        progress.update("decoding", 10, 10)
        #expect(screen.written == before)
    }

    @Test("NO_COLOR set to anything but the empty string turns colour off")
    func noColour() {
        // Not a terminal here either way, so only the colour rule is observable through `colour`.
        #expect(ProgressLine.wantsColour(environment: ["NO_COLOR": "1"]) == false)
        #expect(ProgressLine.wantsColour(environment: ["NO_COLOR": ""]) == true)
        #expect(ProgressLine.wantsColour(environment: ["TERM": "dumb"]) == false)
        #expect(ProgressLine.wantsColour(environment: [:]) == true)
    }

    @Test("A decode that runs long is told of, with its utterance, its audio and its time, though nothing finishes")
    func stillRunning() {
        let screen = Screen()
        let piped = screen.line(interactive: false)
        piped.update("decoding", 0, 10)
        piped.update("decoding", 3, 10)
        screen.advance(130)
        piped.stillRunning("decoding", item: "utt-7", audioSeconds: 3600, seconds: 130)
        piped.stillRunning("decoding", item: "utt-8", audioSeconds: nil, seconds: 160)
        let lines = screen.written.split(separator: "\n").map(String.init)
        #expect(
            lines.suffix(2) == [
                "  decoding: 3/10 done; utt-7 (1h00m of audio) still running after 2m10s",
                "  decoding: 3/10 done; utt-8 still running after 2m40s",
            ], "\(lines)")

        let terminal = Screen()
        let redrawn = terminal.line(interactive: true)
        redrawn.update("decoding", 3, 10)
        terminal.advance(130)
        redrawn.stillRunning("decoding", item: "utt-7", audioSeconds: 3600, seconds: 130)
        #expect(terminal.written.hasSuffix("3/10  30%  ETA …  · utt-7 (1h00m of audio) still running after 2m10s"))
        #expect(!terminal.written.hasSuffix("\n"))
        redrawn.finish()
        #expect(terminal.written.hasSuffix("\n"))
    }

    @Test("Durations read as seconds, minutes and hours")
    func durations() {
        #expect(ProgressLine.duration(42.4) == "42s")
        #expect(ProgressLine.duration(245) == "4m05s")
        #expect(ProgressLine.duration(3720) == "1h02m")
        #expect(ProgressLine.duration(.infinity) == "…")
    }
}
