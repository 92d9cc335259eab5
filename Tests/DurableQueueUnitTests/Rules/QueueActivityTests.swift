import Testing

@testable import DurableQueueCore

/// The activity charts' figures from history rows alone: no database.
@Suite struct QueueActivityTests {
    private let now: Int64 = 10_000_000

    private func event(_ job: Int64, _ attempt: Int, at: Int64, _ from: JobState?, _ to: JobState, queue: String = "mail", created: Int64 = 0)
        -> ActivityEvent
    {
        ActivityEvent(
            queue: queue, job: JobID(job), attempt: attempt, at: now - at, from: from, to: to, createdAt: now - created,
            createdState: .pending)
    }

    @Test func attemptsAreCountedPerMinuteByOutcomeAndTimedFromDueToStartToEnd() {
        let events = [
            // Job 1: created 5 min ago, started 100 ms later, succeeded 200 ms after that.
            event(1, 1, at: 300_000 - 100, .pending, .running, created: 300_000),
            event(1, 1, at: 300_000 - 300, .running, .succeeded, created: 300_000),
            // Job 2: failed and retried, became due again, started 50 ms later, failed for good.
            event(2, 1, at: 120_000, .pending, .running, created: 120_400),
            event(2, 1, at: 119_000, .running, .scheduled, created: 120_400),
            event(2, 1, at: 118_000, .scheduled, .pending, created: 120_400),
            event(2, 2, at: 117_950, .pending, .running, created: 120_400),
            event(2, 2, at: 117_000, .running, .failed, created: 120_400),
            // Another queue, and a row older than the hour.
            event(3, 1, at: 30_000, .running, .cancelled, queue: "api"),
            event(4, 1, at: 4_000_000, .running, .succeeded, queue: "api"),
        ]
        let activity = QueueActivity.summarize(events: events, oldestDue: ["idle": now - 90_000], now: now)
        #expect(activity.map(\.queue) == ["api", "idle", "mail"])
        let mail = activity[2]
        #expect(mail.perMinute.count == 60)
        #expect(mail.perMinute[55] == [.succeeded: 1], "just under five minutes ago")
        #expect(mail.perMinute[58] == [.retried: 1, .failed: 1], "two minutes ago")
        #expect(mail.perMinute.enumerated().filter { !$0.element.isEmpty }.map(\.offset) == [55, 58])
        #expect(mail.wait == QueueActivity.Percentiles([100, 400, 50]) && mail.wait?.p50 == 100 && mail.wait?.p99 == 400)
        #expect(mail.run?.count == 3 && mail.run?.p50 == 950 && mail.run?.p95 == 1_000)
        #expect(activity[0].perMinute.reduce(0) { $0 + $1.values.reduce(0, +) } == 1, "the row older than the hour is left out")
        #expect(activity[0].run == nil && activity[1].oldestWaiting == 90_000 && mail.oldestWaiting == nil)
    }

    @Test func percentilesAreNearestRank() throws {
        let values = (1...100).map { Int64($0) }
        let percentiles = try #require(QueueActivity.Percentiles(values.shuffled()))
        #expect(percentiles.p50 == 50 && percentiles.p95 == 95 && percentiles.p99 == 99 && percentiles.count == 100)
        #expect(QueueActivity.Percentiles([]) == nil)
        #expect(QueueActivity.Percentiles([7])?.p99 == 7)
    }
}
