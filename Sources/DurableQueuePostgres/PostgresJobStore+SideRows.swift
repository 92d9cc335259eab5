import DurableQueue

/// The tables beside `jobs` that only some jobs have a row in (migration 24, SQLite's 29):
/// `job_options`, `job_attempt_state` and `job_wait_targets`. A job's `extras` says which hold a
/// row for it (bits 1, 2 and 4), so that a claim or an ending of a plain job reads none of them.
extension PostgresJobStore {
    /// SQL of job `job`'s (a row of `jobs` with `id` and `extras`) throttle interval: 0 unless its
    /// `job_options` row says otherwise; the table is read only when the job has a row there.
    static func throttleInterval(of job: String) -> String {
        "CASE WHEN \(job).extras & 1 <> 0 THEN (SELECT o.throttle_interval_ms FROM job_options AS o WHERE o.job_id = \(job).id) ELSE 0 END"
    }

    /// SQL of job `job`'s attempts that saved a new checkpoint: 0 unless its `job_attempt_state`
    /// row says otherwise.
    static func progressedAttempts(of job: String) -> String {
        "CASE WHEN \(job).extras & 2 <> 0 THEN (SELECT a.progressed_attempts FROM job_attempt_state AS a WHERE a.job_id = \(job).id) ELSE 0 END"
    }

    /// SQL joining to the rows `job` (with `id` and `extras`) its side rows as `o` (`job_options`)
    /// and `a` (`job_attempt_state`), NULL where it has none. `OFFSET 0` keeps each join a
    /// subquery, whose condition on `extras` the planner makes a one-time filter: the table's index
    /// is searched only for a job that has a row there (joined plainly, it hashed both tables).
    static func sideRows(of job: String) -> String {
        """
        LEFT JOIN LATERAL (SELECT o.retry_policy, o.timeout_ms, o.throttle_interval_ms, o.throttle_interval_source, o.trace_context
                           FROM job_options AS o WHERE o.job_id = \(job).id AND \(job).extras & 1 <> 0 OFFSET 0) AS o ON true
        LEFT JOIN LATERAL (SELECT a.progress, a.checkpoint, a.progressed_attempts, a.checkpoint_attempt, a.lost_in_a_row,
                                  a.last_lost_attempt
                           FROM job_attempt_state AS a WHERE a.job_id = \(job).id AND \(job).extras & 2 <> 0 OFFSET 0) AS a ON true
        """
    }

    /// Makes sure job `id` has a `job_attempt_state` row (with the defaults if new) and that its
    /// `extras` says so: the first write of an attempt's state. The caller holds the job's row.
    func ensureAttemptState(_ session: PostgresSession, of id: Int64) async throws {
        try await session.execute(
            """
            WITH row AS (INSERT INTO job_attempt_state (job_id) VALUES ($1) ON CONFLICT (job_id) DO NOTHING RETURNING job_id)
            UPDATE jobs SET extras = extras | 2 WHERE id = (SELECT job_id FROM row) AND extras & 2 = 0
            """, [id])
    }

    /// Takes back what attempt `attempt` of job `id` counted as progress, after the attempt itself
    /// was taken back (a snooze, a release, a wait): if it saved the current checkpoint, it no
    /// longer counts as an attempt that made progress. Nothing for a job without attempt state.
    func takeBackProgress(_ session: PostgresSession, of id: Int64, attempt: Int) async throws {
        try await session.execute(
            """
            UPDATE job_attempt_state SET progressed_attempts = progressed_attempts - 1, checkpoint_attempt = NULL
            WHERE job_id = $1 AND checkpoint_attempt = $2
            """, [id, attempt])
    }

