/// How far a diagnosis has got, told to whoever shows it: the stage with its count, a line to keep, and the end.
/// Closures, so that the library does not depend on how a terminal draws them (the executable hands in its
/// progress line).
public struct DiagnosisProgress: Sendable {
    /// `stage`: `done` of `total`.
    public var update: @Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void
    /// A line to keep above the progress (an utterance that could not be diagnosed).
    public var log: @Sendable (_ message: String) -> Void
    /// The diagnosis is over.
    public var finish: @Sendable () -> Void

    public init(
        update: @escaping @Sendable (_ stage: String, _ done: Int, _ total: Int) -> Void,
        log: @escaping @Sendable (_ message: String) -> Void, finish: @escaping @Sendable () -> Void
    ) {
        self.update = update
        self.log = log
        self.finish = finish
    }

    /// Tells no one.
    public static let silent = DiagnosisProgress(update: { _, _, _ in }, log: { _ in }, finish: {})
}
