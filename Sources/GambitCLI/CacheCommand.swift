import ArgumentParser
import Foundation
import Runner

/// `gambit cache list|clear`: what Gambit keeps between runs, and removing it.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "List or clear the models Gambit keeps between runs.",
        discussion: """
            Prepared models, oracle grammars and sweep points are cached under $GAMBIT_CACHE, else \
            $XDG_CACHE_HOME/gambit, else ~/.cache/gambit. They hold training data in clear, private data \
            included: `list` marks those entries PRIVATE and shows the words of that data in their names as ‹private›.

            """ + ExitStatus.doneOrRefused,
        subcommands: [List.self, Clear.self])

    struct Location: ParsableArguments {
        @Option(help: "The cache folder (default: $GAMBIT_CACHE, $XDG_CACHE_HOME/gambit or ~/.cache/gambit).")
        var cacheDir: String?

        @Option(help: "Only the entries made from this suite's training data and corpora.")
        var suite: String?

        var cache: ModelCache {
            ModelCache(folder: cacheDir.map { URL(fileURLWithPath: $0) } ?? Toolchain.defaultCacheFolder)
        }

        func entries() throws -> [ModelCache.Entry] {
            guard let suite else { return cache.entries() }
            return cache.entries(of: try Suite.load(URL(fileURLWithPath: suite)))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Each entry with its size and age.", discussion: ExitStatus.doneOrRefused)

        @OptionGroup var location: Location

        func run() throws {
            let entries = try location.entries()
            print("cache: \(location.cache.folder.path)")
            guard !entries.isEmpty else {
                print("no entries")
                return
            }
            let width = entries.map(\.shownName.count).max() ?? 0
            for entry in entries {
                let name = entry.shownName.padding(toLength: width, withPad: " ", startingAt: 0)
                let size = Self.size(entry.bytes).leftPadded(to: 9)
                let age = Self.age(since: entry.modified).leftPadded(to: 10)
                print("\(name)  \(size)  \(age)\(entry.isPrivate ? "  PRIVATE" : "")")
            }
            let privateCount = entries.filter(\.isPrivate).count
            print(
                "\(entries.count) entries, \(Self.size(entries.reduce(0) { $0 + $1.bytes }))"
                    + (privateCount > 0 ? "; \(privateCount) made from private data, which they hold in clear" : ""))
        }

        static func size(_ bytes: Int) -> String {
            let units = ["B", "KB", "MB", "GB"]
            var value = Double(bytes)
            var unit = 0
            while value >= 1_000 && unit < units.count - 1 {
                value /= 1_000
                unit += 1
            }
            return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
        }

        static func age(since date: Date, now: Date = Date()) -> String {
            let seconds = max(0, now.timeIntervalSince(date))
            if seconds < 3_600 { return "\(Int(seconds / 60)) min ago" }
            if seconds < 172_800 { return "\(Int(seconds / 3_600)) h ago" }
            return "\(Int(seconds / 86_400)) days ago"
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every entry, or one suite's (--suite).", discussion: ExitStatus.doneOrRefused)

        @OptionGroup var location: Location

        func run() throws {
            let entries = try location.entries()
            let freed = try location.cache.remove(entries)
            for entry in entries { print("removed \(entry.shownName)") }
            print("\(entries.count) entries removed, \(List.size(freed)) freed from \(location.cache.folder.path)")
            if location.suite != nil {
                let unknown = location.cache.entries().filter(\.sources.isEmpty).count
                if unknown > 0 {
                    print(
                        "\(unknown) entries made before Gambit recorded their sources were kept; "
                            + "`gambit cache clear` without --suite removes everything")
                }
            }
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
