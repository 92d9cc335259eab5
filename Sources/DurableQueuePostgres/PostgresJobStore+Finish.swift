import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Records how attempts ended and claims as `next` asks, in one transaction: the ended jobs'
    /// rows are locked (in id order) and checked against each ending's attempt and owner, every
    /// change and history row is written by one statement, then the refill claim runs.
    ///
    /// The fast path of a busy engine, four round trips (`BEGIN`, ``LockEndedReadingQueues``,
    /// ``RecordEndingsAndClaim``, `COMMIT`): the queues' states are read with the lock, and when
    /// no ending needs more than its row and history written before the claim (no cache entry, no
    /// group, no throttle measured from the end, no key gap) and the first queue to visit counts
    /// no starts under a lock, the endings and that queue's claim are one statement. Dependents
    /// of the ended jobs are then resolved after the claim, in the same transaction.
    package func finish(_ endings: [FinishedAttempt], now: Int64, thenClaim next: ClaimRequest?) async throws -> FinishResult {
        if let next { try Self.validate(next) }
        return try await write("record the end of \(endings.count) attempt(s)", notify: false) { [self] session in
            var locked = try await lockEnded(session, endings, readingQueuesAt: next?.now)
            // The ended jobs' rows are locked: what follows is stamped after every change committed to them.
            let now = stamp(now)
            var changes = EndingChanges()
            var recorded: [JobID: JobState] = [:]
            for ending in endings {
                guard var row = locked.rows[ending.id] else { continue }  // the job was deleted
                guard let state = try changes.append(ending, row: row, now: now) else { continue }
                recorded[ending.id] = state
                row.state = state
                locked.rows[ending.id] = row
            }
            let ended = recorded.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { id, state in locked.rows[id].map { ($0, state) } }
            let request = next?.at(now)
            if let request, let queues = locked.queues, !queues.scheduledDue, case let visits = queues.visits(for: request),
                let first = visits.first, !first.isLimited, !locked.cacheInUse, locked.gapped.isEmpty,
                ended.allSatisfy({ row, _ in row.group == nil && row.throttleInterval == 0 })
            {
                let read = try await session.rows(RecordEndingsAndClaim.self, changes.values + [now, channel] + Self.claimValues(first, request))
                var claimed = try await self.claimed(session, read.filter { !$0.isNull(1) }.map { $0.columns(from: 1) }, queue: first, request: request)
                claimed = try await claim(session, request, from: Array(visits.dropFirst()), claimed: claimed)
                if try read.first?.bool(0) == true {
                    for (row, state) in ended where state.isTerminal {
                        try await jobEnded(session, row.id, group: nil, cacheInUse: false, dependenciesWaiting: true, now: now)
                    }
                }
                return FinishResult(states: recorded, claimed: claimed)
            }
            var dependenciesWaiting = false
            if !changes.ids.isEmpty {
                dependenciesWaiting = try await session.rows(RecordEndings.self, changes.values + [now, channel]).first?.bool(1) ?? false
            }
            for (row, state) in ended {
                let key = locked.gapped.contains(row.id) ? row.partitionKey : nil
                try await recordEnd(session, queue: row.queue, interval: row.throttleInterval, key: key, now: now)
                if state.isTerminal {
                    try await jobEnded(
                        session, row.id, group: row.group, cacheInUse: locked.cacheInUse, dependenciesWaiting: dependenciesWaiting, now: now)
                }
            }
            guard let request else { return FinishResult(states: recorded, claimed: []) }
            return FinishResult(states: recorded, claimed: try await claim(session, request))
        }
    }

    /// The ended jobs' rows, locked, with what their endings need besides.
    private struct LockedEndings {
        var rows: [JobID: EndingRow] = [:]
        /// Whether the results cache has any entry.
        var cacheInUse = false
        /// The jobs whose keys keep a gap after each end (a key throttle measured from the end).
        var gapped: Set<JobID> = []
        /// The queues' states, when read with the lock.
        var queues: QueueStartStates?
    }

    /// Locks the rows of the jobs `endings` end, in id order; with a time, reads the queues'
    /// states at that time in the same statement.
    private func lockEnded(_ session: PostgresSession, _ endings: [FinishedAttempt], readingQueuesAt now: Int64?) async throws
        -> LockedEndings
    {
        var locked = LockedEndings()
        let ids = endings.map(\.id.rawValue)
        let rows: [PostgresResultRow]
        if let now {
            let read = try await session.rows(LockEndedReadingQueues.self, [ids, now])
            // A job's part with no job (every ended job deleted meanwhile) has a NULL id.
            rows = read.filter { !$0.isNull(1) }.map { $0.columns(from: 1) }
            let queueColumn = LockEndedReadingQueues.queueColumn
            locked.queues = try QueueStartStates(read.filter { !$0.isNull(queueColumn) }.map { $0.columns(from: queueColumn) })
        } else {
            rows = try await session.rows(LockEnded.self, [ids])
        }
        for row in rows {
            let ended = try EndingRow(row)
            locked.rows[ended.id] = ended
            locked.cacheInUse = try row.bool(10)
            if try row.bool(12) { locked.gapped.insert(ended.id) }
        }
        return locked
    }

    /// The values of ``RecordEndingsAndClaim``'s `$16` to `$23`: a claim of `queue`'s next jobs for `request`.
    private static func claimValues(_ queue: QueueStartSettings, _ request: ClaimRequest) -> [(any PostgresValue)?] {
        let kinds = request.kinds.columns
        return [
            queue.name, kinds.names, request.excluding.map(\.rawValue), request.room, request.owner,
            request.now + request.leaseDuration, kinds.lowest, kinds.highest,
        ]
    }

    /// What the endings write, a column per array as `unnest` reads them: each job's new state and
    /// history row, or (`update` false) only a note that a stale ending was discarded. Arrays hold
    /// no NULLs, so an empty output or error means none and flags say which times apply.
    private struct EndingChanges {
        var ids: [Int64] = []
        var updates: [Bool] = []
        var from: [String] = []
        var states: [String] = []
        var outputs: [String] = []
        var errors: [String] = []
        var runAts: [Int64] = []
        var hasRunAt: [Bool] = []
        var finished: [Bool] = []
        var attempts: [Int64] = []
        var reasons: [String] = []
        var workers: [String] = []
        /// Attempts that do not count (a snooze): taken back, as a release takes one back.
        var uncounted: [Bool] = []

        /// The values of ``RecordEndings``' `$1` to `$13`.
        var values: [(any PostgresValue)?] {
            [ids, updates, from, states, outputs, errors, runAts, hasRunAt, finished, attempts, reasons, workers, uncounted]
        }

        /// Adds the change `ending` makes to `row`: the state it ends in (a cancel requested before
        /// wins; a retry with no attempts left fails), or a discarded note when the row no longer
        /// shows that attempt running under its owner.
        ///
        /// - Returns: The job's new state, or nil for a discarded ending.
        mutating func append(_ ending: FinishedAttempt, row: EndingRow, now: Int64) throws -> JobState? {
            let number = ending.attempt.number
            guard row.isRunning(ending) else {
                add(
                    row.id, update: false, from: row.state, to: row.state, attempt: number,
                    reason: ResolvedEnding.discardedNote(ending.outcome, attempt: number), worker: ending.owner)
                return nil
            }
            let resolved = row.resolve(ending, now: now)
            add(
                row.id, update: true, from: .running, to: resolved.state, output: resolved.output,
                error: try resolved.failure.map { try JobCodec.encode($0) }, runAt: resolved.runAt, attempt: row.attempts,
                reason: resolved.reason, worker: ending.owner, uncounted: !resolved.countsAttempt)
            return resolved.state
        }

        private mutating func add(
            _ id: JobID, update: Bool, from: JobState, to state: JobState, output: String? = nil, error: String? = nil,
            runAt: Int64? = nil, attempt: Int, reason: String, worker: String, uncounted: Bool = false
        ) {
            ids.append(id.rawValue)
            updates.append(update)
            self.from.append(from.rawValue)
            states.append(state.rawValue)
            outputs.append(output ?? "")
            errors.append(error ?? "")
            runAts.append(runAt ?? 0)
            hasRunAt.append(runAt != nil)
            finished.append(update && state.isTerminal)
            attempts.append(Int64(attempt))
            reasons.append(reason)
            workers.append(worker)
            self.uncounted.append(uncounted)
        }
    }

    /// Locks the jobs `$1` in id order, with whether the results cache has any entry, each job's
    /// partition key, and whether its key keeps a gap after each end.
    private enum LockEnded: PreparedSQL {
        static let name = "durablequeue_lock_ended"
        static let sql = """
            SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue,
                   \(PostgresJobStore.throttleInterval(of: "jobs")), group_id, \(PostgresJobStore.progressedAttempts(of: "jobs")),
                   EXISTS (SELECT 1 FROM cache_entries)::int, partition_key,
                   EXISTS (SELECT 1 FROM partition_keys AS k WHERE k.queue = jobs.queue AND k.key = jobs.partition_key AND k.end_gap_ms > 0)::int
            FROM jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE
            """
    }

    /// ``LockEnded`` and ``PostgresJobStore/QueueStates`` at `$2` in one statement, for an ending
    /// that claims: each row holds a locked job's columns from column 1 (NULL when it is a queue's
    /// row, or when no job was left to lock) or a queue's from ``queueColumn`` on (NULL when it is
    /// a job's, or when there is no queue).
    private enum LockEndedReadingQueues: PreparedSQL {
        static let name = "durablequeue_lock_ended_queues"
        static let sql = """
            WITH locked AS MATERIALIZED (\(LockEnded.sql))
            SELECT part.job, locked.*, queue.*
            FROM (VALUES (1), (NULL)) AS part(job)
            LEFT JOIN locked ON part.job = 1
            LEFT JOIN (\(PostgresJobStore.queueStates(now: "$2"))) AS queue ON part.job IS NULL
            ORDER BY part.job, locked.id, queue.name
            """
        /// The first column of a queue's row: after the part (0) and ``LockEnded``'s 13 columns.
        static let queueColumn = 14
    }

    /// Applies the ``EndingChanges`` of `$1` to `$13` at `$14`, appends their history rows in order,
    /// notifies channel `$15`, and says whether a dependency waits for one of the jobs. Each update is fenced by the attempt it records (state, owner,
    /// attempt number) as well as by the row lock ``LockEnded`` took for the check; an attempt that
    /// does not count (`uncounted`) is taken back from the row's attempts and its history row.
    private enum RecordEndings: PreparedSQL {
        static let name = "durablequeue_record_endings"
        static let sql = """
            WITH \(endingChanges),
            events AS (
                INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
                SELECT id, $14, "from", state, attempt - CASE WHEN uncounted THEN 1 ELSE 0 END, reason, worker
                FROM change ORDER BY position
            )
            SELECT pg_notify($15, ''), \(dependenciesWaiting)
            """

        /// The CTEs `change` (the endings `$1` to `$13`, in order), `updated` (the jobs' rows
        /// changed at `$14`, fenced) and `taken_back` (what an attempt that does not count had
        /// counted as progress, for a job with attempt state) of ``RecordEndings`` and
        /// ``RecordEndingsAndClaim``.
        static let endingChanges = """
            change AS (
                SELECT * FROM unnest($1::bigint[], $2::boolean[], $3::text[], $4::text[], $5::text[], $6::text[],
                                     $7::bigint[], $8::boolean[], $9::boolean[], $10::bigint[], $11::text[], $12::text[],
                                     $13::boolean[])
                    WITH ORDINALITY AS c(id, update, "from", state, output, error, run_at, has_run_at, finished, attempt,
                                         reason, worker, uncounted, position)
            ),
            updated AS (
                UPDATE jobs AS j SET state = c.state, output = coalesce(nullif(c.output, '')::jsonb, j.output),
                                     error = coalesce(nullif(c.error, '')::jsonb, j.error),
                                     run_at = CASE WHEN c.has_run_at THEN c.run_at ELSE j.run_at END,
                                     finished_at = CASE WHEN c.finished THEN $14::bigint END, lease_owner = NULL,
                                     lease_expires_at = NULL, updated_at = $14,
                                     attempts = j.attempts - CASE WHEN c.uncounted THEN 1 ELSE 0 END
                FROM change AS c
                WHERE j.id = c.id AND c.update AND j.state = 'running' AND j.lease_owner = c.worker AND j.attempts = c.attempt
                RETURNING j.id, j.extras, c.uncounted, c.attempt
            ),
            taken_back AS (
                UPDATE job_attempt_state AS a SET progressed_attempts = a.progressed_attempts - 1, checkpoint_attempt = NULL
                WHERE a.job_id = ANY (ARRAY(SELECT u.id FROM updated AS u WHERE u.uncounted AND u.extras & 2 <> 0))
                  AND a.checkpoint_attempt = (SELECT u.attempt FROM updated AS u WHERE u.id = a.job_id)
            )
            """

        /// Whether a dependency waits for one of the jobs `$1`. Read once the jobs' rows are locked
        /// (by an earlier statement): an enqueue that made a job wait for one of them has committed
        /// by now, or waits for this transaction and then sees the job ended.
        static let dependenciesWaiting = "EXISTS (SELECT 1 FROM job_dependencies WHERE parent_id = ANY($1::bigint[]) AND outcome IS NULL)::int"
    }

    /// ``RecordEndings`` and ``PostgresJobStore/ClaimNext`` in one statement: the endings `$1` to
    /// `$13` at `$14` (notifying channel `$15`), then up to `$19` of queue `$16`'s next jobs of the
    /// kinds `$17` at the versions `$22` to `$23`, not `$18`, claimed for worker `$20` until `$21`. The history rows are written in
    /// that order, the endings' first. The first row says in column 0 whether a dependency waits
    /// for an ended job; each row holds a claimed job's columns from column 1 (NULL when none was).
    private enum RecordEndingsAndClaim: PreparedSQL {
        static let name = "durablequeue_record_endings_claim"
        static let sql = """
            WITH \(RecordEndings.endingChanges),
            \(PostgresJobStore.nextJobs(queue: "$16", kinds: "$17", lowest: "$22", highest: "$23", excluding: "$18", limit: "$19")),
            \(PostgresJobStore.claimedRows(where: PostgresJobStore.nextJobsPicked, owner: "$20::text", leaseExpiresAt: "$21::bigint", now: "$14")),
            events AS (
                INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
                SELECT id, $14, from_state, to_state, attempt, reason, worker FROM (
                    SELECT 0 AS part, position, id, "from" AS from_state, state AS to_state,
                           attempt - CASE WHEN uncounted THEN 1 ELSE 0 END AS attempt, reason, worker
                    FROM change
                    UNION ALL
                    SELECT 1, 0, id, 'pending', 'running', attempts, 'claimed', $20 FROM claimed
                ) AS e ORDER BY part, position
            ),
            \(PostgresJobStore.workerAlive(owner: "$20", leaseExpiresAt: "$21", now: "$14")),
            ended AS MATERIALIZED (SELECT pg_notify($15, ''), \(RecordEndings.dependenciesWaiting) AS waiting)
            SELECT ended.waiting, r.* FROM ended LEFT JOIN (\(PostgresJobStore.claimedColumns)) AS r ON true
            """
    }

    /// Saves a running attempt's progress and checkpoint; false if `owner` no longer holds it. With
    /// no owner, those of a handed-off attempt; false unless the row shows that attempt handed off.
    package func saveProgress(_ attempt: AttemptID, owner: String?, progress: Double?, checkpoint: [UInt8]?, now: Int64) async throws
        -> Bool
    {
        if let progress, !(0...1).contains(progress) {
            throw DurableQueueError.invalidArgument("progress", "\(progress) is outside 0…1")
        }
        return try await write("save the progress of job \(attempt.job)", transaction: false) { session in
            // One statement: the fenced job row (its `extras` then says it has attempt state), and
            // its job_attempt_state row, created or updated.
            try await session.int64(
                """
                WITH job AS (
                    UPDATE jobs SET updated_at = $5, extras = extras | 2
                    WHERE id = $1 AND attempts = $6
                      AND CASE WHEN $2::text IS NULL THEN state = 'handed_off' ELSE state = 'running' AND lease_owner = $2 END
                    RETURNING id
                ),
                saved AS (
                    INSERT INTO job_attempt_state AS a (job_id, progress, progressed_attempts, checkpoint_attempt, checkpoint)
                    SELECT id, $3, CASE WHEN $4::bytea IS NULL THEN 0 ELSE 1 END, CASE WHEN $4::bytea IS NOT NULL THEN $6::int END,
                           $4::bytea
                    FROM job
                    ON CONFLICT (job_id) DO UPDATE
                    SET progress = coalesce($3, a.progress),
                        progressed_attempts = a.progressed_attempts
                            + CASE WHEN $4::bytea IS NOT NULL AND a.checkpoint IS DISTINCT FROM $4::bytea
                                        AND a.checkpoint_attempt IS DISTINCT FROM $6::int THEN 1 ELSE 0 END,
                        checkpoint_attempt = CASE WHEN $4::bytea IS NOT NULL AND a.checkpoint IS DISTINCT FROM $4::bytea
                                                  THEN $6::int ELSE a.checkpoint_attempt END,
                        checkpoint = coalesce($4::bytea, a.checkpoint)
                )
                SELECT count(*) FROM job
                """, [attempt.job.rawValue, owner, progress, checkpoint.map(PostgresBytes.init), now, attempt.number]) == 1
        }
    }
}

extension EndingRow {
    /// The row as ``PostgresJobStore``'s `LockEnded` reads it (its first ten columns, and the
    /// partition key in column 11).
    init(_ row: PostgresResultRow) throws {
        self.init(
            id: JobID(try row.int64(0)), state: try JobState(stored: row.string(1)), owner: try row.optionalString(2),
            attempts: try row.int(3), maxAttempts: try row.optionalInt(4), cancelRequested: try row.bool(5),
            queue: try row.string(6), throttleInterval: try row.int64(7), group: try row.optionalInt64(8).map { GroupID($0) },
            progressed: try row.int(9), partitionKey: try row.optionalString(11))
    }
}
