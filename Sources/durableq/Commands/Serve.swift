import ArgumentParser
import DurableQueue
import DurableQueueDashboard
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `durableq serve`: the web dashboard for a file or database, until Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the web dashboard: queues, jobs, history, groups and schedules, live; cancel, retry, pause.",
        discussion: """
            Listens on 127.0.0.1 unless --host says otherwise. It prints the URL to open: it carries this \
            start's token, which actions need. Pages read the file like `durableq status`; workers are not \
            slowed (SQLite readers never block writers). Ctrl-C stops it.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The address to listen on (127.0.0.1 keeps it to this machine).")
    var host: String = "127.0.0.1"
    @Option(parsing: .unconditional, help: "The port (0: any free one).")
    var port: Int = 8421

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535, not \(port)") }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
    }

    func run() async throws {
        let queue = try await database.openForReading()
        var logger = Logger(label: "durableq.serve")
        logger.logLevel = .warning
        let dashboard = try Dashboard(queue: queue, configuration: Dashboard.Configuration(host: host, port: port), logger: logger)
        let location = database.db
        let service = ListeningDashboard(dashboard: dashboard) { url in
            Terminal.print("DurableQueue dashboard for \(location)")
            Terminal.print("open \(url)")
            Terminal.print("(the URL carries this start's token, which cancel, retry and pause need; Ctrl-C stops)")
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [service], gracefulShutdownSignals: [.sigint, .sigterm], cancellationSignals: [], logger: logger))
        do {
            try await group.run()
        } catch let error as IOError {
            let reason = error.errnoCode == EADDRINUSE ? "the port is in use (choose another with --port; 0 takes any free one)" : "\(error)"
            throw CommandFailure(message: "cannot listen on \(host):\(port): \(reason)")
        }
    }
}

/// The dashboard as a service that reports its URL once it listens.
private struct ListeningDashboard: Service {
    let dashboard: Dashboard
    let onListening: @Sendable (String) -> Void

    func run() async throws {
        try await dashboard.run { url in onListening(url) }
    }
}
