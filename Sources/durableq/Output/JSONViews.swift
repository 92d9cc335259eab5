import DurableQueue

/// The JSON shapes `--json` prints: keys as the SQL columns name them, times as ISO 8601 text.
extension JobRecord {
    /// The job as a JSON object; `input` and `output` are embedded as JSON.
    var json: JSONValue {
        .object([
            ("id", .int(id.rawValue)), ("queue", .string(queue)), ("kind", .string(kind)), ("state", .string(state.rawValue)),
            ("priority", .int(Int64(priority.rawValue))), ("attempts", .int(Int64(attempts))),
            ("max_attempts", .int(maxAttempts.map(Int64.init))), ("progress", progress.map { .double($0) } ?? .null),
            ("tags", .array(tags.map { .string($0) })), ("unique_key", .string(uniqueKey)),
            ("cancel_requested", .bool(cancelRequested)), ("run_at", .time(runAt)), ("created_at", .time(createdAt)),
            ("updated_at", .time(updatedAt)), ("started_at", .time(startedAt)), ("finished_at", .time(finishedAt)),
            ("lease_owner", .string(leaseOwner)), ("lease_expires_at", .time(leaseExpiresAt)),
            ("checkpoint_bytes", .int(checkpoint.map { Int64($0.count) })), ("input", JSONValue.parsing(input)),
            ("output", output.map(JSONValue.parsing) ?? .null),
            (
                "error",
                error.map { .object([("type", .string($0.type)), ("message", .string($0.message)), ("retryable", .bool($0.retryable))]) }
                    ?? .null
            ),
        ])
    }
}

extension JobEvent {
    /// The event as a JSON object.
    var json: JSONValue {
        .object([
            ("at", .time(at)), ("from_state", .string(from?.rawValue)), ("to_state", .string(to.rawValue)),
            ("attempt", .int(Int64(attempt))), ("reason", .string(reason)), ("worker", .string(worker)),
        ])
    }
}

extension QueueStatus {
    /// The queue's status as a JSON object: settings, counts by state, throttle and next start.
    var json: JSONValue {
        let queue = configuration
        return .object([
            ("queue", .string(queue.name)), ("mode", .string(queue.mode.rawValue)),
            ("concurrency_limit", .int(Int64(queue.concurrencyLimit))), ("suspended", .bool(queue.isSuspended)),
            ("counts", .object(JobState.allCases.map { ($0.rawValue, .int(Int64(counts[$0]))) })),
            ("throttle_interval_ms", .int(queue.throttle.map { $0.interval.milliseconds })),
            ("throttle_measured_from", .string(queue.throttle?.measuredFrom.rawValue)),
            ("rate_limit_count", .int(queue.rateLimit.map { Int64($0.count) })),
            ("rate_limit_window_ms", .int(queue.rateLimit.map { $0.window.milliseconds })),
            ("next_start", .time(nextStartAt)),
        ])
    }
}
