import Formats
import Foundation
import LanguageModel
import NGram
import Recognition
import Results
import Scoring

/// Turns a decoded ``SuiteFile`` into a ``Suite``, refusing what it cannot use with the line where it is written:
/// a missing key on its entry's line, a bad value on its own.
struct SuiteReader {
    let url: URL
    /// The line of the top-level mapping.
    let rootLine: Int?

    var folder: URL { url.deletingLastPathComponent() }

    func suite(_ file: SuiteFile, contentHash: String) throws -> Suite {
        let corpora = try corpora(file)
        let names = Set(corpora.map(\.name))
        var variants: [Suite.Variant] = []
        for item in try list(file.variants, "variants", "variants") {
            variants.append(try variant(item, names: names))
        }
        try unique(variants.map(\.name), of: "variant", line: file.variants?.line)
        var modes: [SystemMode] = [.baseline, .customized, .oracle]
        if file.modes != nil {
            modes = try list(file.modes, "modes", "modes (baseline, customized, oracle)", allowEmpty: false).map {
                guard let mode = $0.value.flatMap(SystemMode.init(rawValue:)) else {
                    throw fail($0.line, "modes are baseline, customized and oracle")
                }
                return mode
            }
            try checkModes(modes, line: file.modes?.line, corpora: corpora, variants: variants)
        }
        var recognizers: [ExternalRecognizer] = []
        var missingPrograms: [RunnerError] = []
        for item in try list(file.recognizers, "recognizers", "recognizers") {
            let (recognizer, missing) = try recognizer(
                item, names: names, variants: variants.map(\.name), taken: recognizers.map(\.name))
            recognizers.append(recognizer)
            missingPrograms += missing.map { [$0] } ?? []
        }
        // In the order the keys were always checked, so that a file with several problems hears of the same one
        // first.
        let streaming = try streaming(file.streaming)
        let decoder = try decoder(file.decoder)
        var cacheInOutput = false
        switch try string(file.cache, "cache", in: rootLine, required: false) {
        case nil, "user": break
        case "output": cacheInOutput = true
        case let other?: throw fail(file.cache?.line, "cache must be output or user, not '\(other)'")
        }
        var suite = Suite(
            name: try string(file.name, "name", in: rootLine, required: false)
                ?? url.deletingPathExtension().lastPathComponent,
            file: url, corpora: corpora, variants: variants, modes: modes, recognizers: recognizers,
            streaming: streaming, contentHash: contentHash)
        suite.cacheInOutput = cacheInOutput
        suite.missingPrograms = missingPrograms
        if let name = try string(file.normalize, "normalize", in: rootLine, required: false) {
            guard let named = Normalizer.named.first(where: { $0.name == name && $0.name != "verbatim" }) else {
                throw fail(file.normalize?.line, "normalize must be standard, english or whisper, not '\(name)'")
            }
            suite.normalization = named.normalizer
        }
        suite.termForms = try termForms(file.termForms, normalizer: suite.normalization)
        suite.decoder = decoder
        for index in suite.variants.indices {
            if let weight = decoder.languageWeight { suite.variants[index].requestedOptions.languageWeight = weight }
        }
        suite.declaredSplits = corpora.compactMap(\.split)
        return suite
    }

    /// Refuses modes written out that would decode nothing: `customized` with no variant to customize with,
    /// `oracle` with no domain corpus (anti-context speech has no gain to capture, so it gets no oracle). Left
    /// out, `modes` means every mode that applies.
    func checkModes(_ modes: [SystemMode], line: Int?, corpora: [Suite.Corpus], variants: [Suite.Variant]) throws {
        if modes.contains(.customized), variants.isEmpty {
            throw fail(
                line,
                "modes lists customized, but the suite has no variants, so nothing would be customized: list a "
                    + "variant under 'variants', or leave customized out")
        }
        if modes.contains(.oracle), !corpora.contains(where: { $0.role == .domain }) {
            throw fail(
                line,
                "modes lists oracle, but every corpus is anti-context, and the oracle (a grammar of a corpus's own "
                    + "sentences, the floor a variant's gain is measured against) is decoded on domain corpora only: "
                    + "add a domain corpus, or leave oracle out")
        }
    }

    // MARK: Entries

