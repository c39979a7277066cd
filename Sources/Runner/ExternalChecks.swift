import Foundation
import Results

extension Checks {
    /// For each external recognizer customized with each variant, in the suite's order: whether the
    /// customization took effect (then whether private data went off the device, as the suite allowed).
    ///
    /// A customization that does nothing fails: when the recognizer says it ignored it on any utterance, when its
    /// customized hypotheses equal its baseline's on every utterance both decoded, or when its prepare failed.
    static func externalCustomizationChecks(_ results: RunResults) -> [Check] {
        var effects: [Check] = []
        var privacy: [Check] = []
        for recognizer in results.run.externalRecognizers ?? [] {
            let customizations = recognizer.customizations ?? []
            for variant in results.variants.map(\.name) {
                let systems = results.systems.filter {
                    $0.recognizer == recognizer.name && $0.mode == .customized && $0.variant == variant
                }
                // The customization's systems first, then each phrase list's, in the order they were decoded.
                var lists: [String?] = []
                for system in systems where !lists.contains(system.list?.name) { lists.append(system.list?.name) }
                for list in lists {
                    effects.append(
                        effect(
                            of: systems.filter { $0.list?.name == list }, in: results, variant: variant,
                            recognizer: recognizer.name, list: list,
                            preparation: list == nil ? customizations.first { $0.variant == variant } : nil))
                }
            }
            for customization in customizations where customization.privateDataSentOffDevice {
                var check = Check(
                    name: privacyName(customization.variant, recognizer: recognizer.name), kind: .privacy,
                    passed: true, unit: "", variant: customization.variant,
                    message: "\(customization.variant)'s training data is private, and the suite allows it to go to "
                        + "\(recognizer.name), which runs off the device (customization: allowPrivate: true): its "
                        + "phrases, templates and pronunciations left this machine")
                check.warning = true
                privacy.append(check)
            }
        }
        return effects + privacy
    }

    /// Whether one recognizer's customization with one variant changed anything, over every corpus it decoded.
    static func effect(
        of systems: [SystemResults], in results: RunResults, variant: String, recognizer: String, list: String? = nil,
        preparation: ExternalCustomizationInfo?
    ) -> Check {
        let name = customizationEffectName(variant, recognizer: recognizer, list: list)
        func check(_ passed: Bool, _ measured: Double?, _ message: String) -> Check {
            Check(
                name: name, kind: .customizationEffect, passed: passed, measured: measured, threshold: 0,
                unit: "utterances", variant: variant, message: message)
        }
        if let failure = preparation?.failure {
            return check(false, nil, "the prepare failed, so nothing was decoded with it: \(failure)")
        }
        let served = systems.flatMap(\.utterances).filter { $0.failure == nil }
        let ignored = served.filter { $0.customization == .ignored }
        if let first = ignored.first {
            return check(
                false, Double(ignored.count),
                "\(recognizer) said it ignored the customization on \(ignored.count) of \(served.count) utterances "
                    + "(first: \(first.id)\(first.customizationNote.map { ": \($0)" } ?? ""))")
        }
        var pairs = 0
        var changed = 0
        for system in systems {
            guard let baseline = results.system(corpus: system.corpus, mode: .baseline, recognizer: recognizer) else {
                continue
            }
            var before: [String: UtteranceRecord] = [:]
            for record in baseline.utterances where record.failure == nil { before[record.id] = record }
            for record in system.utterances where record.failure == nil {
                guard let base = before[record.id] else { continue }
                pairs += 1
                if base.alignment.compactMap(\.hypothesis) != record.alignment.compactMap(\.hypothesis) { changed += 1 }
            }
        }
        guard pairs > 0 else {
            return .skipped(
                name: name, kind: .customizationEffect, variant: variant,
                message: "no data: no utterance was decoded both with and without the customization in this run "
                    + "(or shard)")
        }
        guard changed > 0 else {
            return check(
                false, 0,
                "the customized hypotheses equal \(recognizer)'s baseline on all \(pairs) utterances decoded both "
                    + "ways: the customization had no effect")
        }
        return check(
            true, Double(changed),
            "\(changed) of \(pairs) hypotheses differ from \(recognizer)'s baseline; it reported no customization "
                + "ignored")
    }
}
