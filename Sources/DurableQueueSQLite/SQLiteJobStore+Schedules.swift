import DurableQueueCore
import Foundation

extension SQLiteJobStore {
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

    private func schedules(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [ScheduleRecord] {
        var result: [ScheduleRecord] = []
        try connection.query(
            """
            SELECT s.name, s.kind, s.queue, s.input, s.priority, s.max_attempts, s.retry_policy, s.timeout_ms, s.unique_key,
                   s.unique_policy, s.tags, s.throttle_interval_ms, s.cron, s.time_zone, s.interval_ms, s.jitter_ms, s.missed,
                   s.catch_up_max, s.paused, s.next_tick_at, s.last_tick_at, s.last_job_id, j.state, s.version
            FROM schedules AS s LEFT JOIN jobs AS j ON j.id = s.last_job_id
            \(clause) ORDER BY s.name
            """, arguments
        ) { row in
            let job = NewJob(
                queue: row.string(2), kind: row.string(1), version: Int(row.int64(23)), input: row.string(3), priority: Priority(rawValue: Int(row.int64(4))),
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