    func corpora(_ file: SuiteFile) throws -> [Suite.Corpus] {
        var corpora: [Suite.Corpus] = []
        for item in try list(file.corpora, "corpora", "corpora", allowEmpty: false) {
            guard let fields = item.value else {
                throw fail(item.line, "each corpus is a mapping" + given(item.written))
            }
            let roleText = try string(fields.role, "role", in: item.line, required: false) ?? "domain"
            let role: CorpusRole
            switch roleText {
            case "domain": role = .domain
            case "anti-context", "antiContext", "anticontext": role = .antiContext
            default: throw fail(fields.role?.line, "role must be domain or anti-context, not '\(roleText)'")
            }
            corpora.append(
                Suite.Corpus(
                    name: try string(fields.name, "name", in: item.line)!,
                    manifest: path(try string(fields.manifest, "manifest", in: item.line)!), role: role,
                    split: try string(fields.split, "split", in: item.line, required: false),
                    texts: try string(fields.texts, "texts", in: item.line, required: false).map(path),
                    audioFolder: try string(fields.audio, "audio", in: item.line, required: false).map(path),
                    allowedOutsideFolders: try folders(fields.allowOutsidePaths, "allow-outside-paths")))
        }
        if corpora.isEmpty { throw fail(file.corpora?.line ?? rootLine, "the suite lists no corpora") }
        try unique(corpora.map(\.name), of: "corpus", line: file.corpora?.line)
        return corpora
    }

    func variant(_ item: Lined<SuiteFile.VariantFields>, names: Set<String>) throws -> Suite.Variant {
        guard let fields = item.value else { throw fail(item.line, "each variant is a mapping" + given(item.written)) }
        // The prepare options first, in their table's order, then the variant's own keys: a value a key does not
        // take is reported before a key that is missing.
        var options = PrepareOptions.defaults
        for setting in PrepareOptions.settings where setting.inSuite {
            let field = fields.options[setting.name]
            guard let text = try string(field, setting.name, in: item.line, required: false) else { continue }
            guard setting.read(&options, text) else {
                throw fail(
                    field?.line, setting.isChoice ? choice(setting.name, field) : mismatch(setting.name, "'\(text)'"))
            }
        }
        let corpora = try checkedNames(fields.corpora, of: "corpus", known: names)
        let variant = Suite.Variant(
            name: try string(fields.name, "name", in: item.line)!,
            training: path(try string(fields.training, "training", in: item.line)!), weight: options.weight,
            corpora: corpora, options: options)
        do {
            try variant.requestedOptions.validate()
        } catch {
            throw fail(fields.options[error.setting]?.line ?? item.line, error.description)
        }
        return variant
    }

    /// "mix must be set or merged, not 'bogus'": a prepare option's value that is none of its choices.
    func choice(_ key: String, _ field: Lined<String>?) -> String {
        "\(key) must be \(PrepareOptions.setting(key).accepts), not '\(field?.value ?? "")'"
    }

