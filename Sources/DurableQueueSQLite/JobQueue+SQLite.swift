import DurableQueueCore
import Logging

extension JobQueue {
    /// Opens (or creates) the SQLite queue file at `path`, migrating its schema to the newest
    /// version: the counterpart of `JobQueue(postgres:)`.
    ///
    /// - Parameters:
    ///   - path: The SQLite file.
    ///   - options: The file's options (durability, busy timeout, permissions, read-only).
    ///   - configuration: Concurrency, leases, retention and time.
    ///   - logger: Where the queue logs (at `debug` and `trace`, and `info` for rare events); silent by default.
    /// - Throws: `DurableQueueError` — `invalidArgument` for a bad configuration; `notADatabase`,
    ///   `corrupt`, `cannotOpen`, `schemaTooNew`, `readOnly` or `databaseLocked` for the file.
    public convenience init(
        sqlite path: String, options: StorageOptions, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "DurableQueue", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        try configuration.validate()
        try self.init(store: SQLiteJobStore(path: path, options: options), configuration: configuration, logger: logger)
    }

    /// Opens (or creates) the SQLite queue file at `path` with the file options of
    /// `Configuration.storage`: the shorthand of ``init(sqlite:options:configuration:logger:)``.
    ///
    /// - Parameters:
    ///   - path: The SQLite file.
    ///   - configuration: The file's options (`Configuration.storage`), concurrency, leases, retention and time.
    ///   - logger: Where the queue logs (at `debug` and `trace`, and `info` for rare events); silent by default.
    /// - Throws: `DurableQueueError` — `invalidArgument` for a bad configuration; `notADatabase`,
    ///   `corrupt`, `cannotOpen`, `schemaTooNew`, `readOnly` or `databaseLocked` for the file.
    public convenience init(
        path: String, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "DurableQueue", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        try self.init(sqlite: path, options: configuration.storage, configuration: configuration, logger: logger)
    }
}
