// swift-tools-version: 5.9
// gambit-apple: transcribes a `gambit export` folder with Apple's on-device recognizer, without and with each
// variant's custom language model, and on macOS 26 with DictationTranscriber's contextual strings. macOS only; see
// README.md. It has not been built: it was written on Linux.
import Foundation
import PackageDescription

// A command-line tool has no bundle, so the Info.plist macOS reads before speech recognition (its usage
// description) is linked into the binary instead.
let infoPlist = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Info.plist").path

let package = Package(
    name: "AppleRecognizer",
    platforms: [.macOS(.v14)],
    products: [.executable(name: "gambit-apple", targets: ["GambitApple"])],
    dependencies: [
        // Named, because a path dependency is otherwise known by its folder's name, which depends on the clone.
        .package(name: "Gambit", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "GambitApple",
            dependencies: [
                .product(name: "GambitTrainingData", package: "Gambit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/GambitApple",
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "-sectcreate", "-Xlinker", "__TEXT", "-Xlinker", "__info_plist", "-Xlinker", infoPlist,
                ])
            ]
        )
    ]
)
