import ArgumentParser
import DurableQueue
import DurableQueueInspection
import Foundation

/// `durableq bulk retry|cancel|delete`: one action on every job a filter matches.
struct Bulk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Retry, cancel or delete every job a filter matches (each change in the history).",
        discussion: """
            retry takes failed, cancelled and parked jobs, cancel unfinished and parked ones, delete finished ones, oldest first, \
            500 per transaction. Jobs of a sequence or group are not retried on their own; jobs of an unfinished \
            group are not deleted. Run with --dry-run first: it counts and changes nothing.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "What to do: \(BulkAction.allCases.map(\.rawValue).joined(separator: ", ")).")
    var action: BulkAction
    @Option(help: "Only jobs in this state (repeatable).")
    var state: [JobState] = []
    @Option(help: "Only jobs of this queue (repeatable).")
    var queue: [String] = []
    @Option(help: "Only jobs of this kind (repeatable).")
    var kind: [String] = []
    @Option(help: "Only jobs with this tag.")
    var tag: String?
    @Option(help: "Only jobs created at or after this time: ISO 8601 (2026-11-27T10:00:00Z) or an age (2h: two hours ago).")
    var createdFrom: TimeArgument?
    @Option(help: "Only jobs created before this time: ISO 8601 or an age (30m: half an hour ago).")
    var createdBefore: TimeArgument?
    @Option(help: "Only jobs whose last error's type or message contains this text (ignoring case).")
    var error: String?
    @Flag(help: "Count the jobs the action would take; change nothing.")
    var dryRun = false

    func run() async throws {
        let now = Date()
        let selection = JobSelection(
            states: state.isEmpty ? nil : Set(state), queues: queue.isEmpty ? nil : Set(queue), kinds: kind.isEmpty ? nil : Set(kind),
            tag: tag, createdFrom: createdFrom?.date(now: now), createdBefore: createdBefore?.date(now: now), errorContains: error)
        let result = try await database.openQueue(create: false).jobs.apply(action, to: selection, dryRun: dryRun)
        if output.json {
            JSONValue.object([
                ("action", .string(action.rawValue)), ("selection", .string(selection.description)), ("matched", .int(Int64(result.matched))),
                ("changed", .int(Int64(result.changed))), ("dry_run", .bool(dryRun)),
            ]).print()
        } else if dryRun {
            Terminal.print("\(action.rawValue) would take \(result.matched) job(s) (\(selection)); nothing changed")
        } else {
            Terminal.print("\(action.rawValue): \(result.changed) of \(result.matched) matching job(s) changed (\(selection))")
        }
    }
}

extension BulkAction: ExpressibleByArgument {}

/// A time on the command line: ISO 8601, or an age (`2h`) counted back from now.
struct TimeArgument: ExpressibleByArgument, Sendable {
    private enum Value: Sendable {
        case date(Date)
        case ago(Duration)
    }
    private let value: Value

    init?(argument: String) {
        if let age = DurationArgument(argument: argument) {
            value = .ago(age.duration)
        } else if let date = try? Date(argument, strategy: .iso8601) {
            value = .date(date)
        } else {
            return nil
        }
    }

    /// The time meant, ages counted back from `now`.
    func date(now: Date) -> Date {
        switch value {
        case .date(let date): date
        case .ago(let age): now.addingTimeInterval(-Double(age.milliseconds) / 1_000)
        }
    }
}
