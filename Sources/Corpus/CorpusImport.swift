import Audio
import Formats
import Foundation
import SwiftCSV

/// Turns a team's own recordings into a corpus: a folder of audio files and what was said in them (a spreadsheet,
/// Kaldi `text`, or a `.txt` beside each recording) → a corpus folder with 16 kHz mono WAV files and a
/// `manifest.jsonl` a suite can name.
///
/// Every recording is read (WAV, FLAC, Ogg or anything libsndfile reads, at any rate, mono or stereo), converted to
/// what the engine takes, timed and checked. Every problem is listed with the file (or the spreadsheet's row) it is
/// about, and counted; an utterance is left out only with a problem that says why:
///
/// | problem | left out |
/// |---|---|
/// | a recording with no transcript | yes |
/// | a transcript with no recording | yes |
/// | a transcript row without a file or a text, or with fields beyond the header's | yes |
/// | a recording that cannot be read, or has no samples | yes |
/// | a recording that is silent (its loudest sample under −60 dBFS) | yes |
/// | a recording longer than the limit | yes |
/// | two recordings or rows that give one id | the second |
/// | a clipped recording (over 0.1% of its samples at full scale) | no: kept, with the problem listed |
///
/// The split is deterministic: an utterance is `dev` when the FNV-1a hash of its speaker (so that no speaker is in
/// both splits), or of its id when there is no speaker, falls in the first `devPercent` of 100.
public enum CorpusImport {
    /// What the import is told.
    public struct Options: Sendable {
        /// The transcripts: a `.csv` or `.tsv` with a header row, or Kaldi `text` (any other name); nil for a `.txt`
        /// beside each recording.
        public var transcripts: URL?
        /// The spreadsheet column naming the speaker; nil to look for `speaker`, `speaker_id` or `client_id`, and
        /// then to take each recording's folder name.
        public var speakerColumn: String?
        /// The share of speakers (or utterances) put in the dev split, percent.
        public var devPercent: Int
        /// Recordings longer than this are left out, seconds.
        public var maximumSeconds: Double

        public init(
            transcripts: URL? = nil, speakerColumn: String? = nil, devPercent: Int = 40, maximumSeconds: Double = 60
        ) {
            self.transcripts = transcripts
            self.speakerColumn = speakerColumn
            self.devPercent = devPercent
            self.maximumSeconds = maximumSeconds
        }
    }