    /// One `recognizers:` entry, and the error for a program of it that will not be found (see
    /// ``missingProgram(_:recognizer:)``).
    func recognizer(
        _ item: Lined<SuiteFile.RecognizerFields>, names: Set<String>, variants: [String], taken: [String]
    ) throws -> (ExternalRecognizer, RunnerError?) {
        guard let fields = item.value else {
            throw fail(item.line, "each recognizer is a mapping" + given(item.written))
        }
        let name = try string(fields.name, "name", in: item.line)!
        if name == "pocketsphinx" || taken.contains(name) {
            throw fail(fields.name?.line, "recognizer name '\(PrintedName.escaped(name))' is taken")
        }
        if fields.command != nil && fields.transcripts != nil {
            throw fail(
                fields.transcripts?.line,
                "a recognizer gives either 'transcripts' (made elsewhere) or 'command' (run here, with its "
                    + "'customization' and 'phraseLists'), not both")
        }
        guard fields.command != nil || fields.transcripts != nil else {
            throw fail(
                item.line,
                "missing key 'command' (a list of arguments with \(CommandPlaceholder.audio.name)), or 'transcripts' (files "
                    + "made elsewhere)")
        }
        let command = fields.command == nil ? [] : try self.command(fields.command, "command")
        let onDeviceText = try string(fields.onDevice, "onDevice", in: item.line)!
        guard let onDevice = Bool(onDeviceText) else {
            throw fail(fields.onDevice?.line, "onDevice must be true or false, not '\(onDeviceText)'")
        }
        let timeout = try duration(fields.timeout, .timeout, in: item.line) ?? 120
        var recognizer = ExternalRecognizer(
            name: name, command: command, onDevice: onDevice, timeoutSeconds: timeout,
            corpora: try checkedNames(fields.corpora, of: "corpus", known: names),
            version: try string(fields.version, "version", in: item.line, required: false),
            customization: try customization(fields.customization, variants: variants))
        recognizer.transcripts = try transcripts(fields.transcripts, variants: variants)
        recognizer.serve = fields.serve == nil ? nil : try self.command(fields.serve, "serve")
        recognizer.phraseLists = try phraseLists(fields.phraseLists, variants: variants)
        if let problem = recognizer.problem {
            let customization = fields.customization?.value
            let lists = fields.phraseLists?.value
            let line =
                problem.hasPrefix("the phrase-list serve command")
                ? lists?.serve?.line
                : problem.hasPrefix("\(CommandPlaceholder.Command.list)")
                    ? lists?.decode?.line
                    : problem.hasPrefix("the phrase list")
                        ? fields.phraseLists?.line
                        : problem.hasPrefix("the serve command")
                            ? fields.serve?.line
                            : problem.hasPrefix("the customized serve command")
                                ? customization?.serve?.line
                                : problem.hasPrefix("\(CommandPlaceholder.Command.baseline) ")
                                    ? fields.command?.line
                                    : problem.hasPrefix("\(CommandPlaceholder.Command.prepare)")
                                        ? customization?.prepare?.line
                                        : problem.hasPrefix("\(CommandPlaceholder.Command.decode(withPrepare: false))")
                                            ? customization?.decode?.line : nil
            throw fail(line ?? fields.customization?.line ?? fields.transcripts?.line ?? item.line, problem)
        }
        // Last, so that a command's placeholders are judged before whether its program is there.
        return (recognizer, try missingProgram(fields, recognizer: name))
    }

    /// A recognizer's `transcripts:`: the files of transcripts made elsewhere; nil when it has none.
    func transcripts(_ field: Lined<SuiteFile.TranscriptFields>?, variants: [String]) throws -> ImportedTranscripts? {
        guard let field else { return nil }
        guard let fields = field.value else {
            throw fail(
                field.line,
                "'transcripts' must be a mapping with baseline (and customized, variants, format)"
                    + given(field.written))
        }
        guard let baseline = try string(fields.baseline, "baseline", in: field.line) else { return nil }
        var transcripts = ImportedTranscripts(
            baseline: baseline, customized: try string(fields.customized, "customized", in: field.line, required: false)
        )
        for (template, line, customized) in [
            (baseline, fields.baseline?.line, false), (transcripts.customized, fields.customized?.line, true),
        ] {
            guard let template else { continue }
            let needed = ImportedTranscripts.Placeholder.required(customized: customized).map(\.rawValue)
            for placeholder in needed where !template.contains(placeholder) {
                throw fail(
                    line, "'\(template)' must name \(placeholder): one file per \(needed.joined(separator: " and "))")
            }
        }
        transcripts.variants = try checkedNames(fields.variants, of: "variant", known: Set(variants))
        if let format = try string(fields.format, "format", in: field.line, required: false) {
            let known = ["jsonl", "trn", "ctm", "kaldi"]
            guard known.contains(format) else {
                throw fail(
                    fields.format?.line, "format must be one of \(known.joined(separator: ", ")), not '\(format)'")
            }
            transcripts.format = format
            transcripts.formatLine = fields.format?.line
        }
        return transcripts
    }

    /// A command as a list of arguments (or one text split at spaces), its program found from the suite's folder
    /// when it is a relative path.
    func command(_ field: Lined<TextOrList>?, _ key: String) throws -> [String] {
        var command: [String]
        switch field?.value {
        case .list(let arguments)?:
            command = try arguments.map { argument in
                guard let text = argument.value else {
                    throw fail(argument.line, "arguments are strings" + given(argument.written))
                }
                return text
            }
        case .text(let text)?:
            command = text.split(whereSeparator: \.isWhitespace).map(String.init)
        case nil:
            throw fail(field?.line, "'\(key)' must be a list of arguments" + given(field?.written))
        }
        if let program = command.first, program.contains("/") && !program.hasPrefix("/") {
            command[0] = path(program).path
        }
        return command
    }

