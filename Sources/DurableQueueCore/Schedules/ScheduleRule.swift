import Foundation

/// When a schedule enqueues its job: the ticks of a cron expression in a time zone, or of a fixed
/// interval, with optional jitter and a policy for ticks no process was running at.
///
/// For example:
/// ```swift
/// .cron("0 3 * * MON-FRI", timeZone: "Europe/Paris")
/// .every(.minutes(15), jitter: .seconds(30), missed: .skip)
/// ```
public struct ScheduleRule: Sendable, Hashable {
    /// What the ticks follow.
    public enum Timing: Sendable, Hashable {
        /// A five-field cron expression (or `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`)
        /// on the wall clock of a time zone named as in the tz database (`Europe/Paris`).
        case cron(String, timeZone: String)
        /// Every so often, at whole multiples of the interval since 1970-01-01 00:00 UTC: every
        /// 15 minutes ticks at :00, :15, :30 and :45 whatever the start.
        case every(Duration)
    }

    /// What to do with ticks that passed while no process ran the schedule (a tick is missed when
    /// no process enqueued its job within ``ScheduleRule/missedAfter`` of its time).
    public enum MissedTicks: Sendable, Hashable {
        /// Enqueue nothing for them; go on at the next tick.
        case skip
        /// Run them once: if a tick is on time in the same firing, its job stands for them and
        /// nothing more is enqueued (a second job would redo the same work at once); otherwise one
        /// job for all of them, stamped with the latest. The default.
        case runOnce
        /// Enqueue one job for each, at most the latest `max` of them.
        case catchUp(max: Int)
    }

    /// How late a tick may be enqueued before it counts as missed: 10 seconds.
    public static let missedAfter: Duration = .seconds(10)

    /// What the ticks follow.
    public var timing: Timing
    /// Each job is due a random moment up to this long after its tick (spreading the load of many
    /// schedules on the same minute); zero for none.
    public var jitter: Duration
    /// What to do with missed ticks.
    public var missed: MissedTicks

    /// A rule of `timing`.
    public init(_ timing: Timing, jitter: Duration = .zero, missed: MissedTicks = .runOnce) {
        self.timing = timing
        self.jitter = jitter
        self.missed = missed
    }

    /// The ticks of a cron expression on the wall clock of `timeZone` (default UTC).
    public static func cron(
        _ expression: String, timeZone: String = "UTC", jitter: Duration = .zero, missed: MissedTicks = .runOnce
    ) -> ScheduleRule {
        ScheduleRule(.cron(expression, timeZone: timeZone), jitter: jitter, missed: missed)
    }

    /// A tick every `interval`.
    public static func every(_ interval: Duration, jitter: Duration = .zero, missed: MissedTicks = .runOnce) -> ScheduleRule {
        ScheduleRule(.every(interval), jitter: jitter, missed: missed)
    }
}

extension ScheduleRule: CustomStringConvertible {
    /// The rule as `durableq schedules` shows it: `cron 0 3 * * * (Europe/Paris)`, `every 15m`.
    public var description: String {
        var text =
            switch timing {
            case .cron(let expression, let timeZone): "cron \(expression)" + (timeZone == "UTC" ? "" : " (\(timeZone))")
            case .every(let interval): "every \(Self.text(interval))"
            }
        if jitter > .zero { text += ", jitter \(Self.text(jitter))" }
        return text
    }

    private static func text(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1_000)] where milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
