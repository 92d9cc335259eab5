import ArgumentParser
import DurableQueue
import Foundation

/// `durableq`: inspect and manage a DurableQueue file, and download with progress bars.
@main
struct DurableQ: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "durableq",
        abstract: "Inspect and manage a DurableQueue file; download files that survive crashes.",
        discussion: """
            Works on any DurableQueue file: ./durableq.sqlite unless --db names another.
            Exit status: 0 ok, 1 a job or the command failed, 2 bad usage, 130 interrupted (Ctrl-C).
            """,
        subcommands: [
            Demo.self, Download.self, Run.self, Status.self, List.self, Show.self, Cancel.self, Retry.self, Bulk.self, Signal.self, Pause.self,
            Resume.self, KeyLimitsCommand.self, Schedules.self, Prune.self, Watch.self, Serve.self,
        ]
    )

    /// Runs the command, mapping usage errors to exit status 2 (ArgumentParser's default is 64) and
    /// DurableQueue errors to a one-line message and status 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as DurableQueueError {
            Terminal.printError(error.description)
            Foundation.exit(1)
        } catch let error as CommandFailure {
            Terminal.printError(error.message)
            Foundation.exit(error.status)
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// A failure the command has explained: its message goes to standard error, then the process exits
/// with `status`.
struct CommandFailure: Error {
    var message: String
    var status: Int32 = 1
}
