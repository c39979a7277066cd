import Foundation
import Glibc
import Recognition
import Results

/// Times a run's stages, one after another: the wall time of each, and the CPU time of this process and of the
/// child processes it waited for meanwhile (the workers, flite, sox).
public struct StageTimer: Sendable {
    public private(set) var stages: [RunTimings.Stage] = []

    public init(stages: [RunTimings.Stage] = []) {
        self.stages = stages
    }

    /// Runs `body` as the stage `name` and records its times when it returns.
    public mutating func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let start = Self.now()
        let value = try body()
        let end = Self.now()
        stages.append(RunTimings.Stage(name: name, wallSeconds: end.wall - start.wall, cpuSeconds: end.cpu - start.cpu))
        return value
    }

    static func now() -> (wall: Double, cpu: Double) {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        func seconds(_ who: __rusage_who_t) -> Double {
            var usage = rusage()
            getrusage(who, &usage)
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
        return (
            Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9,
            seconds(RUSAGE_SELF.rawValue) + seconds(RUSAGE_CHILDREN.rawValue)
        )
    }
}

extension RunTimings {
    /// The workers' time by kind of work, from the answers a run decoded (`decoded`), each item's system telling
    /// which mode or recognizer it was.
    static func workerTimes(_ decoded: [WorkResponse], plan: RunPlan) -> [WorkerTime] {
        var systemOf: [String: RunPlan.System] = [:]
        for item in plan.items { systemOf[item.request.key] = plan.systems[item.system] }
        var order: [String] = []
        var totals: [String: (seconds: Double, count: Int, audio: Double)] = [:]
        func add(_ name: String, _ seconds: Double, audio: Double = 0) {
            if totals[name] == nil { order.append(name) }
            totals[name, default: (0, 0, 0)].seconds += seconds
            totals[name, default: (0, 0, 0)].count += 1
            totals[name, default: (0, 0, 0)].audio += audio
        }
        for response in decoded {
            guard let system = systemOf[response.key] else { continue }
            if let external = system.external {
                add(externalPrefix + external.name, response.decodeSeconds, audio: response.audioSeconds)
                continue
            }
            if response.loadedModel == true { add("model loads", response.modelLoadSeconds) }
            add("decoding: \(system.mode.rawValue)", response.decodeSeconds, audio: response.audioSeconds)
            if let streaming = response.streamingSeconds { add("streaming", streaming, audio: response.audioSeconds) }
        }
        return order.sorted { rank($0) < rank($1) }.map { name in
            let total = totals[name]!
            return WorkerTime(
                name: name, seconds: total.seconds, count: total.count,
                audioSeconds: name == "model loads" ? nil : total.audio)
        }
    }

    /// Model loads, decoding by mode, streaming, then external recognizers (by name).
    private static func rank(_ name: String) -> String {
        let fixed = ["model loads", "decoding: baseline", "decoding: customized", "decoding: oracle", "streaming"]
        return fixed.firstIndex(of: name).map { "\($0)" } ?? "9\(name)"
    }
}
