/// Which side tables hold a row for a job: `jobs.extras` (SQLite schema 29, PostgreSQL schema 24).
/// A claim reads a side table only for the jobs whose bit says it has their row, so a plain job
/// pays for none. (Bit 4, a `job_wait_targets` row, is for readers of the database: no claim or
/// ending reads that table.)
package struct JobExtras: OptionSet, Sendable {
    package let rawValue: Int64

    /// A set of the bits `rawValue`.
    package init(rawValue: Int64) { self.rawValue = rawValue }

    /// `job_options`: a retry policy, timeout, trace context or throttle interval of the job's own.
    package static let options = JobExtras(rawValue: 1)
    /// `job_attempt_state`: progress, a checkpoint, progressed or lost attempts.
    package static let attemptState = JobExtras(rawValue: 2)
}