    /// The error for a command whose program will not be found when it runs, saying the rule and where it looked
    /// (a program named without a slash is looked up on PATH, since the command runs through `/usr/bin/env`; a
    /// path with a slash is resolved against the suite's folder, see ``command(_:_:)``); nil when every program is
    /// there. Kept in ``Suite/missingPrograms`` for a run to refuse, not thrown: a suite is read on machines that
    /// do not run it (a report, an export, a Slurm login node).
    func missingProgram(_ fields: SuiteFile.RecognizerFields, recognizer name: String) throws -> RunnerError? {
        let customization = fields.customization?.value
        for (key, field) in [
            ("command", fields.command), ("prepare", customization?.prepare), ("decode", customization?.decode),
            ("serve", fields.serve), ("serve", customization?.serve),
            ("decode", fields.phraseLists?.value?.decode), ("serve", fields.phraseLists?.value?.serve),
        ] {
            // A program made of a placeholder is known only when the command runs.
            guard let field, let program = try command(field, key).first, !program.contains("{") else { continue }
            let written = Self.programWritten(field) ?? program
            let manager = FileManager.default
            if program.contains("/") {
                guard !manager.isExecutableFile(atPath: program) else { continue }
                let what = manager.fileExists(atPath: program) ? "is not executable (chmod +x it)" : "does not exist"
                return fail(
                    field.line,
                    "recognizer '\(name)': the program of its '\(key)', \(written), \(what): \(program). A program "
                        + "path is resolved against the suite's folder (\(folder.path)) unless it starts with /")
            }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            var folders: [String] = []
            for entry in path.split(separator: ":").map(String.init) where !folders.contains(entry) {
                folders.append(entry)
            }
            if folders.contains(where: { manager.isExecutableFile(atPath: "\($0)/\(program)") }) { continue }
            let beside = folder.appendingPathComponent(program).path
            return fail(
                field.line,
                "recognizer '\(name)': the program of its '\(key)', \(program), is not on PATH (looked in "
                    + folders.joined(separator: ", ") + "). A program named without a slash is looked up on PATH; "
                    + "a path with a slash is resolved against the suite's folder (\(folder.path)). "
                    + (manager.fileExists(atPath: beside)
                        ? "The suite's folder has \(program): write ./\(program)."
                        : "Give its path: ./\(program) for one in the suite's folder, or an absolute path."))
        }
        return nil
    }

    /// The program of a command as the file wrote it (before ``command(_:_:)`` resolved it).
    static func programWritten(_ field: Lined<TextOrList>) -> String? {
        switch field.value {
        case .list(let arguments)?: arguments.first?.value
        case .text(let text)?: text.split(whereSeparator: \.isWhitespace).first.map(String.init)
        case nil: nil
        }
    }

    /// A recognizer's `phraseLists:`: how it is given the phrase lists Gambit derives; nil when it takes none.
    func phraseLists(_ field: Lined<SuiteFile.PhraseListFields>?, variants: [String]) throws -> PhraseListLever? {
        guard let field else { return nil }
        guard let fields = field.value else {
            throw fail(
                field.line,
                "'phraseLists' must be a mapping with decode, limit and modes (and serve, unit, variants, distractors)"
                    + given(field.written))
        }
        guard fields.decode != nil else {
            throw fail(
                field.line,
                "missing key 'decode' (the command of a decode given a list, with \(CommandPlaceholder.audio.name) "
                    + "and \(CommandPlaceholder.list.name))")
        }
        let limitText = try string(fields.limit, "limit", in: field.line)!
        guard let limit = Int(limitText), limit >= 1 else {
            throw fail(fields.limit?.line, mismatch("limit", "'\(limitText)'"))
        }
        var countsWords = false
        if let unit = try string(fields.unit, "unit", in: field.line, required: false) {
            guard unit == "phrases" || unit == "words" else {
                throw fail(fields.unit?.line, mismatch("unit", "'\(unit)'"))
            }
            countsWords = unit == "words"
        }
        guard let modeField = fields.modes else { throw fail(field.line, "missing key 'modes'") }
        let modesExpected =
            "the phrase list's 'modes' must be a list of global, local, global+N or local+N (N distractors)"
        guard let written = modeField.value else {
            throw fail(modeField.line, modesExpected + given(modeField.written))
        }
        var modes: [PhraseListLever.Mode] = []
        for item in written {
            guard let text = item.value, let mode = PhraseListLever.Mode(text) else {
                throw fail(item.line, modesExpected + given(item.written ?? item.value.map { "'\($0)'" }))
            }
            modes.append(mode)
        }
        var lever = PhraseListLever(
            decode: try command(fields.decode, "decode"), limit: limit, countsWords: countsWords, modes: modes)
        lever.serve = fields.serve == nil ? nil : try command(fields.serve, "serve")
        lever.variants = try checkedNames(fields.variants, of: "variant", known: Set(variants))
        lever.distractorFile = try string(fields.distractors, "distractors", in: field.line, required: false)
        return lever
    }

