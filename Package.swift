// swift-tools-version: 6.0
// Gambit: did our custom phrases make speech recognition better, by how much, at what cost?
//
// The layout follows the pipeline (see README.md, "How it fits together", and docs/architecture.md):
//   Sources/      the product's modules, each importing only those before it: Formats (the file formats underneath
//                 everything), Hashing, StrictYAML → Audio → TrainingData → Corpus → NGram → PocketSphinx →
//                 LanguageModel → Recognition → Scoring → Results → Runner → Tuning, Diagnosis → Reporting → Gate →
//                 Publishing → the `gambit` executable (GambitCLI); each target lists exactly what it imports
//                 (Tests/RunnerTests/ModuleGraphTests checks both);
//   Sources/C/    one C module per C library, underneath;
//   Benchmarks/   programs that print figures; Fuzz/ the fuzz targets and their seeds;
//   Tests/        one test target per module, with Tests/Support/ (helpers and fixtures) beside them.
import PackageDescription

let package = Package(
    name: "Gambit",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "gambit", targets: ["GambitCLI"]),
        .executable(name: "gambit-bench", targets: ["GambitBenchmarks"]),
        .executable(name: "gambit-fuzz", targets: ["GambitFuzz"]),
        .library(name: "Gambit", targets: ["Audio", "Recognition"]),
        // Gambit's training-data model and parsers alone (YAML, the JSON export, X-SAMPA), free of the engine's
        // system libraries: a Mac tool or an app's own tests read Gambit's files with them
        // (Examples/AppleRecognizer).
        .library(name: "GambitTrainingData", targets: ["TrainingData"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        // RFC 4180 spreadsheets (`gambit corpus import`'s transcripts).
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
    ],
    targets: [
        // C libraries.
        .systemLibrary(
            name: "CPocketSphinx", path: "Sources/C/CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]
        ),
        .systemLibrary(
            name: "CSndFile", path: "Sources/C/CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CSampleRate", path: "Sources/C/CSampleRate", pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/C/CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(name: "CXMLSchema", dependencies: ["CLibXML2"], path: "Sources/C/CXMLSchema"),
        .target(
            name: "CFliteG2P", path: "Sources/C/CFliteG2P",
            linkerSettings: [
                .linkedLibrary("flite_cmulex"), .linkedLibrary("flite_usenglish"), .linkedLibrary("flite"),
                .linkedLibrary("m"),
            ]
        ),

        // The pipeline.
        // The file formats Gambit reads and writes (trn, ctm, stm, JSON lines, Kaldi text, the biasing list, CMU
        // dictionaries), how a format is told from a file, how names are quoted in messages and why a file could not
        // be read: underneath every stage, importing nothing of Gambit's.
        .target(name: "Formats"),
        .target(name: "Audio", dependencies: ["CSndFile", "CSampleRate"]),
        // Naming content by its hash, written once: SHA-256 from swift-crypto as lowercase hex.
        .target(name: "Hashing", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The engine's one owner: the only module that imports CPocketSphinx (one lock, one log setup,
        // one class per C handle, typed errors naming the call, one interpolation).
        .target(name: "PocketSphinx", dependencies: ["Formats", "CPocketSphinx"]),
        .target(
            name: "Corpus",
            dependencies: [
                "Audio", "Formats", "TrainingData", "StrictYAML", .product(name: "SwiftCSV", package: "SwiftCSV"),
            ]),
        // The keys each file a user writes may have: a typo is an error with its line, never a default.
        .target(name: "StrictYAML", dependencies: [.product(name: "Yams", package: "Yams")]),
        .target(name: "TrainingData", dependencies: ["StrictYAML", .product(name: "Yams", package: "Yams")]),
        // Optimised in debug builds too: the merge walks 3.8 million n-grams, which takes a minute
        // unoptimised, and the tests build in debug.
        .target(name: "NGram", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(
            name: "LanguageModel",
            dependencies: [
                "Formats",
                "TrainingData", "NGram", "PocketSphinx", "CFliteG2P", "Hashing",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The one way to decode (Transcriber): in worker processes or in-process, journaled; the only module that
        // creates recognizers and decoders (Tests/RecognitionTests/OneWayToDecodeTests checks).
        .target(
            name: "Recognition",
            dependencies: ["Audio", "Formats", "Hashing", "PocketSphinx"]
        ),

        .target(name: "Scoring", dependencies: ["Formats"]),
        .target(name: "Results", dependencies: ["Formats", "Scoring", "Hashing"], exclude: ["SCHEMA.md"]),
        .target(name: "Reporting", dependencies: ["Formats", "Results", "Scoring"]),
        .target(
            name: "Gate",
            dependencies: ["Results", "Reporting", "Scoring", "StrictYAML", .product(name: "Yams", package: "Yams")]),
        .target(
            name: "Runner",
            dependencies: [
                "Formats",
                "Audio", "Corpus", "TrainingData", "NGram", "LanguageModel", "Recognition", "Scoring", "Results",
                "StrictYAML", "Hashing", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),

        // Why each boosted-word error happened, what fixing it would cost, and what to change: `gambit diagnose` as a
        // library (the examination, the causes (their engine experiments are Recognition's DiagnosticEngine), the suggestion policy, the count maths).
        .target(
            name: "Diagnosis",
            dependencies: [
                "Audio", "Formats", "LanguageModel", "Recognition", "Results", "Runner", "Scoring", "TrainingData",
            ]
        ),

        .target(
            name: "Tuning",
            dependencies: [
                "Audio", "Corpus", "Hashing", "LanguageModel", "Recognition", "Results", "Runner", "Scoring",
                "TrainingData",
            ]
        ),

        // The one owner of a run's output folder once there are results: the results file, every report with its
        // audio links, the sweep.
        .target(name: "Publishing", dependencies: ["Diagnosis", "Reporting", "Results", "Runner"]),

        // Front ends.
        .executableTarget(
            name: "GambitCLI",
            dependencies: [
                "Formats",
                "Audio", "Corpus", "Recognition", "TrainingData", "LanguageModel", "NGram", "Scoring", "Results",
                "Reporting", "Gate", "Runner", "Tuning", "Diagnosis", "Publishing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "GambitBenchmarks",
            dependencies: [
                "Formats",
                "Audio", "Recognition", "LanguageModel", "NGram", "PocketSphinx", "TrainingData", "Runner", "Corpus",
            ],
            path: "Benchmarks/GambitBenchmarks"),
        .executableTarget(
            name: "ScoringBenchmark", dependencies: ["Formats", "Scoring"], path: "Benchmarks/ScoringBenchmark"),
        .executableTarget(
            name: "NormalizerBenchmark", dependencies: ["Scoring"], path: "Benchmarks/NormalizerBenchmark"),

        // Fuzzing (scripts/fuzz.sh): every parser of a user's file, driven as the command line drives it.
        .target(
            name: "FuzzTargets", dependencies: ["Corpus", "Results", "Runner", "Scoring", "TrainingData"],
            path: "Fuzz/FuzzTargets"),
        .executableTarget(name: "GambitFuzz", dependencies: ["FuzzTargets"], path: "Fuzz/GambitFuzz"),

        // Tests.
        .target(name: "GambitTestSupport", path: "Tests/Support/GambitTestSupport"),
        .target(
            name: "ResultsFixtures", dependencies: ["Results", "Scoring"], path: "Tests/Support/ResultsFixtures",
            exclude: ["Schemas"]),
        .target(
            name: "RunnerTestSupport", dependencies: ["Publishing", "Results", "Runner", "GambitTestSupport"],
            path: "Tests/Support/RunnerTestSupport"),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "GambitTestSupport"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing"]),
        .testTarget(name: "PocketSphinxTests", dependencies: ["PocketSphinx", "GambitTestSupport"]),
        .testTarget(
            name: "RecognitionTests",
            dependencies: ["Scoring", "Formats", "Recognition", "Audio", "Results", "GambitTestSupport"]),
        .testTarget(name: "TrainingDataTests", dependencies: ["TrainingData"]),
        .testTarget(name: "NGramTests", dependencies: ["NGram"]),
        .testTarget(name: "ScoringTests", dependencies: ["Formats", "Scoring"]),
        .testTarget(name: "CorpusTests", dependencies: ["Formats", "Corpus", "Audio", "GambitTestSupport"]),
        .testTarget(name: "ResultsTests", dependencies: ["Formats", "Results", "ResultsFixtures", "Scoring"]),
        .testTarget(
            name: "ReportingTests", dependencies: ["Reporting", "Results", "ResultsFixtures", "Scoring", "CXMLSchema"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "PublishingTests",
            dependencies: ["Publishing", "Reporting", "Results", "ResultsFixtures", "Runner", "GambitTestSupport"]),
        .testTarget(
            name: "RunnerTests",
            dependencies: [
                "Formats",
                "Runner", "Results", "ResultsFixtures", "Reporting", "Corpus", "NGram", "LanguageModel", "Recognition",
                "Scoring", "Tuning", "GambitTestSupport", "RunnerTestSupport",
            ]),
        .testTarget(
            name: "DiagnosisTests",
            dependencies: [
                "Formats",
                "Diagnosis", "Audio", "LanguageModel", "Recognition", "Reporting", "Results", "ResultsFixtures",
                "Runner",
                "Scoring", "GambitTestSupport", "RunnerTestSupport",
            ]),
        .testTarget(
            name: "TuningTests",
            dependencies: ["Tuning", "Results", "Runner", "LanguageModel", "GambitTestSupport", "RunnerTestSupport"]
        ),
        .testTarget(name: "StrictYAMLTests", dependencies: ["StrictYAML", .product(name: "Yams", package: "Yams")]),
        .testTarget(
            name: "GateTests",
            dependencies: ["Gate", "Results", "ResultsFixtures", "Reporting", "Scoring", "CXMLSchema"]),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "GambitTestSupport"]),
        .testTarget(
            name: "LanguageModelTests",
            dependencies: [
                "Formats",
                "Audio", "LanguageModel", "Runner", "Recognition", "NGram", "PocketSphinx", "Scoring", "TrainingData",
                "GambitTestSupport",
            ],
            exclude: ["Recorded"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
