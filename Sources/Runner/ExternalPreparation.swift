import Formats
import Foundation
import Glibc
import Hashing
import Recognition
import Results
import TrainingData

/// What an external recognizer's cache entry records once its prepare has finished (`gambit-external.json`): the
/// entry is complete only when this file is there.
struct ExternalArtifactRecord: Codable, Equatable {
    var recognizer: String
    var variant: String
    var version: String?
    var prepare: [String]?
    var prepareSeconds: Double
    var networkDenied: Bool
    var artifactFingerprint: String
    /// Whether the training data was private, and its boosted words, as a prepared model's manifest says them
    /// (`gambit cache list` masks the entry's name with them).
    var isPrivate: Bool
    var boostedWords: [String]
    /// The prepare command's report (its last line on standard output); nil when it printed none, or in entries
    /// made before it was kept.
    var report: String?

    static let fileName = "gambit-external.json"
}

extension Runner {
    /// The variants an external recognizer is customized with, in the suite's order.
    static func customizedVariants(of recognizer: ExternalRecognizer, in suite: Suite) -> [Suite.Variant] {
        guard let customization = recognizer.customization, suite.modes.contains(.customized) else { return [] }
        let corpora = suite.corpora.filter { recognizer.corpora?.contains($0.name) ?? true }
        return suite.variants.filter { variant in
            (customization.variants?.contains(variant.name) ?? true)
                && corpora.contains { corpus in suite.variants(for: corpus).contains(variant) }
        }
    }

    /// The variants a recognizer is given phrase lists of, in the suite's order.
    static func listVariants(of recognizer: ExternalRecognizer, in suite: Suite) -> [Suite.Variant] {
        guard let lever = recognizer.phraseLists, recognizer.transcripts == nil, suite.modes.contains(.customized)
        else { return [] }
        let corpora = suite.corpora.filter { recognizer.corpora?.contains($0.name) ?? true }
        return suite.variants.filter { variant in
            (lever.variants?.contains(variant.name) ?? true)
                && corpora.contains { corpus in suite.variants(for: corpus).contains(variant) }
        }
    }

    /// Refuses, before anything is prepared or decoded, to hand private training data to a recognizer that runs
    /// off the device: its customization, unless the suite allows it for that recognizer by name, and a phrase
    /// list of its terms, always (a list's terms are the data's most private words, and no check would report
    /// that they went).
    func checkExternalPrivacy(_ data: [String: CustomLanguageModelData]) throws {
        for recognizer in suite.recognizers where !recognizer.onDevice {
            let allowed = recognizer.customization?.allowPrivate ?? false
            for variant in (allowed ? [] : Self.customizedVariants(of: recognizer, in: suite))
                + Self.listVariants(of: recognizer, in: suite)
            where data[variant.name]?.isPrivate ?? false {
                throw RunnerError.privateDataOffDevice(variant: variant.name, recognizer: recognizer.name)
            }
        }
    }

    /// Ranks each variant's terms for each recognizer that takes phrase lists, and gathers its distractor pool:
    /// the lever's file, or every other variant's terms.
    func preparePhraseLists(_ prepared: inout Prepared, data: [String: CustomLanguageModelData]) throws {
        for recognizer in suite.recognizers {
            guard let lever = recognizer.phraseLists else { continue }
            let variants = Self.listVariants(of: recognizer, in: suite)
            var pool: [String]? = nil
            var source = "other variants' terms"
            if let file = lever.distractorFile {
                let url = URL(fileURLWithPath: file, relativeTo: suite.folder).standardizedFileURL
                pool = try Self.distractorLines(url, recognizer: recognizer.name)
                source = suite.reportedPath(url)
            }
            for variant in variants {
                guard let training = data[variant.name], let artifact = prepared.artifacts[variant.name] else {
                    continue
                }
                // Another variant's private terms never become distractors: they would leave with this list.
                let others =
                    pool
                    ?? suite.variants.filter { $0.name != variant.name && !(data[$0.name]?.isPrivate ?? false) }
                    .flatMap { prepared.artifacts[$0.name]?.manifest.boostedTerms ?? [] }.sorted()
                prepared.lists[RunPlan.externalKey(recognizer: recognizer.name, variant: variant.name)] =
                    RunPlan.PreparedList(
                        ranked: try PhraseList.ranked(artifact.manifest.boostedTerms, in: training).map(\.text),
                        pool: others, poolSource: source,
                        locale: training.locale.identifier.replacingOccurrences(of: "_", with: "-"))
            }
        }
    }

