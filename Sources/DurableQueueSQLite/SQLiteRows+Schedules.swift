import DurableQueueCore
import Foundation

extension SQLiteRows: ScheduleRows {
    func saveScheduleRow(_ schedule: ScheduleRecord, now: Int64) async throws {
        let job = schedule.job
        let rule = StoredScheduleRule(schedule.rule)
        try onStore { store in
            try store.connection.execute(
                """
                INSERT INTO schedules (name, kind, queue, input, priority, max_attempts, retry_policy, timeout_ms, unique_key,
                                       unique_policy, tags, throttle_interval_ms, cron, time_zone, interval_ms, jitter_ms,
                                       missed, catch_up_max, paused, next_tick_at, created_at, updated_at, version)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?21, ?22)
                ON CONFLICT (name) DO UPDATE SET
                    kind = excluded.kind, version = excluded.version, queue = excluded.queue, input = excluded.input, priority = excluded.priority,
                    max_attempts = excluded.max_attempts, retry_policy = excluded.retry_policy,
                    timeout_ms = excluded.timeout_ms, unique_key = excluded.unique_key,
                    unique_policy = excluded.unique_policy, tags = excluded.tags,
                    throttle_interval_ms = excluded.throttle_interval_ms, jitter_ms = excluded.jitter_ms,
                    missed = excluded.missed, catch_up_max = excluded.catch_up_max,
                    next_tick_at = CASE WHEN cron IS excluded.cron AND time_zone IS excluded.time_zone
                                             AND interval_ms IS excluded.interval_ms
                                        THEN next_tick_at ELSE excluded.next_tick_at END,
                    cron = excluded.cron, time_zone = excluded.time_zone, interval_ms = excluded.interval_ms,
                    updated_at = excluded.updated_at
                """,
                [
                    schedule.name, job.kind, job.queue, job.input, job.priority.rawValue, job.maxAttempts, job.retryPolicy,
                    job.timeoutMilliseconds, job.uniqueKey, job.uniquePolicy.rawValue, try ScheduleColumns.tags(job.tags),
                    job.throttleIntervalMilliseconds, rule.cron, rule.timeZone, rule.intervalMilliseconds,
                    rule.jitterMilliseconds, rule.missed, rule.catchUpMax, schedule.isPaused, schedule.nextTickAt, now, job.version,
                ])
        }
    }

    func deleteScheduleRow(named name: String) async throws -> Bool {
        try onStore { store in
            try store.connection.execute("DELETE FROM schedules WHERE name = ?", [name])
            return try store.connection.changes == 1
        }
    }

    func markSchedulePaused(_ paused: Bool, named name: String, nextTickAt: Int64?, now: Int64) async throws -> Bool {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE schedules
                SET next_tick_at = CASE WHEN paused = 1 AND ?1 = 0 THEN ?2 ELSE next_tick_at END, paused = ?1, updated_at = ?3
                WHERE name = ?4
                """, [paused, nextTickAt, now, name])
            return try store.connection.changes == 1
        }
    }

    func moveScheduleTick(named name: String, from due: Int64, to nextTickAt: Int64?) async throws -> Bool {
        try onStore { store in
            try store.connection.execute(
                "UPDATE schedules SET next_tick_at = ? WHERE name = ? AND next_tick_at = ? AND paused = 0", [nextTickAt, name, due])
            return try store.connection.changes == 1
        }
    }

    func enqueueJob(_ job: NewJob, now: Int64) async throws -> EnqueueOutcome {
        try onStore { try $0.insert(job, now: now) }
    }

    func recordScheduleTick(named name: String, tick: Int64, job: JobID) async throws {
        try onStore { store in
            try store.connection.execute("UPDATE schedules SET last_tick_at = ?, last_job_id = ? WHERE name = ?", [tick, job.rawValue, name])
        }
    }
}
