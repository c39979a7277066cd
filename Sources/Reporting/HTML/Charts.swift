import Foundation
import Results
import Scoring

/// Inline SVG charts for the HTML report. Every chart is a plain string with its own `viewBox`, so it scales to
/// its card and needs no script or network.
enum Charts {
    static let variantColors = ["#2563eb", "#7c3aed", "#0891b2", "#db2777", "#ea580c", "#4d7c0f"]
    static let baselineColor = "#94a3b8"
    static let oracleColor = "#34d399"
    static let externalColor = "#a16207"

    /// The colour of a system's series.
    static func color(_ mode: SystemMode, variant: String?, variants: [String]) -> String {
        switch mode {
        case .baseline: return baselineColor
        case .oracle: return oracleColor
        case .customized:
            let index = variant.flatMap { variants.firstIndex(of: $0) } ?? 0
            return variantColors[index % variantColors.count]
        }
    }

    /// A round axis maximum at or above `value`.
    static func niceMaximum(_ value: Double) -> Double {
        guard value > 0 else { return 0.1 }
        let magnitude = pow(10, floor(log10(value)))
        for step in [1.0, 2.0, 2.5, 5.0, 10.0] where step * magnitude >= value { return step * magnitude }
        return 10 * magnitude
    }

    static func n(_ value: Double) -> String {
        let text = String(format: "%.1f", value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Grouped bars: WER of every system, grouped by corpus.
    static func werByCorpus(_ results: RunResults) -> String {
        let variants = results.variants.map(\.name)
        let groups = results.corpora.map { corpus in
            (corpus, results.systems.filter { $0.corpus == corpus.name })
        }.filter { !$0.1.isEmpty }
        guard !groups.isEmpty else { return "" }
        let width = 560.0
        let height = 260.0
        let left = 44.0
        let right = 12.0
        let top = 16.0
        let bottom = 40.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let maximum = niceMaximum(results.systems.map(\.metrics.rates.wordErrorRate).max() ?? 0)
        var svg = svgOpen(width, height, label: "Word error rate by corpus and system")
        svg += yGrid(from: left, to: width - right, maximum: maximum) { tick in
            (top + plotHeight * (1 - Double(tick) / 4), value: maximum * Double(tick) / 4)
        } label: {
            Format.percent($0, digits: $0 * 100 < 10 && $0 > 0 ? 1 : 0)
        }
        let groupWidth = plotWidth / Double(groups.count)
        for (g, group) in groups.enumerated() {
            let (corpus, systems) = group
            let barWidth = min(34, (groupWidth - 24) / Double(systems.count))
            let start = left + groupWidth * Double(g) + (groupWidth - barWidth * Double(systems.count)) / 2
            for (s, system) in systems.enumerated() {
                let wer = system.metrics.rates.wordErrorRate
                let barHeight = maximum > 0 ? plotHeight * min(wer, maximum) / maximum : 0
                let x = start + barWidth * Double(s)
                let y = top + plotHeight - barHeight
                let color =
                    system.recognizer == nil
                    ? color(system.mode, variant: system.variant, variants: variants) : externalColor
                svg +=
                    "<rect x=\"\(n(x + 2))\" y=\"\(n(y))\" width=\"\(n(barWidth - 4))\" height=\"\(n(max(barHeight, 0.5)))\" "
                    + "rx=\"2\" fill=\"\(color)\"><title>\(Format.escape("\(corpus.name) · \(Format.systemName(system)): WER \(Format.percent(wer))"))</title></rect>"
                svg +=
                    "<text x=\"\(n(x + barWidth / 2))\" y=\"\(n(y - 4))\" class=\"value\" text-anchor=\"middle\">\(Format.percent(wer, digits: 1))</text>"
            }
            svg +=
                "<text x=\"\(n(left + groupWidth * (Double(g) + 0.5)))\" y=\"\(n(height - bottom + 18))\" class=\"label\" "
                + "text-anchor=\"middle\">\(Format.escape(corpus.name))</text>"
            if corpus.role == .antiContext {
                svg +=
                    "<text x=\"\(n(left + groupWidth * (Double(g) + 0.5)))\" y=\"\(n(height - bottom + 32))\" "
                    + "class=\"tick\" text-anchor=\"middle\">anti-context</text>"
            }
        }
        svg +=
            "<line x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(top + plotHeight))\" y2=\"\(n(top + plotHeight))\" class=\"axis\"/>"
        return svg + "</svg>"
    }

    /// A legend for the system series.
    static func legend(_ results: RunResults) -> String {
        var items = [("baseline", baselineColor)]
        for (index, variant) in results.variants.enumerated() {
            items.append((variant.name, variantColors[index % variantColors.count]))
        }
        if results.systems.contains(where: { $0.mode == .oracle }) { items.append(("oracle", oracleColor)) }
        for name in Set(results.systems.compactMap(\.recognizer)).sorted() {
            items.append(("\(name) (external)", externalColor))
        }
        return "<div class=\"legend\">"
            + items.map { "<span><i style=\"background:\($0.1)\"></i>\(Format.escape($0.0))</span>" }.joined()
            + "</div>"
    }

    /// A forest plot: ΔWER, ΔB-WER and ΔU-WER of every comparison with their 95% intervals.
    static func gains(_ results: RunResults) -> String {
        var rows: [(label: String, metric: String, interval: BootstrapInterval)] = []
        for c in results.comparisons {
            rows.append(("\(c.corpus) · \(c.variant)" + (c.recognizer.map { " @ \($0)" } ?? ""), "WER", c.deltaWER))
            if let b = c.deltaBoostedWER { rows.append(("", "B-WER", b)) }
            if let u = c.deltaUnboostedWER { rows.append(("", "U-WER", u)) }
        }
        guard !rows.isEmpty else { return "" }
        let width = 560.0
        let rowHeight = 22.0
        let left = 190.0
        let right = 16.0
        let top = 10.0
        let bottom = 30.0
        let height = top + bottom + rowHeight * Double(rows.count)
        let bounds: [Double] = rows.flatMap { [abs($0.interval.lower), abs($0.interval.upper)] }
        let extent = niceMaximum(bounds.max() ?? 0.01)
        let plotWidth = width - left - right
        func x(_ value: Double) -> Double { left + plotWidth * (value + extent) / (2 * extent) }
        var svg = svgOpen(width, height, label: "Change of error rates with 95% intervals")
        for tick: Double in [-1, -0.5, 0, 0.5, 1] {
            let value = tick * extent
            svg +=
                "<line x1=\"\(n(x(value)))\" x2=\"\(n(x(value)))\" y1=\"\(n(top))\" y2=\"\(n(height - bottom))\" class=\"\(tick == 0 ? "zero" : "grid")\"/>"
            svg +=
                "<text x=\"\(n(x(value)))\" y=\"\(n(height - bottom + 16))\" class=\"tick\" text-anchor=\"middle\">\(Format.points(value, digits: extent * 100 < 5 ? 1 : 0))</text>"
        }
        svg += "<text x=\"\(n(x(-extent)))\" y=\"\(n(height - 2))\" class=\"tick\">← better</text>"
        svg += "<text x=\"\(n(x(extent)))\" y=\"\(n(height - 2))\" class=\"tick\" text-anchor=\"end\">worse →</text>"
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * (Double(index) + 0.5)
            let i = row.interval
            let tone = !i.significant ? "#64748b" : (i.observedDelta < 0 ? "#15803d" : "#b91c1c")
            if !row.label.isEmpty {
                svg += "<text x=\"4\" y=\"\(n(y + 4))\" class=\"label\">\(Format.escape(row.label))</text>"
            }
            svg +=
                "<text x=\"\(n(left - 8))\" y=\"\(n(y + 4))\" class=\"tick\" text-anchor=\"end\">\(row.metric)</text>"
            svg +=
                "<line x1=\"\(n(x(max(-extent, i.lower))))\" x2=\"\(n(x(min(extent, i.upper))))\" y1=\"\(n(y))\" y2=\"\(n(y))\" stroke=\"\(tone)\" stroke-width=\"2.5\" stroke-linecap=\"round\"/>"
            svg +=
                "<circle cx=\"\(n(x(max(-extent, min(extent, i.observedDelta)))))\" cy=\"\(n(y))\" r=\"4.5\" fill=\"\(i.significant ? tone : "#fff")\" stroke=\"\(tone)\" stroke-width=\"2\">"
                + "<title>\(Format.escape("\(row.metric) \(Format.points(i.observedDelta)) pts, 95% \(Format.interval(i)), p \(Format.decimal(i.pValue))"))</title></circle>"
        }
        return svg + "</svg>"
    }

    /// Final latency of every streamed utterance per system: dots, with the median and 95th percentile marked.
    static func latency(_ results: RunResults) -> String {
        let systems = results.systems.filter { $0.timing.finalLatency != nil }
        guard !systems.isEmpty else { return "" }
        let values = systems.flatMap { $0.utterances.compactMap { $0.latency?.finalLatencySeconds } }
        let maximum = niceMaximum(values.max() ?? 0.1)
        let width = 560.0
        let rowHeight = 26.0
        let left = 190.0
        let right = 16.0
        let top = 8.0
        let bottom = 30.0
        let height = top + bottom + rowHeight * Double(systems.count)
        let plotWidth = width - left - right
        func x(_ value: Double) -> Double { left + plotWidth * min(value, maximum) / maximum }
        let variants = results.variants.map(\.name)
        var svg = svgOpen(width, height, label: "Final latency after end of audio per system")
        for tick in 0...4 {
            let value = maximum * Double(tick) / 4
            svg +=
                "<line x1=\"\(n(x(value)))\" x2=\"\(n(x(value)))\" y1=\"\(n(top))\" y2=\"\(n(height - bottom))\" class=\"grid\"/>"
            svg +=
                "<text x=\"\(n(x(value)))\" y=\"\(n(height - bottom + 16))\" class=\"tick\" text-anchor=\"middle\">\(String(format: "%.2f s", value))</text>"
        }
        for (index, system) in systems.enumerated() {
            let y = top + rowHeight * (Double(index) + 0.5)
            let color =
                system.recognizer == nil
                ? color(system.mode, variant: system.variant, variants: variants) : externalColor
            svg +=
                "<text x=\"\(n(left - 8))\" y=\"\(n(y + 4))\" class=\"label\" text-anchor=\"end\">\(Format.escape("\(system.corpus) · \(Format.systemName(system))"))</text>"
            for (k, record) in system.utterances.enumerated() {
                guard let value = record.latency?.finalLatencySeconds else { continue }
                let jitter = Double((k * 7919) % 11) - 5
                svg +=
                    "<circle cx=\"\(n(x(value)))\" cy=\"\(n(y + jitter))\" r=\"2.6\" fill=\"\(color)\" fill-opacity=\"0.55\"/>"
            }
            if let p = system.timing.finalLatency {
                svg +=
                    "<line x1=\"\(n(x(p.p50)))\" x2=\"\(n(x(p.p50)))\" y1=\"\(n(y - 9))\" y2=\"\(n(y + 9))\" stroke=\"#0f172a\" stroke-width=\"2\"><title>p50 \(Format.seconds(p.p50))</title></line>"
                svg +=
                    "<line x1=\"\(n(x(p.p95)))\" x2=\"\(n(x(p.p95)))\" y1=\"\(n(y - 9))\" y2=\"\(n(y + 9))\" stroke=\"#b91c1c\" stroke-width=\"2\" stroke-dasharray=\"3 2\"><title>p95 \(Format.seconds(p.p95))</title></line>"
            }
        }
        return svg + "</svg>"
    }

    /// The error-rate series every tuning chart draws.
    static func errorSeries(
        boosted: [Double], unboosted: [Double], antiContext: [Double?]
    ) -> [(String, String, [Double?])] {
        [
            ("B-WER", "#2563eb", boosted), ("U-WER", "#7c3aed", unboosted),
            ("anti-context WER", "#ea580c", antiContext),
        ]
    }

    /// Sweep curves: B-WER, U-WER and anti-context WER against the custom-model weight.
    static func sweep(_ sweep: SweepResults) -> String {
        let points = sweep.curve
        guard points.count > 1 else { return "" }
        let weights = points.map(\.parameters.weight)
        return lineChart(
            positions: weights, labels: weights.map { String(format: "%.2g", $0) }, axisTitle: "custom-model weight",
            label: "Sweep: error rates against the custom-model weight",
            series: errorSeries(
                boosted: points.map(\.boostedWordErrorRate), unboosted: points.map(\.unboostedWordErrorRate),
                antiContext: points.map(\.antiContextWordErrorRate)),
            filled: points.map(\.paretoOptimal), marker: sweep.recommendation?.parameters.weight)
    }

    /// Scaling curve: the same error rates as distractor terms are added, on a log-like axis (evenly
    /// spaced term counts).
    static func scaling(_ points: [ScalingPoint]) -> String {
        guard points.count > 1 else { return "" }
        return lineChart(
            positions: points.indices.map(Double.init), labels: points.map { "\($0.distractors)" },
            axisTitle: "distractor terms added (nobody says them)",
            label: "Scaling: error rates as the boosted term list grows",
            series: errorSeries(
                boosted: points.map(\.boostedWordErrorRate), unboosted: points.map(\.unboostedWordErrorRate),
                antiContext: points.map(\.antiContextWordErrorRate)),
            filled: points.map { _ in true }, marker: nil)
    }

    /// Lines over shared x positions, with a labelled tick per position and an optional marked position.
    static func lineChart(
        positions: [Double], labels: [String], axisTitle: String, label: String,
        series: [(String, String, [Double?])], filled: [Bool], marker: Double?
    ) -> String {
        let width = 560.0
        let height = 260.0
        let left = 44.0
        let right = 16.0
        let top = 14.0
        let bottom = 36.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let minimumX = positions.min()!
        let maximumX = positions.max()!
        let maximum = niceMaximum(series.flatMap { $0.2.compactMap { $0 } }.max() ?? 0.1)
        func x(_ value: Double) -> Double {
            left + plotWidth * (maximumX > minimumX ? (value - minimumX) / (maximumX - minimumX) : 0.5)
        }
        func y(_ v: Double) -> Double { top + plotHeight * (1 - v / maximum) }
        var svg = svgOpen(width, height, label: label)
        svg += yGrid(from: left, to: width - right, maximum: maximum) { tick in
            let value = maximum * Double(tick) / 4
            return (y(value), value: value)
        } label: {
            Format.percent($0, digits: ($0 * 100).rounded() == $0 * 100 ? 0 : 1)
        }
        for (position, text) in zip(positions, labels) {
            svg +=
                "<text x=\"\(n(x(position)))\" y=\"\(n(height - bottom + 16))\" class=\"tick\" text-anchor=\"middle\">\(Format.escape(text))</text>"
        }
        svg +=
            "<text x=\"\(n(left + plotWidth / 2))\" y=\"\(n(height - 4))\" class=\"tick\" text-anchor=\"middle\">\(Format.escape(axisTitle))</text>"
        if let marker {
            svg +=
                "<line x1=\"\(n(x(marker)))\" x2=\"\(n(x(marker)))\" y1=\"\(n(top))\" y2=\"\(n(top + plotHeight))\" class=\"recommended\"/>"
            // Label on the side with room, so it is not cut off at the right edge.
            let leftSide = x(marker) > left + plotWidth / 2
            svg +=
                "<text x=\"\(n(x(marker) + (leftSide ? -4 : 4)))\" y=\"\(n(top + 10))\" class=\"tick\" "
                + "text-anchor=\"\(leftSide ? "end" : "start")\">recommended</text>"
        }
        for (name, color, values) in series {
            let coordinates = zip(zip(positions, filled), values).compactMap { pair, value in
                value.map { (x(pair.0), y($0), pair.1) }
            }
            guard !coordinates.isEmpty else { continue }
            svg +=
                "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\""
                + coordinates.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
                + "\"><title>\(name)</title></polyline>"
            for (cx, cy, solid) in coordinates {
                svg +=
                    "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"3.5\" fill=\"\(solid ? color : "#fff")\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
            }
        }
        return svg + "</svg>"
    }

    /// Five horizontal grid lines (0, ¼, ½, ¾ and the maximum) from x `from` to `to`, each labelled at its
    /// left end; `place` gives a tick's height and value.
    static func yGrid(
        from left: Double, to right: Double, maximum: Double, place: (Int) -> (Double, value: Double),
        label: (Double) -> String
    ) -> String {
        (0...4).map { tick in
            let (y, value) = place(tick)
            return "<line x1=\"\(n(left))\" x2=\"\(n(right))\" y1=\"\(n(y))\" y2=\"\(n(y))\" class=\"grid\"/>"
                + "<text x=\"\(n(left - 6))\" y=\"\(n(y + 4))\" class=\"tick\" text-anchor=\"end\">\(label(value))</text>"
        }.joined()
    }

    static func svgOpen(_ width: Double, _ height: Double, label: String) -> String {
        "<svg class=\"chart\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(Format.escape(label))\" "
            + "xmlns=\"http://www.w3.org/2000/svg\">"
    }
}
