/// Whether a job may be retried by hand (`retry`), and what the retry records: the one rule both
/// stores apply. A retried job goes back to `pending` with fresh attempts, its checkpoint kept.
package enum ManualRetry {
    /// Checks that job `id`, in `state`, of group `group`, may be retried; `uniqueKeyHolder` is an
    /// unfinished job holding the same unique key (`key`), if any.
    ///
    /// A parked job (``JobState/parked``) may be retried whatever its group: it never ended, so its
    /// group still waits for it.
    ///
    /// - Throws: `invalidArgument` when the job has not failed, been cancelled or been parked,
    ///   belongs to a sequence or group (unless parked), or another unfinished job holds its unique key.
    package static func check(_ id: JobID, state: JobState, group: GroupID?, uniqueKey key: String?, uniqueKeyHolder: JobID?) throws {
        guard state == .failed || state == .cancelled || state == .parked else {
            throw DurableQueueError(
                .invalidArgument, "only a failed, cancelled or parked job can be retried; this one is \(state.rawValue)", jobID: id)
        }
        guard group == nil || state == .parked else {
            throw DurableQueueError(
                .invalidArgument, "a job of a sequence or group cannot be retried on its own; enqueue the composition again", jobID: id)
        }
        if let key, let holder = uniqueKeyHolder {
            throw DurableQueueError(.invalidArgument, "job \(holder) is unfinished and holds the same unique key '\(key)'", jobID: id)
        }
    }

    /// The history row's reason for a job retried after `attempts` attempts, by `via` (a bulk
    /// action's words) if not by itself.
    package static func reason(afterAttempts attempts: Int, via: String? = nil) -> String {
        "retry requested after \(attempts) attempt(s)" + (via.map { "; \($0)" } ?? "")
    }
}
