import Foundation

/// What a drain did and what it left (see ``JobQueue/drain(until:gracePeriod:)``): enough for an
/// app to schedule its next background request.
public struct DrainReport: Sendable, Hashable {
    /// Why a drain returned.
    public enum Ending: String, Sendable, Hashable {
        /// Nothing was due any more, and nothing ran.
        case nothingDue
        /// The deadline passed: running attempts were stopped and given back.
        case deadline
        /// The calling task was cancelled (a background task's expiry, say): running attempts were
        /// stopped and given back.
        case cancelled
        /// The drain ran as many attempts as it was allowed.
        case limitReached
        /// This process paused (``JobQueue/pauseInThisProcess(gracePeriod:)``): running attempts
        /// were stopped and given back.
        case paused
    }

    /// Why the drain returned.
    public var ending: Ending
    /// Attempts that ran to an end that was recorded: succeeded, failed, retried later, snoozed,
    /// cancelled or handed off (see ``JobContext/handOff(to:reference:deadline:start:)``).
    public var attemptsRun: Int
    /// Attempts stopped by the drain's end and given back to `pending`: recorded in each job's
    /// history, and not counted against its attempts.
    public var jobsGivenBack: Int
    /// Jobs of the types this process runs that wait in `pending` now (some may be held by their
    /// queue's throttle, limit or pause).
    public var jobsStillDue: Int
    /// The earliest time more work may start: now if jobs were still due when the drain stopped
    /// early or wait for the network, else the earliest of the next scheduled, retried or sleeping
    /// job, a throttled queue's next start, a schedule's next tick, a wait for a signal's timeout
    /// and a hand-off's deadline (a drain then begins by ending those passed); nil when nothing
    /// waits. A background task request's earliest begin date.
    public var nextDueAt: Date?
    /// Whether a job that waits (due or later) is of a type that needs the network
    /// (``Job/needsNetwork``): a background task request's network requirement.
    public var waitingWorkNeedsNetwork: Bool
    /// Jobs due now that wait for the network: the ``JobQueue/Configuration/network`` conditions
    /// do not meet their type's ``Job/networkRequirement`` or their queue's
    /// (``JobQueue/Configuration/queueNetworkRequirements``); none without conditions.
    public var jobsWaitingForNetwork: Int

    /// A report; drains make them.
    public init(
        ending: Ending, attemptsRun: Int, jobsGivenBack: Int, jobsStillDue: Int, nextDueAt: Date?, waitingWorkNeedsNetwork: Bool,
        jobsWaitingForNetwork: Int = 0
    ) {
        self.jobsWaitingForNetwork = jobsWaitingForNetwork
        self.ending = ending
        self.attemptsRun = attemptsRun
        self.jobsGivenBack = jobsGivenBack
        self.jobsStillDue = jobsStillDue
        self.nextDueAt = nextDueAt
        self.waitingWorkNeedsNetwork = waitingWorkNeedsNetwork
    }
}
