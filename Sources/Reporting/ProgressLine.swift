import Foundation
import Synchronization

/// How far a command's long stages have gone, on standard error: on a terminal one line redrawn in place, piped a
/// plain line every 10%; both with the count, the rate and the time left.
///
/// Stages report through ``update(_:_:_:)`` from any thread (the runner's workers, the synthesiser's jobs); other
/// messages go through ``log(_:)`` so they never land in the middle of a redrawn line.
public final class ProgressLine: Sendable {
    private let interactive: Bool
    private let colour: Bool
    private let write: @Sendable (String) -> Void
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    private struct State {
        /// The stage whose line is on screen.
        var current: String?
        var passes: [String: Pass] = [:]
        var lastDrawn = -Double.infinity
        /// A redrawn line is on screen and not yet ended.
        var open = false
    }

    /// One pass of a stage: the sweep decodes several times under one name, and interleaves stages (a point's
    /// decode, then the point), so each stage keeps its own start.
    private struct Pass {
        var started: Double
        var doneAtStart: Int
        var done: Int
        var lastTenth = -1
        var total = 0
    }

    /// - Parameters:
    ///   - interactive: Redraw one line in place (a terminal) rather than print a line every 10%.
    ///   - colour: Colour the stage and the bar (never when not interactive).
    ///   - write: Where the text goes (standard error by default).
    ///   - clock: Seconds from a fixed point (monotonic by default).
    public init(
        interactive: Bool, colour: Bool,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
        clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.interactive = interactive
        self.colour = interactive && colour
        self.write = write
        self.clock = clock
    }

    /// The line for standard error as it is here: redrawn when it is a terminal, coloured unless `NO_COLOR` is set
    /// (to anything but the empty string, as no-color.org says) or `TERM` is `dumb`.
    public static func standardError(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> ProgressLine
    {
        let terminal = isatty(STDERR_FILENO) == 1 && environment["TERM"] != "dumb"
        return ProgressLine(interactive: terminal, colour: wantsColour(environment: environment))
    }

    static func wantsColour(environment: [String: String]) -> Bool {
        (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// `done` of `total` items of `stage` are finished. A stage reports `(0, total)` when it starts, so that its
    /// time and rate count the first item; a count lower than the last, or one after the stage finished, starts a
    /// new pass of it.
    public func update(_ stage: String, _ done: Int, _ total: Int) {
        let now = clock()
        state.withLock { state in
            if state.current != stage {
                if state.open { write("\n") }
                state.open = false
                state.current = stage
                state.lastDrawn = -Double.infinity
            }
            var pass = state.passes[stage] ?? Pass(started: now, doneAtStart: done, done: done)
            // A finished stage told again that it is finished has nothing new to show.
            if state.passes[stage] != nil && pass.done >= total && done >= total { return }
            if done < pass.done || (pass.done >= total && done < total) {
                pass = Pass(started: now, doneAtStart: done, done: done)
            }
            pass.done = done
            pass.total = total
            defer { state.passes[stage] = pass }
            let finished = done >= total
            if interactive {
                guard finished || now - state.lastDrawn >= 0.1 else { return }
                state.lastDrawn = now
                write("\r\u{1B}[K" + line(stage, done, total, pass, now))
                state.open = !finished
                if finished { write("\n") }
            } else {
                let tenth = total == 0 ? 10 : done * 10 / total
                guard tenth > pass.lastTenth else { return }
                pass.lastTenth = tenth
                write("  " + line(stage, done, total, pass, now) + "\n")
            }
        }
    }

    /// Tells that one item of `stage` has been running a while though nothing has finished (a long decode): on a
    /// terminal the stage's line is drawn again with it, piped it is a line of its own, so that a long decode
    /// never looks like a hung run.
    ///
    /// - Parameters:
    ///   - item: What is running, e.g. the utterance's id.
    ///   - audioSeconds: How much audio it is, when known.
    ///   - seconds: How long it has been running.
    public func stillRunning(_ stage: String, item: String, audioSeconds: Double?, seconds: Double) {
        let now = clock()
        let detail =
            "\(item)" + (audioSeconds.map { " (\(Self.duration($0)) of audio)" } ?? "") + " still running after "
            + Self.duration(seconds)
        state.withLock { state in
            let pass = state.passes[stage]
            if interactive {
                if state.current != stage {
                    if state.open { write("\n") }
                    state.current = stage
                }
                let head = pass.map { line(stage, $0.done, $0.total, $0, now) } ?? "  \(stage)"
                write("\r\u{1B}[K" + head + "  · " + detail)
                state.open = true
                state.lastDrawn = now
            } else {
                write("  \(stage): " + (pass.map { "\($0.done)/\($0.total) done; " } ?? "") + detail + "\n")
            }
        }
    }

    /// Prints `message` on a line of its own, below the progress line, which is drawn again at its next update.
    public func log(_ message: String) {
        state.withLock { state in
            if state.open {
                write("\r\u{1B}[K")
                state.open = false
                state.lastDrawn = -Double.infinity
            }
            write(message + "\n")
        }
    }

    /// Ends a line left open (a stage that stopped before its last item).
    public func finish() {
        state.withLock { state in
            if state.open { write("\n") }
            state.open = false
            state.current = nil
        }
    }

    private func line(_ stage: String, _ done: Int, _ total: Int, _ state: Pass, _ now: Double) -> String {
        let percent = total == 0 ? 100 : done * 100 / total
        var parts = ["\(done)/\(total)", "\(percent)%"]
        let elapsed = now - state.started
        let counted = done - state.doneAtStart
        if done >= total {
            parts.append("in " + Self.duration(elapsed))
        } else if counted > 0 && elapsed > 0 {
            let rate = Double(counted) / elapsed
            parts.append(rate >= 10 ? String(format: "%.0f/s", rate) : String(format: "%.1f/s", rate))
            parts.append("ETA " + Self.duration(Double(total - done) / rate))
        } else {
            parts.append("ETA …")
        }
        guard interactive else { return "\(stage): " + parts.joined(separator: ", ") }
        let width = 24
        let filled = total == 0 ? width : min(width, width * done / total)
        var bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        var name = stage
        if colour {
            name = "\u{1B}[1m\(stage)\u{1B}[0m"
            bar = "\u{1B}[32m\(bar)\u{1B}[0m"
        }
        return "  \(name) \(bar) " + parts.joined(separator: "  ")
    }

    /// `42s`, `4m05s`, `1h02m`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "…" }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
        return String(format: "%dh%02dm", whole / 3600, whole % 3600 / 60)
    }
}
