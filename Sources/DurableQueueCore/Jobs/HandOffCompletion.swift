/// What a report from outside for a handed-off attempt did (see
/// ``JobQueue/HandOffs/complete(job:attempt:output:)`` and ``JobQueue/HandOffs/fail(job:attempt:error:retryable:)``).
public enum HandOffCompletion: Sendable, Hashable {
    /// The report ended the attempt: the job is in this state now (`succeeded`; `failed`; `pending` or
    /// `scheduled` for another attempt; `cancelled` if a cancel was requested first).
    case recorded(JobState)
    /// The job no longer shows that attempt handed off — it was cancelled, timed out, given back or
    /// run again — so the report changed nothing but a note in the job's history. The job is in
    /// `state` at attempt `attempt`.
    case refused(state: JobState, attempt: Int)

    /// Whether the report ended the attempt.
    public var isRecorded: Bool {
        if case .recorded = self { return true }
        return false
    }
}
