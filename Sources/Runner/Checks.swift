import Foundation
import LanguageModel
import NGram
import Recognition
import Results

/// The run's pass/fail checks: on-device enforcement, the customization canary, the anti-context
/// guard, boosted-word gain and decoding failures.
public enum Checks {
    /// Anti-context corpora may get worse by at most this many WER points (absolute).
    public static let antiContextTolerance = 1.0

    /// The anti-context rule, shared by the run's checks and the sweep's recommendation: a rise in
    /// WER fails when it is above the tolerance and significant; above it but not significant, it
    /// passes with a warning.
    public static func antiContextOutcome(
        deltaPoints: Double, significant: Bool, tolerance: Double = antiContextTolerance
    ) -> (passed: Bool, warning: Bool) {
        let exceeds = deltaPoints > tolerance
        return (!(exceeds && significant), exceeds && !significant)
    }

    // Each check's name, as reports show it and the plan lists it.
    static let networkName = "network denied while decoding"
    static let failuresName = "every utterance decoded"
    static func externalOnDeviceName(_ recognizer: String) -> String { "external recognizer on-device: \(recognizer)" }
    static func customizationName(_ corpus: String, _ variant: String) -> String {
        "customization applied on-device: \(corpus) / \(variant)"
    }
    static func canaryName(_ variant: String) -> String { "canary: \(variant)" }
    static func antiContextName(_ corpus: String, _ variant: String) -> String {
        "anti-context WER: \(corpus) / \(variant)"
    }
    static func boostedGainName(_ corpus: String, _ variant: String) -> String {
        "boosted-word gain: \(corpus) / \(variant)"
    }
    static func customizationEffectName(_ variant: String, recognizer: String, list: String? = nil) -> String {
        "customization took effect: \(label(variant, recognizer: recognizer, list: list))"
    }
    static func privacyName(_ variant: String, recognizer: String) -> String {
        "private training data sent off the device: \(label(variant, recognizer: recognizer))"
    }
    /// A variant as a check names it: `chess-full`, or `chess-full @ pocketsphinx-pypi` for an external
    /// recognizer customized with it.
    static func label(_ variant: String, recognizer: String?, list: String? = nil) -> String {
        Comparison.label(variant, recognizer: recognizer, list: list)
    }

    /// ", 2 more word errors of 92 reference words": on a small corpus one word is more than the
    /// tolerance, and the reader should see how few words a change of points is.
    static func wordErrorChange(_ results: RunResults, _ comparison: Comparison) -> String {
        guard
            let before = results.system(
                corpus: comparison.corpus, mode: .baseline, recognizer: comparison.recognizer)?.metrics.rates.counts,
            let after = results.system(
                corpus: comparison.corpus, mode: .customized, variant: comparison.variant,
                recognizer: comparison.recognizer, list: comparison.list?.name)?.metrics.rates.counts
        else { return "" }
        let change = after.errors - before.errors
        let words = "of \(after.referenceWords) reference words"
        switch change {
        case 0: return ", the same number of word errors \(words)"
        case 1: return ", 1 more word error \(words)"
        case -1: return ", 1 fewer word error \(words)"
        case 1...: return ", \(change) more word errors \(words)"
        default: return ", \(-change) fewer word errors \(words)"
        }
    }

    static func evaluate(
        _ results: RunResults, artifacts: [String: PreparedArtifact], responses: [String: WorkResponse],
        items: [WorkRequest]
    ) -> [Check] {
        let canaries = results.variants.compactMap { variant in
            artifacts[variant.name].map { canary(variant, artifact: $0, responses: responses, items: items) }
        }
        return evaluate(results, canaries: canaries)
    }

    /// The checks of merged shards (`gambit merge`, `gambit slurm merge`), judged again over the pooled
    /// utterances, as one process would have judged them: a shard's checks see only its own utterances. The
    /// canary needs the decoders' answers, which results do not keep, so each variant's canary stays as the
    /// merge combined the shards' (passed only if it passed in every shard).
    /// A check the merge holds but this code does not make (from results of another version) is kept as combined.
    public static func reevaluated(_ merged: RunResults) -> [Check] {
        var checks = merged.checks
        for check in evaluate(merged, canaries: []) {
            if let index = checks.firstIndex(where: { $0.name == check.name }) {
                checks[index] = check
            } else {
                checks.append(check)
            }
        }
        return checks
    }

