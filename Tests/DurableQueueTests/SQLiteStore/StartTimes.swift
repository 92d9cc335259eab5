import Foundation

@testable import DurableQueue

/// The times (ms) at which jobs of `queue` started, oldest first, read from the event history.
func startTimes(path: String, queue: String) throws -> [Int64] {
    let connection = try Connection(path: path, options: StorageOptions())
    var times: [Int64] = []
    try connection.query(
        """
        SELECT e.at FROM job_events AS e JOIN jobs AS j ON j.id = e.job_id
        WHERE j.queue = ? AND e.to_state = 'running' ORDER BY e.at
        """, [queue]
    ) { times.append($0.int64(0)) }
    return times
}

/// The differences between neighbours of `times`.
func gaps(_ times: [Int64]) -> [Int64] {
    zip(times.dropFirst(), times).map { $0 - $1 }
}
