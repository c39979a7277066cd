import Foundation
import FuzzTargets

// Built two ways. `scripts/fuzz.sh` builds with `-DFUZZING` and `--sanitize fuzzer`: libFuzzer supplies
// `main` and calls the two functions below, and GAMBIT_FUZZ_TARGET names the parser. The ordinary build
// has a `main` that replays files through a parser, to reproduce a finding without the sanitizers:
// `gambit-fuzz suite crash-1234`.

#if FUZZING
    nonisolated(unsafe) private var target: FuzzTarget?
    nonisolated(unsafe) private var folder: URL?

    @_cdecl("LLVMFuzzerInitialize")
    public func initialize(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>
    ) -> CInt {
        let name = ProcessInfo.processInfo.environment["GAMBIT_FUZZ_TARGET"] ?? ""
        guard let chosen = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("GAMBIT_FUZZ_TARGET must be one of: \(names)\n".utf8))
            exit(2)
        }
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("gambit-fuzz-\(chosen.rawValue)-\(getpid())")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        (target, folder) = (chosen, scratch)
        return 0
    }

    @_cdecl("LLVMFuzzerTestOneInput")
    public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        guard let target, let folder else { return 0 }
        let input = bytes.map { Data(bytes: $0, count: count) } ?? Data()
        target.run(input, in: folder)
        return 0
    }
#else
    @main
    struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
                print("usage: gambit-fuzz <\(names)> FILE...")
                exit(2)
            }
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("gambit-fuzz-\(getpid())")
            try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            for path in arguments.dropFirst() {
                guard let input = FileManager.default.contents(atPath: path) else {
                    print("\(path): cannot read")
                    continue
                }
                if let error = target.run(input, in: scratch) {
                    print("\(path): refused: \(error)")
                } else {
                    print("\(path): accepted")
                }
            }
        }
    }
#endif