    /// A recognizer's `customization:`: how it is prepared and decoded with a variant; nil when it has none.
    func customization(_ field: Lined<SuiteFile.CustomizationFields>?, variants: [String]) throws
        -> ExternalCustomization?
    {
        guard let field else { return nil }
        guard let fields = field.value else {
            throw fail(
                field.line,
                "'customization' must be a mapping with decode (and prepare, variants, allowPrivate)"
                    + given(field.written))
        }
        guard fields.decode != nil else {
            throw fail(
                field.line,
                "missing key 'decode' (the command of a customized decode, with \(CommandPlaceholder.audio.name))")
        }
        var customization = ExternalCustomization(
            prepare: fields.prepare == nil ? nil : try command(fields.prepare, "prepare"),
            decode: try command(fields.decode, "decode"))
        customization.variants = try checkedNames(fields.variants, of: "variant", known: Set(variants))
        if let text = try string(fields.allowPrivate, "allowPrivate", in: field.line, required: false) {
            guard let value = Bool(text) else {
                throw fail(fields.allowPrivate?.line, mismatch("allowPrivate", "'\(text)'"))
            }
            customization.allowPrivate = value
        }
        if let value = try duration(fields.prepareTimeout, .prepareTimeout, in: field.line) {
            customization.prepareTimeoutSeconds = value
        }
        customization.serve = fields.serve == nil ? nil : try command(fields.serve, "serve")
        return customization
    }

    func streaming(_ field: Lined<SuiteFile.StreamingFields>?) throws -> Suite.Streaming {
        var streaming = Suite.Streaming(utterances: 10, chunkMilliseconds: 100)
        guard let field else { return streaming }
        guard let fields = field.value else {
            throw fail(
                field.line, "'streaming' must be a mapping with utterances and chunkMilliseconds" + given(field.written)
            )
        }
        if let count = try string(fields.utterances, "utterances", in: field.line, required: false) {
            guard let value = Int(count), value >= 0 else {
                throw fail(fields.utterances?.line, "'utterances' must be a whole number, 0 or more, not '\(count)'")
            }
            streaming.utterances = value
        }
        if let chunk = try duration(fields.chunkMilliseconds, .chunkMilliseconds, in: field.line) {
            guard let value = Int(exactly: chunk) else {
                throw fail(
                    fields.chunkMilliseconds?.line,
                    "`chunkMilliseconds` is \(fields.chunkMilliseconds?.value ?? ""); it must be a whole number of "
                        + "milliseconds within \(DurationSetting.chunkMilliseconds.allowed)")
            }
            streaming.chunkMilliseconds = value
        }
        if let pacing = try string(fields.pacing, "pacing", in: field.line, required: false) {
            guard let value = StreamPacing(rawValue: pacing) else {
                throw fail(
                    fields.pacing?.line,
                    "'pacing' is '\(pacing)'; it must be "
                        + StreamPacing.allCases.map(\.rawValue).joined(separator: " or "))
            }
            streaming.pacing = value
        }
        if let silence = try duration(fields.trailingSilenceMilliseconds, .trailingSilenceMilliseconds, in: field.line)
        {
            guard let value = Int(exactly: silence) else {
                throw fail(
                    fields.trailingSilenceMilliseconds?.line,
                    "`trailingSilenceMilliseconds` is \(fields.trailingSilenceMilliseconds?.value ?? ""); it must be a "
                        + "whole number of milliseconds within \(DurationSetting.trailingSilenceMilliseconds.allowed)")
            }
            streaming.trailingSilenceMilliseconds = value
        }
        return streaming
    }

