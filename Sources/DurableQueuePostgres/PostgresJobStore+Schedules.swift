import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Creates or replaces a schedule's job and rule; see ``JobStore/saveSchedule(_:now:)``.
    package func saveSchedule(_ schedule: ScheduleRecord, now: Int64) async throws {
        try schedule.job.validate()
        let job = schedule.job
        let rule = StoredScheduleRule(schedule.rule)
        let tags = try ScheduleColumns.tags(job.tags)
        _ = try await write("save schedule '\(schedule.name)'", transaction: false) { session in
            let values: [(any PostgresValue)?] = [
                schedule.name, job.kind, job.queue, job.input, job.priority.rawValue, job.maxAttempts, job.retryPolicy,
                job.timeoutMilliseconds, job.uniqueKey, job.uniquePolicy.rawValue, tags, job.throttleIntervalMilliseconds,
                rule.cron, rule.timeZone, rule.intervalMilliseconds, rule.jitterMilliseconds, rule.missed, rule.catchUpMax,
                schedule.isPaused, schedule.nextTickAt, now,
            ]
            return try await session.execute(
                """
                INSERT INTO schedules AS s (name, kind, queue, input, priority, max_attempts, retry_policy, timeout_ms, unique_key,
                                            unique_policy, tags, throttle_interval_ms, cron, time_zone, interval_ms, jitter_ms,
                                            missed, catch_up_max, paused, next_tick_at, created_at, updated_at)
                VALUES ($1, $2, $3, $4::text::jsonb, $5, $6::integer, $7::text, $8::bigint, $9::text, $10, $11::text::jsonb,
                        $12::bigint, $13::text, $14::text, $15::bigint, $16, $17, $18::integer, $19, $20::bigint, $21, $21)
                ON CONFLICT (name) DO UPDATE SET
                    kind = excluded.kind, queue = excluded.queue, input = excluded.input, priority = excluded.priority,
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
    }

    /// Deletes a schedule; false if there was none.
    package func deleteSchedule(named name: String) async throws -> Bool {
        try await write("delete schedule '\(name)'", transaction: false) { session in
            try await session.execute("DELETE FROM schedules WHERE name = $1", [name]) == 1
        }
    }

    /// Pauses or resumes a schedule; see ``JobStore/setSchedulePaused(_:named:nextTickAt:now:)``.
    package func setSchedulePaused(_ paused: Bool, named name: String, nextTickAt: Int64?, now: Int64) async throws -> Bool {
        try await write("\(paused ? "pause" : "resume") schedule '\(name)'", transaction: false, now: now) { session, now in
            return try await session.execute(
                """
                UPDATE schedules
                SET next_tick_at = CASE WHEN paused = 1 AND $1 = 0 THEN $2::bigint ELSE next_tick_at END, paused = $1, updated_at = $3
                WHERE name = $4
                """, [paused, nextTickAt, now, name]) == 1
        }
    }

    /// Every schedule, or the one named, by name.
    package func schedules(named name: String?) async throws -> [ScheduleRecord] {
        try await read("read schedules") { [self] session in
            try await schedules(session, where: "$1::text IS NULL OR s.name = $1", [name])
        }
    }

    /// Unpaused schedules whose next tick is due by `now`.
    package func dueSchedules(now: Int64) async throws -> [ScheduleRecord] {
        try await read("find due schedules") { [self] session in
            try await schedules(session, where: "s.paused = 0 AND s.next_tick_at <= $1", [now])
        }
    }

    /// When the earliest unpaused schedule's next tick is due.
    package func nextScheduleTick() async throws -> Int64? {
        try await read("find the next schedule tick") { session in
            try await session.int64("SELECT min(next_tick_at) FROM schedules WHERE paused = 0 AND next_tick_at IS NOT NULL")
        }
    }

    /// Enqueues a schedule's due jobs and moves its next tick on; see ``JobStore/fireSchedule(named:due:nextTickAt:jobs:now:)``.
    ///
    /// Nodes firing at once queue on the schedule's row lock; the later one finds the next tick moved.
    package func fireSchedule(named name: String, due: Int64, nextTickAt: Int64?, jobs: [(tick: Int64, job: NewJob)], now: Int64)
        async throws -> [EnqueueOutcome]?
    {
        for (_, job) in jobs { try job.validate() }
        let jobs = jobs.map { TickJob(tick: $0.tick, job: $0.job) }
        return try await write("enqueue the jobs of schedule '\(name)'", now: now) { [self] session, now in
            let moved = try await session.execute(
                "UPDATE schedules SET next_tick_at = $1::bigint WHERE name = $2 AND next_tick_at = $3 AND paused = 0",
                [nextTickAt, name, due])
            guard moved == 1 else { return nil }
            var outcomes: [EnqueueOutcome] = []
            for tick in jobs { outcomes.append(try await insert(session, tick.job, now: now)) }
            if let last = jobs.last, let outcome = outcomes.last {
                try await session.execute(
                    "UPDATE schedules SET last_tick_at = $1, last_job_id = $2 WHERE name = $3", [last.tick, outcome.id.rawValue, name])
            }
            return outcomes
        }
    }

    /// A tick's job, carried into the transaction.
    private struct TickJob: Sendable {
        var tick: Int64
        var job: NewJob
    }

    private func schedules(_ session: PostgresSession, where condition: String, _ values: [(any PostgresValue)?]) async throws
        -> [ScheduleRecord]
    {
        try await session.rows(
            """
            SELECT s.name, s.kind, s.queue, s.input::text, s.priority, s.max_attempts, s.retry_policy, s.timeout_ms, s.unique_key,
                   s.unique_policy, s.tags::text, s.throttle_interval_ms, s.cron, s.time_zone, s.interval_ms, s.jitter_ms, s.missed,
                   s.catch_up_max, s.paused, s.next_tick_at, s.last_tick_at, s.last_job_id, j.state
            FROM schedules AS s LEFT JOIN jobs AS j ON j.id = s.last_job_id
            WHERE \(condition) ORDER BY s.name
            """, values
        ).map { row in
            let job = NewJob(
                queue: try row.string(2), kind: try row.string(1), input: try row.string(3),
                priority: Priority(rawValue: try row.int(4)), maxAttempts: try row.optionalInt(5),
                retryPolicy: try row.optionalString(6), timeoutMilliseconds: try row.optionalInt64(7),
                uniqueKey: try row.optionalString(8), uniquePolicy: UniquePolicy(rawValue: try row.string(9)) ?? .keep,
                tags: try ScheduleColumns.tags(row.string(10)), throttleIntervalMilliseconds: try row.optionalInt64(11))
            let rule = StoredScheduleRule(
                cron: try row.optionalString(12), timeZone: try row.optionalString(13), intervalMilliseconds: try row.optionalInt64(14),
                jitterMilliseconds: try row.int64(15), missed: try row.string(16), catchUpMax: try row.optionalInt(17))
            return ScheduleRecord(
                name: try row.string(0), job: job, rule: rule.rule, isPaused: try row.bool(18), nextTickAt: try row.optionalInt64(19),
                lastTickAt: try row.optionalInt64(20), lastJobID: try row.optionalInt64(21).map(JobID.init),
                lastJobState: try row.optionalString(22).map { try JobState(stored: $0) })
        }
    }
}
