import ArgumentParser
import DurableQueue
import DurableQueueInspection
import Foundation

/// `durableq schedules`: the schedules of the file, their next ticks, and pausing them.
struct Schedules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List schedules (periodic jobs), show their next ticks, pause or resume them.",
        subcommands: [ListSchedules.self, NextTicks.self, PauseSchedule.self, ResumeSchedule.self],
        defaultSubcommand: ListSchedules.self
    )
}

/// `durableq schedules list`: every schedule with its rule, state, next and last tick and last job.
struct ListSchedules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Show every schedule: rule, paused or not, next and last tick, last job and its state.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let schedules = try await database.openForReading().schedules.list()
        if output.json {
            JSONValue.array(schedules.map(\.json)).print()
            return
        }
        guard !schedules.isEmpty else { return Terminal.print("no schedules") }
        var table = Table(header: ["NAME", "JOB", "QUEUE", "RULE", "STATUS", "NEXT TICK", "LAST TICK", "LAST JOB"])
        for schedule in schedules {
            table.rows.append([
                schedule.name, schedule.kind, schedule.queue, schedule.rule.description, schedule.isPaused ? "paused" : "active",
                schedule.nextTick.map { Formatting.timestamp($0.millisecondsSince1970) } ?? "-",
                schedule.lastTick.map { Formatting.timestamp($0.millisecondsSince1970) } ?? "-",
                schedule.lastJob.map { "\($0) (\(schedule.lastJobState?.rawValue ?? "pruned"))" } ?? "-",
            ])
        }
        for line in table.lines { Terminal.print(line) }
    }
}

/// `durableq schedules next NAME`: the schedule's coming ticks.
struct NextTicks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Show a schedule's next ticks (UTC).")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The schedule's name.")
    var name: String

    @Option(help: "How many ticks to show.")
    var count = 5

    func run() async throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard let schedule = try await database.openForReading().schedules.list().first(where: { $0.name == name }) else {
            throw CommandFailure(message: "there is no schedule named '\(name)'")
        }
        Terminal.print("\(schedule.name): \(schedule.rule)\(schedule.isPaused ? " (paused: it resumes from its first tick after `durableq schedules resume`)" : "")")
        // From the stored next tick: the one the schedule waits for comes first.
        guard let first = schedule.nextTick else { return Terminal.print("  no more ticks") }
        let ticks = [first] + (try schedule.rule.ticks(after: first, count: count - 1))
        for tick in ticks { Terminal.print("  " + Formatting.timestamp(tick.millisecondsSince1970)) }
    }
}

/// `durableq schedules pause NAME`.
struct PauseSchedule: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a schedule: it enqueues nothing, in any process, until resumed.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The schedule's name.")
    var name: String

    func run() async throws {
        try await database.openQueue(create: false).schedules.pause(name)
        Terminal.print("schedule \(name): paused")
    }
}

/// `durableq schedules resume NAME`.
struct ResumeSchedule: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused schedule from its next tick (ticks missed while paused do not fire).")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The schedule's name.")
    var name: String

    func run() async throws {
        try await database.openQueue(create: false).schedules.resume(name)
        Terminal.print("schedule \(name): resumed")
    }
}
