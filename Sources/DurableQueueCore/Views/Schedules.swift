import Foundation

extension JobQueue {
    /// The store's schedules: jobs enqueued on a cron expression or an interval (see ``Schedules``).
    public var schedules: Schedules { Schedules(jobQueue: self) }

    /// The store's schedules, each enqueuing one job per tick of its rule, exactly once however
    /// many processes run the queue: save, remove, pause, resume and list them.
    ///
    /// For example:
    /// ```swift
    /// try await queue.schedules.save(name: "sync", Sync.self, input: .all, rule: .every(.minutes(15)))
    /// try await queue.schedules.pause("sync")
    /// ```
    public struct Schedules: Sendable {
        let jobQueue: JobQueue
    }
}

extension JobQueue.Schedules {
    /// Creates schedule `name`, or updates it: from now on, every tick of `rule` enqueues one job
    /// of `type` with `input` and `options`, exactly once per tick however many processes run the
    /// queue (each running engine fires due schedules; the database lets one enqueue each tick).
    ///
    /// Calling it again with the same name replaces the job, options and rule; a changed rule takes
    /// effect from its next tick, an unchanged one keeps its next tick (so an app can declare its
    /// schedules at every start). A paused schedule stays paused. Each job is tagged
    /// `schedule:<name>`, besides `options.tags`.
    ///
    /// For example:
    /// ```swift
    /// try await queue.schedules.save(name: "nightly-report", SendReport.self, input: .daily,
    ///                          rule: .cron("0 3 * * *", timeZone: "Europe/Paris"))
    /// try await queue.schedules.save(name: "sync", Sync.self, input: .all, rule: .every(.minutes(15)))
    /// ```
    /// - Throws: `invalidArgument` for an empty name, a malformed cron expression (saying which
    ///   field and why), an unknown time zone, an interval under a second, a rule that never ticks,
    ///   or `options` with a delay or run time, the debounce policy, a unique window or a partition key.
    public func save<J: Job>(
        name: String, _ type: J.Type, input: J.Input, options: EnqueueOptions = EnqueueOptions(), rule: ScheduleRule
    ) async throws {
        guard !name.isEmpty else { throw DurableQueueError.invalidArgument("schedule name", "must not be empty") }
        guard options.delay == nil && options.runAt == nil else {
            throw DurableQueueError.invalidArgument("schedule options", "a delay or run time has no meaning: the rule says when jobs run")
        }
        guard options.uniquePolicy != .debounce && options.uniqueWindow == nil else {
            throw DurableQueueError.invalidArgument("schedule options", "debounce and unique windows do not apply: the rule says when jobs run")
        }
        guard options.partitionKey == nil else {
            throw DurableQueueError.invalidArgument("schedule options", "a scheduled job takes no partition key")
        }
        let ticks = try ScheduleRule.Ticks(rule)
        let now = jobQueue.now
        guard let next = ticks.next(after: now) else {
            throw DurableQueueError.invalidArgument("schedule rule", "\(rule) never ticks")
        }
        var job = try options.newJob(J.self, input: try jobQueue.files.storedJSON(input), now: now)
        job.tags = Array(Set(job.tags + ["schedule:\(name)"])).sorted()
        try job.validate()
        try await jobQueue.store.saveSchedule(ScheduleRecord(name: name, job: job, rule: rule, nextTickAt: next), now: now)
        jobQueue.engine.scheduleWake.signal()
    }

    /// Deletes schedule `name`: no more ticks. Jobs it enqueued stay.
    ///
    /// - Returns: false if there was no such schedule.
    @discardableResult
    public func remove(_ name: String) async throws -> Bool {
        try await jobQueue.store.deleteSchedule(named: name, now: jobQueue.now)
    }

    /// Pauses schedule `name`: it enqueues nothing until resumed.
    ///
    /// - Throws: `invalidArgument` if there is no such schedule.
    public func pause(_ name: String) async throws {
        guard try await jobQueue.store.setSchedulePaused(true, named: name, nextTickAt: nil, now: jobQueue.now) else {
            throw Self.noSchedule(name)
        }
    }

    /// Resumes schedule `name` from its next tick after now: ticks that passed while it was paused
    /// do not fire.
    ///
    /// - Throws: `invalidArgument` if there is no such schedule.
    public func resume(_ name: String) async throws {
        guard let schedule = try await jobQueue.store.schedules(named: name).first else { throw Self.noSchedule(name) }
        let now = jobQueue.now
        let next = try ScheduleRule.Ticks(schedule.rule).next(after: now)
        guard try await jobQueue.store.setSchedulePaused(false, named: name, nextTickAt: next, now: now) else { throw Self.noSchedule(name) }
        jobQueue.engine.scheduleWake.signal()
    }

    /// Every schedule of the store, by name, with its next and last tick and the state of the job
    /// it enqueued last.
    public func list() async throws -> [ScheduleStatus] {
        try await jobQueue.store.schedules(named: nil).map(ScheduleStatus.init)
    }

    private static func noSchedule(_ name: String) -> DurableQueueError {
        DurableQueueError.invalidArgument("schedule", "there is no schedule named '\(name)'")
    }
}
