internal import CPocketSphinx
import Foundation

/// What is process-wide about PocketSphinx and sphinxbase: the one lock over their global state,
/// where their log goes, and how freed models return memory.
///
/// This module is the only one that talks to the C libraries. Everything that builds engine state
/// from files or settings (parsing a configuration, `ps_init`, reading a model, interpolating
/// models, installing a search) runs under ``serialized(_:)``: `ps_init` writes globals and
/// sphinxbase's number parser keeps a shared free list. Decoding and scoring run in parallel, one
/// decoder or model per task.
public enum Engine {
    private static let lock = NSLock()

    /// Where the engine's log goes, decided once per process: to stderr with `GAMBIT_ENGINE_LOG=1`,
    /// otherwise into a per-thread buffer whose last error message goes into ``EngineError``.
    private static let logging: Void = {
        if logsToStandardError {
            gambit_ps_log_to_stderr()
        } else {
            gambit_ps_install_log_capture()
        }
    }()

    /// True when `GAMBIT_ENGINE_LOG=1`: the engine then logs to stderr, as PocketSphinx's own tools do.
    public static var logsToStandardError: Bool {
        ProcessInfo.processInfo.environment["GAMBIT_ENGINE_LOG"] == "1"
    }

    /// Runs `body` holding the engine lock, with the log set up.
    @discardableResult
    static func serialized<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        _ = logging
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Makes this process return a language model's memory to the system when the model is freed.
    ///
    /// A process that decodes with one model after another calls this once at start: glibc raises
    /// its mmap threshold each time a large block is freed, after which the next model's arrays come
    /// from the heap, where their memory stays after they are freed.
    public static func returnFreedModelMemory() {
        gambit_keep_large_blocks_mapped()
    }
}

/// A PocketSphinx or sphinxbase call that failed: which call, with what, and what the engine said.
public struct EngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function, e.g. `ngram_model_read`.
    public var call: String
    /// Its arguments as a person would read them (paths, names, sizes; never pointers).
    public var arguments: [String]
    /// The status it returned, or nil when it returned NULL or its precondition did not hold.
    public var status: Int?
    /// The last error the engine logged during the call, or what Gambit checked before calling it.
    public var message: String

    public init(call: String, arguments: [String] = [], status: Int? = nil, message: String = "") {
        self.call = call
        self.arguments = arguments
        self.status = status
        self.message = message
    }

    public var description: String {
        let returned = status.map { "returned \($0)" } ?? "returned NULL"
        let detail = message.isEmpty ? returned : status == nil ? message : "\(message) (\(returned))"
        return "\(call)(\(arguments.joined(separator: ", "))) failed: \(detail)"
    }

    /// Runs one C call that returns a status, and turns a negative status into an error naming the
    /// call, its arguments and the engine's message.
    @discardableResult
    static func check(_ call: String, _ arguments: [String] = [], _ body: () -> Int32) throws(EngineError) -> Int32 {
        gambit_ps_clear_last_error()
        let status = body()
        guard status >= 0 else { throw failure(call, arguments, status: Int(status)) }
        return status
    }

    /// Runs one C call that returns a pointer, and turns NULL into an error naming the call.
    static func unwrap<Pointer>(_ call: String, _ arguments: [String] = [], _ body: () -> Pointer?)
        throws(EngineError) -> Pointer
    {
        gambit_ps_clear_last_error()
        guard let pointer = body() else { throw failure(call, arguments, status: nil) }
        return pointer
    }

    private static func failure(_ call: String, _ arguments: [String], status: Int?) -> EngineError {
        EngineError(call: call, arguments: arguments, status: status, message: String(cString: gambit_ps_last_error()))
    }
}
