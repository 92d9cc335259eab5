import Foundation

/// Which jobs a listing returns; every field left nil matches all.
package struct JobFilter: Sendable, Hashable {
    package var state: JobState?
    package var queue: String?
    package var tag: String?
    /// At most this many jobs, newest first.
    package var limit: Int

    package init(state: JobState? = nil, queue: String? = nil, tag: String? = nil, limit: Int = 100) {
        self.state = state
        self.queue = queue
        self.tag = tag
        self.limit = limit
    }
}

extension SQLiteJobStore {
    /// The job with id `id`, with its tags.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func job(_ id: JobID) throws -> JobRecord {
        try read("read job \(id)") {
            guard let job = try jobs(where: "WHERE j.id = ?1", [id.rawValue]).first else {
                throw DurableQueueError(.jobNotFound, "no job has id \(id)", jobID: id)
            }
            return job
        }
    }

    /// Job `id`'s state and saved progress: a short read for handles that watch a job.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func status(of id: JobID) throws -> (state: JobState, progress: Double?) {
        try read("read the state of job \(id)") {
            var status: (JobState, Double?)?
            try connection.query("SELECT state, progress FROM jobs WHERE id = ?", [id.rawValue]) { row in
                status = (try Self.state(row.string(0)), row.optionalDouble(1))
            }
            guard let status else { throw DurableQueueError(.jobNotFound, "no job has id \(id)", jobID: id) }
            return status
        }
    }

    /// The state changes of job `id`, oldest first.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func history(of id: JobID) throws -> [JobEvent] {
        try read("read the history of job \(id)") {
            guard try stateRow(id) != nil else {
                throw DurableQueueError(.jobNotFound, "no job has id \(id)", jobID: id)
            }
            var events: [JobEvent] = []
            try connection.query(
                """
                SELECT at, from_state, to_state, attempt, reason, worker FROM job_events
                WHERE job_id = ? ORDER BY id
                """, [id.rawValue]
            ) { row in
                events.append(
                    JobEvent(
                        jobID: id, at: row.int64(0), from: try row.optionalString(1).map(Self.state),
                        to: try Self.state(row.string(2)), attempt: Int(row.int64(3)), reason: row.optionalString(4),
                        worker: row.optionalString(5)))
            }
            return events
        }
    }

    /// The jobs matching `filter`, newest first.
    package func jobs(_ filter: JobFilter) throws -> [JobRecord] {
        guard filter.limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(filter.limit) is not positive") }
        return try read("list jobs") {
            try jobs(
                where: """
                    WHERE (?1 IS NULL OR j.state = ?1) AND (?2 IS NULL OR j.queue = ?2)
                      AND (?3 IS NULL OR j.id IN (SELECT job_id FROM job_tags WHERE tag = ?3))
                    ORDER BY j.id DESC LIMIT ?4
                    """,
                [filter.state?.rawValue, filter.queue, filter.tag, filter.limit])
        }
    }

    /// How many jobs each queue has in each state; queues with no jobs are included.
    package func counts() throws -> [QueueCounts] {
        try read("count jobs by queue and state") {
            var byQueue: [String: [JobState: Int]] = [:]
            try connection.query("SELECT name FROM queues") { row in byQueue[row.string(0)] = [:] }
            try connection.query("SELECT queue, state, count(*) FROM jobs GROUP BY queue, state") { row in
                byQueue[row.string(0), default: [:]][try Self.state(row.string(1))] = Int(row.int64(2))
            }
            return byQueue.keys.sorted().map { QueueCounts(queue: $0, counts: byQueue[$0] ?? [:]) }
        }
    }

    private func jobs(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [JobRecord] {
        var records: [JobRecord] = []
        try connection.query(
            """
            SELECT j.id, j.queue, j.kind, j.state, j.priority, j.run_at, j.attempts, j.max_attempts, j.retry_policy,
                   j.timeout_ms, j.unique_key, j.cancel_requested, j.lease_owner, j.lease_expires_at, j.input, j.output,
                   j.error, j.progress, j.checkpoint, j.created_at, j.updated_at, j.started_at, j.finished_at,
                   (SELECT json_group_array(tag) FROM job_tags WHERE job_id = j.id)
            FROM jobs AS j
            \(clause)
            """, arguments
        ) { row in
            records.append(
                JobRecord(
                    id: JobID(row.int64(0)), queue: row.string(1), kind: row.string(2), state: try Self.state(row.string(3)),
                    priority: Priority(rawValue: Int(row.int64(4))), runAt: row.int64(5), attempts: Int(row.int64(6)),
                    maxAttempts: row.optionalInt(7), retryPolicy: row.optionalString(8), timeoutMilliseconds: row.optionalInt64(9),
                    uniqueKey: row.optionalString(10), cancelRequested: row.int64(11) != 0, leaseOwner: row.optionalString(12),
                    leaseExpiresAt: row.optionalInt64(13), input: row.string(14), output: row.optionalString(15),
                    error: try row.optionalString(16).map { try JSONDecoder().decode(JobFailure.self, from: Data($0.utf8)) },
                    progress: row.optionalDouble(17), checkpoint: row.optionalBlob(18), createdAt: row.int64(19),
                    updatedAt: row.int64(20), startedAt: row.optionalInt64(21), finishedAt: row.optionalInt64(22),
                    tags: try JSONDecoder().decode([String].self, from: Data(row.string(23).utf8)).sorted()))
        }
        return records
    }
}
