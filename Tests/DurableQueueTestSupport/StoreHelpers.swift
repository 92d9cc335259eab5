import DurableQueue
import Foundation

/// A job on `queue` with a small JSON input.
package func job(
    _ queue: String = "default", kind: String = "test", input: String = "{}", priority: Priority = .normal,
    runAt: Int64? = nil, maxAttempts: Int? = 3, uniqueKey: String? = nil, policy: UniquePolicy = .keep,
    tags: [String] = [], throttleInterval: Int64? = nil
) -> NewJob {
    NewJob(
        queue: queue, kind: kind, input: input, priority: priority, runAt: runAt, maxAttempts: maxAttempts,
        uniqueKey: uniqueKey, uniquePolicy: policy, tags: tags, throttleIntervalMilliseconds: throttleInterval)
}

/// `count` jobs of the test worker's "record" type on `queue`, with the indexes 0 … count − 1 as inputs.
package func recordJobs(_ count: Int, queue: String = "default") -> [NewJob] {
    (0..<count).map { NewJob(queue: queue, kind: "record", input: "{\"index\":\($0)}") }
}

/// The kinds the test helpers claim unless told otherwise.
package let testKinds: Set<String> = ["test", "a", "b", "c", "d", "record", "download", "send"]

extension JobStore {
    /// Enqueues `job` at `now`.
    package func enqueue(_ job: NewJob, now: Int64) async throws -> EnqueueOutcome {
        try await enqueue([job], now: now)[0]
    }

    /// Enqueues `jobs` at `now`, all or none.
    package func enqueue(batch jobs: [NewJob], now: Int64) async throws -> [EnqueueOutcome] {
        try await enqueue(jobs, now: now)
    }

    /// Enqueues `job` at `now` and returns the id of the job followed.
    package func add(_ job: NewJob, now: Int64 = 1_000) async throws -> JobID {
        try await enqueue(job, now: now).id
    }

    /// Claims up to `limit` jobs of `queue` for `owner`.
    package func claim(
        queue: String, limit: Int, owner: String, leaseDuration: Int64, now: Int64, kinds: RunnableKinds = RunnableKinds(testKinds),
        excluding: Set<JobID> = []
    ) async throws -> [ClaimedJob] {
        try await claim(
            ClaimRequest(
                owner: owner, leaseDuration: leaseDuration, now: now, room: limit, kinds: kinds, queues: [queue],
                excluding: excluding))
    }

    /// Claims at most `limit` jobs of `queue` for worker "w1" with a 30 s lease.
    package func take(_ queue: String = "default", limit: Int = 1, owner: String = "w1", now: Int64 = 1_000) async throws -> [ClaimedJob] {
        try await claim(queue: queue, limit: limit, owner: owner, leaseDuration: 30_000, now: now)
    }

    /// Records one step of `attempt` (see ``JobStore/recordSteps(_:)``): whether it passed the fence.
    ///
    /// - Throws: `invalidArgument` when the job has a step of that name already.
    package func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool {
        try await recordSteps([PendingStep(step: step, attempt: attempt, owner: owner)])[0].get()
    }

    /// Records how attempts ended, claiming nothing more.
    @discardableResult
    package func finish(_ endings: [FinishedAttempt], now: Int64) async throws -> [JobID: JobState] {
        try await finish(endings, now: now, thenClaim: nil).states
    }

    /// Takes back running jobs whose lease expired before `now`; poison jobs only with a `lostAttemptLimit`.
    package func recoverExpiredLeases(now: Int64, lostAttemptLimit: Int? = nil) async throws -> [RecoveredJob] {
        try await recoverExpiredLeases(now: now, deadOwners: [], lostAttemptLimit: lostAttemptLimit)
    }

    /// Records that `job` succeeded at `now`, under worker "w1".
    package func succeed(_ job: JobID, now: Int64) async throws {
        try await finish([FinishedAttempt(.first(job), owner: "w1", outcome: .succeeded(output: "null"))], now: now)
    }

    /// The states of the job's history, as `from>to` strings, for compact assertions.
    package func transitions(_ id: JobID) async throws -> [String] {
        try await history(of: id).map { "\($0.from?.rawValue ?? "nil")>\($0.to.rawValue)" }
    }

    /// How many jobs of each queue are in each state.
    package func counts() async throws -> [QueueCounts] {
        try await queueStatuses().map(\.counts)
    }

    /// Every job's history is a chain from creation to its current state, with one event per change;
    /// in a SQLite file every job's event rows are numbered 1 … its `event_count`.
    package func historyIsConsistent() async throws -> Bool {
        for record in try await jobs(JobFilter(limit: 1_000_000)) {
            let events = try await history(of: record.id)
            guard let first = events.first, first.from == nil, events.last?.to == record.state else { return false }
            for (earlier, later) in zip(events, events.dropFirst()) where later.from != earlier.to {
                return false
            }
        }
        return self is SQLiteJobStore ? try await eventRowsAreNumberedByTheirJobs() : true
    }

    /// Whether, in a SQLite file, every job's event rows are numbered 1, 2, … up to its
    /// `event_count` (numbers are unique per job, so as many rows as the largest number means no gap).
    private func eventRowsAreNumberedByTheirJobs() async throws -> Bool {
        let misnumbered = try await transaction(now: 0) { transaction, _ in
            try transaction.query(
                """
                SELECT count(*) FROM jobs AS j
                WHERE j.event_count <> (SELECT count(*) FROM job_events WHERE job_id = j.id)
                   OR j.event_count <> coalesce((SELECT max(seq) FROM job_events WHERE job_id = j.id), 0)
                   OR EXISTS (SELECT 1 FROM job_events WHERE job_id = j.id AND seq < 1)
                """, [])[0][0].integer
        }
        return misnumbered == 0
    }
}

extension AttemptID {
    /// The first attempt of `job`.
    package static func first(_ job: JobID) -> AttemptID { AttemptID(job: job, number: 1) }
}

/// `text` as canonical JSON (keys sorted, no spaces), so that stores that keep JSON as text and
/// stores that keep it parsed (PostgreSQL's `jsonb`, which writes `{"a": 1}`) compare equal;
/// text that is not JSON comes back as it is.
package func canonicalJSON(_ text: String?) -> String? {
    guard let text, let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed),
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
    else { return text }
    return String(decoding: data, as: UTF8.self)
}
