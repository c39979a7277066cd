/// A run's checks as a person should read them: what needs attention first (failures, then warnings, each with its
/// message), and everything that passed folded into one line per family, with the details kept for whoever opens
/// them. The HTML report, summary.md and the terminal all read them this way; JUnit keeps one case per check.
public struct CheckSummary: Sendable, Equatable {
    /// Checks of one family (``Check/family``), in the order the run made them.
    public struct Group: Sendable, Equatable {
        public var family: String
        public var checks: [Check]

        /// Checks that apply (not skipped).
        public var applicable: Int { checks.count { !$0.isSkipped } }
        /// Checks that passed, warnings included.
        public var passed: Int { checks.count { $0.passed && !$0.isSkipped } }
        public var skipped: Int { checks.count(where: \.isSkipped) }

        public var failed: Int { checks.count { !$0.passed && !$0.isSkipped } }
        public var warned: Int { checks.count(where: \.isWarning) }

        /// How the group came out, decided once for every output: failed when any check failed, warned when any
        /// warned, skipped when none applies, else passed.
        public enum State: String, Sendable {
            case failed = "FAIL"
            case warned = "WARN"
            case skipped = "SKIP"
            case passed = "PASS"
        }

        public var state: State {
            failed > 0 ? .failed : warned > 0 ? .warned : applicable == 0 ? .skipped : .passed
        }

        /// The sentence, and what in it needs attention: "23 of 24 anti-context WER checks passed (1 failed, 6
        /// with warnings)".
        public var line: String {
            let notes = [failed > 0 ? "\(failed) failed" : nil, warned > 0 ? "\(warned) with warnings" : nil]
                .compactMap { $0 }
            return sentence + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
        }

        /// "26 of 26 customization applied on-device checks passed", "1 canary check skipped".
        public var sentence: String {
            guard applicable > 0 else {
                return "\(skipped) \(family) \(skipped == 1 ? "check" : "checks") skipped"
            }
            let passedText = "\(passed) of \(applicable) \(family) \(applicable == 1 ? "check" : "checks") passed"
            return skipped == 0 ? passedText : passedText + ", \(skipped) skipped"
        }
    }

    /// Failed checks, then warnings, each in the order the run made them.
    public var attention: [Check]
    /// Every check by family, families in the order their first check was made.
    public var groups: [Group]

    public init(_ checks: [Check]) {
        attention = checks.filter { !$0.passed && !$0.isSkipped } + checks.filter(\.isWarning)
        var groups: [Group] = []
        var index: [String: Int] = [:]
        for check in checks {
            let family = check.family
            if let at = index[family] {
                groups[at].checks.append(check)
            } else {
                index[family] = groups.count
                groups.append(Group(family: family, checks: [check]))
            }
        }
        self.groups = groups
    }
}

extension Check {
    /// What kind of check this is, in words, for folding checks of one kind together: the part of its name before
    /// ": " (`customization applied on-device` of "customization applied on-device: chess / chess-full"), else its
    /// kind in words.
    public var family: String {
        if let colon = name.range(of: ": "), colon.lowerBound > name.startIndex {
            return String(name[..<colon.lowerBound])
        }
        return kind.words
    }
}

extension CheckKind {
    /// The kind in words ("anti-context WER"); an unknown kind as it is spelt.
    public var words: String {
        switch self {
        case .onDevice: "on-device"
        case .canary: "canary"
        case .antiContext: "anti-context WER"
        case .werGate: "WER gate"
        case .boostedGain: "boosted-word gain"
        case .latency: "latency"
        case .failures: "every utterance decoded"
        case .customizationEffect: "customization took effect"
        case .privacy: "private training data"
        default: rawValue
        }
    }
}
