import DurableQueue
import Foundation

extension Workloads {
    /// N prefilled jobs drained in three thirds: before, while another transaction holds back the
    /// clean-up of dead rows (it took a transaction id and stays open: a forgotten `BEGIN`, a long
    /// report), and after it ends. Each third's drain rate, and the middle's and last's against the
    /// first. PostgreSQL only: the rows that die meanwhile stay until the transaction ends (a
    /// SQLite transaction of the application is a write transaction, which would stop the drain).
    func held() async throws -> Measurement {
        guard postgres != nil else { throw BenchError("the held workload runs on PostgreSQL (--postgres URL)") }
        let path = freshPath("held")
        try await prefill(try await open(path), count: n)
        let counter = StartCounter()
        let queue = try await open(path, counter: counter)
        let third = n / 3
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }

        /// The drain rate until `count` handlers have started.
        func drain(until count: Int) async throws -> Double {
            let from = counter.value
            let start = ContinuousClock.now
            while counter.value < count { try await Task.sleep(for: .milliseconds(2)) }
            return Double(counter.value - from) / secondsSince(start)
        }
        let before = try await drain(until: third)
        let release = DispatchSemaphore(value: 0)
        let holding = Task {
            try await queue.transaction { transaction in
                // A transaction id of its own: no row that dies after it began can be removed.
                _ = try transaction.query("SELECT pg_current_xact_id()::text")
                release.wait()
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let during = try await drain(until: 2 * third)
        release.signal()
        try await holding.value
        let after = try await drain(until: 3 * third)
        return Measurement(
            workload: "held", jobs: 3 * third, seconds: Double(third) / before + Double(third) / during + Double(third) / after,
            extra: [
                ("before_jobs_per_sec", before), ("during_jobs_per_sec", during), ("after_jobs_per_sec", after),
                ("during_ratio_to_before", during / before), ("after_ratio_to_before", after / before),
            ])
    }
}
