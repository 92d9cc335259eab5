import ArgumentParser
import DurableQueue

/// `durableq retry ID`: a failed, cancelled or parked job back to pending; with `--graph`, the failed jobs
/// of its dependency graph and what their failure cancelled; with `--group`, a failed group's failed part.
struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a failed, cancelled or parked job back to pending, with a fresh set of attempts (recorded in its history).",
        discussion: """
            A download keeps its checkpoint and resumes where it stopped. `durableq run` then runs it. With --graph, every \
            failed job linked to ID by dependencies is retried, and the jobs their failure cancelled wait again (not with \
            --only-failed).
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The job's id (a group's with --group).")
    var id: Int64
    @Flag(help: "Retry the failed jobs of the job's dependency graph instead, and what their failure cancelled downstream.")
    var graph = false
    @Flag(help: "ID is a failed sequence or group: run it again from its failed step (a sequence) or its failed children.")
    var group = false
    @Flag(help: "With --graph or --group: only what failed; what was cancelled stays cancelled.")
    var onlyFailed = false

    func validate() throws {
        if graph && group { throw ValidationError("--graph and --group exclude each other") }
        if onlyFailed && !graph && !group { throw ValidationError("--only-failed goes with --graph or --group") }
    }

    func run() async throws {
        let queue = try await database.openQueue(create: false)
        if group {
            let changed = try await queue.jobs.retryFailed(in: GroupID(id), downstream: !onlyFailed)
            guard !changed.isEmpty else { return Terminal.print("nothing of group \(id) to run again; nothing changed") }
            for (job, state) in changed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { Terminal.print("job \(job): \(state.rawValue)") }
            return
        }
        guard graph else {
            try await queue.jobs.retry(JobID(id))
            return Terminal.print("job \(id): pending")
        }
        let changed = try await queue.jobs.retryFailed(inGraphOf: JobID(id), downstream: !onlyFailed)
        guard !changed.isEmpty else { return Terminal.print("no job of the graph of job \(id) has failed; nothing changed") }
        for (job, state) in changed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { Terminal.print("job \(job): \(state.rawValue)") }
    }
}
