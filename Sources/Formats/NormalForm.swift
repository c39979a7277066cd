import Foundation

/// Unicode Normalization Form C, the one spelling of a word Gambit keeps: a manifest's reference text is read into
/// it, and the scorer composes every word it compares.
public enum NormalForm {
    /// `text` in Unicode Normalization Form C (canonical composition).
    ///
    /// Text made only of scalars below U+0300 (every UTF-8 byte below 0xCC) is returned as it is: no such scalar
    /// decomposes or combines with the one before it, so it is already NFC.
    /// - Parameter text: Any text.
    /// - Returns: The canonically equivalent text in NFC.
    public static func composed(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0xCC }) else { return text }
        return text.precomposedStringWithCanonicalMapping
    }
}
