import Formats
import Foundation
import Synchronization

/// A transcript file after normalization: utterances as ranges of interned word ids.
struct TokenizedTranscript {
    var path: String
    var format: TranscriptFormat
    /// Utterance ids, interned in the loader's id table.
    var ids: [Int32] = []
    /// Speakers, interned in the loader's speaker table; -1 when unknown.
    var speakers: [Int32] = []
    var lines: [Int32] = []
    /// Utterance `u` has words `tokens[starts[u] ..< starts[u + 1]]`.
    var starts: [Int32] = [0]
    var tokens: [Int32] = []
    var warnings: [ScoringWarning] = []
    /// Per utterance, its biasing list (a biasing-list file's column 4, a JSON line's `boosted`), when the file
    /// gives lists; empty otherwise.
    var biasingLists: [[String]?] = []
    /// Per utterance, a biasing-list file's column 3 (the reference's biased words), parallel to
    /// ``biasingLists``; nil where the list does not name them.
    var namedBiasedWords: [[String]?] = []
    /// Per utterance, its length in seconds where the file gives it (a JSON line's `duration`, stm segments).
    var seconds: [Double?] = []
    /// Per utterance, a JSON line's `audio` as written; empty when no line has one.
    var audio: [String?] = []

    var count: Int { ids.count }

    var hasBiasingLists: Bool { !biasingLists.isEmpty }

    func range(_ utterance: Int) -> Range<Int> { Int(starts[utterance])..<Int(starts[utterance + 1]) }
}

/// Reads transcript files into ``TokenizedTranscript``s that share one word table, normalizing as it goes.
///
/// Tokens made only of bytes the normalizer would leave alone (lower-case ASCII letters, digits, word-internal
/// apostrophes with the standard pipeline) are interned straight from the file's bytes; any other token goes
/// through ``Normalizer/normalize(_:)``, so both paths give the same words.
final class CorpusLoader {
    let normalizer: Normalizer
    let words: TokenTable
    let ids: TokenTable
    let speakers = TokenTable(expectedCount: 1 << 8)
    private var plain = [Bool](repeating: false, count: 256)

    /// - Parameters:
    ///   - normalizer: Applied to every token.
    ///   - expectedBytes: The size of what will be read, if known: the tables start at a size that suits it
    ///     (they grow as needed), so scoring two small files does not allocate for a corpus.
    init(normalizer: Normalizer, expectedBytes: Int? = nil) {
        self.normalizer = normalizer
        let expected = expectedBytes.map { min(1 << 16, max(1 << 8, $0 / 4)) } ?? 1 << 16
        words = TokenTable(expectedCount: expected)
        ids = TokenTable(expectedCount: expected)
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { plain[Int(byte)] = true }
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { plain[Int(byte)] = true }
        if !normalizer.lowercase {
            for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { plain[Int(byte)] = true }
        }
        if !normalizer.stripPunctuation {
            for byte in 0x21...0x7E where !plain[byte] {
                let isUpper = byte >= Int(UInt8(ascii: "A")) && byte <= Int(UInt8(ascii: "Z"))
                plain[byte] = !(isUpper && normalizer.lowercase)
            }
            if normalizer.hyphens != .keep { plain[Int(UInt8(ascii: "-"))] = false }
            if normalizer.stripAlternateMarkers { plain[Int(UInt8(ascii: ")"))] = false }
            if normalizer.dropRecognizerTokens {
                for byte in "<[+".utf8 { plain[Int(byte)] = false }
            }
        } else if normalizer.hyphens == .keep {
            plain[Int(UInt8(ascii: "-"))] = true
        }
    }

    /// Reads and tokenizes one file.
    func load(_ url: URL, format: TranscriptFormat?) throws -> TokenizedTranscript {
        let data = try TranscriptIO.load(url)
        let path = url.path
        let format = try format ?? TranscriptIO.inferFormat(url: url, data: data)
        var transcript = TokenizedTranscript(path: path, format: format)
        transcript.tokens.reserveCapacity(data.count / 5)
        var firstLine: [Int32] = []
        var warnings: [ScoringWarning] = []
        try data.withUnsafeBytes { raw in
            try RecordScanner.scan(raw.bindMemory(to: UInt8.self), format: format, path: path, warnings: &warnings) {
                record in
                let id = ids.intern(record.id.baseAddress!, record.id.count)
                if Int(id) >= firstLine.count {
                    firstLine.append(contentsOf: repeatElement(0, count: Int(id) + 1 - firstLine.count))
                }
                if firstLine[Int(id)] != 0 {
                    throw ScoringError.duplicateUtteranceID(
                        path: path, id: ids.string(id), firstLine: Int(firstLine[Int(id)]), line: record.line)
                }
                firstLine[Int(id)] = Int32(record.line)
                transcript.ids.append(id)
                if let speaker = record.speaker, let base = speaker.baseAddress {
                    transcript.speakers.append(speakers.intern(base, speaker.count))
                } else {
                    transcript.speakers.append(-1)
                }
                transcript.lines.append(Int32(record.line))
                tokenize(record.text, into: &transcript.tokens)
                transcript.starts.append(Int32(transcript.tokens.count))
                if let whole = record.biasingList {
                    // Every line of a file with lists has one (the scanners check it).
                    transcript.biasingLists.append(whole)
                    transcript.namedBiasedWords.append(record.biased)
                }
                transcript.seconds.append(record.seconds)
                if let audio = record.audio {
                    if transcript.audio.isEmpty {
                        transcript.audio = Array(repeating: nil, count: transcript.count - 1)
                    }
                    transcript.audio.append(audio)
                } else if !transcript.audio.isEmpty {
                    transcript.audio.append(nil)
                }
            }
        }
        transcript.warnings = warnings
        if transcript.count == 0 { throw ScoringError.noUtterances(path: path) }
        return transcript
    }

