import Foundation

extension ScheduleRule {
    /// The rule's ticks, checked: a parsed cron expression and a known time zone, or an interval.
    struct Ticks: Sendable {
        private enum Source: Sendable {
            case cron(CronExpression, TimeZone)
            case every(Int64)
        }

        private let source: Source

        /// Checks `rule`.
        ///
        /// - Throws: `invalidArgument` for a malformed expression, an unknown time zone, an interval
        ///   under a second, negative jitter, or a catch-up limit below 1.
        init(_ rule: ScheduleRule) throws {
            switch rule.timing {
            case .cron(let text, let zoneName):
                guard let zone = TimeZone(identifier: zoneName) else {
                    throw DurableQueueError.invalidArgument("time zone", "'\(zoneName)' is not a tz database name such as Europe/Paris or UTC")
                }
                source = .cron(try CronExpression(text), zone)
            case .every(let interval):
                guard interval >= .seconds(1) else {
                    throw DurableQueueError.invalidArgument("schedule interval", "\(interval) is under a second")
                }
                source = .every(interval.milliseconds)
            }
            if rule.jitter < .zero { throw DurableQueueError.invalidArgument("jitter", "\(rule.jitter) is negative") }
            if case .catchUp(let max) = rule.missed, max < 1 {
                throw DurableQueueError.invalidArgument("missed ticks", "catch up at most \(max): use at least 1, or .skip")
            }
        }

        /// The first tick after `instant` (milliseconds since 1970); nil if there is none.
        func next(after instant: Int64) -> Int64? {
            switch source {
            case .cron(let expression, let zone): expression.nextTick(after: instant, in: zone)
            case .every(let interval): (instant.floorDivided(by: interval) + 1) * interval
            }
        }
    }

    /// The first `count` ticks after `date` (fewer if the rule runs out): what a schedule with this
    /// rule would fire, jitter aside.
    ///
    /// - Throws: `invalidArgument` for a rule ``JobQueue/Schedules/save(name:_:input:options:rule:)`` refuses.
    public func ticks(after date: Date, count: Int) throws -> [Date] {
        let ticks = try Ticks(self)
        var result: [Date] = []
        var instant = date.millisecondsSince1970
        while result.count < count, let next = ticks.next(after: instant) {
            result.append(Date(millisecondsSince1970: next))
            instant = next
        }
        return result
    }

    /// Which ticks to enqueue jobs for, the schedule's next tick having been `due` and the time
    /// being `now`, and the tick after them.
    ///
    /// Ticks enqueued within ``missedAfter`` of their time are on time; older ones are missed, and
    /// handled as ``missed`` says. Past 1,000 missed ticks, the older ones are not looked at (a rule
    /// that ticks every second, stopped for a day).
    func plan(due: Int64, now: Int64, ticks: Ticks) -> (fire: [Int64], next: Int64?) {
        let lateness = Self.missedAfter.milliseconds
        var passed: [Int64] = []
        var next: Int64? = due
        while let tick = next, tick <= now {
            passed.append(tick)
            // Past 1,000 ticks, jump to the ones that are still on time.
            next = ticks.next(after: passed.count == 1_000 ? Swift.max(tick, now - lateness - 1) : tick)
        }
        let onTime = passed.filter { now - $0 <= lateness }
        let missed = passed.filter { now - $0 > lateness }
        let fire: [Int64]
        switch self.missed {
        case .skip: fire = onTime
        case .runOnce: fire = onTime.isEmpty ? Array(missed.suffix(1)) : onTime
        case .catchUp(let max): fire = Array(missed.suffix(max)) + onTime
        }
        return (fire, next)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
