import TrainingData

/// Why a custom language model could not be prepared or loaded.
public enum LanguageModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file could not be read.
    case unreadable(path: String, reason: String)
    /// An artifact could not be written.
    case writeFailed(path: String, reason: String)
    /// The training data is invalid: the problem (with its file and line), and what the caller adds of where the
    /// data came from (an oracle's is made from a corpus's references).
    case invalidTrainingData(TrainingDataError, context: String? = nil)
    /// The data could not be exported (the encoder's reason).
    case unexportable(reason: String)
    /// Two settings that cannot go together: which, and what to set instead.
    case conflictingSettings(String)
    /// A prepared artifact is incomplete, corrupt or was prepared for something else.
    case artifactInvalid(path: String, reason: String)
    /// sphinxbase rejected the estimated model.
    case engineRejected(path: String, reason: String)
    /// A compiler setting outside its range.
    case invalidSetting(PrepareOptions.InvalidSetting)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .writeFailed(let path, let reason): "\(path): could not write: \(reason)"
        case .invalidTrainingData(let problem, let context): context.map { "\(problem) \($0)" } ?? "\(problem)"
        case .unexportable(let reason): "the training data could not be exported: \(reason)"
        case .conflictingSettings(let message): message
        case .artifactInvalid(let path, let reason):
            "\(path): prepared model is not usable: \(reason); run prepare again"
        case .engineRejected(let path, let reason): "\(path): PocketSphinx rejected the language model: \(reason)"
        case .invalidSetting(let problem): "\(problem)"
        }
    }
}
