import Foundation
import Results

extension HTMLReport {
    /// Latency as the field reports it, per system: how the audio was streamed, time to the first partial from
    /// speech onset, time to the final from the end of the audio (p50, p95 with its bootstrap interval, p99), the
    /// recognizer's own end-of-speech detection, and what is counted rather than timed (missing and early finals).
    /// A recognizer that does not stream has its time over the whole utterance instead, and says so.
    func latencyCard() -> String {
        let systems = results.systems.filter { $0.timing.streaming != nil || $0.timing.wholeUtterance != nil }
        guard !systems.isEmpty else { return "" }
        var out = "<div class=\"card\"><h3>Latency</h3><table><thead><tr><th>System</th><th>Streamed</th>"
        out += "<th class=\"num\">n</th><th class=\"num\">First partial<div class=\"sub\">p50 / p95</div></th>"
        out += "<th class=\"num\">Final<div class=\"sub\">p50</div></th>"
        out += "<th class=\"num\">Final<div class=\"sub\">p95 · 95% CI</div></th>"
        out += "<th class=\"num\">Final<div class=\"sub\">p99</div></th>"
        out += "<th class=\"num\">End of speech<div class=\"sub\">p50 / p95</div></th>"
        out += "<th class=\"num\">Finals<div class=\"sub\">missing / early</div></th></tr></thead><tbody>"
        for system in systems {
            let t = system.timing
            out += "<tr><td>\(e(system.corpus)) · \(e(Format.systemName(system)))</td>"
            if let whole = t.wholeUtterance, t.streaming == nil {
                out +=
                    "<td>whole utterance<div class=\"sub\">does not stream</div></td><td class=\"num\">\(whole.count)</td><td class=\"num\">—</td>"
                out += latencyCells(whole) + "<td class=\"num\">—</td><td class=\"num\">—</td></tr>"
                continue
            }
            guard let s = t.streaming else { continue }
            out += "<td>\(e(Self.pacingLabel(s.pacing)))</td><td class=\"num\">\(s.streamed)</td>"
            out +=
                "<td class=\"num\">\(Format.milliseconds(s.firstPartialAfterOnset?.p50)) / "
                + "\(Format.milliseconds(s.firstPartialAfterOnset?.p95))</td>"
            out +=
                t.finalLatency.map(latencyCells)
                ?? "<td class=\"num\">—</td><td class=\"num\">—</td><td class=\"num\">—</td>"
            let endpoint =
                s.endpointLatency.map {
                    "\(Format.milliseconds($0.p50)) / \(Format.milliseconds($0.p95))"
                        + "<div class=\"sub\">\(s.endpointsDetected) of \(s.streamed) detected"
                        + (s.prematureEndpoints > 0 ? ", \(s.prematureEndpoints) too early" : "") + "</div>"
                } ?? "not detected"
            out += "<td class=\"num\">\(endpoint)</td><td class=\"num\">\(s.missingFinals) / \(s.earlyFinals)</td></tr>"
        }
        out += "</tbody></table><p class=\"note\">Times on the audio's own clock, as if it were being spoken. "
        out += "First partial: from speech onset (an energy estimate from the audio) to the first words. Final: "
        out += "from the end of the audio to the final hypothesis. End of speech: from the end of speech to the "
        out += "recognizer's own detection of it, when it made one before the audio ended. Real-time paced streaming "
        out += "waits for each chunk as a microphone would; simulated streaming feeds chunks as fast as they are "
        out += "decoded and replays the clock. Intervals: percentile bootstrap over utterances.</p></div>"
        return out
    }

    /// p50, p95 with its interval, and p99, as three cells.
    private func latencyCells(_ p: Percentiles) -> String {
        let interval = p.p95Interval.map {
            "<div class=\"sub\">[\(Format.milliseconds($0.first)), \(Format.milliseconds($0.last))]</div>"
        }
        return "<td class=\"num\">\(Format.milliseconds(p.p50))</td>"
            + "<td class=\"num\">\(Format.milliseconds(p.p95))\(interval ?? "")</td>"
            + "<td class=\"num\">\(Format.milliseconds(p.p99))</td>"
    }

    /// `realTime` → "real-time paced, 100 ms chunks"-style labels, as the results name the pacing.
    static func pacingLabel(_ pacing: String) -> String {
        switch pacing {
        case "realTime": "real-time paced"
        case "simulated": "simulated"
        default: pacing
        }
    }
}
