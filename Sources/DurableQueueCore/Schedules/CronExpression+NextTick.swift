import Foundation

extension CronExpression {
    /// The first instant after `instant` (milliseconds since 1970) at which the expression fires on
    /// the wall clock of `timeZone`; nil if it never does within ten years (`0 0 30 2 *`).
    ///
    /// Daylight-saving time follows the wall clock: a matching local time that occurs twice (the
    /// hour repeated when clocks go back) fires at its first occurrence only, and matching local
    /// times that do not exist (the hour skipped when clocks go forward) fire once, at the moment
    /// the clocks jump past them.
    func nextTick(after instant: Int64, in timeZone: TimeZone) -> Int64? {
        let seconds = instant.floorDividedBy1000
        var local = CivilDate(secondsSince1970: seconds + Int64(timeZone.secondsFromGMT(for: Date(seconds: seconds))))
        local.advanceMinute()
        let lastYear = local.year + 10
        while local.year <= lastYear {
            guard months.contains(local.month) else {
                local.startNextMonth()
                continue
            }
            guard matchesDay(local) else {
                local.startNextDay()
                continue
            }
            guard hours.contains(local.hour) else {
                local.startNextHour()
                continue
            }
            guard minutes.contains(local.minute) else {
                local.advanceMinute()
                continue
            }
            if let tick = Self.firstInstant(of: local, in: timeZone), tick > seconds { return tick * 1_000 }
            // Its first occurrence was not after `instant` (the clocks went back since): not again.
            local.advanceMinute()
        }
        return nil
    }

    /// The first instant (seconds since 1970) whose wall-clock time in `timeZone` is `local`, or
    /// for a time the clocks skipped, the moment they jumped past it.
    private static func firstInstant(of local: CivilDate, in timeZone: TimeZone) -> Int64? {
        let wall = local.secondsSince1970
        // The offsets in force around that time: before and after any transition near it.
        let offsets = Set([wall - 86_400, wall, wall + 86_400].map { Int64(timeZone.secondsFromGMT(for: Date(seconds: $0))) })
        let instants = offsets.map { wall - $0 }.filter { Int64(timeZone.secondsFromGMT(for: Date(seconds: $0))) == wall - $0 }
        if let first = instants.min() { return first }
        // Skipped: the transition whose new wall-clock time is at or after `local`.
        var after = Date(seconds: wall - 2 * 86_400)
        for _ in 0..<4 {
            guard let transition = timeZone.nextDaylightSavingTimeTransition(after: after) else { return nil }
            let moment = Int64(transition.timeIntervalSince1970.rounded(.down))
            if moment + Int64(timeZone.secondsFromGMT(for: transition)) >= wall { return moment }
            after = transition
        }
        return nil
    }
}

extension Date {
    fileprivate init(seconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(seconds)) }
}

extension Int64 {
    fileprivate var floorDividedBy1000: Int64 { self >= 0 ? self / 1_000 : (self - 999) / 1_000 }
}
