import ArgumentParser
import Foundation
import Runner

/// `gambit export SUITE --output DIR`: what a recognizer on another machine needs to transcribe the suite.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a suite's audio, manifests and training data for a recognizer elsewhere to transcribe.",
        discussion: """
            The folder holds each corpus's audio and a manifest (ids and audio, no reference text), each \
            variant's training data as Gambit's JSON export and its phrase list, export.json (an index) and a \
            README naming the transcript files to send back, which the suite then imports as a recognizer's \
            `transcripts:`. Private training data is withheld unless --include-private.

            """ + ExitStatus.doneOrRefused)

    @Argument(help: "The suite file.")
    var suite: String

    @Option(help: "The folder to write (new or empty).")
    var output: String

    @Flag(help: "Write private variants' training data too: it leaves with the folder.")
    var includePrivate = false

    @Flag(help: "Read audio wherever the manifests point, not only inside the suite's folder.")
    var allowOutsidePaths = false

    func run() throws {
        let suiteFile = try Suite.load(URL(fileURLWithPath: suite))
        let folder = URL(fileURLWithPath: output)
        let index = try SuiteExport.write(
            suite: suiteFile, to: folder, includePrivate: includePrivate, allowOutsidePaths: allowOutsidePaths)
        let utterances = index.corpora.reduce(0) { $0 + $1.utterances }
        let withheld = index.variants.filter { $0.withheld != nil }.map(\.name)
        print(
            "exported \(utterances) utterances of \(index.corpora.count) corpora and "
                + "\(index.variants.count - withheld.count) variants to \(folder.path)"
                + (withheld.isEmpty ? "" : "; withheld (private): \(withheld.joined(separator: ", "))"))
        print("the transcripts to send back are listed in \(folder.appendingPathComponent("README.md").path)")
    }
}
