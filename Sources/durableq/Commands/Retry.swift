import ArgumentParser
import DurableQueue

/// `durableq retry ID`: a failed or cancelled job back to pending; with `--graph`, the failed jobs
/// of its dependency graph and what their failure cancelled.
struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a failed or cancelled job back to pending, with a fresh set of attempts (recorded in its history).",
        discussion: """
            A download keeps its checkpoint and resumes where it stopped. `durableq run` then runs it. With --graph, every \
            failed job linked to ID by dependencies is retried, and the jobs their failure cancelled wait again (not with \
            --only-failed).
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The job's id.")
    var id: Int64
    @Flag(help: "Retry the failed jobs of the job's dependency graph instead, and what their failure cancelled downstream.")
    var graph = false
    @Flag(help: "With --graph: only the failed jobs; what their failure cancelled stays cancelled.")
    var onlyFailed = false

    func validate() throws {
        if onlyFailed && !graph { throw ValidationError("--only-failed goes with --graph") }
    }

    func run() async throws {
        let queue = try await database.openQueue(create: false)
        guard graph else {
            try await queue.retry(JobID(id))
            return Terminal.print("job \(id): pending")
        }
        let changed = try await queue.retryFailed(inGraphOf: JobID(id), downstream: !onlyFailed)
        guard !changed.isEmpty else { return Terminal.print("no job of the graph of job \(id) has failed; nothing changed") }
        for (job, state) in changed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { Terminal.print("job \(job): \(state.rawValue)") }
    }
}
