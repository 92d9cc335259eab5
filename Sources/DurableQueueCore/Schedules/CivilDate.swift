/// A date and minute on a wall clock, in no time zone: what a cron expression matches.
struct CivilDate: Sendable, Hashable, Comparable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int

    /// The wall-clock time `seconds` after 1970-01-01 00:00, the seconds dropped.
    init(secondsSince1970 seconds: Int64) {
        let days = Int(seconds.floorDivided(by: 86_400))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = secondOfDay / 3_600
        minute = secondOfDay % 3_600 / 60
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        (self.year, self.month, self.day, self.hour, self.minute) = (year, month, day, hour, minute)
    }

    /// This wall-clock time as seconds after 1970-01-01 00:00 on the same wall clock.
    var secondsSince1970: Int64 {
        Int64(Self.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3_600 + minute * 60)
    }

    /// 0 for Sunday … 6 for Saturday.
    var weekday: Int {
        // 1970-01-01 was a Thursday.
        (Self.days(year: year, month: month, day: day) + 4).positiveModulo(7)
    }

    /// The days of this date's month.
    var daysInMonth: Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The first minute of the next month.
    mutating func startNextMonth() {
        (month, day, hour, minute) = (month + 1, 1, 0, 0)
        if month > 12 { (year, month) = (year + 1, 1) }
    }

    /// The first minute of the next day.
    mutating func startNextDay() {
        (day, hour, minute) = (day + 1, 0, 0)
        if day > daysInMonth { startNextMonth() }
    }

    /// The first minute of the next hour.
    mutating func startNextHour() {
        (hour, minute) = (hour + 1, 0)
        if hour > 23 { startNextDay() }
    }

    /// The next minute.
    mutating func advanceMinute() {
        minute += 1
        if minute > 59 { startNextHour() }
    }

    static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int {
    fileprivate func positiveModulo(_ divisor: Int) -> Int { ((self % divisor) + divisor) % divisor }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
