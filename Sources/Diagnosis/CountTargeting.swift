import Foundation

/// The count maths of a suggestion: how far a phrase's count must move to give it the boost a fixing weight
/// would, and new counts that move several phrases' shares at once.
public enum CountTargeting {
    /// How much a phrase's probability must grow (or shrink) for it to get the boost that moving the variant's
    /// weight from `weight` to `fixing` gives it. The set scores `w · Pc^lw + (1 − w) · Pb^lw`: moving w scales the
    /// custom side against the base side by r = w'(1 − w) / (w(1 − w')), and a count scales the custom
    /// probability itself, before the language weight: r^(1/lw). Nil unless both weights are in (0, 1).
    public static func factor(weight: Double, fixing: Double, languageWeight: Double) -> Double? {
        guard weight > 0, weight < 1, fixing > 0, fixing < 1, languageWeight > 0 else { return nil }
        return pow(fixing * (1 - weight) / (weight * (1 - fixing)), 1 / languageWeight)
    }

    /// New counts that scale each target's share of the data by its factor, all at once: the others keep their
    /// counts, so the new total is C' = (C − Σ c) / (1 − Σ f·c/C), and each target gets f·c/C of it. Sized one by
    /// one, phrases raised together would each grow the total and undo part of the others' raise (and raising
    /// every phrase alike changes no share at all).
    /// - Returns: One count per target (rounded away from the old count, at least one more or one less, never
    ///   below 1), or nil when the shares cannot all grow that far (they would need all the data, or more).
    public static func counts(_ targets: [(count: Int, factor: Double)], total: Int) -> [Int]? {
        guard !targets.isEmpty, total > 0, targets.allSatisfy({ $0.count > 0 && $0.factor > 0 }) else { return nil }
        let all = Double(total)
        let shares = targets.map { $0.factor * Double($0.count) / all }
        let kept = all - Double(targets.reduce(0) { $0 + $1.count })
        guard shares.reduce(0, +) < 1, kept > 0 else { return nil }
        let newTotal = kept / (1 - shares.reduce(0, +))
        return zip(targets, shares).map { target, share in
            let exact = share * newTotal
            if target.factor > 1 { return max(target.count + 1, Int(exact.rounded(.up))) }
            if target.factor < 1 { return max(1, min(target.count - 1, Int(exact.rounded(.down)))) }
            return target.count
        }
    }
}