    static func evaluate(_ results: RunResults, canaries: [Check]) -> [Check] {
        var checks: [Check] = []
        let denial = results.networkDenial
        checks.append(
            Check(
                name: networkName, kind: .onDevice, passed: denial.verified,
                unit: "", message: "\(denial.method): \(denial.detail)"))

        for recognizer in results.run.externalRecognizers ?? [] where recognizer.onDevice {
            if recognizer.importedFiles != nil {
                // Gambit did not see these transcripts made: the claim stays a claim, never a PASS.
                checks.append(
                    .skipped(
                        name: externalOnDeviceName(recognizer.name), kind: .onDevice,
                        message: "declared on-device, not verified: the transcripts were made outside this run and "
                            + "imported from files, so Gambit saw nothing of how they were made"))
                continue
            }
            // Its prepare commands ran in the run's process, each in a network namespace of its own when it could.
            // Its artifacts, made now or found in the cache, each record whether its prepare ran without network.
            let prepares = (recognizer.customizations ?? []).filter { $0.failure == nil }
            let preparesDenied = prepares.filter(\.networkDenied).count
            let preparing =
                recognizer.customizations == nil
                ? "; it was given the audio path only"
                : "; \(preparesDenied) of \(prepares.count) prepares ran with the network denied"
            checks.append(
                Check(
                    name: externalOnDeviceName(recognizer.name), kind: .onDevice,
                    passed: recognizer.decodings > 0 && recognizer.networkDenied == recognizer.decodings
                        && preparesDenied == prepares.count,
                    measured: Double(recognizer.decodings - recognizer.networkDenied + prepares.count - preparesDenied),
                    threshold: 0, unit: "utterances",
                    message:
                        "\(recognizer.networkDenied) of \(recognizer.decodings) transcriptions ran with the network "
                        + "denied" + preparing))
        }

        for system in results.systems where system.mode == .customized && system.recognizer == nil {
            let served = system.utterances.filter { $0.failure == nil }
            let ignored = served.filter { $0.customization != .applied }.count
            let name = customizationName(system.corpus, system.variant ?? "")
            if system.utterances.isEmpty {
                // A shard may hold none of a corpus's utterances: nothing to judge, not a failure.
                checks.append(
                    .skipped(
                        name: name, kind: .onDevice, corpus: system.corpus, variant: system.variant,
                        message: "no data: no utterance of \(system.corpus) was decoded in this run (or shard)"))
                continue
            }
            checks.append(
                Check(
                    name: name,
                    kind: .onDevice, passed: ignored == 0 && !served.isEmpty, measured: Double(ignored), threshold: 0,
                    unit: "utterances", corpus: system.corpus, variant: system.variant,
                    message: ignored == 0
                        ? "all \(served.count) utterances decoded with the customized model"
                        : "\(ignored) of \(served.count) utterances were served without customization"))
        }

        checks += canaries

        checks += externalCustomizationChecks(results)

        checks += comparisonChecks(results)

        let failed = results.systems.reduce(0) { $0 + $1.failures.failed }
        let crashed = results.systems.reduce(0) { $0 + $1.failures.crashed }
        checks.append(
            Check(
                name: failuresName, kind: .failures, passed: failed == 0, measured: Double(failed),
                threshold: 0, unit: "utterances",
                message: failed == 0
                    ? "no failures (\(crashed) worker crashes recovered by a retry)"
                    : "\(failed) utterance decodings failed (\(crashed) after worker crashes); see the per-utterance view"
            ))
        return checks
    }

