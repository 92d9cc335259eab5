import Foundation
import Testing

@testable import DurableQueueCore

@Suite struct CronExpressionTests {
    private let utc = TimeZone(identifier: "UTC")!
    private let newYork = TimeZone(identifier: "America/New_York")!

    /// Milliseconds since 1970 of an ISO-8601 instant such as `2026-03-08T07:00:00Z`.
    private func ms(_ iso: String) -> Int64 {
        Int64(ISO8601DateFormatter().date(from: iso)!.timeIntervalSince1970 * 1_000)
    }

    private func iso(_ ms: Int64?) -> String? {
        ms.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval($0) / 1_000)) }
    }

    /// The first `count` ticks of `expression` after `start`, as ISO-8601 instants.
    private func ticks(_ expression: String, after start: String, in zone: TimeZone? = nil, count: Int = 1) throws -> [String] {
        let cron = try CronExpression(expression)
        var instant = ms(start)
        var result: [String] = []
        for _ in 0..<count {
            guard let next = cron.nextTick(after: instant, in: zone ?? utc) else { break }
            result.append(iso(next)!)
            instant = next
        }
        return result
    }

    @Test func fieldsTakeListsRangesStepsAndNames() throws {
        let cron = try CronExpression("0,30 9-17/4 1,15 JAN-mar mon-FRI")
        #expect(cron.minutes == [0, 30])
        #expect(cron.hours == [9, 13, 17])
        #expect(cron.daysOfMonth == [1, 15])
        #expect(cron.months == [1, 2, 3])
        #expect(cron.daysOfWeek == [1, 2, 3, 4, 5])
        #expect(try CronExpression("* * * * 7").daysOfWeek == [0])  // 7 is Sunday too
        #expect(try CronExpression("5/20 * * * *").minutes == [5, 25, 45])
        #expect(try CronExpression("@hourly").minutes == [0])
        #expect(try CronExpression("@weekly").daysOfWeek == [0])
    }

    @Test(arguments: [
        ("61 * * * *", "minute field's 61 is outside 0-59"),
        ("* * *", "it has 3 field(s)"),
        ("* * * * * *", "it has 6 field(s)"),
        ("5-1 * * * *", "runs backwards"),
        ("*/0 * * * *", "step '0' is not a positive number"),
        ("* * * FOO *", "'FOO' is not a number or a name"),
        ("* * 0 * *", "day of month field's 0 is outside 1-31"),
        ("1,,2 * * * *", "empty or malformed part"),
        ("@every", "is not one of @hourly"),
    ])
    func malformedExpressionsAreRejectedSayingWhy(_ expression: String, _ reason: String) {
        let error = #expect(throws: DurableQueueError.self) { try CronExpression(expression) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(expression) == true)
    }

    @Test func everyFifteenMinutesFromAnyStart() throws {
        #expect(try ticks("*/15 * * * *", after: "2026-11-25T08:07:59Z", count: 4)
            == ["2026-11-25T08:15:00Z", "2026-11-25T08:30:00Z", "2026-11-25T08:45:00Z", "2026-11-25T09:00:00Z"])
        // A tick exactly at the start is not after it.
        #expect(try ticks("*/15 * * * *", after: "2026-11-25T08:15:00Z") == ["2026-11-25T08:30:00Z"])
    }

    @Test func februaryTheTwentyNinthWaitsForALeapYear() throws {
        #expect(try ticks("0 0 29 2 *", after: "2026-11-25T00:00:00Z", count: 2) == ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"])
        #expect(try CronExpression("0 0 30 2 *").nextTick(after: ms("2026-01-01T00:00:00Z"), in: utc) == nil)
    }

    @Test func theThirtyFirstSkipsShorterMonths() throws {
        #expect(try ticks("0 12 31 * *", after: "2026-01-31T12:00:00Z", count: 3)
            == ["2026-03-31T12:00:00Z", "2026-05-31T12:00:00Z", "2026-07-31T12:00:00Z"])
        #expect(try ticks("@monthly", after: "2026-12-15T00:00:00Z") == ["2027-01-01T00:00:00Z"])
    }

    @Test func restrictedDayOfMonthAndDayOfWeekMatchEither() throws {
        // 2026-11-25 is a Wednesday: the 1st of December is a Tuesday, Fridays are the 27th and 4th.
        #expect(try ticks("0 0 1 * FRI", after: "2026-11-25T00:00:00Z", count: 3)
            == ["2026-11-27T00:00:00Z", "2026-12-01T00:00:00Z", "2026-12-04T00:00:00Z"])
        #expect(try ticks("0 9 * * MON-FRI", after: "2026-11-27T10:00:00Z") == ["2026-11-30T09:00:00Z"])
    }

    @Test func aTimeZoneShiftsTheWallClock() throws {
        // 03:00 in Paris is 02:00 UTC in winter.
        #expect(try ticks("0 3 * * *", after: "2026-11-25T00:00:00Z", in: TimeZone(identifier: "Europe/Paris")!) == ["2026-11-25T02:00:00Z"])
    }

    /// Clocks go forward on 2026-03-08 in New York: 02:00 EST becomes 03:00 EDT (07:00 UTC).
    @Test func aSkippedLocalTimeFiresOnceWhenTheClocksJump() throws {
        #expect(try ticks("30 2 * * *", after: "2026-03-07T12:00:00Z", in: newYork, count: 3)
            == ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"])
        // Every quarter of an hour: 02:00 … 02:45 do not exist; they and 03:00 fire once, at the jump.
        #expect(try ticks("*/15 * * * *", after: "2026-03-08T06:40:00Z", in: newYork, count: 3)
            == ["2026-03-08T06:45:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:15:00Z"])
    }

    /// Clocks go back on 2026-11-01 in New York: 02:00 EDT becomes 01:00 EST (06:00 UTC), so 01:xx happens twice.
    @Test func aRepeatedLocalTimeFiresAtItsFirstOccurrenceOnly() throws {
        #expect(try ticks("30 1 * * *", after: "2026-10-31T12:00:00Z", in: newYork, count: 2)
            == ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"])
        #expect(try ticks("*/30 * * * *", after: "2026-11-01T04:50:00Z", in: newYork, count: 4)
            == ["2026-11-01T05:00:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:00:00Z", "2026-11-01T07:30:00Z"])
        // Asked during the repeated hour (a schedule saved then): the first occurrences have passed.
        #expect(try ticks("30 1 * * *", after: "2026-11-01T06:10:00Z", in: newYork) == ["2026-11-02T06:30:00Z"])
    }
}
