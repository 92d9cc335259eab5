import ArgumentParser
import DurableQueue

/// `durableq signal ID NAME [PAYLOAD]`: a signal to a job, which its handler's wait returns.
struct Signal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a signal to a job: its handler's waitForSignal(NAME) returns the payload.",
        discussion: """
            A job waiting for the signal becomes pending (`durableq run` then runs it); a job not waiting \
            for it yet keeps it for its wait. A signal is sent once per job and name: sending it again \
            changes nothing. Exit status 1 when the job has finished (nothing is kept).
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The job's id.")
    var id: Int64

    @Argument(help: "The signal's name.")
    var name: String

    @Argument(help: "The payload, as JSON (for example '{\"clerk\":\"ada\"}' or '\"yes\"'); null when left out.")
    var payload: String = "null"

    func run() async throws {
        let result = try await database.openQueue(create: false).jobs.signal(JobID(id), name, payloadJSON: payload)
        switch result {
        case .wokeJob: Terminal.print("job \(id): signal '\(name)' received; pending")
        case .kept: Terminal.print("job \(id): signal '\(name)' kept for its wait")
        case .alreadySent: Terminal.print("job \(id): had signal '\(name)' already; nothing changed")
        case .jobFinished(let state):
            throw CommandFailure(message: "job \(id) has finished (\(state.rawValue)); signal '\(name)' not kept", status: 1)
        }
    }
}