    /// Each comparison's check: anti-context WER on anti-context corpora, boosted-word gain on domain corpora (no
    /// data when the corpus has no decoded word, or no boosted word).
    static func comparisonChecks(_ results: RunResults) -> [Check] {
        var checks: [Check] = []
        for comparison in results.comparisons {
            guard let corpus = results.corpus(named: comparison.corpus) else { continue }
            let referenceWords =
                results.system(corpus: corpus.name, mode: .baseline, recognizer: comparison.recognizer)?
                .metrics.rates.counts.referenceWords ?? 0
            let variant = label(comparison.variant, recognizer: comparison.recognizer, list: comparison.list?.name)
            if corpus.role == .antiContext, referenceWords == 0 {
                checks.append(
                    .skipped(
                        name: antiContextName(corpus.name, variant), kind: .antiContext,
                        corpus: corpus.name, variant: comparison.variant,
                        message: "no data: no reference word of \(corpus.name) was decoded in this run (or shard)"))
            } else if corpus.role == .antiContext {
                checks.append(antiContext(results, comparison))
            } else if let before = comparison.baseline.boostedWordErrorRate,
                let after = comparison.customized.boostedWordErrorRate
            {
                checks.append(
                    Check(
                        name: boostedGainName(corpus.name, variant), kind: .boostedGain,
                        passed: after < before || before == 0, measured: (after - before) * 100, threshold: 0,
                        unit: "B-WER points", corpus: corpus.name, variant: comparison.variant,
                        message: String(format: "B-WER %.2f%% → %.2f%%", before * 100, after * 100)))
            } else {
                // No boosted word in the references: a gain over nothing is no data, not a pass.
                checks.append(
                    .skipped(
                        name: boostedGainName(corpus.name, variant), kind: .boostedGain,
                        corpus: corpus.name, variant: comparison.variant,
                        message: "no data: no reference word of \(corpus.name) is one of \(comparison.variant)'s "
                            + "boosted words, so B-WER has nothing to measure"))
            }
        }
        return checks
    }

    /// An anti-context corpus may get worse by at most ``antiContextTolerance`` WER points, unless
    /// the increase is not significant by the rule the gate uses (paired bootstrap 95% interval of
    /// ΔWER excluding 0, or MAPSSWE p < 0.05): on a corpus of 92 words one word is more than a point,
    /// and a check that fires on one word is noise. Such an increase passes with a warning. Either
    /// way the message lists the words the variant changed, so that nothing hides.
    static func antiContext(_ results: RunResults, _ comparison: Comparison) -> Check {
        let baseline = comparison.baseline.wordErrorRate * 100
        let customized = comparison.customized.wordErrorRate * 100
        let delta = customized - baseline
        let significant = comparison.significant
        let outcome = antiContextOutcome(deltaPoints: delta, significant: significant)
        let interval = comparison.deltaWER
        var message =
            String(format: "WER %.2f%% → %.2f%% (%+.2f points", baseline, customized, delta)
            + wordErrorChange(results, comparison)
            + String(format: "; at most %+.1f allowed", antiContextTolerance)
            + String(
                format: "; %@: 95%% interval [%+.2f, %+.2f] points, MAPSSWE p = %.3f)",
                comparison.verdict, interval.lower * 100, interval.upper * 100,
                comparison.matchedPairs.pValue)
        if let before = results.system(corpus: comparison.corpus, mode: .baseline, recognizer: comparison.recognizer),
            let after = results.system(
                corpus: comparison.corpus, mode: .customized, variant: comparison.variant,
                recognizer: comparison.recognizer, list: comparison.list?.name)
        {
            let changes = WordChanges(baseline: before, customized: after)
            if !changes.worse.isEmpty { message += "; changed: " + changes.summary() }
            if changes.fixedWords > 0 {
                message += "; \(changes.fixedWords) word\(changes.fixedWords == 1 ? "" : "s") fixed"
            }
        }
        if outcome.warning {
            message =
                (comparison.tooFewUtterances != nil
                    ? "above the tolerance, but too few utterances to judge, so a warning: "
                    : "above the tolerance but not significant, so a warning: ") + message
        }
        var check = Check(
            name: antiContextName(
                comparison.corpus,
                label(comparison.variant, recognizer: comparison.recognizer, list: comparison.list?.name)),
            kind: .antiContext,
            passed: outcome.passed, measured: delta, threshold: antiContextTolerance, unit: "WER points",
            corpus: comparison.corpus, variant: comparison.variant, message: message)
        if outcome.warning { check.warning = true }
        return check
    }

