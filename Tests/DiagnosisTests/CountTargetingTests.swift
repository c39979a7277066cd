import Diagnosis
import Foundation
import Testing

@Suite("Suggested counts")
struct CountTargetingTests {
    @Test("A fixing weight above the variant's raises the count; below, lowers it; by the set's own scaling")
    func counts() throws {
        // 0.5 → 0.99 scales the custom side against the base by 99; before the language weight 6.5 that is a
        // probability 99^(1/6.5) ≈ 2.03 times larger.
        let factor = try #require(CountTargeting.factor(weight: 0.5, fixing: 0.99, languageWeight: 6.5))
        #expect(abs(factor - pow(99.0, 1 / 6.5)) < 1e-12)
        #expect(try #require(CountTargeting.factor(weight: 0.5, fixing: 0.2, languageWeight: 6.5)) < 1)
        for (weight, fixing) in [(0.5, 1.0), (0.0, 0.7), (0.5, 0.0), (0.5, -0.1)] {
            #expect(CountTargeting.factor(weight: weight, fixing: fixing, languageWeight: 6.5) == nil)
        }
        // Two phrases of 25 raised by that factor, one of 10 lowered by half, in 1000 samples: each share is scaled
        // by its factor in the new total.
        let counts = try #require(CountTargeting.counts([(25, factor), (25, factor), (10, 0.5)], total: 1000))
        let newTotal = Double(1000 - 60 + counts.reduce(0, +))
        for (count, (old, scale)) in zip(counts, [(25.0, factor), (25, factor), (10, 0.5)]) {
            #expect(abs(Double(count) / newTotal - scale * old / 1000) < 1.5 / newTotal, "\(counts)")
        }
        // Sized one at a time against the old total, the two raises would fall short.
        #expect(counts[0] > Int((factor * 25).rounded(.up)))
        // At least one more or one less, never below 1.
        #expect(CountTargeting.counts([(25, 1.00001)], total: 1000) == [26])
        #expect(CountTargeting.counts([(1, 0.1)], total: 1000) == [1])
        // Raising every phrase alike changes no share: no counts do it. Nor can a share pass the whole data.
        #expect(CountTargeting.counts([(500, 1.2), (500, 1.2)], total: 1000) == nil)
        #expect(CountTargeting.counts([(900, 2.0)], total: 1000) == nil)
        #expect(CountTargeting.counts([], total: 1000) == nil)
    }
}
