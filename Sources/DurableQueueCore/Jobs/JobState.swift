/// Where a job is in its life; the raw value is the text stored in `jobs.state`.
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Waiting for its run-at time.
    case scheduled
    /// Due, waiting for a worker.
    case pending
    /// Waiting for another job to finish first.
    case blocked
    /// Claimed by a worker, which holds its lease.
    case running
    /// Finished with an output. Terminal.
    case succeeded
    /// Finished with an error after its last allowed attempt. Terminal.
    case failed
    /// Cancelled before it could finish. Terminal.
    case cancelled
    /// Its attempt was handed to a carrier outside the process (a background transfer), which ends
    /// it later with a report for that attempt; it holds no worker slot and no lease meanwhile. See
    /// ``JobContext/handOff(to:reference:deadline:start:)``.
    case handedOff = "handed_off"
    /// Its handler waits for a signal (``JobContext/waitForSignal(_:as:timeout:)``) that has not
    /// come; it holds no worker slot and no lease meanwhile, and runs again when the signal comes or
    /// the wait times out.
    case waiting
    /// Its stored input could not be read by the code that claimed it (no ``Job/inputMigrations``
    /// step reaches it, or it does not decode): no worker claims it and no attempt was spent. A
    /// `retry` puts it back to `pending` once code that reads it runs; a `cancel` ends it. The
    /// decoding error is its error and its history's reason. See <doc:UpgradingYourJobs>.
    case parked

    /// Whether the job can change no more.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: true
        case .scheduled, .pending, .blocked, .running, .handedOff, .waiting, .parked: false
        }
    }
}
