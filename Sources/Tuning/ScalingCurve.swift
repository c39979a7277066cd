import Audio
import Corpus
import Foundation
import Hashing
import LanguageModel
import Recognition
import Results
import Runner
import Scoring
import TrainingData

/// Accuracy as the boosted term list grows: the variant's own data plus more and more distractor
/// terms that nobody says in the audio, as happens when an app boosts a whole contact list or
/// catalogue to catch the few names a user will say.
///
/// Distractors widen the custom vocabulary, which the sweep's lattices cannot contain, so every
/// point is a full decode of the dev split (domain and anti-context), in every worker.
public struct ScalingCurve: Sendable {
    public var termCounts: [Int]

    public init(termCounts: [Int] = [0, 10, 100, 1000, 3000]) {
        self.termCounts = termCounts
    }

    /// Real words of the base dictionary that are rare in the base model (past its 20,000 most
    /// probable words, like names and jargon), absent from every reference text of the suite and from
    /// the data's own words, in a fixed pseudo-random order.
    public static func distractors(
        count: Int, excluding excluded: Set<String>, compiler: LanguageModelCompiler
    ) throws -> [String] {
        let dictionary = try compiler.dictionary()
        let candidates = try compiler.commonWords().dropFirst(20_000).filter { word in
            word.count >= 4 && word.allSatisfy({ $0.isLetter && $0.isASCII && $0.isLowercase })
                && !excluded.contains(word) && dictionary.contains(word)
        }
        func rank(_ word: String) -> String {
            ContentHash.hex(ContentHash.sha256(Data(word.utf8)).prefix(8))
        }
        let chosen = candidates.map { (rank($0), $0) }.sorted { $0 < $1 }.prefix(count).map(\.1)
        guard chosen.count == count else {
            throw RunnerError.tooFewDistractors(available: chosen.count, asked: count)
        }
        return chosen
    }

    /// The data with `distractors` added as phrases, each with the median count of the data's phrases.
    static func adding(_ distractors: [String], to data: CustomLanguageModelData) -> CustomLanguageModelData {
        var extended = data
        let counts = data.phraseCounts.map(\.count).sorted()
        let count = counts.isEmpty ? 1 : counts[counts.count / 2]
        for word in distractors { extended.insert(phrase: word, count: count) }
        return extended
    }
}

extension Sweep {
    /// Decodes the dev split once per term count of `curve` and scores it against the data's own boosted
    /// words (the distractors are never said, so every one that shows up is an insertion or substitution).
    func scaling(
        _ curve: ScalingCurve, variant: Suite.Variant, data: CustomLanguageModelData, dev: Split,
        references: [String], boosted: [String]
    ) throws -> [ScalingPoint] {
        var excluded = Set(references.flatMap { WordTokenizer.tokenize($0) })
        excluded.formUnion(boosted)
        let largest = curve.termCounts.max() ?? 0
        let pool = try ScalingCurve.distractors(count: largest, excluding: excluded, compiler: toolchain.compiler)
        var points: [ScalingPoint] = []
        progress?("scaling curve", 0, curve.termCounts.count)
        for (index, count) in curve.termCounts.sorted().enumerated() {
            defer { progress?("scaling curve", index + 1, curve.termCounts.count) }
            let extended = ScalingCurve.adding(Array(pool.prefix(count)), to: data)
            let folder = toolchain.cacheFolder.appendingPathComponent("scaling")
                .appendingPathComponent("\(PathComponent(variant.name))-\(count)")
            let artifact = try toolchain.compiler.prepare(extended, output: folder, options: variant.prepareOptions)
                .artifact
            let configuration = Toolchain.configuration(artifact, weight: variant.weight)
            let before = decodedSeconds
            let hypotheses = try decode((dev.domain + dev.anti).map(\.audio), configuration)
            let onDomain = score(dev.domain, Array(hypotheses.prefix(dev.domain.count)), boosted: boosted)
            let onAnti = score(dev.anti, Array(hypotheses.dropFirst(dev.domain.count)), boosted: [])
            let point = ScalingPoint(
                distractors: count, boostedTerms: artifact.manifest.boostedTerms.count,
                samplesUsed: artifact.manifest.samples, metrics: MetricSummary(onDomain),
                antiContext: dev.anti.isEmpty ? nil : MetricSummary(onAnti),
                prepareSeconds: artifact.manifest.timings.total, decodeSeconds: decodedSeconds - before)
            log(
                String(
                    format: "scaling: %ld distractors (%ld terms): B-WER %.1f%%, U-WER %.1f%%, anti-context %@",
                    count, point.boostedTerms, point.boostedWordErrorRate * 100, point.unboostedWordErrorRate * 100,
                    point.antiContextWordErrorRate.map { String(format: "%.1f%%", $0 * 100) } ?? "-"))
            points.append(point)
        }
        return points
    }
}
