internal import CPocketSphinx
import Foundation

/// sphinxbase's log tables (`logmath_t`): the integer log domain every score of a model or decoder
/// is in. Models combined in one set must share them.
public final class LogMath {
    let pointer: OpaquePointer

    /// New tables in base 1.0001, computed rather than tabulated, as sphinxbase's tools use.
    ///
    /// The corresponding C function is `logmath_init`.
    public init() throws(EngineError) {
        pointer = try Engine.serialized { () throws(EngineError) in
            try EngineError.unwrap("logmath_init", ["1.0001", "0", "0"]) { logmath_init(1.0001, 0, 0) }
        }
    }

    /// Another reference to tables the engine already holds (a decoder's).
    init(retaining pointer: OpaquePointer) {
        self.pointer = logmath_retain(pointer)
    }

    deinit {
        logmath_free(pointer)
    }

    /// A score in these tables as a natural logarithm.
    public func naturalLog(_ score: Int32) -> Double {
        logmath_log_to_ln(pointer, score)
    }

    /// A probability as a score in these tables.
    public func score(ofProbability probability: Double) -> Int32 {
        logmath_log(pointer, probability)
    }
}

/// One sphinxbase n-gram model (`ngram_model_t`): read from an ARPA or binary file, a decoder's
/// search model, or an interpolated set of models. Each instance holds one reference, released in
/// `deinit`.
///
/// Not thread-safe: its scoring caches are mutable, so a model has one user at a time and is never
/// shared between decoders that run at once.
public final class NGramModel {
    let pointer: OpaquePointer
    /// The log tables its scores are in.
    public let logMath: LogMath

    /// Reads a model file.
    ///
    /// The corresponding C function is `ngram_model_read`.
    /// - Parameters:
    ///   - path: An ARPA or binary model.
    ///   - logMath: The tables to score in; a decoder's, or those of a model to interpolate with.
    ///   - configuration: A decoder's settings, whose language weight and insertion penalties the
    ///     model then applies to its scores; nil for raw probabilities.
    public init(contentsOf path: String, logMath: LogMath, configuration: DecoderConfiguration? = nil)
        throws(EngineError)
    {
        pointer = try Engine.serialized { () throws(EngineError) in
            try EngineError.unwrap("ngram_model_read", [path, "NGRAM_AUTO"]) {
                ngram_model_read(configuration?.pointer, path, NGRAM_AUTO, logMath.pointer)
            }
        }
        self.logMath = logMath
    }

    /// Another reference to a model the engine holds (a decoder's search model).
    init(retaining pointer: OpaquePointer, logMath: LogMath) {
        self.pointer = ngram_model_retain(pointer)
        self.logMath = logMath
    }

    private init(owning pointer: OpaquePointer, logMath: LogMath) {
        self.pointer = pointer
        self.logMath = logMath
    }

    deinit {
        ngram_model_free(pointer)
    }

    /// `base` linearly interpolated with `custom`, as the recognizer combines a customized model with
    /// its own: P = (1 − weight) · P_base + weight · P_custom; `base` alone (weight 1) without `custom`.
    /// This is Gambit's one interpolation.
    ///
    /// sphinxbase adds the weights after the language weight, so with a decoder's configuration the
    /// set mixes w·P^lw rather than (w·P)^lw. log 0 is undefined in the set, so the weight is kept
    /// inside (10⁻⁶, 1 − 10⁻⁶). The set holds its own references to both models.
    ///
    /// The corresponding C function is `ngram_model_set_init`.
    public static func interpolating(
        base: NGramModel, custom: NGramModel?, weight: Double, configuration: DecoderConfiguration? = nil
    ) throws(EngineError) -> NGramModel {
        var models: [OpaquePointer?] = [base.pointer]
        var weights: [Float] = [1]
        var labels = ["base"]
        if let custom {
            let w = Float(min(max(weight, 1e-6), 1 - 1e-6))
            models.append(custom.pointer)
            weights = [1 - w, w]
            labels.append("custom")
        }
        let arguments = zip(labels, weights).map { "\($0) \($1)" }
        if let custom, custom.logMath !== base.logMath {
            throw EngineError(
                call: "ngram_model_set_init", arguments: arguments, message: "the models do not share log tables")
        }
        var names: [UnsafeMutablePointer<CChar>?] = labels.map { strdup($0) }
        defer { for name in names { free(name) } }
        let set = try Engine.serialized { () throws(EngineError) in
            try EngineError.unwrap("ngram_model_set_init", arguments) {
                ngram_model_set_init(configuration?.pointer, &models, &names, &weights, Int32(models.count))
            }
        }
        return NGramModel(owning: set, logMath: base.logMath)
    }

