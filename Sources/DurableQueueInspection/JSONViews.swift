import DurableQueue
import Foundation

/// The JSON shapes `--json` prints: keys as the SQL columns name them, times as ISO 8601 text.
extension JobRecord {
    /// The job as a JSON object; `input` and `output` are embedded as JSON.
    package var json: JSONValue {
        .object([
            ("id", .int(id.rawValue)), ("queue", .string(queue)), ("kind", .string(kind)), ("version", .int(Int64(version))),
            ("state", .string(state.rawValue)),
            ("priority", .int(Int64(priority.rawValue))), ("attempts", .int(Int64(attempts))),
            ("max_attempts", .int(maxAttempts.map(Int64.init))), ("progress", progress.map { .double($0) } ?? .null),
            ("tags", .array(tags.map { .string($0) })), ("unique_key", .string(uniqueKey)),
            ("partition_key", .string(partitionKey)), ("group_id", .int(group?.rawValue)),
            ("cancel_requested", .bool(cancelRequested)), ("run_at", .time(runAt)), ("created_at", .time(createdAt)),
            ("updated_at", .time(updatedAt)), ("started_at", .time(startedAt)), ("finished_at", .time(finishedAt)),
            ("lease_owner", .string(leaseOwner)), ("lease_expires_at", .time(leaseExpiresAt)),
            ("handed_off_to", .string(handOff?.carrier)), ("handoff_reference", .string(handOff?.reference)),
            ("handoff_deadline", .time(handOff?.deadline)), ("waiting_for", .string(waitingFor)),
            ("wait_deadline", .time(waitDeadline)),
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

extension JobRecord {
    /// The job as ``json`` shows it, with its events under `history`, oldest first, and its durable
    /// steps under `steps`.
    package func json(history: [JobEvent], steps: [StepRecord], dependencies: [DependencyRecord]) -> JSONValue {
        guard case .object(let members) = json else { return json }
        return .object(
            members + [
                ("history", .array(history.map(\.json))), ("steps", .array(steps.map(\.json))),
                ("dependencies", .array(dependencies.map(\.json))),
            ])
    }
}

extension JobEvent {
    /// The event as a JSON object.
    package var json: JSONValue {
        .object([
            ("at", .time(at)), ("from_state", .string(from?.rawValue)), ("to_state", .string(to.rawValue)),
            ("attempt", .int(Int64(attempt))), ("reason", .string(reason)), ("worker", .string(worker)),
        ])
    }
}

extension KindCoverage {
    /// The queue, the kind, its version, how many of its jobs wait there, how many running (and
    /// paused) workers run it there, and the versions of the kind those workers run (`[[1, 2]]`:
    /// versions 1 to 2), as a JSON object.
    package var json: JSONValue {
        .object([
            ("queue", .string(queue)), ("kind", .string(job.kind)), ("version", .int(Int64(job.version))), ("waiting", .int(Int64(waiting))),
            ("workers", .int(Int64(workers))), ("paused_workers", .int(Int64(pausedWorkers))),
            ("versions_run", .array(versionsRun.map { .array([.int(Int64($0.lowerBound)), .int(Int64($0.upperBound))]) })),
        ])
    }
}

extension KeyCounts {
    /// The key's unfinished jobs by state and its stored next start, as a JSON object (`key` null
    /// for jobs without one).
    package var json: JSONValue {
        .object([
            ("key", .string(key)),
            ("counts", .object(JobState.allCases.filter { JobFilter.unfinished.contains($0) }.map { ($0.rawValue, .int(Int64(self[$0]))) })),
            ("next_start_at", .time(nextStartAt)),
        ])
    }
}

extension StepRecord {
    /// The step as a JSON object, its output embedded as JSON.
    package var json: JSONValue {
        .object([
            ("name", .string(name)), ("attempt", .int(Int64(attempt))), ("output", JSONValue.parsing(output)),
            ("recorded_at", .time(recordedAt)),
        ])
    }
}

extension DependencyRecord {
    /// The dependency as a JSON object: its name, the job, the policy, how the job ended (`waiting`
    /// until it has), its output embedded as JSON, its error.
    package var json: JSONValue {
        .object([
            ("name", .string(name)), ("job_id", .int(job.rawValue)), ("on_failure", .string(onFailure.rawValue)),
            ("outcome", .string(outcome?.rawValue ?? "waiting")), ("output", output.map(JSONValue.parsing) ?? .null),
            ("error", error.map { .object([("type", .string($0.type)), ("message", .string($0.message))]) } ?? .null),
        ])
    }
}

extension QueueStatus {
    /// The queue's status as a JSON object: settings, counts by state, throttle and next start.
    package var json: JSONValue {
        let queue = configuration
        return .object([
            ("queue", .string(queue.name)), ("mode", .string(queue.mode.rawValue)),
            ("concurrency_limit", .int(Int64(queue.concurrencyLimit))), ("paused", .bool(queue.isPaused)),
            ("counts", .object(JobState.allCases.map { ($0.rawValue, .int(Int64(counts[$0]))) })),
            ("throttle_interval_ms", .int(queue.throttle.map { $0.interval.milliseconds })),
            ("throttle_measured_from", .string(queue.throttle?.measuredFrom.rawValue)),
            ("rate_limit_count", .int(queue.rateLimit.map { Int64($0.count) })),
            ("rate_limit_window_ms", .int(queue.rateLimit.map { $0.window.milliseconds })),
            ("partition_limit", .int(Int64(queue.partitionLimit))), ("fairness", .string(queue.fairness.rawValue)),
            ("key_throttle_interval_ms", .int(queue.keyThrottle.map { $0.interval.milliseconds })),
            ("key_throttle_measured_from", .string(queue.keyThrottle?.measuredFrom.rawValue)),
            ("key_rate_limit_count", .int(queue.keyRateLimit.map { Int64($0.count) })),
            ("key_rate_limit_window_ms", .int(queue.keyRateLimit.map { $0.window.milliseconds })),
            ("key_overrides", .object(queue.keyOverrides.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })),
            ("aging_interval_ms", .int(queue.aging.map { $0.every.milliseconds })),
            ("aging_up_to", .int(queue.aging.map { Int64($0.upTo.rawValue) })),
            ("next_start", .time(nextStartAt)),
        ])
    }
}

extension KeyLimits {
    /// The limits of a key as a JSON object, named as the `key_limits` table's columns.
    package var json: JSONValue {
        .object([
            ("concurrency_limit", .int(Int64(concurrencyLimit))),
            ("throttle_interval_ms", .int(throttle.map { $0.interval.milliseconds })),
            ("throttle_measured_from", .string(throttle?.measuredFrom.rawValue)),
            ("rate_limit_count", .int(rateLimit.map { Int64($0.count) })),
            ("rate_limit_window_ms", .int(rateLimit.map { $0.window.milliseconds })),
        ])
    }
}

extension ScheduleStatus {
    /// The schedule as a JSON object, keys as the `schedules` table names them.
    package var json: JSONValue {
        .object([
            ("name", .string(name)), ("kind", .string(kind)), ("queue", .string(queue)), ("rule", .string(rule.description)),
            ("paused", .bool(isPaused)), ("next_tick", .time(nextTick?.millisecondsSince1970)),
            ("last_tick", .time(lastTick?.millisecondsSince1970)), ("last_job_id", .int(lastJob?.rawValue)),
            ("last_job_state", .string(lastJobState?.rawValue)),
        ])
    }
}

extension GroupSummary {
    /// The outermost group as a JSON object, keys as the `group_list` view names them.
    package var json: JSONValue {
        .object([
            ("id", .int(id.rawValue)), ("kind", .string(kind)), ("name", .string(name)), ("state", .string(state.rawValue)),
            ("children", .int(Int64(children))), ("succeeded", .int(Int64(succeeded))), ("created_at", .time(createdAt)),
            ("finished_at", .time(finishedAt)), ("error", .string(error)),
        ])
    }
}

extension GroupResult {
    /// The group with its children (nested groups inside), each child's state and job id or group.
    package var json: JSONValue {
        .object([
            ("id", .int(id.rawValue)), ("name", .string(name)), ("state", .string(state.rawValue)), ("reason", .string(reason)),
            (
                "children",
                .array(
                    children.map { child in
                        var members: [(String, JSONValue)] = [
                            ("position", .int(Int64(child.position))), ("name", .string(child.name)), ("state", .string(child.state.rawValue)),
                        ]
                        switch child.content {
                        case .job(let id, let error):
                            members.append(("job_id", .int(id.rawValue)))
                            members.append(("error", .string(error?.description)))
                        case .group(let group):
                            members.append(("group", group.json))
                        }
                        return .object(members)
                    })
            ),
        ])
    }
}

extension QueueActivity {
    /// The activity as a JSON object: per-minute counts by outcome, percentiles, the oldest wait.
    package var json: JSONValue {
        func percentiles(_ value: Percentiles?) -> JSONValue {
            guard let value else { return .null }
            return .object([("count", .int(Int64(value.count))), ("p50_ms", .int(value.p50)), ("p95_ms", .int(value.p95)), ("p99_ms", .int(value.p99))])
        }
        return .object([
            ("queue", .string(queue)),
            ("per_minute", .array(perMinute.map { counts in .object(Outcome.allCases.map { ($0.rawValue, .int(Int64(counts[$0] ?? 0))) }) })),
            ("wait", percentiles(wait)), ("run", percentiles(run)), ("oldest_waiting_ms", .int(oldestWaiting)),
        ])
    }
}
