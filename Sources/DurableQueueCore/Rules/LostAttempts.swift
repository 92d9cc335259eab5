/// A job's attempts lost in a row — attempts whose worker stopped (its lease expired, its process
/// is gone) without making progress — as its row stores them (`lost_in_a_row`,
/// `last_lost_attempt`): the rule of poison jobs, which both stores apply at recovery.
///
/// A job that takes its worker down each time it runs would otherwise be taken back and run again
/// forever when its retries are unlimited. An attempt that saved a new checkpoint or committed a
/// durable step made progress (a long download killed by the system is not poison) and starts the
/// count again; so does any attempt that ended otherwise (its attempt number is not the next one).
package struct LostAttempts: Sendable, Hashable {
    /// How many attempts in a row were lost, up to and including ``lastLost``.
    package var inARow: Int
    /// The number of the last attempt lost; nil if none was.
    package var lastLost: Int?

    package init(inARow: Int = 0, lastLost: Int? = nil) {
        self.inARow = inARow
        self.lastLost = lastLost
    }

    /// The type of a poison job's ``JobFailure``, which `durableq list --poisoned` looks for.
    package static let poisonFailureType = "PoisonJob"

    /// The count once attempt `attempt` is lost: one more when the attempt before it was the last
    /// lost (a released attempt is not counted, so its number comes again), else one; none when
    /// the attempt made progress.
    package func after(losing attempt: Int, madeProgress: Bool) -> LostAttempts {
        if madeProgress { return LostAttempts(inARow: 0, lastLost: attempt) }
        return LostAttempts(inARow: (lastLost == attempt - 1 ? inARow : 0) + 1, lastLost: attempt)
    }

    /// Whether `limit` attempts in a row were lost (never when `limit` is nil).
    package func isPoison(limit: Int?) -> Bool {
        guard let limit else { return false }
        return inARow >= limit
    }

    /// The end of a poison job's history reason and error message.
    package static func poisonReason(_ inARow: Int) -> String {
        "its worker stopped during \(inARow) attempts in a row, none of which made progress: failed as a poison job"
    }
}
