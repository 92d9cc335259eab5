import DurableQueue
import Foundation
import PostgresNIO

extension PostgresJobStore {
    /// Job `id` with its tags.
    package func job(_ id: JobID) async throws -> JobRecord {
        try await read("read job \(id)") { [self] session in
            guard let job = try await jobs(session, where: "WHERE j.id = $1", [id.rawValue]).first else { throw DurableQueueError.jobNotFound(id) }
            return job
        }
    }

    /// Job `id`'s state and progress.
    package func status(of id: JobID) async throws -> JobStatus {
        try await read("read the state of job \(id)") { session in
            guard
                let row = try await session.rows(
                    "SELECT j.state, a.progress FROM jobs AS j \(Self.sideRows(of: "j")) WHERE j.id = $1", [id.rawValue]
                ).first
            else {
                throw DurableQueueError.jobNotFound(id)
            }
            return JobStatus(state: try JobState(stored: row.string(0)), progress: try row.optionalDouble(1))
        }
    }

    /// Job `id`'s events, oldest first.
    package func history(of id: JobID) async throws -> [JobEvent] {
        try await read("read the history of job \(id)") { session in
            // The job's row first (its creation, from schema version 7 on: a job created earlier
            // has no created_state and its creation among the event rows), then the event rows.
            // The row is there for every job, so no rows means no such job.
            let rows = try await session.rows(
                """
                SELECT -1::bigint, (j.created_state IS NOT NULL)::int, j.created_at, NULL, j.created_state, 0, $2::text, NULL
                FROM jobs AS j WHERE j.id = $1
                UNION ALL
                SELECT e.id, 1, e.at, e.from_state, e.to_state, e.attempt, e.reason, e.worker
                FROM job_events AS e WHERE e.job_id = $1
                ORDER BY 1
                """, [id.rawValue, HistoryNote.enqueued])
            guard !rows.isEmpty else { throw DurableQueueError.jobNotFound(id) }
            return try rows.compactMap { row in
                guard try row.bool(1) else { return nil }
                return JobEvent(
                    jobID: id, at: try row.int64(2), from: try row.optionalString(3).map(JobState.init(stored:)),
                    to: try JobState(stored: row.string(4)), attempt: try row.int(5), reason: try row.optionalString(6),
                    worker: try row.optionalString(7))
            }
        }
    }

    /// The jobs `filter` matches, in its order, at most its limit.
    package func jobs(_ filter: JobFilter) async throws -> [JobRecord] {
        guard filter.limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(filter.limit) is not positive") }
        let order = filter.order == .newestFirst ? "DESC" : "ASC"
        return try await read("list jobs") { [self] session in
            let (clause, values) = Self.whereClause(filter)
            return try await jobs(session, where: "\(clause) ORDER BY j.id \(order) LIMIT $\(values.count + 1)", values + [filter.limit])
        }
    }

    /// How many jobs `filter` matches (its limit aside).
    package func count(_ filter: JobFilter) async throws -> Int {
        try await read("count jobs") { session in
            let (clause, values) = Self.whereClause(filter)
            return Int(try await session.int64("SELECT count(*) FROM jobs AS j \(clause)", values) ?? 0)
        }
    }

