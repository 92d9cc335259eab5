import DurableQueue
import Foundation

extension Workloads {
    /// What an idle engine costs and how fast it hears another connection's enqueue: the
    /// voluntary context switches of the whole process per second while `run()` has nothing to do
    /// (the file watch and the once-a-second look), the same while paused in this process, and
    /// enqueue (by a second queue on the file, as another process does it) → handler start, p50
    /// and p99 over `samples` jobs spaced out so the engine is idle before each.
    func idle(seconds: Double = 5, samples: Int = 40) async throws -> Measurement {
        let (starts, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let path = freshPath("idle")
        let configuration = JobQueue.Configuration(storage: StorageOptions(durability: durability), retention: .forever)
        let queue = try await openQueue(path, configuration: configuration)
        queue.register(NoOpJob(started: { continuation.yield(.now) }))
        let engine = Task { try await queue.run() }
        try await Task.sleep(for: .milliseconds(500))  // the engine settles

        func switchesPerSecond() async throws -> Double {
            let before = contextSwitches()
            let start = ContinuousClock.now
            try await Task.sleep(for: .seconds(seconds))
            return (contextSwitches() - before) / secondsSince(start)
        }
        let idle = try await switchesPerSecond()
        await queue.pauseInThisProcess()
        let paused = try await switchesPerSecond()
        await queue.resumeInThisProcess()

        let other = try await openQueue(path, configuration: configuration)
        var iterator = starts.makeAsyncIterator()
        var delays: [Double] = []
        let total = ContinuousClock.now
        for index in 0..<samples {
            try await Task.sleep(for: .milliseconds(150))  // idle before each
            let sent = ContinuousClock.now
            _ = try await other.enqueue(NoOpJob.self, NoOpJob.Input(index))
            guard let started = await iterator.next() else { break }
            delays.append(secondsBetween(sent, started) * 1000)
        }
        engine.cancel()
        _ = try? await engine.value
        delays.sort()
        return Measurement(
            workload: "idle", jobs: delays.count, seconds: secondsSince(total),
            extra: [
                ("idle_switches_per_sec", idle), ("paused_switches_per_sec", paused),
                ("other_connection_start_p50_ms", percentile(delays, 0.5)), ("other_connection_start_p99_ms", percentile(delays, 0.99)),
            ])
    }
}

/// Voluntary context switches of this process so far, its threads that ended included
/// (`getrusage`).
func contextSwitches() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_nvcsw)
}

/// Seconds from `start` to `end`.
func secondsBetween(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Double {
    let elapsed = end - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
