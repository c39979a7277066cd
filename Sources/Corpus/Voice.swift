import Foundation

/// A synthetic speaker: a flite voice or an espeak-ng voice with a variant.
///
/// Written as `flite:NAME` (`flite:slt`, `flite:awb`, `flite:rms`, `flite:kal16`, `flite:kal`) or
/// `espeak:LANGUAGE[+VARIANT]` (`espeak:en-us+m3`, `espeak:en-us+f3`); `espeak-ng:` is accepted for `espeak:`.
public enum Voice: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// A voice compiled into flite, run as `flite -voice NAME`.
    case flite(String)
    /// An espeak-ng voice, run as `espeak-ng -v NAME`, e.g. `en-us+m3`.
    case espeak(String)

    /// Parses `flite:NAME` or `espeak:NAME`; returns nil for anything else.
    public init?(_ description: String) {
        try? self.init(parsing: description)
    }

    /// Parses `flite:NAME` or `espeak:NAME`.
    ///
    /// - Throws: ``CorpusError/invalidVoice(_:detail:)`` saying what the forms are.
    public init(parsing text: String) throws(CorpusError) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1).map(String.init)
        let name = parts.count == 2 ? parts[1] : ""
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-_+.".unicodeScalars.contains($0)
        }
        guard parts.count == 2, !name.isEmpty, allowed else {
            throw .invalidVoice(
                text, detail: "expected flite:NAME or espeak:LANGUAGE+VARIANT, e.g. flite:slt or espeak:en-us+m3")
        }
        switch parts[0].lowercased() {
        case "flite": self = .flite(name)
        case "espeak", "espeak-ng": self = .espeak(name)
        default:
            throw .invalidVoice(text, detail: "unknown engine \"\(parts[0])\"; use flite or espeak")
        }
    }

    /// The engine and voice, as the plan and the manifest's `speaker` write it: `flite:slt`, `espeak:en-us+m3`.
    public var description: String {
        switch self {
        case .flite(let name): "flite:\(name)"
        case .espeak(let name): "espeak:\(name)"
        }
    }

    /// The short form used in utterance ids and file names: `slt`, `en-us-m3`.
    public var token: String {
        switch self {
        case .flite(let name): sanitizedToken(name)
        case .espeak(let name): sanitizedToken(name)
        }
    }
}

/// Lowercases and replaces every run of characters other than letters, digits and `_` with one `-`.
func sanitizedToken(_ text: String) -> String {
    var result = ""
    for scalar in text.lowercased().unicodeScalars {
        if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" {
            result.unicodeScalars.append(scalar)
        } else if !result.isEmpty && !result.hasSuffix("-") {
            result += "-"
        }
    }
    while result.hasSuffix("-") { result.removeLast() }
    return result
}
