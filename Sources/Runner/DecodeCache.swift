import Foundation
import Hashing
import Recognition

/// PocketSphinx's answers kept across runs, one file per work key (`KEY.json`; a streamed one's also names its terms): a run takes from it the answers its
/// own journal lacks, and adds those it decodes.
///
/// The key names everything that can change a hypothesis (the audio's bytes, the system's model, the acoustic model,
/// the decoder settings and the streaming chunk: ``WorkRequest/key(audioHash:systemFingerprint:modelFingerprint:decoder:streamed:)``),
/// so an answer is reused only for the same decode; it is the key a run's journal resumes by. Only answers that
/// succeeded are kept, and only PocketSphinx's: an external recognizer's key cannot see a change to its program, and a
/// failure (a timeout on a busy machine) says nothing of the next run. A kept answer carries the timings of the run
/// that decoded it, as a resumed one does. Each file is written whole (a temporary file renamed), so runs sharing the
/// folder at once never read half an answer.
struct DecodeCache {
    let folder: URL

    /// The file of `request`'s answer. A streamed decode's answer also holds when each of the request's terms was
    /// first heard, which its key does not name (a baseline streams for every variant's terms of its suite): its
    /// file is named by the terms too, so another suite's terms never come back as this one's.
    private func file(_ request: WorkRequest) -> URL {
        guard request.streaming != nil else {
            return folder.appendingPathComponent("\(request.key).json")
        }
        let terms = ContentHash.sha256Hex(Data(request.terms.sorted().joined(separator: "\n").utf8))
        return folder.appendingPathComponent("\(request.key)-\(terms.prefix(16)).json")
    }

    /// Whether `request` may be answered from, and kept in, the cache.
    static func applies(to request: WorkRequest) -> Bool {
        request.external == nil && request.crashForTesting != true
    }

    /// Appends to the run's `journal` the cached answers of `requests` it lacks, so that the transcriber takes
    /// them as journaled. - Returns: The keys answered from the cache.
    func seed(_ journal: URL, for requests: [WorkRequest]) throws -> Set<String> {
        let journaled = Set(Journal.entries(journal, as: WorkResponse.self).map(\.key))
        var found: [WorkResponse] = []
        var seen: Set<String> = []
        let decoder = JSONDecoder()
        for request in requests
        where Self.applies(to: request) && !journaled.contains(request.key) && seen.insert(request.key).inserted {
            guard let data = try? Data(contentsOf: file(request)),
                let answer = try? decoder.decode(WorkResponse.self, from: data), answer.key == request.key,
                answer.failure == nil
            else { continue }
            found.append(answer)
        }
        guard !found.isEmpty else { return [] }
        let writer = try Journal(appendingTo: journal)
        defer { writer.close() }
        for answer in found { try writer.append(answer) }
        return Set(found.map(\.key))
    }

    /// Keeps the answers to `requests` that succeeded and were decoded by this run (not in `cached`). A file that
    /// cannot be written is skipped: the cache only saves work.
    func keep(_ answers: [String: WorkResponse], of requests: [WorkRequest], except cached: Set<String>) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var kept: Set<String> = []
        for request in requests where Self.applies(to: request) && !cached.contains(request.key) {
            guard kept.insert(request.key).inserted, let answer = answers[request.key], answer.failure == nil,
                answer.latency?.failure == nil, !answer.crashed, let data = try? encoder.encode(answer)
            else { continue }
            try? data.write(to: file(request), options: .atomic)
        }
    }
}
