import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Logging
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Schedules on the manual clock, on every backend: two queues on one store stand for two processes.
@Suite(.timeLimit(.minutes(1))) struct ScheduleTests {
    /// 2023-11-14T22:13:20Z, the manual clock's start: 40 s before a whole minute.
    private static let start: Int64 = 1_700_000_000_000
    private static let minute: Int64 = 60_000
    /// The first whole minute after the start.
    private static let firstMinute = (start / minute + 1) * minute

    /// Runs two engines on one store of `backend` while `body` runs.
    private func withTwoEngines(
        _ backend: StoreBackend, _ body: (_ first: JobQueue, _ second: JobQueue, _ time: ManualClock) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        let queues = [try await backend.queue(in: directory, configuration: configuration), try await backend.queue(in: directory, configuration: configuration)]
        for queue in queues { queue.register(Echo()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for queue in queues { group.addTask { try await queue.run() } }
            do {
                try await body(queues[0], queues[1], time)
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    /// The run times of the jobs schedule `name` enqueued, in order.
    private func ticks(of name: String, _ queue: JobQueue) async throws -> [Int64] {
        try await queue.store.jobs(JobFilter(tag: "schedule:\(name)", limit: 1_000)).map(\.runAt).sorted()
    }

    @Test(arguments: StoreBackend.all) func everyTickEnqueuesOneJobWhateverTheNumberOfEngines(_ backend: StoreBackend) async throws {
        try await withTwoEngines(backend) { first, second, time in
            try await first.schedules.save(name: "minutely", Echo.self, input: "tick", rule: .cron("* * * * *"))
            #expect(try await first.schedules.list().first?.nextTick == Date(millisecondsSince1970: Self.firstMinute))
            for round in 1...3 {
                time.advance(by: round == 1 ? .seconds(40) : .seconds(60))
                try await eventually("tick \(round) ran") {
                    let states = try await first.store.jobs(JobFilter(tag: "schedule:minutely", limit: 10)).map(\.state)
                    return states.count == round && states.allSatisfy { $0 == .succeeded }
                }
            }
            // Both engines woke at every tick; give the slower one time to try.
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await ticks(of: "minutely", second) == (0..<3).map { Self.firstMinute + Int64($0) * Self.minute })
            let status = try #require(try await second.schedules.list().first)
            #expect(status.lastTick == Date(millisecondsSince1970: Self.firstMinute + 2 * Self.minute))
            #expect(status.nextTick == Date(millisecondsSince1970: Self.firstMinute + 3 * Self.minute))
            #expect(status.lastJobState == .succeeded && status.kind == "echo" && status.queue == "default")
        }
    }

    @Test(arguments: StoreBackend.all) func savingTheSameScheduleAgainKeepsItsNextTickAndAChangedRuleMovesIt(_ backend: StoreBackend) async throws {
        try await withTwoEngines(backend) { queue, _, time in
            try await queue.schedules.save(name: "report", Echo.self, input: "a", rule: .every(.minutes(1)))
            time.advance(by: .seconds(30))
            // Declared again at a restart: the tick due at the whole minute stays.
            try await queue.schedules.save(name: "report", Echo.self, input: "b", rule: .every(.minutes(1)))
            #expect(try await queue.schedules.list().first?.nextTick == Date(millisecondsSince1970: Self.firstMinute))
            time.advance(by: .seconds(10))
            try await eventually("the tick ran with the new input") {
                try await queue.store.jobs(JobFilter(tag: "schedule:report", limit: 10)).map(\.input) == [#""b""#]
            }
            // Every 5 minutes from now on: the next tick is the next multiple of 5 minutes.
            try await queue.schedules.save(name: "report", Echo.self, input: "c", rule: .every(.minutes(5)))
            let next = ((Self.firstMinute) / (5 * Self.minute) + 1) * 5 * Self.minute
            #expect(try await queue.schedules.list().first?.nextTick == Date(millisecondsSince1970: next))
            #expect(try await queue.schedules.list().first?.rule == .every(.minutes(5)))
        }
    }

    @Test(arguments: StoreBackend.all) func aPausedScheduleEnqueuesNothingAndResumesAtItsNextTick(_ backend: StoreBackend) async throws {
        try await withTwoEngines(backend) { queue, other, time in
            try await queue.schedules.save(name: "sync", Echo.self, input: "x", rule: .every(.minutes(1)))
            try await other.schedules.pause("sync")
            #expect(try await queue.schedules.list().first?.isPaused == true)
            time.advance(by: .seconds(40 + 120))  // two ticks pass while paused
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await ticks(of: "sync", queue) == [])
            try await other.schedules.resume("sync")
            let resumedAt = Self.start + 160_000
            #expect(try await queue.schedules.list().first?.nextTick == Date(millisecondsSince1970: (resumedAt / Self.minute + 1) * Self.minute))
            time.advance(by: .seconds(60))
            try await eventually("the first tick after resuming ran") { try await ticks(of: "sync", queue).count == 1 }
            #expect(try await ticks(of: "sync", queue) == [(resumedAt / Self.minute + 1) * Self.minute])
            #expect(try await queue.schedules.remove("sync"))
            #expect(try await queue.schedules.remove("sync") == false)
            #expect(try await queue.schedules.list().isEmpty)
            let error = await #expect(throws: DurableQueueError.self) { try await queue.schedules.pause("sync") }
            #expect(error?.message.contains("no schedule named 'sync'") == true)
        }
    }

    /// Nobody ran while ticks came due: each policy does what it says when an engine starts.
    @Test(arguments: StoreBackend.all, [ScheduleRule.MissedTicks.skip, .runOnce, .catchUp(max: 2)])
    func ticksMissedWhileNoEngineRanFollowThePolicy(_ backend: StoreBackend, policy: ScheduleRule.MissedTicks) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Echo())
        try await queue.schedules.save(name: "hourly", Echo.self, input: "h", rule: .cron("@hourly", missed: policy))
        // Ticks at each whole hour pass for five hours with no engine running.
        time.advance(by: .seconds(5 * 3_600))
        #expect(try await queue.runDueJobs() == (policy == .skip ? 0 : policy == .runOnce ? 1 : 2))
        let lastHour = (time.nowMilliseconds / 3_600_000) * 3_600_000
        let expected: [Int64] =
            switch policy {
            case .skip: []
            case .runOnce: [lastHour]
            default: [lastHour - 3_600_000, lastHour]
            }
        #expect(try await ticks(of: "hourly", queue) == expected)
        #expect(try await queue.schedules.list().first?.nextTick == Date(millisecondsSince1970: lastHour + 3_600_000))
    }

    /// A due schedule this process cannot read (saved by one that knows a time zone this machine
    /// lacks) is tried again each poll interval, not in a loop that hammers the store.
    @Test func aDueScheduleThisProcessCannotReadIsRetriedAtThePollInterval() async throws {
        let log = LogRecorder(capacity: 10_000)
        try await withRunningQueue(on: .sqlite, configuration: JobQueue.Configuration(pollInterval: .milliseconds(100)), logger: log.logger(level: .warning)) {
            queue async throws in
            let job = NewJob(kind: Echo.name, input: #""x""#, tags: ["schedule:elsewhere"])
            let rule = ScheduleRule.cron("* * * * *", timeZone: "Elsewhere/Unknown")
            try await queue.store.saveSchedule(ScheduleRecord(name: "elsewhere", job: job, rule: rule, nextTickAt: 1_000), now: 0)
            queue.engine.scheduleWake.signal()
            try await Task.sleep(for: .seconds(1))
            let warnings = log.text.split(separator: "\n").filter { $0.contains("schedule 'elsewhere' cannot tick here") }.count
            #expect(warnings >= 1 && warnings <= 15, "\(warnings) tries in 1 s")
            #expect(try await queue.store.count(JobFilter(tag: "schedule:elsewhere")) == 0)
        }
    }

    @Test func badSchedulesAreRefusedWithTheReason() async throws {
        try await withRunningQueue(on: .sqlite) { queue async throws in
            for (rule, reason) in [
                (ScheduleRule.cron("0 0 30 2 *"), "never ticks"), (.cron("0 25 * * *"), "hour field's 25 is outside 0-23"),
                (.cron("@daily", timeZone: "Atlantis/Capital"), "'Atlantis/Capital' is not a tz database name"),
            ] {
                let error = await #expect(throws: DurableQueueError.self) {
                    try await queue.schedules.save(name: "bad", Echo.self, input: "", rule: rule)
                }
                #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
            }
            await #expect(throws: DurableQueueError.self) {
                try await queue.schedules.save(name: "late", Echo.self, input: "", options: EnqueueOptions(delay: .seconds(1)), rule: .every(.minutes(1)))
            }
            #expect(try await queue.schedules.list().isEmpty)
        }
    }
}
