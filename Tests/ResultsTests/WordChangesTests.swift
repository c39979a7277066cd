import Results
import ResultsFixtures
import Testing

@Suite("Word changes against the baseline")
struct WordChangesTests {
    @Test("New errors are listed as reference → hypothesis; errors the baseline shared and fixed words are not")
    func newErrorsOnly() {
        let baseline = Fixture.system(
            "general", .baseline, nil,
            [
                ("we made it home", "we made it home"),
                ("the homeless shelter", "the homeless shelter"),
                ("turn the lights off", "turn the light off"),
                ("call me later", "call me later"),
                ("play it for me", "play it for me"),
            ])
        let customized = Fixture.system(
            "general", .customized, nil,
            [
                ("we made it home", "we maeve it home"),  // substitution where the baseline was right
                ("the homeless shelter", "the call us shelter"),  // one word heard as two: one change
                ("turn the lights off", "turn the lights off"),  // fixed
                ("call me later", "call me later gambit"),  // insertion
                ("play it for me", "play it me"),  // deletion
            ])
        let changes = WordChanges(baseline: baseline, customized: customized)
        #expect(changes.worse.map(\.description) == ["made → maeve", "homeless → call us", "∅ → gambit", "for → ∅"])
        #expect(changes.worse.map(\.utterance) == ["general-001", "general-002", "general-004", "general-005"])
        #expect(changes.fixedWords == 1)
        #expect(changes.summary(limit: 2) == "made → maeve, homeless → call us and 2 more")
    }

    @Test("An error the baseline made too is not a change, nor is an insertion it made too")
    func sharedErrors() {
        let lines = [("turn the lights off", "turn the light off please")]
        let baseline = Fixture.system("general", .baseline, nil, lines.map { ($0.0, Optional($0.1)) })
        let customized = Fixture.system("general", .customized, nil, lines.map { ($0.0, Optional($0.1)) })
        let changes = WordChanges(baseline: baseline, customized: customized)
        #expect(changes.worse.isEmpty && changes.fixedWords == 0)
    }

    @Test("An error the baseline made is a change when the customized system makes it worse")
    func worseError() {
        let baseline = Fixture.system("general", .baseline, nil, [("we made it", "we maeve it")])
        let customized = Fixture.system("general", .customized, nil, [("we made it", "we maeve the it")])
        let changes = WordChanges(baseline: baseline, customized: customized)
        #expect(changes.worse.map(\.description) == ["made → maeve the"])
    }
}
