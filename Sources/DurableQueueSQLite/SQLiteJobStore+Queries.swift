import DurableQueueCore
import Foundation

extension SQLiteJobStore {
    /// The job with id `id`, with its tags.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func job(_ id: JobID) throws -> JobRecord {
        try read("read job \(id)") {
            guard let job = try jobs(where: "WHERE j.id = ?1", [id.rawValue]).first else {
                throw DurableQueueError.jobNotFound(id)
            }
            return job
        }
    }

    /// Job `id`'s state and saved progress: a short read for handles that watch a job.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func status(of id: JobID) throws -> JobStatus {
        try read("read the state of job \(id)") {
            var status: JobStatus?
            try connection.query(
                """
                SELECT j.state, a.progress FROM jobs AS j LEFT JOIN job_attempt_state AS a ON a.job_id = j.id WHERE j.id = ?
                """, [id.rawValue]
            ) { row in
                status = JobStatus(state: try JobState(stored: row.string(0)), progress: row.optionalDouble(1))
            }
            guard let status else { throw DurableQueueError.jobNotFound(id) }
            return status
        }
    }

    /// The state changes of job `id`, oldest first.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func history(of id: JobID) throws -> [JobEvent] {
        try read("read the history of job \(id)") {
            // The job's row first (its creation, from schema version 11 on: a job created earlier
            // has no created_state and its creation among the event rows), then the event rows.
            // The row is there for every job, so no rows means no such job.
            var found = false
            var events: [JobEvent] = []
            try connection.query(
                """
                SELECT 0, created_state IS NOT NULL, created_at, NULL, created_state, 0, ?2, NULL FROM jobs WHERE id = ?1
                UNION ALL
                SELECT seq, 1, at, from_state, to_state, attempt, reason, worker FROM job_events WHERE job_id = ?1
                ORDER BY 1
                """, [id.rawValue, HistoryNote.enqueued]
            ) { row in
                found = true
                guard row.int64(1) != 0 else { return }
                events.append(
                    JobEvent(
                        jobID: id, at: row.int64(2), from: try row.optionalString(3).map(JobState.init(stored:)),
                        to: try JobState(stored: row.string(4)), attempt: Int(row.int64(5)), reason: row.optionalString(6),
                        worker: row.optionalString(7)))
            }
            guard found else { throw DurableQueueError.jobNotFound(id) }
            return events
        }
    }

    /// The jobs matching `filter`, in its order, at most its limit.
    package func jobs(_ filter: JobFilter) throws -> [JobRecord] {
        guard filter.limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(filter.limit) is not positive") }
        let (clause, arguments) = Self.whereClause(filter)
        let order = filter.order == .newestFirst ? "DESC" : "ASC"
        return try read("list jobs") {
            try jobs(where: "\(clause) ORDER BY j.id \(order) LIMIT ?", arguments + [filter.limit])
        }
    }

    /// How many jobs match `filter` (its limit aside).
    ///
    /// Unfinished jobs of every queue and kind are counted through the partial indexes of their
    /// states, so that finished jobs (usually most of the file) are never read.
    package func countJobs(_ filter: JobFilter) throws -> Int {
        if filter.states == JobFilter.unfinished && filter.queues == nil && filter.kinds == nil && filter.runnable == nil
            && filter.tag == nil
            && filter.search == nil && filter.failureType == nil && filter.errorText == nil && filter.createdFrom == nil
            && filter.createdBefore == nil && filter.afterID == nil
        {
            return try unfinishedJobCount()
        }
        let (clause, arguments) = Self.whereClause(filter)
        return try read("count jobs") {
            Int(try connection.scalarInt64("SELECT count(*) FROM jobs AS j \(clause)", arguments) ?? 0)
        }
    }

    /// The WHERE clause of `filter` over `jobs AS j` and its arguments. Only the conditions set are
    /// included, each a constant piece of SQL with its value bound: a tag lookup then starts from
    /// the tag's index.
    private static func whereClause(_ filter: JobFilter) -> (String, [(any SQLiteBindable)?]) {
        var conditions: [String] = []
        var arguments: [(any SQLiteBindable)?] = []
        if let tag = filter.tag {
            conditions.append("j.id IN (SELECT job_id FROM job_tags WHERE tag = ?)")
            arguments.append(tag)
        }
        if let states = filter.states {
            conditions.append("j.state IN (SELECT value FROM json_each(?))")
            arguments.append(jsonArray(states.map(\.rawValue).sorted()))
        }
        if let queues = filter.queues {
            conditions.append("j.queue IN (SELECT value FROM json_each(?))")
            arguments.append(jsonArray(queues.sorted()))
        }
        if let kinds = filter.kinds {
            conditions.append("j.kind IN (SELECT value FROM json_each(?))")
            arguments.append(jsonArray(kinds.sorted()))
        }
        if let runnable = filter.runnable {
            // Aligned arrays: the kinds, each one's lowest version, each one's highest.
            conditions.append(
                """
                EXISTS (SELECT 1 FROM json_each(?) AS r
                        WHERE r.value = j.kind
                          AND j.version BETWEEN json_extract(?, '$[' || r.key || ']') AND json_extract(?, '$[' || r.key || ']'))
                """)
            let (names, lowest, highest) = runnable.columns
            arguments += [jsonArray(names), "[\(lowest.map(String.init).joined(separator: ","))]",
                          "[\(highest.map(String.init).joined(separator: ","))]"]
        }
        if let failureType = filter.failureType {
            conditions.append("json_extract(j.error, '$.type') = ?")
            arguments.append(failureType)
        }
        if let errorText = filter.errorText {
            conditions.append("instr(lower(json_extract(j.error, '$.type') || ': ' || json_extract(j.error, '$.message')), lower(?)) > 0")
            arguments.append(errorText)
        }
        if let createdFrom = filter.createdFrom {
            conditions.append("j.created_at >= ?")
            arguments.append(createdFrom)
        }
        if let createdBefore = filter.createdBefore {
            conditions.append("j.created_at < ?")
            arguments.append(createdBefore)
        }
        if let afterID = filter.afterID {
            conditions.append("j.id > ?")
            arguments.append(afterID.rawValue)
        }
        if let search = filter.search {
            let number = arguments.count + 1
            conditions.append(
                """
                (j.id = ?\(number) OR instr(lower(j.kind), lower(?\(number))) > 0 OR instr(lower(j.unique_key), lower(?\(number))) > 0
                 OR instr(lower(j.input), lower(?\(number))) > 0
                 OR EXISTS (SELECT 1 FROM job_tags WHERE job_id = j.id AND instr(lower(tag), lower(?\(number))) > 0))
                """)
            arguments.append(search)
        }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), arguments)
    }

    /// How many jobs each queue has in each state; queues with no jobs are included.
    package func counts() throws -> [QueueCounts] {
        try read("count jobs by queue and state") {
            var byQueue: [String: [JobState: Int]] = [:]
            try connection.query("SELECT name FROM queues") { row in byQueue[row.string(0)] = [:] }
            try connection.query("SELECT queue, state, count(*) FROM jobs GROUP BY queue, state") { row in
                byQueue[row.string(0), default: [:]][try JobState(stored: row.string(1))] = Int(row.int64(2))
            }
            return byQueue.keys.sorted().map { QueueCounts(queue: $0, counts: byQueue[$0] ?? [:]) }
        }
    }

    private func jobs(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [JobRecord] {
        var records: [JobRecord] = []
        try connection.query(
            """
            SELECT j.id, j.queue, j.kind, j.state, j.priority, j.run_at, j.attempts, j.max_attempts, o.retry_policy,
                   o.timeout_ms, j.unique_key, j.cancel_requested, j.lease_owner, j.lease_expires_at, j.input, j.output,
                   j.error, a.progress, a.checkpoint, j.created_at, j.updated_at, j.started_at, j.finished_at,
                   (SELECT json_group_array(tag) FROM job_tags WHERE job_id = j.id), coalesce(o.throttle_interval_ms, 0),
                   j.partition_key, j.group_id, w.handed_off_to, w.handoff_reference, w.handoff_deadline, w.waiting_for,
                   w.wait_deadline, j.version
            FROM jobs AS j
            LEFT JOIN job_options AS o ON o.job_id = j.id
            LEFT JOIN job_attempt_state AS a ON a.job_id = j.id
            LEFT JOIN job_wait_targets AS w ON w.job_id = j.id
            \(clause)
            """, arguments
        ) { row in
            records.append(
                JobRecord(
                    id: JobID(row.int64(0)), queue: row.string(1), kind: row.string(2), state: try JobState(stored: row.string(3)),
                    priority: Priority(rawValue: Int(row.int64(4))), runAt: row.int64(5), attempts: Int(row.int64(6)),
                    maxAttempts: row.optionalInt(7), retryPolicy: row.optionalString(8), timeoutMilliseconds: row.optionalInt64(9),
                    uniqueKey: row.optionalString(10), cancelRequested: row.int64(11) != 0, leaseOwner: row.optionalString(12),
                    leaseExpiresAt: row.optionalInt64(13), input: row.string(14), output: row.optionalString(15),
                    error: try row.optionalString(16).map { try JSONDecoder().decode(JobFailure.self, from: Data($0.utf8)) },
                    progress: row.optionalDouble(17), checkpoint: row.optionalBlob(18), createdAt: row.int64(19),
                    updatedAt: row.int64(20), startedAt: row.optionalInt64(21), finishedAt: row.optionalInt64(22),
                    tags: try JSONDecoder().decode([String].self, from: Data(row.string(23).utf8)).sorted(),
                    throttleIntervalMilliseconds: row.int64(24), partitionKey: row.optionalString(25),
                    group: row.optionalInt64(26).map { GroupID($0) },
                    handOff: row.optionalString(27).map {
                        HandOffTarget(carrier: $0, reference: row.optionalString(28) ?? "", deadline: row.optionalInt64(29))
                    }, waitingFor: row.optionalString(30), waitDeadline: row.optionalInt64(31), version: Int(row.int64(32))))
        }
        return records
    }
}
