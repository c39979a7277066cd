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

    /// WER of every system, one small chart per corpus, all on one scale: a horizontal bar per system with its
    /// name at the left and its value at the bar's end. It stays readable however many corpora and systems a run
    /// has, where bars grouped on one axis had their values and corpus names overwrite each other.
    static func werByCorpus(_ results: RunResults) -> String {
        let variants = results.variants.map(\.name)
        let groups = results.corpora.map { corpus in
            (corpus, results.systems.filter { $0.corpus == corpus.name })
        }.filter { !$0.1.isEmpty }
        guard !groups.isEmpty else { return "" }
        let maximum = niceMaximum(results.systems.map(\.metrics.rates.wordErrorRate).max() ?? 0)
        return "<div class=\"multiples\">"
            + groups.map { werChart($0.0, $0.1, maximum: maximum, variants: variants) }.joined() + "</div>"
    }

    /// One corpus's bars: its name and role on top, a row per system, the scale's ticks below.
    static func werChart(
        _ corpus: CorpusInfo, _ systems: [SystemResults], maximum: Double, variants: [String]
    ) -> String {
        let width = 380.0
        let rowHeight = 17.0
        let top = 24.0
        let bottom = 20.0
        let height = top + bottom + rowHeight * Double(systems.count)
        let names = systems.map { Format.systemName($0) }
        let valueColumn = TextWidth.of("188.8%", size: 10) + 8
        let left = min(max((names.map { TextWidth.of($0, size: 10.5) }.max() ?? 0) + 12, 48), width * 0.56)
        let plotWidth = width - left - valueColumn
        func x(_ value: Double) -> Double { left + plotWidth * min(value, maximum) / max(maximum, 1e-9) }
        var svg = svgOpen(width, height, label: "Word error rate on \(corpus.name) by system")
        let role = corpus.role == .antiContext ? "anti-context" : "domain"
        let roleWidth = TextWidth.of(role, size: 10.5)
        svg +=
            "<text x=\"4\" y=\"15\" class=\"label\">"
            + TextWidth.fitted(corpus.name, width: width - roleWidth - 16, size: 11.5, bold: true) + "</text>"
        svg += "<text x=\"\(n(width - 4))\" y=\"15\" class=\"tick\" text-anchor=\"end\">\(role)</text>"
        for tick in 0...2 {
            let value = maximum * Double(tick) / 2
            svg +=
                "<line x1=\"\(n(x(value)))\" x2=\"\(n(x(value)))\" y1=\"\(n(top - 2))\" y2=\"\(n(height - bottom))\" class=\"grid\"/>"
            svg +=
                "<text x=\"\(n(x(value)))\" y=\"\(n(height - 6))\" class=\"tick\" text-anchor=\"\(tick == 0 ? "start" : tick == 2 ? "end" : "middle")\">"
                + "\(Format.percent(value, digits: 0))</text>"
        }
        for (index, system) in systems.enumerated() {
            let y = top + rowHeight * Double(index)
            let wer = system.metrics.rates.wordErrorRate
            let color =
                system.recognizer == nil
                ? color(system.mode, variant: system.variant, variants: variants) : externalColor
            svg +=
                "<text x=\"\(n(left - 6))\" y=\"\(n(y + rowHeight / 2 + 4))\" class=\"tick\" text-anchor=\"end\">"
                + TextWidth.fitted(names[index], width: left - 10, size: 10.5) + "</text>"
            svg +=
                "<rect x=\"\(n(left))\" y=\"\(n(y + 3))\" width=\"\(n(max(x(wer) - left, 0.5)))\" height=\"\(n(rowHeight - 6))\" "
                + "rx=\"2\" fill=\"\(color)\"><title>"
                + Format.escape("\(corpus.name) · \(names[index]): WER \(Format.percent(wer))") + "</title></rect>"
            svg +=
                "<text x=\"\(n(x(wer) + 4))\" y=\"\(n(y + rowHeight / 2 + 4))\" class=\"value\">"
                + "\(Format.percent(wer, digits: 1))</text>"
        }
        return svg + "</svg>"
    }

    /// A forest plot: ΔWER, ΔB-WER and ΔU-WER of every comparison with their 95% intervals, each comparison named
    /// on a row of its own above its metrics, so that no name runs into a metric's label however long it is.
    static func gains(_ results: RunResults) -> String {
        var rows: [(metric: String, interval: BootstrapInterval?)] = []
        for c in results.comparisons {
            rows.append(("\(c.corpus) · \(c.label)", nil))
            rows.append(("WER", c.deltaWER))
            if let b = c.deltaBoostedWER { rows.append(("B-WER", b)) }
            if let u = c.deltaUnboostedWER { rows.append(("U-WER", u)) }
        }
        guard !rows.isEmpty else { return "" }
        let width = 560.0
        let rowHeight = 19.0
        let left = 64.0
        let right = 16.0
        let top = 6.0
        let bottom = 34.0
        let height = top + bottom + rowHeight * Double(rows.count)
        let bounds: [Double] = rows.compactMap(\.interval).flatMap { [abs($0.lower), abs($0.upper)] }
        let extent = niceMaximum(bounds.max() ?? 0.01)
        let plotWidth = width - left - right
        func x(_ value: Double) -> Double { left + plotWidth * (value + extent) / (2 * extent) }
        var svg = svgOpen(width, height, label: "Change of error rates with 95% intervals")
        for tick: Double in [-1, -0.5, 0, 0.5, 1] {
            let value = tick * extent
            svg +=
                "<line x1=\"\(n(x(value)))\" x2=\"\(n(x(value)))\" y1=\"\(n(top))\" y2=\"\(n(height - bottom))\" class=\"\(tick == 0 ? "zero" : "grid")\"/>"
            svg +=
                "<text x=\"\(n(x(value)))\" y=\"\(n(height - bottom + 14))\" class=\"tick\" text-anchor=\"\(tick == -1 ? "start" : tick == 1 ? "end" : "middle")\">"
                + "\(Format.points(value, digits: extent * 100 < 5 ? 1 : 0))</text>"
        }
        svg += "<text x=\"\(n(x(-extent)))\" y=\"\(n(height - 5))\" class=\"tick\">← better</text>"
        svg += "<text x=\"\(n(x(extent)))\" y=\"\(n(height - 5))\" class=\"tick\" text-anchor=\"end\">worse →</text>"
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * (Double(index) + 0.5)
            guard let i = row.interval else {
                svg +=
                    "<text x=\"4\" y=\"\(n(y + 4))\" class=\"label\">"
                    + TextWidth.fitted(row.metric, width: width - 8, size: 11.5, bold: true) + "</text>"
                continue
            }
            let tone = !i.significant ? "#64748b" : (i.observedDelta < 0 ? "#15803d" : "#b91c1c")
            svg +=
                "<text x=\"\(n(left - 8))\" y=\"\(n(y + 4))\" class=\"tick\" text-anchor=\"end\">\(row.metric)</text>"
            svg +=
                "<line x1=\"\(n(x(max(-extent, i.lower))))\" x2=\"\(n(x(min(extent, i.upper))))\" y1=\"\(n(y))\" y2=\"\(n(y))\" stroke=\"\(tone)\" stroke-width=\"2.5\" stroke-linecap=\"round\"/>"
            svg +=
                "<circle cx=\"\(n(x(max(-extent, min(extent, i.observedDelta)))))\" cy=\"\(n(y))\" r=\"4.5\" fill=\"\(i.significant ? tone : "#fff")\" stroke=\"\(tone)\" stroke-width=\"2\">"
                + "<title>\(Format.escape("\(row.metric) \(Format.points(i.observedDelta)) pts, 95% \(Format.interval(i)), \(i.tooFewUtterances != nil ? i.verdict : "p " + Format.decimal(i.pValue))"))</title></circle>"
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
        let labels = systems.map { "\($0.corpus) · \(Format.systemName($0))" }
        // The labels' column is as wide as the widest label, up to 52% of the chart; a longer label is cut.
        let left = min(max((labels.map { TextWidth.of($0, size: 11.5, bold: true) }.max() ?? 0) + 14, 80), width * 0.52)
        let right = 22.0
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
                "<text x=\"\(n(left - 8))\" y=\"\(n(y + 4))\" class=\"label\" text-anchor=\"end\">"
                + TextWidth.fitted(labels[index], width: left - 12, size: 11.5, bold: true) + "</text>"
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

    /// The list sweep's curve: B-WER on the domain corpus against the list's length, one line per distractor
    /// count (evenly spaced lengths), coloured as ``listSweepLegend(_:)`` names them.
    static func listSweep(_ sweep: ListSweepResults) -> String {
        let lengths = Array(Set(sweep.points.map(\.length))).sorted()
        guard lengths.count > 1 else { return "" }
        let series = listSweepLegend(sweep).map { count, name, color in
            (
                name, color,
                lengths.map { length in
                    sweep.points.first { $0.length == length && $0.distractors == count }?.domain.customized
                        .boostedWordErrorRate
                }
            )
        }
        let marker = sweep.recommendation.flatMap { r in lengths.firstIndex(of: r.length).map(Double.init) }
        return lineChart(
            positions: lengths.indices.map(Double.init), labels: lengths.map { "\($0)" },
            axisTitle: "list length (\(sweep.unit))", label: "List sweep: B-WER against the list's length",
            series: series, filled: lengths.map { _ in true }, marker: marker)
    }

    /// Each distractor count of the list sweep, fewest first, with the line's name and colour.
    static func listSweepLegend(_ sweep: ListSweepResults) -> [(count: Int, name: String, color: String)] {
        let palette = ["#2563eb", "#ea580c", "#7c3aed", "#059669", "#db2777"]
        return Array(Set(sweep.points.map(\.distractors))).sorted().enumerated().map { index, count in
            (count, count == 0 ? "no distractors" : "+\(count) distractors", palette[index % palette.count])
        }
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
        // A tick label that would run into the one before it is left out (its point keeps its place).
        var lastEnd = -Double.infinity
        for (position, text) in zip(positions, labels) {
            let half = TextWidth.of(text, size: 10.5) / 2
            let center = min(max(x(position), half + 2), width - half - 2)
            guard center - half > lastEnd + 4 else { continue }
            lastEnd = center + half
            svg +=
                "<text x=\"\(n(center))\" y=\"\(n(height - bottom + 16))\" class=\"tick\" text-anchor=\"middle\">\(Format.escape(text))</text>"
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

/// Text widths, estimated, since an SVG has no layout of its own: the charts size their label columns and cut
/// labels by them. Per character in ems of a sans-serif face, on the wide side (DejaVu Sans, what headless Chromium
/// uses here, is among the widest), so that an estimate errs long, never short.
enum TextWidth {
    static func of(_ text: String, size: Double, bold: Bool = false) -> Double {
        var ems = 0.0
        for character in text {
            switch character {
            case "i", "l", "j", "'", ".", ",", ":", ";", "|", "!", "(", ")", "[", "]", " ", "f", "t", "I", "r":
                ems += 0.4
            case "m", "w", "M", "W", "@", "%", "—", "…", "←", "→", "Δ":
                ems += 1.0
            case "A"..."Z":
                ems += 0.76
            default:
                ems += 0.66
            }
        }
        return ems * size * (bold ? 1.1 : 1)
    }

    /// `text`, HTML-escaped, cut with "…" to fit `width`; a cut text keeps its whole self in a tooltip.
    static func fitted(_ text: String, width: Double, size: Double, bold: Bool = false) -> String {
        guard of(text, size: size, bold: bold) > width else { return Format.escape(text) }
        var kept = text
        while !kept.isEmpty && of(kept + "…", size: size, bold: bold) > width { kept.removeLast() }
        return "<title>\(Format.escape(text))</title>" + Format.escape(kept + "…")
    }
}
