import DurableQueue
import Foundation

extension PostgresJobStore {
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

    private func schedules(_ session: PostgresSession, where condition: String, _ values: [(any PostgresValue)?]) async throws
        -> [ScheduleRecord]
    {
        try await session.rows(
            """
            SELECT s.name, s.kind, s.queue, s.input::text, s.priority, s.max_attempts, s.retry_policy, s.timeout_ms, s.unique_key,
                   s.unique_policy, s.tags::text, s.throttle_interval_ms, s.cron, s.time_zone, s.interval_ms, s.jitter_ms, s.missed,
                   s.catch_up_max, s.paused, s.next_tick_at, s.last_tick_at, s.last_job_id, j.state, s.version
            FROM schedules AS s LEFT JOIN jobs AS j ON j.id = s.last_job_id
            WHERE \(condition) ORDER BY s.name
            """, values
        ).map { row in
            let job = NewJob(
                queue: try row.string(2), kind: try row.string(1), version: try row.int(23), input: try row.string(3),
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
