import DurableQueueCore

/// A job's `job_options` row: what its enqueuer chose beyond the defaults.
struct JobOptionsRow {
    let timeoutMilliseconds: Int64?
    let throttleInterval: Int64
    let throttleSource: StaticString
    let retryPolicy: String?
    let traceContext: String?

    /// `job`'s row, nil when every value is the default (the job then has none): no retry policy,
    /// timeout or trace context, and its queue's throttle interval of 0.
    init?(of job: NewJob, throttle: (interval: Int64, setByJob: Bool)) {
        guard job.retryPolicy != nil || job.timeoutMilliseconds != nil || job.traceContext != nil || throttle.interval != 0
            || throttle.setByJob
        else { return nil }
        timeoutMilliseconds = job.timeoutMilliseconds
        throttleInterval = throttle.interval
        throttleSource = throttle.setByJob ? "job" : "queue"
        retryPolicy = job.retryPolicy
        traceContext = job.traceContext
    }
}

/// What a claim reads of a job's side rows.
struct ClaimExtras {
    var retryPolicy: String?
    var timeoutMilliseconds: Int64?
    var throttleInterval: Int64 = 0
    var traceContext: String?
    var checkpoint: [UInt8]?
    var progressedAttempts = 0
}

extension SQLiteJobStore {
    /// Inserts job `id`'s `job_options` row; the job's `extras` has ``JobExtras/options`` set already.
    func insertOptions(_ options: JobOptionsRow, of id: Int64) throws {
        try connection.execute(Self.insertOptionsStatement) { binder in
            binder.bind(id)
            binder.bind(options.timeoutMilliseconds)
            binder.bind(options.throttleInterval)
            binder.bind(options.throttleSource)
            binder.bind(options.retryPolicy)
            binder.bind(options.traceContext)
        }
    }

    private static let insertOptionsStatement = """
        INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy,
                                 trace_context)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        """

    /// What a claim of job `id` reads of the side rows `extras` says it has.
    func claimExtras(of id: Int64, extras: JobExtras) throws -> ClaimExtras {
        var read = ClaimExtras()
        if extras.contains(.options) {
            try connection.query(Self.claimOptionsStatement, [id]) { row in
                read.retryPolicy = row.optionalString(0)
                read.timeoutMilliseconds = row.optionalInt64(1)
                read.throttleInterval = row.int64(2)
                read.traceContext = row.optionalString(3)
            }
        }
        if extras.contains(.attemptState) {
            try connection.query(Self.claimAttemptStateStatement, [id]) { row in
                read.checkpoint = row.optionalBlob(0)
                read.progressedAttempts = Int(row.int64(1))
            }
        }
        return read
    }

    private static let claimOptionsStatement =
        "SELECT retry_policy, timeout_ms, throttle_interval_ms, trace_context FROM job_options WHERE job_id = ?"
    private static let claimAttemptStateStatement =
        "SELECT checkpoint, progressed_attempts FROM job_attempt_state WHERE job_id = ?"

    /// SQL of job `jobs.id`'s throttle interval: 0 unless its `job_options` row says otherwise.
    /// For statements that read the job's row as `jobs`.
    static let throttleIntervalOfJob =
        "CASE WHEN jobs.extras & 1 THEN (SELECT o.throttle_interval_ms FROM job_options AS o WHERE o.job_id = jobs.id) ELSE 0 END"

    /// SQL of job `jobs.id`'s progressed attempts: 0 unless its `job_attempt_state` row says otherwise.
    static let progressedAttemptsOfJob =
        "CASE WHEN jobs.extras & 2 THEN (SELECT a.progressed_attempts FROM job_attempt_state AS a WHERE a.job_id = jobs.id) ELSE 0 END"

    /// Makes sure job `id` has a `job_attempt_state` row (with the defaults if new) and that its
    /// `extras` says so: the first write of an attempt's state.
    func ensureAttemptState(of id: Int64) throws {
        try connection.execute(Self.ensureAttemptStateStatement, [id])
        try connection.execute("UPDATE jobs SET extras = extras | 2 WHERE id = ?1 AND NOT extras & 2", [id])
    }

    private static let ensureAttemptStateStatement =
        "INSERT INTO job_attempt_state (job_id) VALUES (?1) ON CONFLICT (job_id) DO NOTHING"

    /// Takes back what attempt `attempt` of job `id` counted as progress, after the attempt itself
    /// was taken back (a snooze, a release, a wait): if it saved the current checkpoint, it no
    /// longer counts as an attempt that made progress. Nothing for a job without attempt state.
    func takeBackProgress(of id: Int64, attempt: Int) throws {
        try connection.execute(Self.takeBackProgressStatement, [id, attempt])
    }

    private static let takeBackProgressStatement = """
        UPDATE job_attempt_state
        SET progressed_attempts = progressed_attempts - (checkpoint_attempt IS ?2),
            checkpoint_attempt = CASE WHEN checkpoint_attempt IS ?2 THEN NULL ELSE checkpoint_attempt END
        WHERE job_id = ?1
        """

    /// Counts attempt `attempt` of job `id` as one that made progress, once: a hand-off whose
    /// carrier gave the transfer back resumes from where it got.
    func countProgress(of id: Int64, attempt: Int) throws {
        try ensureAttemptState(of: id)
        try connection.execute(
            """
            UPDATE job_attempt_state
            SET progressed_attempts = progressed_attempts + (checkpoint_attempt IS NOT ?2), checkpoint_attempt = ?2
            WHERE job_id = ?1
            """, [id, attempt])
    }

    /// Records job `id`'s lost attempts in a row (a recovery's verdict): a row only once one was lost.
    func recordLostAttempts(_ lost: LostAttempts, of id: Int64) throws {
        if lost.inARow != 0 || lost.lastLost != nil { try ensureAttemptState(of: id) }
        try connection.execute(
            "UPDATE job_attempt_state SET lost_in_a_row = ?2, last_lost_attempt = ?3 WHERE job_id = ?1",
            [id, lost.inARow, lost.lastLost])
    }

    /// Says that job `id`'s hand-off or wait is over: its `job_wait_targets` row stays as a record,
    /// out of idx_job_wait_targets_active. Nothing for a job without one.
    func endWaitTarget(of id: Int64) throws {
        try connection.execute("UPDATE job_wait_targets SET active = NULL WHERE job_id = ?1 AND active IS NOT NULL", [id])
    }

    /// Takes out of idx_job_wait_targets_active the hand-offs and waits past `now` whose job left
    /// that state by a way that did not say so (a cancel, a retry): the deadline walks never see
    /// them again. What they return is right either way: they check each job's state.
    func forgetEndedWaitTargets(before now: Int64) throws {
        try connection.execute(
            """
            UPDATE job_wait_targets SET active = NULL
            WHERE active IS NOT NULL AND due_at < ?1
              AND NOT EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = job_wait_targets.job_id AND j.state = job_wait_targets.active)
            """, [now])
    }
}