    /// Normalizes the words of one utterance's text into interned ids.
    func tokenize(_ text: UnsafeBufferPointer<UInt8>, into tokens: inout [Int32]) {
        guard let base = text.baseAddress, text.count > 0 else { return }
        if normalizer.normalizesWholeText {
            // English rules and term forms ("nimzo indian") look across words, and a form may be made of plain
            // bytes ("albin's"), so take the whole line through the String pipeline.
            for word in normalizer.normalize(String(decoding: text, as: UTF8.self)) {
                tokens.append(words.intern(word))
            }
            return
        }
        let count = text.count
        let stripPunctuation = normalizer.stripPunctuation
        var index = 0
        while index < count {
            while index < count && RecordScanner.isSpace(base[index]) { index += 1 }
            let start = index
            var isPlain = true
            while index < count && !RecordScanner.isSpace(base[index]) {
                let byte = base[index]
                if !plain[Int(byte)] {
                    // A word-internal apostrophe between two plain letters or digits is kept as it is.
                    if stripPunctuation && byte == UInt8(ascii: "'") && index > start && index + 1 < count
                        && plain[Int(base[index - 1])] && plain[Int(base[index + 1])]
                        && base[index - 1] != UInt8(ascii: "-") && base[index + 1] != UInt8(ascii: "-")
                    {
                        index += 1
                        continue
                    }
                    isPlain = false
                }
                index += 1
            }
            guard index > start else { break }
            if isPlain {
                tokens.append(words.intern(base + start, index - start))
            } else {
                let token = String(
                    decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
                for word in normalizer.normalize(token) { tokens.append(words.intern(word)) }
            }
        }
    }
}

extension CorpusLoader {
    /// Reads several files in parallel, each with its own tables, then moves them all onto the first file's tables
    /// so ids are comparable.
    /// - Returns: The loader that owns the merged tables and the transcripts in the order given.
    /// - Throws: The first file's error, in the order given.
    static func loadAll(_ files: [(url: URL, format: TranscriptFormat?)], normalizer: Normalizer) throws
        -> (CorpusLoader, [TokenizedTranscript])
    {
        let sizes = files.map { file in
            (try? FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? Int) ?? nil
        }
        // The first file is read here, into the loader whose tables every file ends up in; the others are read
        // meanwhile, each with its own loader, and come back as values (the transcript and its tables) to be
        // re-interned, so readers share nothing but the slots.
        let slots = Mutex([Result<(TokenizedTranscript, Tables), any Error>?](repeating: nil, count: files.count))
        let others = DispatchGroup()
        for index in files.indices.dropFirst() {
            DispatchQueue.global().async(group: others) {
                let result = Result {
                    let loader = CorpusLoader(normalizer: normalizer, expectedBytes: sizes[index])
                    let transcript = try loader.load(files[index].url, format: files[index].format)
                    return (
                        transcript,
                        Tables(words: loader.words.list, ids: loader.ids.list, speakers: loader.speakers.list)
                    )
                }
                slots.withLock { $0[index] = result }
            }
        }
        let main = CorpusLoader(normalizer: normalizer, expectedBytes: sizes[0])
        let first = Result { try main.load(files[0].url, format: files[0].format) }
        others.wait()
        var transcripts = [try first.get()]
        for result in slots.withLock({ $0 }).dropFirst() {
            let (transcript, tables) = try result!.get()
            transcripts.append(main.absorb(tables, transcript))
        }
        return (main, transcripts)
    }

    /// One reader's tables, as values.
    struct Tables: Sendable {
        var words: TokenList
        var ids: TokenList
        var speakers: TokenList
    }

    /// Re-interns a transcript read with other tables into this loader's tables.
    private func absorb(_ other: Tables, _ transcript: TokenizedTranscript) -> TokenizedTranscript {
        func mapping(_ from: TokenList, _ to: TokenTable) -> [Int32] {
            (0..<from.count).map { id in from.withBytes(id) { to.intern($0.baseAddress!, $0.count) } }
        }
        let words = mapping(other.words, self.words)
        let ids = mapping(other.ids, self.ids)
        let speakers = mapping(other.speakers, self.speakers)
        var result = transcript
        result.tokens = transcript.tokens.map { words[Int($0)] }
        result.ids = transcript.ids.map { ids[Int($0)] }
        result.speakers = transcript.speakers.map { $0 < 0 ? -1 : speakers[Int($0)] }
        return result
    }
}
