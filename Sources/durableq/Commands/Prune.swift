import ArgumentParser
import DurableQueue

/// `durableq prune`: deletes finished jobs older than an age, with their history.
struct Prune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete finished jobs (and their history) that finished longer ago than --older-than.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("How long ago a job must have finished (e.g. 7d, 12h, 30m).", valueName: "age"))
    var olderThan: DurationArgument
    @Option(help: "Only jobs in this state: succeeded, failed or cancelled (default: all three).")
    var state: JobState?

    func validate() throws {
        if let state, !state.isTerminal {
            throw ValidationError("--state must be succeeded, failed or cancelled; \(state.rawValue) jobs are unfinished")
        }
    }

    func run() async throws {
        let jobs = try await database.openQueue(create: false)
        var deleted = 0
        for state in state.map({ [$0] }) ?? [.succeeded, .failed, .cancelled] {
            deleted += try await jobs.jobs.prune(state: state, olderThan: olderThan.duration)
        }
        Terminal.print("pruned \(deleted) job(s) finished more than \(olderThan.text) ago")
    }
}
