import ArgumentParser
import DurableQueue

/// `durableq cancel`: cancels one job, or every unfinished job of a tag, a queue, or the file.
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel a job (or all unfinished jobs of a tag, a queue, or the whole file).",
        discussion: "A waiting job is cancelled at once; a running one is stopped by its worker, in whatever process.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The job's id.")
    var id: Int64?
    @Option(help: "Cancel every unfinished job with this tag.")
    var tag: String?
    @Option(help: "Cancel every unfinished job of this queue.")
    var queue: String?
    @Flag(help: "Cancel every unfinished job in the file.")
    var all = false

    func validate() throws {
        let chosen = [id != nil, tag != nil, queue != nil, all].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("name exactly one of: an ID, --tag, --queue, --all") }
    }

    func run() async throws {
        let jobs = try await database.openQueue(create: false)
        if let id {
            let before = try await jobs.reader.job(JobID(id)).state
            try await jobs.jobs.cancel(JobID(id))
            switch before {
            case .running: Terminal.print("job \(id): cancel requested; its worker stops it")
            case _ where before.isTerminal: Terminal.print("job \(id) had already finished (\(before.rawValue)); nothing changed")
            default: Terminal.print("job \(id): cancelled")
            }
            return
        }
        let count: Int
        if let tag {
            count = try await jobs.jobs.cancel(JobSelection(tag: tag))
        } else if let queue {
            count = try await jobs.jobs.cancel(JobSelection(queues: [queue]))
        } else {
            count = try await jobs.jobs.cancel(JobSelection())
        }
        Terminal.print("cancelled \(count) job(s)")
    }
}