    /// One thing wrong, and where.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, CaseIterable {
            case noTranscript = "no transcript"
            case noRecording = "transcript without a recording"
            case badRow = "unusable transcript row"
            case unreadable = "unreadable audio"
            case empty = "empty audio"
            case silent = "silence"
            case tooLong = "over the length limit"
            case duplicate = "duplicate id"
            case clipped = "clipping"
        }

        public var kind: Kind
        /// The recording (relative to the audio folder) or the transcript's row (`list.csv row 3`).
        public var location: String
        public var detail: String
        /// Whether the utterance was left out for it.
        public var leftOut: Bool

        public var description: String {
            "\(location): \(kind.rawValue): \(detail)" + (leftOut ? " (left out)" : " (kept)")
        }
    }

    /// What an import made.
    public struct Outcome: Sendable {
        public var entries: [CorpusEntry]
        public var problems: [Problem]
        /// Recordings whose rate or channels were converted to 16 kHz mono.
        public var converted: Int
        public var manifest: URL

        /// How many problems of each kind, in the order of ``Problem/Kind``, those with none left out.
        public var counts: [(kind: Problem.Kind, count: Int)] {
            Problem.Kind.allCases.compactMap { kind in
                let count = problems.filter { $0.kind == kind }.count
                return count == 0 ? nil : (kind, count)
            }
        }
    }

    /// The audio files the import looks for, by extension.
    public static let audioExtensions: Set<String> = ["wav", "flac", "ogg", "oga", "aiff", "aif", "au", "w64", "caf"]

    /// Imports the recordings under `audioFolder` into `output` (made if missing; its `audio/` and `manifest.jsonl`
    /// are written anew).
    ///
    /// - Throws: ``CorpusError`` when the folder or the transcripts file cannot be read at all, or the transcripts
    ///   have no column for the file or the text; a problem with one recording or row is listed, never thrown.
    public static func run(audioFolder: URL, output: URL, options: Options = Options()) throws(CorpusError)
        -> Outcome
    {
        let audio = output.appendingPathComponent("audio")
        let source = audioFolder.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        let written = audio.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        // audio/ is written anew: it must never be, hold or lie in the recordings.
        guard !source.hasPrefix(written) && !written.hasPrefix(source) else {
            throw .unwritable(
                path: audio.path,
                detail: "the corpus's audio/ folder would overlap the recordings in \(audioFolder.path), and it is "
                    + "written anew; give an --output outside the recordings")
        }
        let recordings = try findRecordings(in: audioFolder)
        var problems: [Problem] = []
        let transcripts = try readTranscripts(options, recordings: recordings, folder: audioFolder, into: &problems)
        do {
            try? FileManager.default.removeItem(at: audio)
            try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(path: audio.path, detail: "\(error)")
        }
        var entries: [CorpusEntry] = []
        var converted = 0
        var ids: Set<String> = []
        for recording in recordings {
            guard let said = transcripts[recording] else {
                problems.append(
                    Problem(
                        kind: .noTranscript, location: recording, detail: "nothing says what was said in it",
                        leftOut: true))
                continue
            }
            let id = utteranceID(recording)
            guard ids.insert(id).inserted else {
                problems.append(
                    Problem(
                        kind: .duplicate, location: recording, detail: "its id \(id) is another recording's",
                        leftOut: true))
                continue
            }
            guard
                let clip = checkedClip(
                    audioFolder.appendingPathComponent(recording), recording, options: options, into: &problems)
            else { continue }
            if clip.sourceSampleRate != clip.sampleRate || clip.sourceChannels != 1 { converted += 1 }
            let file = audio.appendingPathComponent(id + ".wav")
            try WAVFile.write(samples: clip.samples, sampleRate: clip.sampleRate, to: file)
            let speaker = said.speaker ?? folderSpeaker(recording)
            entries.append(
                CorpusEntry(
                    id: id, audio: file, text: said.text, speaker: speaker,
                    split: split(of: speaker ?? id, devPercent: options.devPercent),
                    duration: (clip.duration * 1000).rounded() / 1000))
        }
        let manifest = output.appendingPathComponent("manifest.jsonl")
        try CorpusManifest.write(entries, to: manifest)
        return Outcome(entries: entries, problems: problems, converted: converted, manifest: manifest)
    }

    /// `dev` or `test`, by the FNV-1a hash of `key`.
    static func split(of key: String, devPercent: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int(hash % 100) < devPercent ? "dev" : "test"
    }

    /// The id of a recording: its path without the extension, folders joined by `-`, and anything an sclite id
    /// cannot hold (spaces, parentheses) made `_`.
    static func utteranceID(_ recording: String) -> String {
        let stem = (recording as NSString).deletingPathExtension.replacingOccurrences(of: "/", with: "-")
        let id = String(
            stem.unicodeScalars.map { scalar -> Character in
                scalar.properties.isWhitespace || "()".unicodeScalars.contains(scalar)
                    || scalar.properties.generalCategory == .control ? "_" : Character(scalar)
            })
        return id.hasPrefix(";;") ? "_" + id.dropFirst() : id
    }

    /// The folder a recording is in, when it is in one below the audio folder: many corpora keep a speaker's
    /// recordings together.
    static func folderSpeaker(_ recording: String) -> String? {
        let folder = (recording as NSString).deletingLastPathComponent
        return folder.isEmpty ? nil : (folder as NSString).lastPathComponent
    }

    /// The recording read and checked, or nil with the problem that left it out.
    private static func checkedClip(
        _ url: URL, _ recording: String, options: Options, into problems: inout [Problem]
    ) -> AudioClip? {
        let clip: AudioClip
        do {
            clip = try AudioLoader().load(url)
        } catch AudioError.empty {
            problems.append(Problem(kind: .empty, location: recording, detail: "it holds no audio", leftOut: true))
            return nil
        } catch {
            problems.append(Problem(kind: .unreadable, location: recording, detail: "\(error)", leftOut: true))
            return nil
        }
        guard !clip.samples.isEmpty else {
            problems.append(Problem(kind: .empty, location: recording, detail: "it holds no audio", leftOut: true))
            return nil
        }
        if clip.duration > options.maximumSeconds {
            problems.append(
                Problem(
                    kind: .tooLong, location: recording,
                    detail: String(format: "%.1f s, over the limit of %g s", clip.duration, options.maximumSeconds),
                    leftOut: true))
            return nil
        }
        let peak = clip.samples.reduce(0) { max($0, abs(Int($1))) }
        // −60 dBFS: a recording whose loudest sample is under a thousandth of full scale holds no speech to score.
        if peak < 33 {
            problems.append(
                Problem(
                    kind: .silent, location: recording,
                    detail: "its loudest sample is \(peak) of 32767 (under −60 dBFS)",
                    leftOut: true))
            return nil
        }
        let clipped = clip.samples.filter { abs(Int($0)) >= 32_767 }.count
        if Double(clipped) > Double(clip.samples.count) * 0.001 {
            problems.append(
                Problem(
                    kind: .clipped, location: recording,
                    detail: String(
                        format: "%.2f%% of its samples are at full scale",
                        Double(clipped) / Double(clip.samples.count) * 100),
                    leftOut: false))
        }
        return clip
    }

    /// Every audio file under `folder`, relative to it, sorted.
    static func findRecordings(in folder: URL) throws(CorpusError) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .unreadable(path: folder.path, detail: "no such folder")
        }
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else {
            throw .unreadable(path: folder.path, detail: "the folder cannot be listed")
        }
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            if audioExtensions.contains((path as NSString).pathExtension.lowercased()) { found.append(path) }
        }
        return found.sorted()
    }

    /// What was said in a recording, and by whom when the transcripts say.
    struct Said {
        var text: String
        var speaker: String?
    }

    /// Each recording's transcript, by its path; rows and lines that match no recording, or cannot be used, are
    /// problems.
    static func readTranscripts(
        _ options: Options, recordings: [String], folder: URL, into problems: inout [Problem]
    ) throws(CorpusError) -> [String: Said] {
        guard let file = options.transcripts else {
            var said: [String: Said] = [:]
            for recording in recordings {
                let text = folder.appendingPathComponent((recording as NSString).deletingPathExtension + ".txt")
                guard let words = try? String(contentsOf: text, encoding: .utf8) else { continue }
                if normalizedSpace(words).isEmpty {
                    problems.append(
                        Problem(
                            kind: .badRow, location: (recording as NSString).deletingPathExtension + ".txt",
                            detail: "it says nothing", leftOut: true))
                } else {
                    said[recording] = Said(text: normalizedSpace(words))
                }
            }
            return said
        }
        let index = RecordingIndex(recordings)
        let ext = file.pathExtension.lowercased()
        let rows = ext == "csv" || ext == "tsv" ? try spreadsheetRows(file, options: options) : try kaldiRows(file)
        var said: [String: Said] = [:]
        for row in rows {
            if let problem = row.problem {
                problems.append(Problem(kind: .badRow, location: row.location, detail: problem, leftOut: true))
                continue
            }
            guard let recording = index.find(row.file) else {
                problems.append(
                    Problem(
                        kind: .noRecording, location: row.location, detail: "no recording \(row.file) in the folder",
                        leftOut: true))
                continue
            }
            guard said[recording] == nil else {
                problems.append(
                    Problem(
                        kind: .duplicate, location: row.location,
                        detail: "\(recording) already has a transcript on an earlier row", leftOut: true))
                continue
            }
            said[recording] = Said(text: row.text, speaker: row.speaker)
        }
        return said
    }

    /// A transcript row: the recording it names, what was said, the speaker, or why it cannot be used.
    struct Row {
        var location: String
        var file: String
        var text: String
        var speaker: String?
        var problem: String?
    }

    static let fileColumns = ["file", "audio", "path", "filename", "file_name", "wav_filename", "audio_filepath", "id"]
    static let textColumns = ["text", "transcript", "transcription", "sentence", "reference"]
    static let speakerColumns = ["speaker", "speaker_id", "client_id"]

    /// The rows of a CSV or TSV with a header, read by SwiftCSV (RFC 4180 quoting).
    static func spreadsheetRows(_ file: URL, options: Options) throws(CorpusError) -> [Row] {
        let name = file.lastPathComponent
        let text = try CorpusError.readText(file)
        let csv: CSV<Enumerated>
        do {
            csv = try CSV<Enumerated>(
                string: text, delimiter: file.pathExtension.lowercased() == "tsv" ? .tab : .comma, loadColumns: false)
        } catch {
            throw .unreadable(path: file.path, detail: "not a readable spreadsheet: \(error)")
        }
        let header = csv.header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ names: [String], _ what: String) throws(CorpusError) -> Int {
            guard let index = header.firstIndex(where: names.contains) else {
                throw .unreadable(
                    path: file.path,
                    detail: "its header (\(csv.header.joined(separator: ", "))) has no column for \(what); name one "
                        + names.joined(separator: ", "))
            }
            return index
        }
        let fileColumn = try column(fileColumns, "the recording")
        let textColumn = try column(textColumns, "the text")
        let speakerColumn: Int?
        if let wanted = options.speakerColumn {
            speakerColumn = try column([wanted.lowercased()], "the speaker (--speaker-column \(wanted))")
        } else {
            speakerColumn = header.firstIndex(where: speakerColumns.contains)
        }
        var rows: [Row] = []
        var number = 0
        do {
            try csv.enumerateAsArray(startAt: 1, rowLimit: nil) { fields in
                number += 1
                let location = "\(name) row \(number)"
                func field(_ index: Int) -> String {
                    index < fields.count ? fields[index].trimmingCharacters(in: .whitespaces) : ""
                }
                var row = Row(
                    location: location, file: field(fileColumn), text: normalizedSpace(field(textColumn)),
                    speaker: speakerColumn.map(field).flatMap { $0.isEmpty ? nil : $0 })
                if fields.count > header.count {
                    row.problem =
                        "\(fields.count) fields where the header has \(header.count) (an unquoted "
                        + "\(file.pathExtension.lowercased() == "tsv" ? "tab" : "comma") in a field?)"
                } else if row.file.isEmpty {
                    row.problem = "no recording named in column \(csv.header[fileColumn])"
                } else if row.text.isEmpty {
                    row.problem = "no text in column \(csv.header[textColumn])"
                }
                rows.append(row)
            }
        } catch {
            throw .unreadable(path: file.path, detail: "not a readable spreadsheet: \(error)")
        }
        return rows
    }

    /// The lines of Kaldi `text` (read by Formats' one reader of it): the id (the recording's name without its
    /// extension), then the words.
    static func kaldiRows(_ file: URL) throws(CorpusError) -> [Row] {
        let transcripts: TranscriptFile
        do {
            transcripts = try TranscriptIO.read(file, format: .kaldi)
        } catch {
            throw .unreadable(path: file.path, detail: "not readable as Kaldi text: \(error)")
        }
        return transcripts.utterances.map { utterance in
            let words = normalizedSpace(utterance.text)
            return Row(
                location: "\(file.lastPathComponent), utterance \(utterance.id)", file: utterance.id, text: words,
                problem: words.isEmpty ? "an id with no words" : nil)
        }
    }

    static func normalizedSpace(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Finds a recording by what a transcript row calls it: its path below the folder, its file name, or its name
    /// without the extension.
    struct RecordingIndex {
        var byPath: Set<String>
        var byName: [String: [String]] = [:]
        var byStem: [String: [String]] = [:]

        init(_ recordings: [String]) {
            byPath = Set(recordings)
            for recording in recordings {
                let name = (recording as NSString).lastPathComponent
                byName[name, default: []].append(recording)
                byStem[(name as NSString).deletingPathExtension, default: []].append(recording)
            }
        }

        /// The one recording `reference` names; nil when none does, or more than one (then no guess is made).
        func find(_ reference: String) -> String? {
            let cleaned = reference.hasPrefix("./") ? String(reference.dropFirst(2)) : reference
            if byPath.contains(cleaned) { return cleaned }
            let name = (cleaned as NSString).lastPathComponent
            if let found = byName[name], found.count == 1 { return found[0] }
            if let found = byStem[name], found.count == 1 { return found[0] }
            return nil
        }
    }
}
