/// The errors of two systems on the same utterances, collected pair by pair, and the significance
/// tests computed from them: what both `Scorer.compare` and a run's baseline-versus-variant
/// comparison need.
public struct PairedErrors: Sendable {
    public private(set) var operationsA: [[EditOperation]] = []
    public private(set) var operationsB: [[EditOperation]] = []
    public private(set) var errorsA: [Int] = []
    public private(set) var errorsB: [Int] = []
    public private(set) var referenceWords: [Int] = []
    private var boostedA: [Int] = []
    private var boostedB: [Int] = []
    private var boostedWords: [Int] = []
    private var unboostedA: [Int] = []
    private var unboostedB: [Int] = []
    private var unboostedWords: [Int] = []

    public init() {}

    /// The number of utterance pairs.
    public var count: Int { errorsA.count }

    /// Adds one utterance as aligned by each system.
    public mutating func append(
        operationsA: [EditOperation], operationsB: [EditOperation], errorsA: Int, errorsB: Int, referenceWords: Int
    ) {
        self.operationsA.append(operationsA)
        self.operationsB.append(operationsB)
        self.errorsA.append(errorsA)
        self.errorsB.append(errorsB)
        self.referenceWords.append(referenceWords)
    }

    /// Adds the same utterance's boosted and unboosted error counts.
    public mutating func appendBoosted(
        errorsA: Int, errorsB: Int, referenceWords: Int, unboostedErrorsA: Int = 0, unboostedErrorsB: Int = 0,
        unboostedReferenceWords: Int = 0
    ) {
        boostedA.append(errorsA)
        boostedB.append(errorsB)
        boostedWords.append(referenceWords)
        unboostedA.append(unboostedErrorsA)
        unboostedB.append(unboostedErrorsB)
        unboostedWords.append(unboostedReferenceWords)
    }

    /// Paired bootstrap interval of WER(B) − WER(A).
    public func deltaWER(_ options: BootstrapOptions) -> BootstrapInterval {
        Significance.pairedBootstrap(
            metric: "WER", errorsA: errorsA, errorsB: errorsB, referenceWords: referenceWords, options: options)
    }

    /// Paired bootstrap interval of B-WER(B) − B-WER(A); nil when no boosted counts were added or no
    /// reference word is boosted (B-WER is then no data on both sides, and so is its change).
    public func deltaBoostedWER(_ options: BootstrapOptions) -> BootstrapInterval? {
        boostedWords.reduce(0, +) == 0
            ? nil
            : Significance.pairedBootstrap(
                metric: "B-WER", errorsA: boostedA, errorsB: boostedB, referenceWords: boostedWords, options: options)
    }

    /// Paired bootstrap interval of U-WER(B) − U-WER(A); nil when no boosted counts were added or every
    /// reference word is boosted.
    public func deltaUnboostedWER(_ options: BootstrapOptions) -> BootstrapInterval? {
        unboostedWords.reduce(0, +) == 0
            ? nil
            : Significance.pairedBootstrap(
                metric: "U-WER", errorsA: unboostedA, errorsB: unboostedB, referenceWords: unboostedWords,
                options: options)
    }

    /// MAPSSWE over the paired alignments.
    public func matchedPairs(minimumGoodWords: Int = 2) -> MatchedPairsResult {
        Significance.matchedPairs(operationsA, operationsB, minimumGoodWords: minimumGoodWords)
    }

    /// McNemar's test on sentence errors.
    public var mcNemar: McNemarResult {
        Significance.mcNemar(errorsA: errorsA.map { $0 > 0 }, errorsB: errorsB.map { $0 > 0 })
    }
}
