import Foundation

/// A schedule as the store keeps it: its name, the job each tick enqueues, its rule and its ticks.
package struct ScheduleRecord: Sendable, Hashable {
    /// Unique among the store's schedules.
    package var name: String
    /// The job each tick enqueues (its `runAt` is set per tick).
    package var job: NewJob
    /// When it ticks.
    package var rule: ScheduleRule
    /// A paused schedule enqueues nothing until resumed.
    package var isPaused: Bool
    /// When the next tick is due (ms since 1970); nil when the rule has no more ticks.
    package var nextTickAt: Int64?
    /// The latest tick a job was enqueued for.
    package var lastTickAt: Int64?
    /// The job enqueued for the latest tick (or the unfinished one its unique key kept).
    package var lastJobID: JobID?
    /// That job's state, when read (nil once it is pruned).
    package var lastJobState: JobState?

    package init(
        name: String, job: NewJob, rule: ScheduleRule, isPaused: Bool = false, nextTickAt: Int64?, lastTickAt: Int64? = nil,
        lastJobID: JobID? = nil, lastJobState: JobState? = nil
    ) {
        self.name = name
        self.job = job
        self.rule = rule
        self.isPaused = isPaused
        self.nextTickAt = nextTickAt
        self.lastTickAt = lastTickAt
        self.lastJobID = lastJobID
        self.lastJobState = lastJobState
    }
}

/// The rule's columns (`cron`, `time_zone`, `interval_ms`, `jitter_ms`, `missed`, `catch_up_max`),
/// shared by the stores.
package struct StoredScheduleRule: Sendable, Hashable {
    package var cron: String?
    package var timeZone: String?
    package var intervalMilliseconds: Int64?
    package var jitterMilliseconds: Int64
    package var missed: String
    package var catchUpMax: Int?

    /// The columns of `rule`.
    package init(_ rule: ScheduleRule) {
        switch rule.timing {
        case .cron(let expression, let timeZone): (cron, self.timeZone, intervalMilliseconds) = (expression, timeZone, nil)
        case .every(let interval): (cron, timeZone, intervalMilliseconds) = (nil, nil, interval.milliseconds)
        }
        jitterMilliseconds = rule.jitter.milliseconds
        switch rule.missed {
        case .skip: (missed, catchUpMax) = ("skip", nil)
        case .runOnce: (missed, catchUpMax) = ("run_once", nil)
        case .catchUp(let max): (missed, catchUpMax) = ("catch_up", max)
        }
    }

    package init(
        cron: String?, timeZone: String?, intervalMilliseconds: Int64?, jitterMilliseconds: Int64, missed: String, catchUpMax: Int?
    ) {
        self.cron = cron
        self.timeZone = timeZone
        self.intervalMilliseconds = intervalMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.missed = missed
        self.catchUpMax = catchUpMax
    }

    /// The rule these columns hold.
    package var rule: ScheduleRule {
        let timing: ScheduleRule.Timing =
            if let cron { .cron(cron, timeZone: timeZone ?? "UTC") } else { .every(.milliseconds(intervalMilliseconds ?? 1_000)) }
        let policy: ScheduleRule.MissedTicks =
            switch missed {
            case "skip": .skip
            case "catch_up": .catchUp(max: catchUpMax ?? 1)
            default: .runOnce
            }
        return ScheduleRule(timing, jitter: .milliseconds(jitterMilliseconds), missed: policy)
    }
}

/// How the stores keep a schedule's tags: a JSON array of strings.
package enum ScheduleColumns {
    /// `tags` as JSON text.
    package static func tags(_ tags: [String]) throws -> String {
        try JSONTextEncoder.encode(tags)
    }

    /// The tags of JSON text `json`.
    package static func tags(_ json: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }
}
