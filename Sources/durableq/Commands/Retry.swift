import ArgumentParser
import DurableQueue

/// `durableq retry ID`: a failed or cancelled job back to pending.
struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a failed or cancelled job back to pending, with a fresh set of attempts (recorded in its history).",
        discussion: "A download keeps its checkpoint and resumes where it stopped. `durableq run` then runs it.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The job's id.")
    var id: Int64

    func run() async throws {
        try await database.openQueue(create: false).retry(JobID(id))
        Terminal.print("job \(id): pending")
    }
}