    /// The terms of a distractor file: one per line, blank lines and `#` comments skipped.
    static func distractorLines(_ url: URL, recognizer: String) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw RunnerError.distractorFile(
                path: url.path, recognizer: recognizer, reason: FileSystemReason.reading(url, error))
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let terms = lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }.map {
            WordTokenizer.tokenize($0).joined(separator: " ")
        }
        guard !terms.isEmpty else {
            throw RunnerError.distractorFile(path: url.path, recognizer: recognizer, reason: "it holds no term")
        }
        return terms
    }

    /// Prepares every variant for every customized external recognizer, from the cache when it is there. A failed
    /// prepare is recorded for its variant (its utterances then fail with it) and the run goes on.
    func prepareExternal(_ prepared: inout Prepared, data: [String: CustomLanguageModelData]) throws {
        for recognizer in suite.recognizers {
            let variants = Self.customizedVariants(of: recognizer, in: suite)
            guard !variants.isEmpty else { continue }
            var infos: [ExternalCustomizationInfo] = []
            for variant in variants {
                guard let training = data[variant.name] else { continue }
                let (external, info) = try prepareExternal(
                    recognizer, variant: variant, data: training,
                    boostedWords: prepared.variants.first { $0.name == variant.name }?.boostedWords ?? [])
                prepared.externals[RunPlan.externalKey(recognizer: recognizer.name, variant: variant.name)] = external
                infos.append(info)
            }
            prepared.externalCustomizations[recognizer.name] = infos
        }
    }

    /// Where one variant's entry for one recognizer is in the cache: named by a hash of everything its artifact
    /// depends on (the export's and phrase list's bytes, the weight, the locale, the prepare command, the declared
    /// version, and whether the prepare runs without the network), with the inputs its commands are given.
    func externalEntry(
        _ recognizer: ExternalRecognizer, variant: Suite.Variant, export: Data, phrases: Data, locale: String
    ) -> (hash: String, folder: URL, inputs: ExternalCustomization.Inputs) {
        let prepare = recognizer.customization?.prepare
        let hash = Self.sha256(
            [
                recognizer.name, recognizer.version ?? "", (prepare ?? []).joined(separator: "\u{1F}"),
                "\(variant.weight)", locale, Self.sha256(data: export), Self.sha256(data: phrases),
                // An artifact made with the network is not reused under an on-device claim.
                "isolated \(isolatesPrepare(recognizer))",
            ].joined(separator: "|"))
        let folder = toolchain.cacheFolder.appendingPathComponent("external").appendingPathComponent(
            String(hash.prefix(16)))
        let inputs = ExternalCustomization.Inputs(
            training: folder.appendingPathComponent("training.json").path,
            phrases: folder.appendingPathComponent("phrases.json").path,
            artifact: prepare == nil ? nil : folder.appendingPathComponent("artifact").path, weight: variant.weight,
            locale: locale)
        return (hash, folder, inputs)
    }

    /// An off-device recognizer's prepare may need the network (a cloud service's phrase set); an on-device one's
    /// runs without it when the run denies it.
    func isolatesPrepare(_ recognizer: ExternalRecognizer) -> Bool { options.denyNetwork && recognizer.onDevice }

    /// One variant for one recognizer: its inputs written into its cache entry, then its prepare command run
    /// there, unless the entry is complete already. A failed prepare is returned, not thrown.
    func prepareExternal(
        _ recognizer: ExternalRecognizer, variant: Suite.Variant, data: CustomLanguageModelData, boostedWords: [String]
    ) throws -> (RunPlan.PreparedExternal, ExternalCustomizationInfo) {
        let export = try data.exportData()
        let phrases = try data.phraseListData()
        let locale = data.locale.identifier.replacingOccurrences(of: "_", with: "-")
        let (hash, folder, inputs) = externalEntry(
            recognizer, variant: variant, export: export, phrases: phrases, locale: locale)
        let sentOff = data.isPrivate && !recognizer.onDevice
        func outcome(
            _ artifact: String?, seconds: Double = 0, cached: Bool = false, denied: Bool = false,
            failure: String? = nil,
            report: String? = nil
        ) -> (RunPlan.PreparedExternal, ExternalCustomizationInfo) {
            (
                RunPlan.PreparedExternal(
                    inputs: inputs,
                    fingerprint: hash + ":" + (artifact ?? (failure == nil ? "not prepared yet" : "failed")),
                    failure: failure, privateDataSentOffDevice: sentOff),
                ExternalCustomizationInfo(
                    variant: variant.name, artifactFingerprint: artifact, prepareSeconds: seconds, cached: cached,
                    failure: failure, networkDenied: denied, privateDataSentOffDevice: sentOff,
                    prepareReport: report)
            )
        }
        let recordFile = folder.appendingPathComponent(ExternalArtifactRecord.fileName)
        // Two processes (a cluster's shards, two suites sharing the cache) prepare one entry one at a time: the
        // second finds the first's record.
        let lock = planning ? nil : try ExternalEntryLock(folder.appendingPathExtension("lock"))
        defer { lock?.release() }
        if let bytes = try? Data(contentsOf: recordFile),
            let record = try? JSONDecoder().decode(ExternalArtifactRecord.self, from: bytes)
        {
            return outcome(
                record.artifactFingerprint, seconds: record.prepareSeconds, cached: true, denied: record.networkDenied,
                report: record.report)
        }
        // A plan runs no prepare: the decodes are keyed by an artifact not made yet, all of them still to do.
        if planning { return outcome(nil) }
        // An entry without its record is half-made (a prepare killed or failed): start it again.
        try? FileManager.default.removeItem(at: folder)
        let artifact = folder.appendingPathComponent("artifact")
        try FileManager.default.createDirectory(at: artifact, withIntermediateDirectories: true)
        try export.write(to: URL(fileURLWithPath: inputs.training))
        try phrases.write(to: URL(fileURLWithPath: inputs.phrases))
        ModelCache.recordSources([variant.training], in: folder)
        do {
            let preparation = try ExternalCustomization.prepare(
                recognizer, inputs: inputs, trainingName: variant.training.path,
                denyNetwork: isolatesPrepare(recognizer))
            let record = ExternalArtifactRecord(
                recognizer: recognizer.name, variant: variant.name, version: recognizer.version,
                prepare: recognizer.customization?.prepare, prepareSeconds: preparation.seconds,
                networkDenied: preparation.networkDenied,
                artifactFingerprint: try ContentHash.fingerprint(ofFolder: artifact), isPrivate: data.isPrivate,
                boostedWords: boostedWords, report: preparation.report)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(record).write(to: recordFile, options: .atomic)
            return outcome(
                record.artifactFingerprint, seconds: preparation.seconds, denied: preparation.networkDenied,
                report: record.report)
        } catch let error as ExternalRecognizerError {
            return outcome(nil, failure: WorkResponse.relativePaths(in: error.description, to: suite.folder))
        } catch let error as FingerprintError {
            // A file the prepare command left that cannot be read: its artifact is not what it seemed to prepare.
            let failure =
                "external recognizer \(recognizer.name) on \(variant.training.path): prepare: its artifact's "
                + "file \(error.path): \(error.reason)"
            return outcome(nil, failure: WorkResponse.relativePaths(in: failure, to: suite.folder))
        }
    }

    /// The answers of the items whose system could not be prepared: each fails with its prepare's failure, and
    /// none is journaled, so the next run prepares again.
    static func preparationFailures(_ plan: RunPlan) -> [String: WorkResponse] {
        var answers: [String: WorkResponse] = [:]
        for item in plan.items {
            guard let failure = plan.systems[item.system].preparationFailure else { continue }
            answers[item.request.key] = .undecoded(
                key: item.request.key, failure: failure, kind: .preparation, customization: .ignored)
        }
        return answers
    }

    /// An exclusive `flock` on a file beside a cache entry, held while the entry is checked and made.
    struct ExternalEntryLock {
        let descriptor: Int32

        init(_ file: URL) throws {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            descriptor = open(file.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw RunnerError.cacheEntry(
                    name: file.lastPathComponent, folder: file.deletingLastPathComponent().path,
                    reason: String(cString: strerror(errno)))
            }
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        }

        func release() {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    static func sha256(data: Data) -> String {
        ContentHash.sha256Hex(data)
    }
}
