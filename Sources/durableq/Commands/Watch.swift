import ArgumentParser
import DurableQueue
import DurableQueueInspection
import Foundation

/// `durableq watch`: the status table, refreshed.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show `durableq status`, refreshed until Ctrl-C.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("Time between refreshes.", valueName: "duration"))
    var interval: DurationArgument = DurationArgument(.seconds(1))
    @Option(parsing: .unconditional, help: "Stop after this many refreshes (default: never).")
    var count: Int?

    func validate() throws {
        guard interval.duration >= .milliseconds(50) else { throw ValidationError("--interval must be at least 50ms") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count)") }
    }

    func run() async throws {
        let store = try await database.openForReading().reader
        let interactive = Terminal.isInteractive
        var refreshes = 0
        while count.map({ refreshes < $0 }) ?? true {
            let now = Date().millisecondsSince1970
            let lines = ["\(database.db) at \(Formatting.timestamp(now))", ""] + Status.lines(try await store.queueStatuses(), now: now)
            if interactive {
                // Home, draw, clear what is left of the previous frame.
                Terminal.write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K\n" }.joined() + "\u{1B}[J")
            } else {
                for line in lines { Terminal.print(line) }
                Terminal.print()
            }
            refreshes += 1
            if count.map({ refreshes >= $0 }) ?? false { break }
            try await Task.sleep(for: interval.duration)
        }
    }
}
