/// Why an audio file could not be turned into samples for the recognizer.
///
/// Every case names the file, so that a run over thousands of utterances can say which one was bad
/// and go on with the rest.
public enum AudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// There is no file at the path.
    case missing(path: String)
    /// The path is a folder.
    case isFolder(path: String)
    /// The file exists but holds no audio frames (zero bytes, or a header with no data).
    case empty(path: String)
    /// The header promises more audio than the file holds.
    case truncated(path: String, detail: String)
    /// The bytes are not a sound file libsndfile recognises.
    case notAudio(path: String, detail: String)
    /// A sound file, but in an encoding or container libsndfile cannot decode.
    case unsupportedEncoding(path: String, detail: String)
    /// A headerless raw file was given without a declared format, or with an impossible one.
    case invalidRawFormat(path: String, detail: String)
    /// Reading or resampling failed part way.
    case readFailed(path: String, detail: String)
    /// A raw format was declared for a file whose header libsndfile reads (`header`: its container and layout):
    /// the header would be decoded as samples.
    case headerNotRaw(path: String, header: String)
    /// The channels cancel out when mixed to mono (one is the other inverted): the mix is near silence, which the
    /// recognizer would read as a confident word.
    case channelsCancel(path: String, detail: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .missing(let path), .isFolder(let path), .empty(let path): path
        case .truncated(let path, _), .notAudio(let path, _), .unsupportedEncoding(let path, _),
            .invalidRawFormat(let path, _), .readFailed(let path, _), .headerNotRaw(let path, _),
            .channelsCancel(let path, _):
            path
        }
    }

    public var description: String {
        switch self {
        case .missing(let path):
            "\(path): no such audio file"
        case .isFolder(let path):
            "\(path): a folder, not an audio file; name the files in it (e.g. \(path)/*.wav) or list them in a manifest"
        case .empty(let path):
            "\(path): the file holds no audio (zero frames)"
        case .truncated(let path, let detail):
            "\(path): truncated audio file (\(detail)); re-export or re-download it"
        case .notAudio(let path, let detail):
            "\(path): not an audio file libsndfile recognises (\(detail)); "
                + "for headerless PCM declare the format, e.g. --raw s16le:16000:1"
        case .unsupportedEncoding(let path, let detail):
            "\(path): unsupported audio encoding (\(detail)); convert it to 16-bit PCM WAV or FLAC"
        case .invalidRawFormat(let path, let detail):
            "\(path): invalid raw audio format (\(detail))"
        case .readFailed(let path, let detail):
            "\(path): reading audio failed (\(detail))"
        case .headerNotRaw(let path, let header):
            "\(path): the file has a header (\(header)), which a declared raw format would decode as samples; "
                + "leave out --raw to read it by its header"
        case .channelsCancel(let path, let detail):
            "\(path): the channels cancel out when mixed to mono (\(detail)); "
                + "decode one channel, e.g. sox \(path) mono.wav remix 1"
        }
    }
}
