import DurableQueue
import Logging

extension JobQueue {
    /// Opens a queue on a PostgreSQL database that workers on many machines share, creating its
    /// schema if missing and migrating it to the newest version.
    ///
    /// The same jobs, handles, options, queues and compositions as on a SQLite file. Unless
    /// `configuration` names another time source, the queue follows the database server's clock,
    /// so that leases and schedules mean the same on every node.
    ///
    /// For example:
    /// ```swift
    /// let queue = try await JobQueue(postgres: PostgresStorage(url: "postgres://app@db.internal/jobs"))
    /// ```
    /// - Throws: `DurableQueueError`: `invalidArgument` for a bad setting, `cannotOpen` when the
    ///   server cannot be reached or refuses the login, `schemaTooNew` for a schema a newer version wrote.
    public convenience init(
        postgres storage: PostgresStorage, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "DurableQueue", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws {
        try configuration.validate()
        let store = try await PostgresJobStore(storage, logger: logger)
        var configuration = configuration
        if configuration.timeSource is SystemTimeSource { configuration.timeSource = store.clock }
        try self.init(store: store, configuration: configuration, logger: logger)
    }
}
