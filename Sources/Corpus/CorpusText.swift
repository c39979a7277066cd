import Foundation

/// A sentence to be spoken into a synthetic corpus, with the id and split it came with.
public struct CorpusText: Sendable, Hashable {
    /// The text's id, e.g. `chess-007`; utterance ids are made from it.
    public var id: String
    /// The words to speak, which are also the reference transcription.
    public var text: String
    /// The corpus split (`dev`, `test`, …), if the texts file gives one.
    public var split: String?

    public init(id: String, text: String, split: String? = nil) {
        self.id = id
        self.text = text
        self.split = split
    }

    /// Reads the texts of a corpus.
    ///
    /// Two layouts are accepted. A **TSV** file (a `.tsv` name, or any file whose lines contain tabs) has lines
    /// `id<TAB>text` or `id<TAB>text<TAB>split`, as `Corpora/chess/texts.tsv` does. A **plain** file has one
    /// text per line; ids are made from the file name and a counter (`phrases-001`, `phrases-002`, …).
    /// Blank lines are skipped in both.
    ///
    /// - Parameter url: The texts file.
    /// - Returns: The texts in file order.
    /// - Throws: ``CorpusError`` naming the file and line for a wrong number of columns, an empty id or text,
    ///   or a duplicate id.
    public static func load(_ url: URL) throws(CorpusError) -> [CorpusText] {
        let path = url.path
        let contents = try CorpusError.readText(url)
        // Leading tabs kept: "\ttext" is a row with an empty id, not a row whose id is "text".
        let lines = CorpusManifest.numberedLines(contents, keepingLeadingTabs: true)
        let isTSV =
            url.pathExtension.lowercased() == "tsv"
            || (!lines.isEmpty && lines.allSatisfy { $0.1.trimmingCharacters(in: .whitespaces).contains("\t") })
        var texts: [CorpusText] = []
        var firstLineOfID: [String: Int] = [:]
        let stem = url.deletingPathExtension().lastPathComponent
        let width = max(3, String(lines.count).count)
        for (number, line) in lines {
            let item: CorpusText
            if isTSV {
                let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard columns.count == 2 || columns.count == 3 else {
                    throw .malformedLine(
                        path: path, line: number,
                        detail: "expected id<TAB>text<TAB>split (2 or 3 columns), found \(columns.count)")
                }
                guard !columns[0].isEmpty else { throw .emptyValue(path: path, line: number, key: "id") }
                guard !columns[1].isEmpty else { throw .emptyValue(path: path, line: number, key: "text") }
                let split = columns.count == 3 && !columns[2].isEmpty ? columns[2] : nil
                item = CorpusText(id: columns[0], text: columns[1], split: split)
            } else {
                let counter = String(texts.count + 1)
                item = CorpusText(
                    id: "\(stem)-\(String(repeating: "0", count: width - counter.count))\(counter)",
                    text: line.trimmingCharacters(in: .whitespaces))
            }
            if let first = firstLineOfID[item.id] {
                throw .duplicateID(path: path, line: number, id: item.id, firstLine: first)
            }
            firstLineOfID[item.id] = number
            texts.append(item)
        }
        return texts
    }
}
