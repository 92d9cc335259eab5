import ArgumentParser
import DurableQueue

/// `durableq run`: works through pending downloads and HTTP requests.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run pending downloads and HTTP requests (including interrupted ones) until none is left, or --forever.",
        discussion: """
            Jobs of other kinds wait for the program that registers them. Ctrl-C stops at once; running \
            jobs go back to pending and resume on the next run.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var network: NetworkOptions

    @Option(help: "Only this queue (repeat for several).")
    var queue: [String] = []
    @Flag(help: "Keep running and take new work as it arrives, until Ctrl-C.")
    var forever = false
    @Option(parsing: .unconditional, help: "The most jobs run at once.")
    var concurrency: Int = 16
    @Flag(help: "Log the engine's work to standard error.")
    var verbose = false

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1, not \(concurrency)") }
    }

    func run() async throws {
        let queues = queue.isEmpty ? nil : queue
        let worker = try await HTTPWorker(
            database: database, queues: queues.map(Set.init), maxConcurrentJobs: concurrency, network: network,
            verbose: verbose)
        let initial = try await worker.queue.reader.jobs(HTTPWorker.unfinished(queues: queues)).map(\.id)
        if initial.isEmpty && !forever {
            Terminal.print("nothing to run")
            return
        }
        let (ending, jobs) = try await worker.work(queues: queues, showing: initial, forever: forever)
        let succeeded = jobs.filter { $0.state == .succeeded }.count
        let unsuccessful = jobs.filter { $0.state == .failed || $0.state == .cancelled }.count
        if ending == .interrupted && !forever {
            throw CommandFailure(message: "interrupted: unfinished jobs stay in \(database.db); run again to resume", status: 130)
        }
        Terminal.print("\(succeeded) succeeded, \(unsuccessful) failed")
        if unsuccessful > 0 { throw ExitCode.failure }
    }
}
