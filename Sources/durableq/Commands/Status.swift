import ArgumentParser
import DurableQueue
import DurableQueueInspection
import Foundation

/// `durableq status`: per queue, counts by state, concurrency, suspension, throttle and next start.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each queue: jobs by state, concurrency, paused, throttle and limits, next allowed start.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("by-key"), help: ArgumentHelp("Show queue QUEUE's unfinished jobs by partition key instead.", valueName: "queue"))
    var byKey: String?

    @Flag(
        name: .customLong("by-kind"),
        help: "Show the waiting (pending or scheduled) jobs by kind, version and queue, and how many workers run each there, instead.")
    var byKind = false

    func run() async throws {
        let queue = try await database.openForReading()
        if byKind {
            let coverage = try await queue.reader.waitingJobCoverage(now: Date().millisecondsSince1970)
            if output.json {
                JSONValue.array(coverage.map(\.json)).print()
            } else {
                for line in Self.lines(coverage) { Terminal.print(line) }
            }
            return
        }
        if let name = byKey {
            guard try await queue.reader.queue(named: name) != nil else {
                throw CommandFailure(message: "there is no queue named '\(name)' in \(queue.location)")
            }
            let keys = try await queue.reader.keyCounts(queue: name)
            if output.json {
                JSONValue.array(keys.map(\.json)).print()
            } else {
                for line in Self.lines(keys, now: Date().millisecondsSince1970) { Terminal.print(line) }
            }
            return
        }
        let statuses = try await queue.reader.queueStatuses()
        if output.json {
            JSONValue.array(statuses.map(\.json)).print()
        } else {
            for line in Self.lines(statuses, now: Date().millisecondsSince1970) { Terminal.print(line) }
        }
    }

    /// The unfinished states, in the order the tables show them.
    static let unfinishedColumns: [JobState] = [.scheduled, .pending, .blocked, .running, .handedOff, .waiting]

    /// The by-kind table as lines of text: a row per kind, version and queue with jobs waiting, and
    /// the running and paused workers that run it there; then, for each that no running worker
    /// runs, why its jobs wait.
    static func lines(_ coverage: [KindCoverage]) -> [String] {
        guard !coverage.isEmpty else { return ["no waiting jobs"] }
        var table = Table(header: ["KIND", "VERSION", "QUEUE", "WAITING", "WORKERS", "PAUSED"])
        for row in coverage {
            table.rows.append([
                row.job.kind, String(row.job.version), row.queue, String(row.waiting), String(row.workers), String(row.pausedWorkers),
            ])
        }
        let notes = coverage.compactMap(\.unrunNote)
        return table.lines + (notes.isEmpty ? [] : [""] + notes)
    }

    /// The by-key table as lines of text: a row per partition key (`-` for jobs without one).
    static func lines(_ keys: [KeyCounts], now: Int64) -> [String] {
        guard !keys.isEmpty else { return ["no unfinished jobs"] }
        var table = Table(header: ["KEY", "SCHEDULED", "PENDING", "BLOCKED", "RUNNING", "HANDED OFF", "WAITING", "NEXT START"])
        for key in keys {
            table.rows.append(
                [key.key ?? "-"] + unfinishedColumns.map { String(key[$0]) } + [Formatting.nextStart(key.nextStartAt, now: now) ?? "-"])
        }
        return table.lines
    }

    /// The status table as lines of text.
    static func lines(_ statuses: [QueueStatus], now: Int64) -> [String] {
        guard !statuses.isEmpty else { return ["no queues yet"] }
        var table = Table(header: [
            "QUEUE", "MODE", "LIMIT", "PAUSED", "SCHEDULED", "PENDING", "BLOCKED", "RUNNING", "HANDED OFF", "WAITING", "PARKED",
            "SUCCEEDED", "FAILED", "CANCELLED", "THROTTLE", "NEXT START",
        ])
        for status in statuses {
            let queue = status.configuration
            let throttle = Formatting.limits(of: queue)
            let nextStart = Formatting.nextStart(status.nextStartAt, now: now)
            table.rows.append(
                [
                    queue.name, queue.mode.rawValue, queue.concurrencyLimit == 0 ? "-" : String(queue.concurrencyLimit),
                    queue.isPaused ? "yes" : "no",
                ]
                    + [JobState.scheduled, .pending, .blocked, .running, .handedOff, .waiting, .parked, .succeeded, .failed, .cancelled].map {
                        String(status.counts[$0])
                    }
                    + [throttle.isEmpty ? "-" : throttle.joined(separator: ", "), nextStart ?? "-"])
        }
        return table.lines
    }
}
