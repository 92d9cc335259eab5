import ArgumentParser
import DurableQueue
import DurableQueuePostgres
import Foundation

/// Which file (or PostgreSQL database) a command works on, and how it opens it.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The DurableQueue file, or a PostgreSQL database as postgres://user[:password]@host[:port]/database[?schema=name].",
            valueName: "path|url"))
    var db: String = "durableq.sqlite"

    @Option(
        name: .long,
        help: ArgumentHelp("How long to wait for another process's write lock (e.g. 5s, 500ms).", valueName: "duration"))
    var busyTimeout: DurationArgument = DurationArgument(.seconds(5))

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long run and download keep trying when the file cannot be written (a full disk) before they stop with status 1.",
            valueName: "duration"))
    var storageTimeout: DurationArgument = DurationArgument(.seconds(30))

    /// Opens the file for a command that changes state (through the library, so every change has
    /// its event). `create` makes a missing file; otherwise a missing file is an error.
    /// A postgres:// URL opens that database (its schema is created if missing).
    func openQueue(create: Bool, configuration: JobQueue.Configuration = JobQueue.Configuration()) async throws -> JobQueue {
        var configuration = configuration
        configuration.storageFailureTimeout = storageTimeout.duration
        if isPostgres {
            configuration.recoverDeadLocalWorkers = false  // process ids mean nothing across hosts
            return try await JobQueue(postgres: try PostgresStorage(url: db), configuration: configuration)
        }
        if !create { try requireFile() }
        configuration.storage = StorageOptions(busyTimeout: busyTimeout.duration, createIfMissing: create)
        configuration.storageFailureTimeout = storageTimeout.duration
        return try JobQueue(path: db, configuration: configuration)
    }

    /// Opens an existing file for reading; never creates one.
    ///
    /// A file that cannot be written (its directory is read-only, say) is opened read-only: reading
    /// works wherever the file can be read.
    func openForReading() async throws -> JobQueue {
        if isPostgres { return try await openQueue(create: false) }
        do {
            return try await openQueue(create: false)
        } catch let writable as DurableQueueError where writable.code == .readOnly || writable.code == .cannotOpen {
            var configuration = JobQueue.Configuration()
            configuration.storage = StorageOptions(busyTimeout: busyTimeout.duration, readOnly: true)
            do {
                return try JobQueue(path: db, configuration: configuration)
            } catch {
                throw writable  // says why the file cannot be opened as it normally is
            }
        }
    }

    /// Whether `db` names a PostgreSQL database rather than a file.
    var isPostgres: Bool { db.hasPrefix("postgres://") || db.hasPrefix("postgresql://") }

    /// Throws a clear error when the file does not exist.
    private func requireFile() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: db, isDirectory: &isDirectory) else {
            throw CommandFailure(
                message: "no DurableQueue file at \(db): it does not exist (name another with --db, "
                    + "or create one with `durableq download`)")
        }
        if isDirectory.boolValue { throw CommandFailure(message: "\(db) is a directory, not a DurableQueue file") }
    }
}

/// `--json` for commands that print what they read.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (for scripts) instead of a table.")
    var json = false
}
