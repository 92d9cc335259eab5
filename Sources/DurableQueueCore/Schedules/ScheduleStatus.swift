import Foundation

/// A schedule as ``JobQueue/Schedules/list()`` lists it.
public struct ScheduleStatus: Sendable, Hashable {
    /// The schedule's name, unique in the store.
    public var name: String
    /// The job type each tick enqueues (its ``Job/name``).
    public var kind: String
    /// The queue its jobs go to.
    public var queue: String
    /// When it ticks.
    public var rule: ScheduleRule
    /// Whether it is paused (enqueues nothing until resumed).
    public var isPaused: Bool
    /// When the next tick is due (for a paused schedule, the one it stopped at); nil when the rule has
    /// no more ticks.
    public var nextTick: Date?
    /// The latest tick a job was enqueued for.
    public var lastTick: Date?
    /// The job enqueued for the latest tick (or the unfinished one its unique key kept).
    public var lastJob: JobID?
    /// That job's state; nil if there is none (or it was pruned).
    public var lastJobState: JobState?

    init(_ record: ScheduleRecord) {
        name = record.name
        kind = record.job.kind
        queue = record.job.queue
        rule = record.rule
        isPaused = record.isPaused
        nextTick = record.nextTickAt.map(Date.init(millisecondsSince1970:))
        lastTick = record.lastTickAt.map(Date.init(millisecondsSince1970:))
        lastJob = record.lastJobID
        lastJobState = record.lastJobState
    }
}