    /// `termForms:`: each form a text that normalizes to a word or more, each term one too.
    func termForms(_ field: Lined<OrderedEntries>?, normalizer: Normalizer = .standard) throws -> [String: String] {
        guard let field else { return [:] }
        guard let entries = field.value else {
            throw fail(
                field.line,
                "'termForms' must be a mapping of surface forms to their terms (albin's: albin)" + given(field.written))
        }
        var forms: [String: String] = [:]
        var declared: [(form: String, term: String, line: Int?)] = []
        for (form, term) in entries.entries {
            guard let text = term.value else {
                throw fail(term.line, "the term of form '\(form)' is one text" + given(term.written))
            }
            for (side, words) in [("form", form), ("term", text)] where normalizer.normalize(words).isEmpty {
                throw fail(term.line, "term form '\(form)': its \(side) '\(words)' has no word once normalized")
            }
            forms[form] = text
            declared.append((form, text, term.line))
        }
        if let chain = TermForms.chain(in: declared.map { ($0.form, $0.term) }, normalizer: normalizer) {
            let steps = chain.map { declared[$0] }
            let isCycle = chain.count > 1 && chain.first == chain.last
            let spelt = ([steps[0].form] + (isCycle ? steps.dropLast() : steps[...]).map(\.term)).map { "'\($0)'" }
                .joined(separator: " → ")
            let numbers = Array(Set(steps.compactMap(\.line))).sorted().map(String.init)
            let lines = (numbers.count == 1 ? "line " : "lines ") + numbers.joined(separator: ", ")
            let final = steps.last!.term
            throw fail(
                steps[0].line,
                "term forms \(isCycle ? "form a cycle" : "form a chain"), \(spelt) (\(lines)): a form is replaced "
                    + "by its term once, never again, so "
                    + (isCycle
                        ? "these swap and cancel out. Choose the term and map every other spelling to it"
                        : "'\(steps[0].form)' would never count as '\(final)'. Map each form to its final term "
                            + "('\(steps[0].form)': '\(final)'), and give no term as a form"))
        }
        return forms
    }

    func decoder(_ field: Lined<OrderedEntries>?) throws -> DecoderSettings {
        var decoder = DecoderSettings.standard
        guard let field else { return decoder }
        guard let settings = field.value else {
            throw fail(
                field.line,
                "'decoder' must be a mapping of engine settings ("
                    + DecoderSettings.settings.map(\.name).joined(separator: ", ") + ") and perhaps a profile")
        }
        // A profile is set first, whatever its place: the settings given beside it are set over it.
        let entries = settings.entries.filter { $0.0 == "profile" } + settings.entries.filter { $0.0 != "profile" }
        for (name, value) in entries {
            guard let text = value.value else {
                throw fail(value.line, "decoder setting '\(name)' is one value" + given(value.written))
            }
            do {
                if name == "profile" {
                    decoder = try decoder.applying(profile: text)
                } else {
                    try decoder.set(name, to: text)
                }
            } catch {
                throw fail(value.line, error.message)
            }
        }
        return decoder
    }

    // MARK: Values

    func fail(_ line: Int?, _ message: String) -> RunnerError {
        .invalidSuite(path: url.path, line: line, message: message)
    }

    /// The text of `field`; a missing required key is reported on its entry's line (`owner`).
    func string(_ field: Lined<String>?, _ key: String, in owner: Int?, required: Bool = true) throws -> String? {
        guard let field else {
            if required { throw fail(owner, "missing key '\(key)'") }
            return nil
        }
        guard let text = field.value else { throw fail(field.line, mismatch(key, field.written)) }
        return text
    }

    /// What each key's value must be, as a message says it; a key not listed holds a text (a name, a path).
    /// A variant's prepare options say it in their table (``PrepareOptions/settings``).
    static let expected: [String: String] = PrepareOptions.settings.filter(\.inSuite).reduce(
        into: [
            "onDevice": "true or false", "allowPrivate": "true or false",
            "timeout": "a number of seconds", "prepareTimeout": "a number of seconds",
            "utterances": "a whole number", "chunkMilliseconds": "a whole number of milliseconds",
            "pacing": "realTime or simulated", "trailingSilenceMilliseconds": "a whole number of milliseconds",
            "role": "domain or anti-context", "cache": "output or user", "format": "jsonl, trn, ctm or kaldi",
            "limit": "a whole number of at least 1", "unit": "phrases or words",
        ]
    ) { expected, setting in expected[setting.name] = setting.accepts }

