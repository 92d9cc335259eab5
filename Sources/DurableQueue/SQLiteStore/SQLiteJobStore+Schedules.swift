import Foundation

extension SQLiteJobStore {
    /// Creates or replaces a schedule's job and rule; see ``JobStore/saveSchedule(_:now:)``.
    package func saveSchedule(_ schedule: ScheduleRecord, now: Int64) throws {
        try schedule.job.validate()
        let job = schedule.job
        let rule = StoredScheduleRule(schedule.rule)
        try write("save schedule '\(schedule.name)'", now: now) { now in
            try connection.execute(
                """
                INSERT INTO schedules (name, kind, queue, input, priority, max_attempts, retry_policy, timeout_ms, unique_key,
                                       unique_policy, tags, throttle_interval_ms, cron, time_zone, interval_ms, jitter_ms,
                                       missed, catch_up_max, paused, next_tick_at, created_at, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?21)
                ON CONFLICT (name) DO UPDATE SET
                    kind = excluded.kind, queue = excluded.queue, input = excluded.input, priority = excluded.priority,
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
                    rule.jitterMilliseconds, rule.missed, rule.catchUpMax, schedule.isPaused, schedule.nextTickAt, now,
                ])
        }
    }

    /// Deletes a schedule; false if there was none.
    package func deleteSchedule(named name: String) throws -> Bool {
        try write("delete schedule '\(name)'") {
            try connection.execute("DELETE FROM schedules WHERE name = ?", [name])
            return try connection.changes == 1
        }
    }

    /// Pauses or resumes a schedule; see ``JobStore/setSchedulePaused(_:named:nextTickAt:now:)``.
    package func setSchedulePaused(_ paused: Bool, named name: String, nextTickAt: Int64?, now: Int64) throws -> Bool {
        try write("\(paused ? "pause" : "resume") schedule '\(name)'", now: now) { now in
            try connection.execute(
                """
                UPDATE schedules
                SET next_tick_at = CASE WHEN paused = 1 AND ?1 = 0 THEN ?2 ELSE next_tick_at END, paused = ?1, updated_at = ?3
                WHERE name = ?4
                """, [paused, nextTickAt, now, name])
            return try connection.changes == 1
        }
    }

    /// Every schedule, or the one named, by name.
    package func schedules(named name: String?) throws -> [ScheduleRecord] {
        try read("read schedules") {
            try schedules(where: name == nil ? "" : "WHERE s.name = ?", name.map { [$0] } ?? [])
        }
    }

    /// Unpaused schedules whose next tick is due by `now`.
    package func dueSchedules(now: Int64) throws -> [ScheduleRecord] {
        try read("find due schedules") {
            try schedules(where: "WHERE s.paused = 0 AND s.next_tick_at <= ?", [now])
        }
    }

    /// When the earliest unpaused schedule's next tick is due.
    package func nextScheduleTick() throws -> Int64? {
        try read("find the next schedule tick") {
            try connection.scalarInt64("SELECT min(next_tick_at) FROM schedules WHERE paused = 0 AND next_tick_at IS NOT NULL")
        }
    }

    /// Enqueues a schedule's due jobs and moves its next tick on; see ``JobStore/fireSchedule(named:due:nextTickAt:jobs:now:)``.
    package func fireSchedule(named name: String, due: Int64, nextTickAt: Int64?, jobs: [(tick: Int64, job: NewJob)], now: Int64)
        throws -> [EnqueueOutcome]?
    {
        for (_, job) in jobs { try job.validate() }
        return try write("enqueue the jobs of schedule '\(name)'", now: now) { now in
            try connection.execute(
                "UPDATE schedules SET next_tick_at = ? WHERE name = ? AND next_tick_at = ? AND paused = 0", [nextTickAt, name, due])
            // Another process fired this tick, or the schedule changed since it was read.
            guard try connection.changes == 1 else { return nil }
            var outcomes: [EnqueueOutcome] = []
            for (_, job) in jobs { outcomes.append(try insert(job, now: now)) }
            if let last = jobs.last, let outcome = outcomes.last {
                try connection.execute(
                    "UPDATE schedules SET last_tick_at = ?, last_job_id = ? WHERE name = ?", [last.tick, outcome.id.rawValue, name])
            }
            return outcomes
        }
    }

    private func schedules(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [ScheduleRecord] {
        var result: [ScheduleRecord] = []
        try connection.query(
            """
            SELECT s.name, s.kind, s.queue, s.input, s.priority, s.max_attempts, s.retry_policy, s.timeout_ms, s.unique_key,
                   s.unique_policy, s.tags, s.throttle_interval_ms, s.cron, s.time_zone, s.interval_ms, s.jitter_ms, s.missed,
                   s.catch_up_max, s.paused, s.next_tick_at, s.last_tick_at, s.last_job_id, j.state
            FROM schedules AS s LEFT JOIN jobs AS j ON j.id = s.last_job_id
            \(clause) ORDER BY s.name
            """, arguments
        ) { row in
            let job = NewJob(
                queue: row.string(2), kind: row.string(1), input: row.string(3), priority: Priority(rawValue: Int(row.int64(4))),
                maxAttempts: row.optionalInt(5), retryPolicy: row.optionalString(6), timeoutMilliseconds: row.optionalInt64(7),
                uniqueKey: row.optionalString(8), uniquePolicy: UniquePolicy(rawValue: row.string(9)) ?? .keep,
                tags: try ScheduleColumns.tags(row.string(10)), throttleIntervalMilliseconds: row.optionalInt64(11))
            let rule = StoredScheduleRule(
                cron: row.optionalString(12), timeZone: row.optionalString(13), intervalMilliseconds: row.optionalInt64(14),
                jitterMilliseconds: row.int64(15), missed: row.string(16), catchUpMax: row.optionalInt(17))
            result.append(
                ScheduleRecord(
                    name: row.string(0), job: job, rule: rule.rule, isPaused: row.int64(18) != 0, nextTickAt: row.optionalInt64(19),
                    lastTickAt: row.optionalInt64(20), lastJobID: row.optionalInt64(21).map(JobID.init),
                    lastJobState: try row.optionalString(22).map { try JobState(stored: $0) }))
        }
        return result
    }
}
