import Foundation
import FuzzTargets
import GambitTestSupport
import Testing

/// The fuzz targets' seed corpora, and every input the fuzzer found, replayed through the parsers.
@Suite struct FuzzTargetTests {
    static let seeds = TestSupport.packageRoot.appendingPathComponent("Fuzz/Seeds")
    static let regressions = TestSupport.packageRoot.appendingPathComponent("Fuzz/Regressions")

    static func files(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test func everyTargetHasASeedCorpusAndEverySeedCorpusATarget() throws {
        let folders = Self.files(in: Self.seeds).map(\.lastPathComponent)
        #expect(Set(folders) == Set(FuzzTarget.allCases.map(\.rawValue)))
        for target in FuzzTarget.allCases {
            #expect(!Self.files(in: Self.seeds.appendingPathComponent(target.rawValue)).isEmpty, "\(target)")
        }
    }

    /// The seeds are shipped files (or a real run's output, trimmed): each parser must accept its own.
    @Test(arguments: FuzzTarget.allCases)
    func seedsAreAccepted(_ target: FuzzTarget) throws {
        let scratch = try TestSupport.temporaryDirectory("fuzz-seeds-\(target.rawValue)")
        for seed in Self.files(in: Self.seeds.appendingPathComponent(target.rawValue)) {
            let error = target.run(try Data(contentsOf: seed), in: scratch)
            #expect(error == nil, "\(seed.lastPathComponent): \(String(describing: error))")
        }
    }

    /// Bytes that are not UTF-8, nothing at all, a lone NUL: never a crash, and a refusal names the file.
    @Test(arguments: FuzzTarget.allCases)
    func degenerateInputsAreHandled(_ target: FuzzTarget) throws {
        let scratch = try TestSupport.temporaryDirectory("fuzz-degenerate-\(target.rawValue)")
        for input in [Data(), Data([0]), Data([0xFF, 0xFE, 0x0A]), Data("\n\n\n".utf8)] {
            if let error = target.run(input, in: scratch) {
                #expect("\(error)".contains(target.fileName), "\(Array(input)): \(error)")
            }
        }
    }

    /// Every input the fuzzer found (Fuzz/Regressions/TARGET/) is replayed: before its fix each one crashed.
    /// What each must now do is checked case by case in ``FuzzFindingTests``.
    @Test(arguments: FuzzTarget.allCases)
    func findingsNoLongerCrash(_ target: FuzzTarget) throws {
        let scratch = try TestSupport.temporaryDirectory("fuzz-findings-\(target.rawValue)")
        for finding in Self.files(in: Self.regressions.appendingPathComponent(target.rawValue)) {
            _ = target.run(try Data(contentsOf: finding), in: scratch)
        }
    }
}
