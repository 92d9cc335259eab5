import ArgumentParser
import DurableQueue

/// `durableq pause QUEUE`: no job of the queue starts (in any process) until it is resumed.
struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pause a queue: running jobs finish, none starts, in every process, until `durableq resume`.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The queue's name.")
    var queue: String

    func run() async throws {
        try await database.openQueue(create: false).queues.pause(queue)
        Terminal.print("queue \(queue): paused")
    }
}

/// `durableq resume QUEUE`: the queue starts jobs again.
struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resume a paused queue.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The queue's name.")
    var queue: String

    func run() async throws {
        try await database.openQueue(create: false).queues.resume(queue)
        Terminal.print("queue \(queue): resumed")
    }
}
