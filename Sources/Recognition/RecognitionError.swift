public import PocketSphinx

/// Why recognition could not start or finish.
public enum RecognitionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The recognizer has no acoustic model for the locale.
    case unsupportedLocale(String, supported: [String])
    /// A model file the recognizer needs is missing or unreadable.
    case modelMissing(path: String, hint: String)
    /// PocketSphinx refused its configuration or failed to start; the error names the call.
    case engineInitFailed(EngineError)
    /// A customized language model could not be loaded or does not fit the recognizer.
    case customModelInvalid(path: String, reason: String)
    /// The engine reported a failure while decoding an utterance; the error names the call.
    case decodeFailed(EngineError)

    public var description: String {
        switch self {
        case .unsupportedLocale(let locale, let supported):
            "locale \(locale) is not supported; this recognizer has models for: \(supported.joined(separator: ", "))"
        case .modelMissing(let path, let hint):
            "model file missing: \(path) (\(hint))"
        case .engineInitFailed(let detail):
            "PocketSphinx failed to start: \(detail)"
        case .customModelInvalid(let path, let reason):
            "\(path): customized language model rejected: \(reason)"
        case .decodeFailed(let detail):
            "decoding failed: \(detail)"
        }
    }
}
