import Foundation

/// A five-field cron expression: minute, hour, day of month, month, day of week.
///
/// Each field is `*`, a number, a range `a-b`, a step `*/n` or `a-b/n`, or a comma-separated list
/// of those; months and days of the week also take their English names' first three letters
/// (`JAN`, `MON`), and day 7 is Sunday as day 0 is. `@hourly`, `@daily` (`@midnight`), `@weekly`,
/// `@monthly` and `@yearly` (`@annually`) stand for their usual expressions. When both the day of
/// the month and the day of the week are restricted (neither is `*`), a day matches if either
/// does, as in every cron since Vixie's.
struct CronExpression: Sendable, Hashable {
    let minutes: Set<Int>
    let hours: Set<Int>
    let daysOfMonth: Set<Int>
    let months: Set<Int>
    /// 0 (Sunday) … 6.
    let daysOfWeek: Set<Int>
    let dayOfMonthIsAny: Bool
    let dayOfWeekIsAny: Bool

    /// The expression as written.
    let text: String

    private static let macros = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
        "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]
    private static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    private static let dayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

    /// Parses `text`.
    ///
    /// - Throws: `invalidArgument` naming the field and what is wrong with it.
    init(_ text: String) throws {
        self.text = text
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let expanded = Self.macros[trimmed.lowercased()] ?? trimmed
        if expanded.hasPrefix("@") {
            throw Self.invalid(text, "\(trimmed) is not one of @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually")
        }
        let fields = expanded.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw Self.invalid(text, "it has \(fields.count) field(s); cron expressions have 5 (minute hour day-of-month month day-of-week)")
        }
        minutes = try Self.field(fields[0], text: text, name: "minute", range: 0...59)
        hours = try Self.field(fields[1], text: text, name: "hour", range: 0...23)
        daysOfMonth = try Self.field(fields[2], text: text, name: "day of month", range: 1...31)
        months = try Self.field(fields[3], text: text, name: "month", range: 1...12, names: Self.monthNames, firstName: 1)
        // 7 is Sunday too.
        let weekdays = try Self.field(fields[4], text: text, name: "day of week", range: 0...7, names: Self.dayNames, firstName: 0)
        daysOfWeek = Set(weekdays.map { $0 % 7 })
        dayOfMonthIsAny = fields[2] == "*" || fields[2] == "?"
        dayOfWeekIsAny = fields[4] == "*" || fields[4] == "?"
    }

    /// Whether the civil day `date` matches the day-of-month and day-of-week fields.
    func matchesDay(_ date: CivilDate) -> Bool {
        let byMonth = daysOfMonth.contains(date.day)
        let byWeek = daysOfWeek.contains(date.weekday)
        switch (dayOfMonthIsAny, dayOfWeekIsAny) {
        case (true, true): return true
        case (false, true): return byMonth
        case (true, false): return byWeek
        case (false, false): return byMonth || byWeek
        }
    }

    private static func field(
        _ field: String, text: String, name: String, range: ClosedRange<Int>, names: [String] = [], firstName: Int = 0
    ) throws -> Set<Int> {
        var values = Set<Int>()
        for part in field.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, !pieces[0].isEmpty else {
                throw invalid(text, "the \(name) field '\(field)' has an empty or malformed part '\(part)'")
            }
            var step = 1
            if pieces.count == 2 {
                guard let parsed = Int(pieces[1]), parsed >= 1 else {
                    throw invalid(text, "the \(name) field's step '\(pieces[1])' is not a positive number")
                }
                step = parsed
            }
            let bounds: ClosedRange<Int>
            if pieces[0] == "*" || pieces[0] == "?" {
                bounds = range
            } else {
                let ends = pieces[0].split(separator: "-", omittingEmptySubsequences: false)
                guard ends.count <= 2 else { throw invalid(text, "the \(name) field's range '\(pieces[0])' is malformed") }
                let low = try value(String(ends[0]), text: text, name: name, range: range, names: names, firstName: firstName)
                let high = ends.count == 2
                    ? try value(String(ends[1]), text: text, name: name, range: range, names: names, firstName: firstName)
                    : (pieces.count == 2 ? range.upperBound : low)
                guard low <= high else { throw invalid(text, "the \(name) field's range '\(pieces[0])' runs backwards") }
                bounds = low...high
            }
            values.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return values
    }

    private static func value(
        _ text: String, text expression: String, name: String, range: ClosedRange<Int>, names: [String], firstName: Int
    ) throws -> Int {
        if let index = names.firstIndex(of: text.uppercased()) { return index + firstName }
        guard let number = Int(text) else {
            let allowed = names.isEmpty ? "" : " or a name (\(names.joined(separator: ", ")))"
            throw invalid(expression, "the \(name) field's '\(text)' is not a number\(allowed)")
        }
        guard range.contains(number) else {
            throw invalid(expression, "the \(name) field's \(number) is outside \(range.lowerBound)-\(range.upperBound)")
        }
        return number
    }

    private static func invalid(_ text: String, _ reason: String) -> DurableQueueError {
        DurableQueueError.invalidArgument("cron expression '\(text)'", reason)
    }
}
