import Foundation
import Testing

@testable import DurableQueueCore

@Suite struct ScheduleRuleTests {
    private let minute: Int64 = 60_000

    @Test func intervalsTickAtWholeMultiplesSince1970() throws {
        let ticks = try ScheduleRule.Ticks(.every(.minutes(15)))
        let start: Int64 = 1_764_058_000_000  // 2025-11-25T08:06:40Z
        #expect(ticks.next(after: start) == 1_764_058_500_000)  // 08:15:00
        #expect(ticks.next(after: 1_764_058_500_000) == 1_764_058_500_000 + 15 * minute)
    }

    @Test func badRulesAreRefused() {
        for rule in [
            ScheduleRule.every(.milliseconds(500)), .cron("* * * * *", timeZone: "Mars/Olympus"), .cron("* * *"),
            .every(.minutes(1), jitter: .seconds(-1)), .every(.minutes(1), missed: .catchUp(max: 0)),
        ] {
            let error = #expect(throws: DurableQueueError.self, "\(rule)") { try ScheduleRule.Ticks(rule) }
            #expect(error?.code == .invalidArgument)
        }
    }

    /// A rule that ticks every minute, its next tick due at `due`, planned at `now`.
    private func plan(_ missed: ScheduleRule.MissedTicks, due: Int64, now: Int64) throws -> [Int64] {
        let rule = ScheduleRule.every(.minutes(1), missed: missed)
        let (fire, next) = rule.plan(due: due, now: now, ticks: try ScheduleRule.Ticks(rule))
        #expect(next == (now / minute + 1) * minute, "the next tick is the first after now")
        return fire
    }

    @Test func aTickEnqueuedOnTimeFiresWhateverThePolicy() throws {
        for policy in [ScheduleRule.MissedTicks.skip, .runOnce, .catchUp(max: 3)] {
            #expect(try plan(policy, due: 10 * minute, now: 10 * minute + 250) == [10 * minute])
        }
    }

    @Test func missedTicksAreSkippedRunOnceOrCaughtUp() throws {
        // Due at minute 10, nobody ran until 15:05: ticks 10…14 are missed, 15 is on time.
        let now = 15 * minute + 5_000
        #expect(try plan(.skip, due: 10 * minute, now: now) == [15 * minute])
        // runOnce: the on-time tick's job stands for the missed ones (as the Periodic Jobs article and the doc say).
        #expect(try plan(.runOnce, due: 10 * minute, now: now) == [15 * minute])
        #expect(try plan(.catchUp(max: 2), due: 10 * minute, now: now) == [13 * minute, 14 * minute, 15 * minute])
        // At 15:30 every tick is missed.
        let later = 15 * minute + 30_000
        #expect(try plan(.skip, due: 10 * minute, now: later) == [])
        #expect(try plan(.runOnce, due: 10 * minute, now: later) == [15 * minute])
        #expect(try plan(.catchUp(max: 10), due: 10 * minute, now: later) == (10...15).map { Int64($0) * minute })
    }

    @Test func aRuleStoppedForLongJumpsOverOldTicks() throws {
        let rule = ScheduleRule.every(.seconds(1), missed: .catchUp(max: 5))
        let now: Int64 = 1_000 * 86_400_000 + 500
        let (fire, next) = rule.plan(due: now - 86_400_000, now: now, ticks: try ScheduleRule.Ticks(rule))
        #expect(fire.count == 5 + 10)  // the 5 latest missed, and the 10 ticks of the last 10 s
        #expect(fire.last == now - 500)
        #expect(next == now + 500)
    }
}
