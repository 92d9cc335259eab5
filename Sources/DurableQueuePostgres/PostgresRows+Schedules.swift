import DurableQueue

extension PostgresRows: ScheduleRows {
    func saveScheduleRow(_ schedule: ScheduleRecord, now: Int64) async throws {
        let job = schedule.job
        let rule = StoredScheduleRule(schedule.rule)
        let values: [(any PostgresValue)?] = [
            schedule.name, job.kind, job.queue, job.input, job.priority.rawValue, job.maxAttempts, job.retryPolicy,
            job.timeoutMilliseconds, job.uniqueKey, job.uniquePolicy.rawValue, try ScheduleColumns.tags(job.tags),
            job.throttleIntervalMilliseconds, rule.cron, rule.timeZone, rule.intervalMilliseconds, rule.jitterMilliseconds,
            rule.missed, rule.catchUpMax, schedule.isPaused, schedule.nextTickAt, now, job.version,
        ]
        try await session.execute(
            """
            INSERT INTO schedules AS s (name, kind, queue, input, priority, max_attempts, retry_policy, timeout_ms, unique_key,
                                        unique_policy, tags, throttle_interval_ms, cron, time_zone, interval_ms, jitter_ms,
                                        missed, catch_up_max, paused, next_tick_at, created_at, updated_at, version)
            VALUES ($1, $2, $3, $4::text::jsonb, $5, $6::integer, $7::text, $8::bigint, $9::text, $10, $11::text::jsonb,
                    $12::bigint, $13::text, $14::text, $15::bigint, $16, $17, $18::integer, $19, $20::bigint, $21, $21, $22::integer)
            ON CONFLICT (name) DO UPDATE SET
                kind = excluded.kind, version = excluded.version, queue = excluded.queue, input = excluded.input, priority = excluded.priority,
                max_attempts = excluded.max_attempts, retry_policy = excluded.retry_policy,
                timeout_ms = excluded.timeout_ms, unique_key = excluded.unique_key,
                unique_policy = excluded.unique_policy, tags = excluded.tags,
                throttle_interval_ms = excluded.throttle_interval_ms, jitter_ms = excluded.jitter_ms,
                missed = excluded.missed, catch_up_max = excluded.catch_up_max,
                next_tick_at = CASE WHEN s.cron IS NOT DISTINCT FROM excluded.cron
                                         AND s.time_zone IS NOT DISTINCT FROM excluded.time_zone
                                         AND s.interval_ms IS NOT DISTINCT FROM excluded.interval_ms
                                    THEN s.next_tick_at ELSE excluded.next_tick_at END,
                cron = excluded.cron, time_zone = excluded.time_zone, interval_ms = excluded.interval_ms,
                updated_at = excluded.updated_at
            """, values)
    }

    func deleteScheduleRow(named name: String) async throws -> Bool {
        try await session.execute("DELETE FROM schedules WHERE name = $1", [name]) == 1
    }

    func markSchedulePaused(_ paused: Bool, named name: String, nextTickAt: Int64?, now: Int64) async throws -> Bool {
        try await session.execute(
            """
            UPDATE schedules
            SET next_tick_at = CASE WHEN paused = 1 AND $1 = 0 THEN $2::bigint ELSE next_tick_at END, paused = $1, updated_at = $3
            WHERE name = $4
            """, [paused, nextTickAt, now, name]) == 1
    }

    /// Processes firing at once queue on the schedule's row lock; the later one finds the tick moved.
    func moveScheduleTick(named name: String, from due: Int64, to nextTickAt: Int64?) async throws -> Bool {
        try await session.execute(
            "UPDATE schedules SET next_tick_at = $1::bigint WHERE name = $2 AND next_tick_at = $3 AND paused = 0", [nextTickAt, name, due]) == 1
    }

    func enqueueJob(_ job: NewJob, now: Int64) async throws -> EnqueueOutcome {
        try await store.insert(session, job, now: now)
    }

    func recordScheduleTick(named name: String, tick: Int64, job: JobID) async throws {
        try await session.execute("UPDATE schedules SET last_tick_at = $1, last_job_id = $2 WHERE name = $3", [tick, job.rawValue, name])
    }
}
