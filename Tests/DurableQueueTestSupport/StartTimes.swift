import Foundation

import DurableQueue

/// The times (ms) at which jobs of `queue` started (were claimed), oldest first, read from the
/// history through the store.
package func startTimes(_ store: any JobStore, queue: String) async throws -> [Int64] {
    var times: [Int64] = []
    for job in try await store.jobs(JobFilter(queues: [queue], limit: 100_000)) {
        times += try await store.history(of: job.id).filter { $0.to == .running && $0.from != .running }.map(\.at)
    }
    return times.sorted()
}

/// The differences between neighbours of `times`.
package func gaps(_ times: [Int64]) -> [Int64] {
    zip(times.dropFirst(), times).map { $0 - $1 }
}