    /// Changes the weight of a set ``interpolating(base:custom:weight:configuration:)`` made with a custom model,
    /// in place: the set's scores become those of a set made at `weight`, without merging the vocabularies again
    /// (which is most of what making a set costs). A search scoring with the set scores with the new weight.
    ///
    /// The corresponding C function is `ngram_model_set_interp`.
    public func reweight(custom weight: Double) throws(EngineError) {
        let w = Float(min(max(weight, 1e-6), 1 - 1e-6))
        var weights: [Float] = [1 - w, w]
        var names: [UnsafePointer<CChar>?] = [UnsafePointer(strdup("base")), UnsafePointer(strdup("custom"))]
        defer { for name in names { free(UnsafeMutablePointer(mutating: name)) } }
        // Under the lock, as every interpolation is (``Engine``): the call rewrites the set's weights in place, so
        // one made by another thread at the same moment must not be half-read.
        try Engine.serialized { () throws(EngineError) in
            _ = try EngineError.unwrap("ngram_model_set_interp", ["base \(1 - w)", "custom \(w)"]) {
                ngram_model_set_interp(pointer, &names, &weights)
            }
        }
    }

    /// Writes the model in sphinxbase's binary format, which PocketSphinx loads fastest.
    ///
    /// The corresponding C function is `ngram_model_write` with `NGRAM_BIN`.
    public func writeBinary(to path: String) throws(EngineError) {
        try EngineError.check("ngram_model_write", [path, "NGRAM_BIN"]) {
            ngram_model_write(pointer, path, NGRAM_BIN)
        }
    }

    /// N-gram counts per order, as the model declares them.
    public var counts: [Int] {
        let order = Int(ngram_model_get_size(pointer))
        guard let counts = ngram_model_get_counts(pointer) else { return [] }
        return (0..<order).map { Int(counts[$0]) }
    }

    /// The word with an id, or nil.
    public func word(id: Int32) -> String? {
        ngram_word(pointer, id).map { String(cString: $0) }
    }

    /// A word's id; ``unknownWordID`` when the model lacks it.
    public func id(of word: String) -> Int32 {
        ngram_wid(pointer, word)
    }

    /// The id sphinxbase gives a word the model lacks.
    public var unknownWordID: Int32 {
        ngram_unknown_wid(pointer)
    }

    /// The raw probability of `word` after `history` (most recent word last), in the model's log
    /// tables: no language weight, no insertion penalty.
    ///
    /// The corresponding C function is `ngram_prob`.
    public func logScore(of word: String, after history: [String] = []) -> Int32 {
        let cStrings = ([word] + history.reversed()).map { strdup($0) }
        defer { for pointer in cStrings { free(pointer) } }
        var pointers: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) }
        return ngram_prob(pointer, &pointers, Int32(pointers.count))
    }

    /// Applies a decoder's language weight and word insertion penalty, as a search does when it takes
    /// the model: afterwards ``score(of:after:)`` gives the decoder's scores. A set applies them to
    /// each of its models before it interpolates them.
    ///
    /// The corresponding C function is `ngram_model_apply_weights`.
    public func applyWeights(languageWeight: Double, insertionPenalty: Double) {
        _ = ngram_model_apply_weights(pointer, Float(languageWeight), Float(insertionPenalty))
    }

    /// The score a decoder adds for `word` after `history` (most recent word last), in the model's log
    /// tables, language weight and insertion penalty included; nil when the model lacks `word`. A
    /// history word the model lacks cuts the history there, as in a search.
    ///
    /// The corresponding C function is `ngram_ng_score`.
    public func score(of word: String, after history: [String] = []) -> Int32? {
        let unknown = ngram_unknown_wid(pointer)
        let wid = ngram_wid(pointer, word)
        guard wid >= 0, wid != unknown else { return nil }
        var ids = history.reversed().map { ngram_wid(pointer, $0) }
        var used: Int32 = 0
        return ngram_ng_score(pointer, wid, &ids, Int32(ids.count), &used)
    }
}