    /// ", not a list, [0.5]": what the file gave where another kind of value belongs (``Lined/written``); empty
    /// when it gave nothing (`key:` alone).
    func given(_ written: String?) -> String {
        guard let written, written != "''" else { return "" }
        return ", not \(written)"
    }

    /// "'weight' must be a number, not a list, [0.5]": the key, what it must be, and what the file gave
    /// (``Lined/written``, or a text in quotes).
    func mismatch(_ key: String, _ given: String?) -> String {
        "'\(key)' must be \(Self.expected[key] ?? "a text")" + (given.map { ", not \($0)" } ?? "")
    }

    /// A duration setting's value, checked by ``DurationSetting`` (finite, within its range); nil when absent.
    func duration(_ field: Lined<String>?, _ setting: DurationSetting, in owner: Int?) throws -> Double? {
        guard let text = try string(field, setting.name, in: owner, required: false) else { return nil }
        do {
            return try setting.value(of: text)
        } catch {
            throw fail(field?.line, error.description)
        }
    }

    func path(_ text: String) -> URL {
        text.hasPrefix("/") ? URL(fileURLWithPath: text) : folder.appendingPathComponent(text).standardizedFileURL
    }

    /// A folder, or a list of folders.
    func folders(_ field: Lined<TextOrList>?, _ key: String) throws -> [URL] {
        guard let field else { return [] }
        switch field.value {
        case .text(let text)?: return [path(text)]
        case .list(let items)?:
            return try items.map { item in
                guard let text = item.value else { throw fail(item.line, "'\(key)' must list folders") }
                return path(text)
            }
        case nil: throw fail(field.line, "'\(key)' must be a folder or a list of folders" + given(field.written))
        }
    }

    /// The items of a list: none when the key is absent, an error when it is there but is not a list (a
    /// `variants:` with nothing after it is a slip more often than a wish; `[]` says "none" on purpose), or when it
    /// is empty and `allowEmpty` is off.
    func list<Item>(_ field: Lined<[Item]>?, _ key: String, _ what: String, allowEmpty: Bool = true) throws -> [Item] {
        guard let field else { return [] }
        guard let items = field.value else {
            throw fail(
                field.line,
                "'\(key)' must be a list of \(what)" + given(field.written) + (allowEmpty ? " (write [] for none)" : "")
            )
        }
        if items.isEmpty && !allowEmpty {
            throw fail(field.line, "'\(key)' lists no \(what); list at least one, or remove the key")
        }
        return items
    }

    /// Refuses two entries of one name, naming it; two names Swift counts as one (`café` precomposed and decomposed
    /// are equal strings) are shown with their code points, since they print alike.
    func unique(_ names: [String], of what: String, line: Int?) throws {
        for (index, name) in names.enumerated() {
            guard let first = names[..<index].firstIndex(of: name) else { continue }
            let printed = PrintedName.distinguished([names[first], name])
            throw fail(
                line,
                "\(what) names must be unique: '\(printed[0])' (entry \(first + 1)) and '\(printed[1])' (entry "
                    + "\(index + 1)) are the same name")
        }
    }

    /// A `corpora:` or `variants:` list of an entry, each name checked against `known`; nil when the entry has none
    /// (then every corpus, or every variant of its corpora, applies).
    func checkedNames(_ field: Lined<[Lined<String>]>?, of what: String, known: Set<String>) throws -> [String]? {
        guard let field else { return nil }
        let key = what == "corpus" ? "corpora" : "variants"
        guard let items = field.value else {
            throw fail(field.line, "'\(key)' must be a list of \(what) names" + given(field.written))
        }
        return try items.map { item in
            guard let name = item.value, known.contains(name) else {
                let names = PrintedName.distinguished(known.sorted(), from: item.value.map { [$0] } ?? [])
                let given = item.value.map { PrintedName.distinguished([$0], from: known.sorted())[0] }
                throw fail(
                    item.line,
                    "unknown \(what) '\(given ?? item.written ?? "?")' (have: "
                        + names.map { "'\($0)'" }.joined(separator: ", ") + ")")
            }
            return name
        }
    }
}
