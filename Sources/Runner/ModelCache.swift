import Formats
import Foundation
import Scoring

/// The folder of models Gambit keeps between runs, and what is in it.
///
/// Four kinds of entry, one folder each under the cache: `prepared/` (a variant's compiled training data:
/// its language model, vocabulary and manifest, in clear even when the data is `private: true`), `oracle/`
/// (a corpus's reference sentences as a grammar, with the variants' pronunciations), `sweep/` (the
/// models `gambit sweep` compiled for each point) and `external/` (a variant's training data as handed to an
/// external recognizer's prepare command, and the artifact it made). Each entry records the files it was made from in
/// ``sourcesFileName``, so the entries of one suite can be found and removed.
public struct ModelCache: Sendable {
    /// The cache folder (see ``Toolchain/defaultCacheFolder``).
    public var folder: URL

    /// The file in each entry that names the training data or manifests it was made from.
    public static let sourcesFileName = "gambit-sources.json"
    /// The subfolders that hold entries.
    public static let kinds = ["prepared", "oracle", "sweep", "external"]

    public init(folder: URL) {
        self.folder = folder
    }

    /// One cached model.
    public struct Entry: Sendable, Equatable {
        /// `prepared`, `oracle`, `sweep` or `external`.
        public var kind: String
        public var url: URL
        /// Bytes of every file inside.
        public var bytes: Int
        /// When the entry was last written.
        public var modified: Date
        /// Whether it was made from data marked `private: true`: its files hold that data in clear.
        public var isPrivate: Bool
        /// The training data or manifests it was made from; empty for entries made before Gambit recorded them.
        public var sources: [String]

        /// The words of its private data that its folder name may hold (the boosted words, terms and template
        /// class values its manifest records); empty for an entry not made from private data.
        public var privateWords: Set<String> = []

        public var name: String { "\(kind)/\(url.lastPathComponent)" }

        /// ``name`` as `gambit cache list` shows it: in an entry made from private data, each word of the
        /// folder name that is a word of that data is `‹private›`, as reports mask it. The folder of a prepared
        /// model is named after its training file (`prepared/siobhan-contacts-1a2b3c`), so a list pasted into a
        /// log or an issue would otherwise print the name the data is about.
        public var shownName: String {
            guard isPrivate, !privateWords.isEmpty else { return name }
            var shown = ""
            var word = ""
            func flush() {
                shown += privateWords.contains(word.lowercased()) ? "‹private›" : word
                word = ""
            }
            for character in url.lastPathComponent {
                if character.isLetter || character.isNumber {
                    word.append(character)
                } else {
                    flush()
                    shown.append(character)
                }
            }
            flush()
            return "\(kind)/\(shown)"
        }
    }

    /// Records what an entry was made from (called by whatever writes the entry).
    public static func recordSources(_ sources: [URL], in entry: URL) {
        let paths = sources.map(\.standardizedFileURL.path).sorted()
        guard let data = try? JSONSerialization.data(withJSONObject: ["sources": paths], options: [.sortedKeys])
        else { return }
        try? data.write(to: entry.appendingPathComponent(sourcesFileName), options: .atomic)
    }

    /// Every entry, by kind and name.
    public func entries() -> [Entry] {
        let manager = FileManager.default
        var entries: [Entry] = []
        for kind in Self.kinds {
            let parent = folder.appendingPathComponent(kind)
            let names = (try? manager.contentsOfDirectory(atPath: parent.path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                let url = parent.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard manager.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
                entries.append(Self.entry(kind: kind, url: url))
            }
        }
        return entries
    }

    private static func entry(kind: String, url: URL) -> Entry {
        let manager = FileManager.default
        var bytes = 0
        var modified = (try? manager.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? .distantPast
        var isPrivate = false
        var privateWords: Set<String> = []
        for case let file as URL in manager.enumerator(at: url, includingPropertiesForKeys: nil) ?? .init() {
            guard let attributes = try? manager.attributesOfItem(atPath: file.path),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            bytes += (attributes[.size] as? Int) ?? 0
            if let date = attributes[.modificationDate] as? Date, date > modified { modified = date }
            // A prepared model's manifest (an external recognizer's record) says whether its training data was private.
            if file.lastPathComponent == "manifest.json"
                || (kind == "external" && file.lastPathComponent == ExternalArtifactRecord.fileName),
                let data = try? Data(contentsOf: file),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                object["isPrivate"] as? Bool == true
            {
                isPrivate = true
                privateWords = Self.words(ofManifest: object)
            }
        }
        var sources: [String] = []
        if let data = try? Data(contentsOf: url.appendingPathComponent(sourcesFileName)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            sources = object["sources"] as? [String] ?? []
        }
        return Entry(
            kind: kind, url: url, bytes: bytes, modified: modified, isPrivate: isPrivate, sources: sources,
            privateWords: privateWords)
    }

    /// The words a prepared model's manifest records of its data: boosted words, multi-word terms and every
    /// string of its templates (class values among them), lowercased and split at anything but a letter or digit.
    private static func words(ofManifest manifest: [String: Any]) -> Set<String> {
        var words = Set<String>()
        func collect(_ value: Any) {
            if let text = value as? String {
                for word in text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
                    words.insert(String(word))
                }
            } else if let list = value as? [Any] {
                list.forEach(collect)
            } else if let object = value as? [String: Any] {
                object.values.forEach(collect)
            }
        }
        for key in ["boostedWords", "boostedTerms", "templates"] { manifest[key].map(collect) }
        return words
    }

    /// The entries made from a suite's training data or corpora.
    public func entries(of suite: Suite) -> [Entry] {
        let files = Set(
            (suite.variants.map(\.training) + suite.corpora.map(\.manifest)).map(\.standardizedFileURL.path))
        return entries().filter { !Set($0.sources).isDisjoint(with: files) }
    }

    /// Removes entries.
    /// - Returns: The bytes freed.
    /// - Throws: The file system's error, naming the entry that could not be removed.
    @discardableResult
    public func remove(_ entries: [Entry]) throws -> Int {
        var freed = 0
        for entry in entries {
            do {
                try FileManager.default.removeItem(at: entry.url)
            } catch {
                throw RunnerError.cacheEntry(
                    name: entry.shownName, folder: folder.path,
                    reason: FileSystemReason.writing(entry.url, error, expecting: .folder))
            }
            freed += entry.bytes
        }
        return freed
    }
}
