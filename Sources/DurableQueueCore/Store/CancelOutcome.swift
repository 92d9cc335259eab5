/// What a cancel request did to one job.
package enum CancelOutcome: Sendable, Hashable {
    /// The job was waiting and is now `cancelled`.
    case cancelled
    /// The job is running: its cancel flag is set, and its worker must stop it.
    case requested
    /// The job had already finished in this state; nothing changed.
    case alreadyFinished(JobState)
}
