import Foundation
import Results

/// The results themselves as JSON (the `results.json` schema), for tools that want every number.
public struct JSONReport: Sendable {
    public var results: RunResults

    /// - Parameter results: Results to render; redact them first (``Reporter`` does).
    public init(_ results: RunResults) { self.results = results }

    /// The JSON bytes: sorted keys, pretty-printed.
    /// - Throws: `EncodingError` for values JSON cannot hold.
    public func render() throws -> Data { try results.jsonData() }
}
