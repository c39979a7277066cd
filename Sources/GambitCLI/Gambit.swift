import ArgumentParser

@main
struct Gambit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gambit",
        abstract: "Did our custom phrases make speech recognition better, by how much, at what cost?",
        subcommands: [
            Run.self, Decode.self, Lint.self, Prepare.self, Score.self, CorpusCommand.self, Report.self, Merge.self,
            GateCommand.self, Baseline.self, SweepCommand.self, CacheCommand.self,
            Worker.self,
        ]
    )
}
