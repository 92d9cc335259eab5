/// A step of a job as stored: its name, the attempt that ran its body, its output (JSON text) and
/// when it was recorded (milliseconds since 1970).
package struct StepRecord: Sendable, Hashable {
    package var job: JobID
    package var name: String
    package var attempt: Int
    package var output: String
    package var recordedAt: Int64

    package init(job: JobID, name: String, attempt: Int, output: String, recordedAt: Int64) {
        self.job = job
        self.name = name
        self.attempt = attempt
        self.output = output
        self.recordedAt = recordedAt
    }
}

/// A step to record for a running attempt, fenced by that attempt under `owner`.
package struct PendingStep: Sendable, Hashable {
    package var step: StepRecord
    package var attempt: AttemptID
    package var owner: String

    package init(step: StepRecord, attempt: AttemptID, owner: String) {
        self.step = step
        self.attempt = attempt
        self.owner = owner
    }
}