    /// The WHERE clause of `filter` over `jobs AS j` and its values: only the conditions set, each a
    /// constant piece of SQL with its value bound.
    private static func whereClause(_ filter: JobFilter) -> (String, [(any PostgresValue)?]) {
        var conditions: [String] = []
        var values: [(any PostgresValue)?] = []
        func add(_ condition: String, _ value: any PostgresValue) {
            values.append(value)
            conditions.append(condition.replacingOccurrences(of: "$?", with: "$\(values.count)"))
        }
        if let tag = filter.tag { add("j.id IN (SELECT job_id FROM job_tags WHERE tag = $?)", tag) }
        if let states = filter.states { add("j.state = ANY($?::text[])", states.map(\.rawValue).sorted()) }
        if let queues = filter.queues { add("j.queue = ANY($?::text[])", queues.sorted()) }
        if let kinds = filter.kinds { add("j.kind = ANY($?::text[])", kinds.sorted()) }
        if let runnable = filter.runnable {
            let (names, lowest, highest) = runnable.columns
            values += [names, lowest, highest]
            let n = values.count
            conditions.append(
                "EXISTS (SELECT 1 FROM unnest($\(n - 2)::text[], $\(n - 1)::int[], $\(n)::int[]) AS r (kind, lowest, highest) "
                    + "WHERE r.kind = j.kind AND j.version BETWEEN r.lowest AND r.highest)")
        }
        if let failureType = filter.failureType { add("j.error ->> 'type' = $?", failureType) }
        if let errorText = filter.errorText {
            add("strpos(lower((j.error ->> 'type') || ': ' || (j.error ->> 'message')), lower($?)) > 0", errorText)
        }
        if let createdFrom = filter.createdFrom { add("j.created_at >= $?", createdFrom) }
        if let createdBefore = filter.createdBefore { add("j.created_at < $?", createdBefore) }
        if let afterID = filter.afterID { add("j.id > $?", afterID.rawValue) }
        if let search = filter.search {
            add(
                """
                (j.id::text = $? OR strpos(lower(j.kind), lower($?)) > 0 OR strpos(lower(j.unique_key), lower($?)) > 0
                 OR strpos(lower(j.input::text), lower($?)) > 0
                 OR EXISTS (SELECT 1 FROM job_tags WHERE job_id = j.id AND strpos(lower(tag), lower($?)) > 0))
                """, search)
        }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), values)
    }

    private func jobs(_ session: PostgresSession, where clause: String, _ values: [(any PostgresValue)?]) async throws -> [JobRecord] {
        try await session.rows(
            """
            SELECT j.id, j.queue, j.kind, j.state, j.priority, j.run_at, j.attempts, j.max_attempts, o.retry_policy,
                   o.timeout_ms, j.unique_key, j.cancel_requested, j.lease_owner, j.lease_expires_at, j.input::text, j.output::text,
                   j.error::text, a.progress, a.checkpoint, j.created_at, j.updated_at, j.started_at, j.finished_at,
                   coalesce((SELECT array_agg(tag ORDER BY tag) FROM job_tags WHERE job_id = j.id), '{}'),
                   coalesce(o.throttle_interval_ms, 0), j.partition_key, j.group_id, w.handed_off_to, w.handoff_reference,
                   w.handoff_deadline, w.waiting_for, w.wait_deadline, j.version
            FROM jobs AS j
            \(Self.sideRows(of: "j"))
            LEFT JOIN job_wait_targets AS w ON w.job_id = j.id
            \(clause)
            """, values
        ).map { row in
            JobRecord(
                id: JobID(try row.int64(0)), queue: try row.string(1), kind: try row.string(2), state: try JobState(stored: row.string(3)),
                priority: Priority(rawValue: try row.int(4)), runAt: try row.int64(5), attempts: try row.int(6),
                maxAttempts: try row.optionalInt(7), retryPolicy: try row.optionalString(8), timeoutMilliseconds: try row.optionalInt64(9),
                uniqueKey: try row.optionalString(10), cancelRequested: try row.bool(11), leaseOwner: try row.optionalString(12),
                leaseExpiresAt: try row.optionalInt64(13), input: try row.string(14), output: try row.optionalString(15),
                error: try row.optionalString(16).map { try JSONDecoder().decode(JobFailure.self, from: Data($0.utf8)) },
                progress: try row.optionalDouble(17), checkpoint: try row.optionalBytes(18), createdAt: try row.int64(19),
                updatedAt: try row.int64(20), startedAt: try row.optionalInt64(21), finishedAt: try row.optionalInt64(22),
                tags: try row.cells[23].decode([String].self), throttleIntervalMilliseconds: try row.int64(24),
                partitionKey: try row.optionalString(25), group: try row.optionalInt64(26).map { GroupID($0) },
                handOff: try row.optionalString(27).map {
                    HandOffTarget(carrier: $0, reference: try row.optionalString(28) ?? "", deadline: try row.optionalInt64(29))
                }, waitingFor: try row.optionalString(30), waitDeadline: try row.optionalInt64(31), version: try row.int(32))
        }
    }
}
