import ArgumentParser
import DurableQueue
import DurableQueueInspection

/// `durableq list`: jobs, newest first, filtered by state, queue, kind and tag, or the poison jobs.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List jobs, newest first.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Only jobs in this state (\(JobState.allCases.map(\.rawValue).joined(separator: ", "))).")
    var state: JobState?
    @Option(help: "Only jobs of this queue.")
    var queue: String?
    @Option(help: "Only jobs of this kind (a job type's name).")
    var kind: String?
    @Option(help: "Only jobs with this tag.")
    var tag: String?
    @Flag(help: "Only poison jobs: failed because their worker stopped during too many attempts in a row.")
    var poisoned = false
    @Option(parsing: .unconditional, help: "At most this many jobs.")
    var limit: Int = 50

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive, not \(limit)") }
        if poisoned, let state, state != .failed {
            throw ValidationError("poison jobs are failed: --poisoned with --state \(state.rawValue) matches no job")
        }
    }

    func run() async throws {
        var filter = poisoned ? JobFilter.poisoned(limit: limit) : JobFilter(state: state, limit: limit)
        filter.queues = queue.map { [$0] }
        filter.kinds = kind.map { [$0] }
        filter.tag = tag
        let jobs = try await database.openForReading().reader.jobs(filter)
        if output.json {
            JSONValue.array(jobs.map(\.json)).print()
            return
        }
        guard !jobs.isEmpty else { return Terminal.print("no jobs") }
        var table = Table(header: ["ID", "QUEUE", "KIND", "STATE", "ATTEMPTS", "PROGRESS", "UPDATED", "TAGS"])
        for job in jobs {
            table.rows.append([
                String(job.id.rawValue), job.queue, Formatting.kind(job.kind, version: job.version), job.state.rawValue,
                job.maxAttempts.map { "\(job.attempts)/\($0)" } ?? String(job.attempts), Formatting.percent(job.progress),
                Formatting.timestamp(job.updatedAt), job.tags.joined(separator: ","),
            ])
        }
        table.print()
    }
}

extension JobState: ExpressibleByArgument {}
