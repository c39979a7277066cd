import Foundation

/// A setting that is a length of time, with the range it must be within: the one check every duration a suite
/// gives passes (a recognizer's `timeout`, a customization's `prepareTimeout`, streaming's `chunkMilliseconds`).
///
/// A duration is turned into nanoseconds for a deadline, or into samples for a chunk; a value out of range (`1e30`,
/// `inf`) would trap in that conversion, in a worker, where it reads as a decoder crash on every utterance. So it
/// is refused where it is written, with the setting, the value and the range.
public struct DurationSetting: Sendable, Hashable {
    /// The key that sets it (`timeout`).
    public var name: String
    /// Its unit as a message names it (`seconds`).
    public var unit: String
    /// The values it may take, in ``unit``.
    public var range: ClosedRange<Double>
    /// The range as a person reads it (`1…604800 (7 days)`).
    public var allowed: String

    /// How long one external decode may take: 1 s to 7 days.
    public static let timeout = DurationSetting(
        name: "timeout", unit: "seconds", range: 1...604_800, allowed: "1…604800 (7 days)")
    /// How long an external recognizer's prepare may take: 1 s to 7 days.
    public static let prepareTimeout = DurationSetting(
        name: "prepareTimeout", unit: "seconds", range: 1...604_800, allowed: "1…604800 (7 days)")
    /// A streamed chunk's length: 10 ms to 1 minute, in whole milliseconds.
    public static let chunkMilliseconds = DurationSetting(
        name: "chunkMilliseconds", unit: "milliseconds", range: 10...60_000, allowed: "10…60000 (1 minute)")
    /// Silence appended after a streamed utterance: none to 10 s, in whole milliseconds.
    public static let trailingSilenceMilliseconds = DurationSetting(
        name: "trailingSilenceMilliseconds", unit: "milliseconds", range: 0...10_000, allowed: "0…10000 (10 seconds)")

    /// The duration `text` gives, in ``unit``.
    ///
    /// - Parameter text: The value as written.
    /// - Returns: The value, finite and within ``range``.
    /// - Throws: ``DurationSettingError`` naming the setting, the value and the range.
    public func value(of text: String) throws(DurationSettingError) -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw DurationSettingError(setting: self, value: text)
        }
        return value
    }

    /// Checks a value given in code (a suite built by a test, a command-line option) as a file's is checked.
    ///
    /// - Throws: ``DurationSettingError`` when `value` is not finite or not within ``range``.
    public func check(_ value: Double) throws(DurationSettingError) {
        // `ClosedRange.contains` is false for NaN and the infinities, since the range's bounds are finite.
        guard range.contains(value) else { throw DurationSettingError(setting: self, value: "\(value)") }
    }
}

/// A duration out of its range, or not a number.
public struct DurationSettingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var setting: DurationSetting
    /// The value as written.
    public var value: String

    /// "`timeout` is 1e30; it must be a number of seconds within 1…604800 (7 days)".
    public var description: String {
        "`\(setting.name)` is \(value.isEmpty ? "empty" : value); it must be a number of \(setting.unit) within "
            + setting.allowed
    }
}