    /// Counts attempt `attempt` of job `id` as one that made progress, once: a hand-off whose
    /// carrier gave the transfer back resumes from where it got.
    func countProgress(_ session: PostgresSession, of id: Int64, attempt: Int) async throws {
        try await ensureAttemptState(session, of: id)
        try await session.execute(
            """
            UPDATE job_attempt_state
            SET progressed_attempts = progressed_attempts + CASE WHEN checkpoint_attempt IS DISTINCT FROM $2 THEN 1 ELSE 0 END,
                checkpoint_attempt = $2
            WHERE job_id = $1
            """, [id, attempt])
    }

    /// Records job `id`'s lost attempts in a row (a recovery's verdict): a row only once one was lost.
    func recordLostAttempts(_ session: PostgresSession, _ lost: LostAttempts, of id: Int64) async throws {
        if lost.inARow != 0 || lost.lastLost != nil { try await ensureAttemptState(session, of: id) }
        try await session.execute(
            "UPDATE job_attempt_state SET lost_in_a_row = $2, last_lost_attempt = $3 WHERE job_id = $1", [id, lost.inARow, lost.lastLost])
    }

    /// Records job `id`'s hand-off to `target` (`active` while the job is handed off) as its latest.
    func recordHandOffTarget(_ session: PostgresSession, of id: Int64, _ target: HandOffTarget, active: Bool) async throws {
        try await session.execute(
            """
            WITH row AS (
                INSERT INTO job_wait_targets (job_id, active, due_at, handoff_deadline, handed_off_to, handoff_reference)
                VALUES ($1, $2, $3, $3, $4, $5)
                ON CONFLICT (job_id) DO UPDATE SET active = excluded.active, due_at = excluded.due_at,
                                                   handoff_deadline = excluded.handoff_deadline,
                                                   handed_off_to = excluded.handed_off_to,
                                                   handoff_reference = excluded.handoff_reference
            )
            UPDATE jobs SET extras = extras | 4 WHERE id = $1 AND extras & 4 = 0
            """, [id, active ? JobState.handedOff.rawValue : nil, target.deadline, target.carrier, target.reference])
    }

    /// Records job `id`'s wait for signal `name` until `deadline` (`active` while the job waits) as its latest.
    func recordWaitTarget(_ session: PostgresSession, of id: Int64, name: String, deadline: Int64?, active: Bool) async throws {
        try await session.execute(
            """
            WITH row AS (
                INSERT INTO job_wait_targets (job_id, active, due_at, wait_deadline, waiting_for) VALUES ($1, $2, $3, $3, $4)
                ON CONFLICT (job_id) DO UPDATE SET active = excluded.active, due_at = excluded.due_at,
                                                   wait_deadline = excluded.wait_deadline, waiting_for = excluded.waiting_for
            )
            UPDATE jobs SET extras = extras | 4 WHERE id = $1 AND extras & 4 = 0
            """, [id, active ? JobState.waiting.rawValue : nil, deadline, name])
    }

    /// Says that job `id`'s hand-off or wait is over: its `job_wait_targets` row stays as a record,
    /// out of idx_job_wait_targets_active. Nothing for a job without one.
    func endWaitTarget(_ session: PostgresSession, of id: Int64) async throws {
        try await session.execute("UPDATE job_wait_targets SET active = NULL WHERE job_id = $1 AND active IS NOT NULL", [id])
    }

    /// Takes out of idx_job_wait_targets_active the hand-offs and waits past `now` whose job left
    /// that state by a way that did not say so (a cancel, a retry): the deadline walks never see
    /// them again. What they return is right either way: they check each job's state. Rows another
    /// transaction holds are left for the next sweep.
    func forgetEndedWaitTargets(_ session: PostgresSession, before now: Int64) async throws {
        try await session.execute(
            """
            UPDATE job_wait_targets SET active = NULL
            WHERE job_id = ANY (ARRAY(
                SELECT w.job_id FROM job_wait_targets AS w
                WHERE w.active IS NOT NULL AND w.due_at < $1
                  AND NOT EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = w.job_id AND j.state = w.active)
                FOR NO KEY UPDATE SKIP LOCKED))
            """, [now])
    }
}
