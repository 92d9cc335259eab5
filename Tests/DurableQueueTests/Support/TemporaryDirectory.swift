import Foundation

@testable import DurableQueue

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("DurableQueueTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a new store on a new file in its own temporary directory, then removes it.
func withStore<T>(
    options: StorageOptions = StorageOptions(), _ body: (SQLiteJobStore, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = try SQLiteJobStore(path: directory.path("jobs.sqlite"), options: options)
    return try await body(store, directory)
}

/// A job on `queue` with a small JSON input.
func job(
    _ queue: String = "default", kind: String = "test", input: String = "{}", priority: Priority = .normal,
    runAt: Int64? = nil, maxAttempts: Int? = 3, uniqueKey: String? = nil, policy: UniquePolicy = .keep,
    tags: [String] = [], throttleInterval: Int64? = nil
) -> NewJob {
    NewJob(
        queue: queue, kind: kind, input: input, priority: priority, runAt: runAt, maxAttempts: maxAttempts,
        uniqueKey: uniqueKey, uniquePolicy: policy, tags: tags, throttleIntervalMilliseconds: throttleInterval)
}

extension SQLiteJobStore {
    /// Enqueues `job` at `now` and returns the id of the job followed.
    func add(_ job: NewJob, now: Int64 = 1_000) throws -> JobID {
        try enqueue(job, now: now).id
    }

    /// Claims at most `limit` jobs of `queue` for worker "w1" with a 30 s lease.
    func take(_ queue: String = "default", limit: Int = 1, owner: String = "w1", now: Int64 = 1_000) throws -> [ClaimedJob] {
        try claim(queue: queue, limit: limit, owner: owner, leaseDuration: 30_000, now: now)
    }

    /// Records that `job` succeeded at `now`, under worker "w1".
    func succeed(_ job: JobID, now: Int64) throws {
        try finish([FinishedAttempt(.first(job), owner: "w1", outcome: .succeeded(output: "null"))], now: now)
    }

    /// The states of the job's history, as `from>to` strings, for compact assertions.
    func transitions(_ id: JobID) throws -> [String] {
        try history(of: id).map { "\($0.from?.rawValue ?? "nil")>\($0.to.rawValue)" }
    }

    /// Every job's history is a chain from creation to its current state, with one event per change.
    func historyIsConsistent() throws -> Bool {
        for record in try jobs(JobFilter(limit: 1_000_000)) {
            let events = try history(of: record.id)
            guard let first = events.first, first.from == nil, events.last?.to == record.state else { return false }
            for (earlier, later) in zip(events, events.dropFirst()) where later.from != earlier.to {
                return false
            }
        }
        return true
    }
}

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

extension AttemptID {
    /// The first attempt of `job`.
    static func first(_ job: JobID) -> AttemptID { AttemptID(job: job, number: 1) }
}
