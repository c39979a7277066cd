import Foundation
import GambitTestSupport
import Runner
import RunnerTestSupport
import Testing

@Suite("The model cache", .serialized)
struct ModelCacheTests {
    @Test("The cache lives under $XDG_CACHE_HOME/gambit unless $GAMBIT_CACHE names it")
    func location() throws {
        let xdg = try TestSupport.temporaryDirectory("xdg")
        var environment = ProcessInfo.processInfo.environment
        environment["GAMBIT_CACHE"] = nil
        environment["XDG_CACHE_HOME"] = xdg.path
        let list = try TestSupport.gambit(["cache", "list"], environment: environment)
        #expect(list.status == 0 && list.output.contains("cache: \(xdg.path)/gambit"), "\(list.output)")
        environment["GAMBIT_CACHE"] = xdg.appendingPathComponent("explicit").path
        let explicit = try TestSupport.gambit(["cache", "list"], environment: environment)
        #expect(explicit.output.contains("cache: \(xdg.path)/explicit"), "\(explicit.output)")
    }

    @Test("list gives each entry's size and age and marks private ones; clear removes one suite's entries or all")
    func listAndClear() throws {
        let suite = try MiniSuite(oracle: true)
        _ = try suite.run()
        let folder = suite.folder.appendingPathComponent("cache")
        let cache = ModelCache(folder: folder)
        // A private training file prepared into the same cache, as another suite's variant would be.
        let other = suite.folder.appendingPathComponent("private.yaml")
        try MiniSuite.privateContacts.write(to: other, atomically: true, encoding: .utf8)
        _ = try Toolchain(cacheFolder: folder).prepare(other)

        let entries = cache.entries()
        #expect(Set(entries.map(\.kind)) == ["prepared", "oracle"])
        #expect(entries.allSatisfy { $0.bytes > 10_000 && $0.modified.timeIntervalSinceNow > -3_600 })
        #expect(entries.filter(\.isPrivate).map(\.url.lastPathComponent).allSatisfy { $0.hasPrefix("private-") })
        #expect(entries.filter(\.isPrivate).count == 1)

        let list = try TestSupport.gambit(["cache", "list", "--cache-dir", folder.path])
        let privateLine = try #require(list.output.split(separator: "\n").first { $0.contains("prepared/private-") })
        // A merged model (the default mix) holds the base model: tens of MB.
        #expect(privateLine.hasSuffix("PRIVATE") && privateLine.contains(" MB") && privateLine.contains("ago"))
        #expect(list.output.contains("1 made from private data"), "\(list.output)")

        // The suite's own entries: its variant's model and its corpus's oracle, not the other file's model.
        let loaded = try Suite.load(suite.suiteFile)
        let mine = cache.entries(of: loaded)
        #expect(Set(mine.map(\.kind)) == ["prepared", "oracle"] && !mine.contains(where: \.isPrivate))
        let cleared = try TestSupport.gambit([
            "cache", "clear", "--cache-dir", folder.path, "--suite", suite.suiteFile.path,
        ])
        #expect(cleared.status == 0 && cleared.output.contains("\(mine.count) entries removed"), "\(cleared.output)")
        #expect(cache.entries().map(\.isPrivate) == [true])

        let all = try TestSupport.gambit(["cache", "clear", "--cache-dir", folder.path])
        #expect(all.status == 0 && cache.entries().isEmpty, "\(all.output)")
    }
}