    /// Proves the customization was applied: the decoder reported the artifact's fingerprint, and the
    /// training phrases score better under the customized model (merged, or interpolated as the
    /// decoder does) than under the base model alone.
    static func canary(
        _ variant: VariantInfo, artifact: PreparedArtifact, responses: [String: WorkResponse], items: [WorkRequest]
    ) -> Check {
        let decodedWith = items.filter {
            $0.configuration?.fingerprint == artifact.manifest.fingerprint && $0.configuration?.grammar == nil
        }
        guard !decodedWith.isEmpty else {
            return .skipped(
                name: canaryName(variant.name), kind: .canary, variant: variant.name,
                message: "skipped: no utterance was decoded with this variant (the suite's modes decode no "
                    + "customized system), so there is no decoder report to check")
        }
        let reported = Set(decodedWith.compactMap { responses[$0.key]?.appliedFingerprint })
        let fingerprintOK = reported == [artifact.manifest.fingerprint]
        var better = 0
        var phrases = 0
        var detail = ""
        do {
            let base = try SphinxLanguageModel(contentsOf: AcousticModelPaths.baseLanguageModel)
            let custom = try SphinxLanguageModel(contentsOf: artifact.languageModel, sharingLogTablesWith: base)
            // A merged model is the customized model itself; a set is mixed as the decoder does.
            let mixed =
                artifact.manifest.containsBaseModel
                ? custom : try base.interpolated(with: custom, weight: variant.weight)
            let samples = CanaryPhrases.sample(from: try BackoffModel(arpaFile: artifact.arpa), limit: 20)
            for words in samples {
                phrases += 1
                if mixed.logProbability(of: words) > base.logProbability(of: words) { better += 1 }
            }
        } catch {
            detail = " (\(error))"
        }
        let passed = fingerprintOK && phrases > 0 && better == phrases
        return Check(
            name: canaryName(variant.name), kind: .canary, passed: passed, measured: Double(better),
            threshold: Double(phrases), unit: "phrases",
            variant: variant.name,
            message: (fingerprintOK
                ? "decoder reported the artifact's fingerprint \(artifact.manifest.fingerprint.prefix(12))…; "
                : "decoder reported \(reported.map { String($0.prefix(12)) }.sorted()), expected "
                    + "\(artifact.manifest.fingerprint.prefix(12))… (stale or wrong artifact); ")
                + "\(better) of \(phrases) training n-grams score higher under the customized model ("
                + (artifact.manifest.containsBaseModel
                    ? "the merged model itself"
                    : "the set, interpolated at weight \(variant.weight) as the decoder does")
                + ") than the base\(detail)"
        )
    }
}

/// Where the base language model lives (for the canary's scoring).
enum AcousticModelPaths {
    static var baseLanguageModel: URL { Toolchain.sharedModel.languageModel }
}

/// Short word sequences taken from the custom model's own n-grams, to score under both models: the
/// highest order that has n-grams of real words (a model of one-word phrases has only unigrams).
enum CanaryPhrases {
    static func sample(from model: BackoffModel, limit: Int) -> [[String]] {
        var byOrder: [Int: [[String]]] = [:]
        for order in 1...max(1, model.order) {
            byOrder[order] = model.ngrams(ofOrder: order).filter { !$0.contains { $0.hasPrefix("<") } }
            if byOrder[order]!.isEmpty { byOrder[order] = nil }
        }
        guard let found = byOrder.keys.sorted(by: >).lazy.compactMap({ byOrder[$0] }).first else { return [] }
        guard found.count > limit else { return found }
        let step = Double(found.count) / Double(limit)
        return (0..<limit).map { found[Int(Double($0) * step)] }
    }
}
