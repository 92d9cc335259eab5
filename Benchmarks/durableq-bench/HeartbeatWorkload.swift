import DurableQueue
import Foundation

/// A job that holds its attempt for a while, so that its lease is renewed several times.
struct HeldAttemptJob: Job {
    static let name = "bench.held-attempt"

    let hold: Duration
    let started: @Sendable () -> Void

    func run(_ input: Int, context: JobContext) async throws -> Bool {
        started()
        try await Task.sleep(for: hold)
        return true
    }
}

extension Workloads {
    /// A long drain that heartbeats: min(N, 800) jobs that each hold their attempt 250 ms, 16 at a
    /// time (the default), leases of 400 ms renewed every 50 ms (about five heartbeats a job).
    /// PostgreSQL only: of the jobs table's updates, those that were heartbeats (all but each
    /// job's claim and ending) and how many of them were HOT (`pg_stat_user_tables`, read once the
    /// queue's connections have closed and flushed their counts).
    func heartbeats() async throws -> Measurement {
        guard postgres != nil else { throw BenchError("the heartbeats workload runs on PostgreSQL (--postgres URL)") }
        let count = min(n, 800)
        let path = freshPath("heartbeats")
        let counter = StartCounter()
        let seconds: Double
        do {
            let configuration = JobQueue.Configuration(
                storage: StorageOptions(durability: durability), leaseDuration: .milliseconds(400),
                heartbeatInterval: .milliseconds(50), retention: .forever)
            let queue = try await openQueue(path, configuration: configuration)
            queue.register(HeldAttemptJob(hold: .milliseconds(250), started: { counter.increment() }))
            var index = 0
            while index < count {
                let end = min(count, index + 1000)
                _ = try await queue.enqueue(HeldAttemptJob.self, batch: Array(index..<end))
                index = end
            }
            let start = ContinuousClock.now
            let engine = Task { try await queue.run() }
            while try await queue.unfinishedJobCount() > 0 { try await Task.sleep(for: .milliseconds(20)) }
            seconds = secondsSince(start)
            engine.cancel()
            _ = try? await engine.value
        }
        // The counts of the closed connections reach the statistics when their backends exit.
        let reader = try await openQueue(path, configuration: JobQueue.Configuration(retention: .forever))
        var updates: (all: Int64, hot: Int64) = (0, 0)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let row = try await reader.transaction { transaction in
                try transaction.query("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass")
            }
            updates = (row.first?[0].integer ?? 0, row.first?[1].integer ?? 0)
            if updates.all > Int64(2 * count) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let heartbeats = Double(updates.all) - Double(2 * count)
        return Measurement(
            workload: "heartbeats", jobs: count, seconds: seconds,
            extra: [
                ("job_updates", Double(updates.all)), ("heartbeat_updates", heartbeats), ("hot_updates", Double(updates.hot)),
                ("heartbeats_hot_ratio", heartbeats > 0 ? Double(updates.hot) / heartbeats : 0),
            ])
    }
}
