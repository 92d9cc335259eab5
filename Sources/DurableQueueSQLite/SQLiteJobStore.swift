import CDurableQueueSQLite
import DurableQueueCore
import Foundation
import Synchronization

/// The only type that speaks SQL: every job, queue and event lives in one SQLite file.
///
/// Each method is one short transaction that changes rows and appends the matching `job_events`
/// rows, so the history shows every state a job was ever in. The actor runs on its own serial
/// dispatch queue, so SQLite calls that block (lock waits, fsync) never hold a cooperative thread;
/// short calls that would not block can run at once on the caller's thread through ``perform(_:)``.
/// Times are milliseconds since 1970. Each write stamps its rows, and takes its decisions, at the
/// time it reads from its clock once it holds the file's write lock (never before the time its
/// caller gives): see ``stampTimes(with:)``.
package actor SQLiteJobStore {
    /// The database file.
    package nonisolated let path: String
    /// The options the file was opened with.
    package nonisolated let options: StorageOptions
    /// The connection to the file; nil while the file is closed (see ``closeFile(untilResumed:)``).
    var openConnection: SQLiteConnection?
    /// Whether the file was opened as one nothing changes (see ``SQLiteConnection/init(path:options:immutable:)``).
    let opensImmutable: Bool
    /// Whether the file is closed again after each use: the process paused (see ``closeFile(untilResumed:)``).
    var closesAfterUse = false
    /// How many of ``read(_:_:)`` and ``write(_:_:)`` are under way (nested ones count too).
    var transactionDepth = 0
    /// What ``observeChanges(_:)`` was given, to watch the file again after a pause.
    nonisolated let changeObserver = Mutex<(@Sendable () -> Void)?>(nil)
    let executor: LockingSerialExecutor
    /// The clock a write transaction reads once it holds the file's write lock.
    nonisolated let transactionClock = TransactionClock()
    /// The commit number of the write transaction under way, once one of its rows needed it (see
    /// ``commitNumber(changesJobs:)``); nil between transactions.
    var transactionCommitNumber: Int64?
    /// The last commit count and the end of the reserved block as the transaction under way left
    /// them, once it took a number; nil between transactions.
    var transactionCommitCounter: (last: Int64, reserved: Int64)?
    /// The last commit count and the end of the reserved block as this store's last numbered
    /// commit left them, known while the file's data version is still the one seen after that
    /// commit (nobody else has written since); nil when they must be read.
    var knownCommitCounter: (last: Int64, reserved: Int64, dataVersion: UInt32)?
    /// Queues known to have a row, so enqueue skips creating them.
    var knownQueues: Set<String> = []
    /// The id the next job gets, known without reading it while the file's data version is still
    /// the one seen after the commit that made it known (nobody else has written since); nil when
    /// it must be read (see ``nextJobID()``).
    var knownNextID: (id: Int64, dataVersion: UInt32)?
    /// The id after the jobs the transaction under way inserted; nil if it inserted none.
    var nextIDAfterInserts: Int64?
    /// The settings an insert takes from each queue read so far, known without reading them again
    /// while the file's data version is still the one seen after this store's last commit: nobody
    /// else has written since, and this store's own writes change them only where they drop them
    /// (configuring a queue, an application's transaction).
    var knownQueueSettings = KnownQueueSettings()
    /// The file's data version when it was last seen to have no cache entry and no dependency
    /// waiting for a job to end (``endingHooksInUse()``): known without a read while nobody else
    /// has written since and this store's own writes added neither; nil when it must be read.
    var knownNoEndingHooks: UInt32?
    /// Whether the transaction under way knows that the file has no cache entry and no waiting
    /// dependency (see ``knownNoEndingHooks``).
    var transactionKnowsNoEndingHooks = false
    /// Every queue's start settings as a claim reads them, and the file's data version after the
    /// commit that last read them: known without a read while nobody else has written since and
    /// this store's own writes to `queues` and `key_limits` have not dropped them.
    var knownClaimQueues: (queues: [QueueStartSettings], dataVersion: UInt32)?
    /// The start settings the transaction under way knows (see ``knownClaimQueues``).
    var transactionClaimQueues: [QueueStartSettings]?
    /// The watch of the file that tells of other processes' commits (see ``observeChanges(_:)``).
    nonisolated let changeWatch = Mutex<FileChangeWatch?>(nil)
    /// When this store last committed (uptime in ns): the watch leaves the file's events alone
    /// while the store is busy (see ``observeChanges(_:)``).
    nonisolated let lastCommitAt = Atomic<UInt64>(0)
    /// Checkpoints beside the commits (nil when read-only).
    let checkpointer: Checkpointer?
    /// Whether a checkpoint waits to run on the store's queue.
    private var checkpointScheduled = false
    /// The log's size in pages when a checkpoint was last asked for (0 once it started over).
    private var checkpointAskedAt = 0
    /// The write-ahead log's size in pages (4 MB at SQLite's default page size) that starts a
    /// checkpoint in the background.
    private static let checkpointThreshold = 1000
    /// The size that starts a checkpoint on the store's queue, which the next commits wait for.
    private static let blockingCheckpointThreshold = 2 * checkpointThreshold

    /// Makes every later write transaction read `clock` once it holds the file's write lock, and
    /// stamp its rows with that time (see ``write(_:now:_:)``).
    package nonisolated func stampTimes(with clock: any TimeSource) {
        transactionClock.use(clock)
    }

    /// Runs the actor on its own serial queue.
    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Opens (or creates) the file at `path` and migrates its schema to the newest version.
    ///
    /// - Throws: ``DurableQueueError`` `notADatabase`, `corrupt`, `cannotOpen`, `schemaTooNew`,
    ///   `readOnly` or `databaseLocked`, naming the file.
    package init(path: String, options: StorageOptions = StorageOptions()) throws {
        try options.validate()
        self.path = path
        self.options = options
        self.executor = LockingSerialExecutor(label: "DurableQueue.store")
        self.checkpointer = options.readOnly ? nil : Checkpointer(path: path, options: options)
        do {
            // Opening writes the WAL mode into an empty file: a caller that creates nothing gets nothing written.
            if options.readOnly || !options.createIfMissing, (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0 {
                throw DurableQueueError(.notADatabase, "not a DurableQueue file: the file is empty", path: path)
            }
            let connection: SQLiteConnection
            var immutable = false
            do {
                connection = try SQLiteConnection(path: path, options: options)
            } catch where options.readOnly && SQLiteConnection.canOnlyBeReadAsImmutable(path, after: error) {
                connection = try SQLiteConnection(path: path, options: options, immutable: true)
                immutable = true
            }
            try SQLiteMigrator.migrate(connection, readOnly: options.readOnly, createsSchema: options.createIfMissing)
            self.openConnection = connection
            self.opensImmutable = immutable
        } catch {
            throw Self.mapped(error, operation: "open the job database", path: path, busyTimeout: options.busyTimeout)
        }
        // While paused, the file is closed again at the end of each call (see ``setPaused(_:)``).
        // Weak: the job just run may have held the last reference to the store.
        executor.setAfterEachJob { [weak self] in
            self?.assumeIsolated { $0.closeIfPaused() }
        }
    }

    /// Runs `body` on the store: at once on the calling thread when that cannot block it, else on the
    /// store's own queue.
    ///
    /// At once means: no other call is using the store and `body`'s SQLite statements need not wait
    /// for another process's lock, so the call costs no thread switch. A `body` that would wait
    /// (`SQLITE_BUSY`) is rolled back and run again on the store's queue, where waiting blocks no
    /// cooperative thread. With ``Durability/powerLoss`` every commit waits for fsync, so `body`
    /// always runs on the queue. Use it for short calls only.
    package nonisolated func perform<T: Sendable>(_ body: @Sendable (isolated SQLiteJobStore) throws -> T) async throws -> T {
        if options.durability != .powerLoss, let result = try runInline(body) { return result }
        return try await run(body)
    }

    /// `body`'s result, or nil if it could not run at once without waiting.
    private nonisolated func runInline<T: Sendable>(_ body: @Sendable (isolated SQLiteJobStore) throws -> T) throws -> T? {
        do {
            return try executor.runInline {
                try assumeIsolated { store in try store.connection.withoutBusyWaiting { try body(store) } }
            }
        } catch let error as DurableQueueError where error.code == .databaseLocked {
            return nil
        }
    }

    private func run<T: Sendable>(_ body: @Sendable (isolated SQLiteJobStore) throws -> T) throws -> T {
        try body(self)
    }

    /// Runs `body` in a write transaction, turning SQLite errors into ``DurableQueueError``.
    ///
    /// `body` gets the transaction's time: the store's clock read once the transaction holds the
    /// file's write lock, or `requested` if that is later (a store with no clock of its own, or a
    /// clock behind its caller's). Every row the transaction writes carries it and every decision
    /// in it uses it, so that the history never shows a change before one committed ahead of it.
    ///
    /// - Parameters:
    ///   - operation: What is being done, in words, for the error message.
    ///   - requested: The time the caller read when it asked (milliseconds since 1970).
    func write<T>(_ operation: @autoclosure () -> String, now requested: Int64, _ body: (Int64) throws -> T) throws -> T {
        try write(operation()) { try body(transactionClock.stamp(requested)) }
    }

    /// Runs `body` in a write transaction that stamps no time, turning SQLite errors into
    /// ``DurableQueueError``.
    ///
    /// - Parameter operation: What is being done, in words, for the error message.
    func write<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        transactionDepth += 1
        defer { transactionEnded() }
        do {
            let result = try connection.write {
                // Another connection's commit since ours makes the next id and the queues'
                // settings unknown.
                let version = try connection.dataVersion
                if let known = knownNextID, known.dataVersion != version { knownNextID = nil }
                if knownQueueSettings.dataVersion != version { knownQueueSettings.forgetAll() }
                if let known = knownCommitCounter, known.dataVersion != version { knownCommitCounter = nil }
                if knownNoEndingHooks != version { knownNoEndingHooks = nil }
                transactionKnowsNoEndingHooks = knownNoEndingHooks != nil
                if let known = knownClaimQueues, known.dataVersion != version { knownClaimQueues = nil }
                transactionClaimQueues = knownClaimQueues?.queues
                nextIDAfterInserts = nil
                transactionCommitNumber = nil
                transactionCommitCounter = nil
                return try body()
            }
            // This commit changed the data version; what it did to the next id and the queues'
            // settings is known.
            let version = try connection.dataVersion
            if let next = nextIDAfterInserts ?? knownNextID?.id { knownNextID = (next, version) }
            if let counter = transactionCommitCounter {
                knownCommitCounter = (counter.last, counter.reserved, version)
            } else if let known = knownCommitCounter {
                knownCommitCounter = (known.last, known.reserved, version)
            }
            knownQueueSettings.dataVersion = version
            knownNoEndingHooks = transactionKnowsNoEndingHooks ? version : nil
            knownClaimQueues = transactionClaimQueues.map { ($0, version) }
            lastCommitAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            scheduleCheckpointIfNeeded()
            return result
        } catch {
            // A queue row created by the rolled-back transaction no longer exists.
            forgetWhatIsKnownOfTheFile()
            throw Self.mapped(error, operation: operation(), path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// Starts a checkpoint each time the write-ahead log has grown by the threshold, as SQLite's
    /// automatic checkpoint would, but not in this commit: in the background, beside the next
    /// commits (see ``Checkpointer``), or past the larger threshold on the store's queue, between
    /// commits, so that the log can start over.
    ///
    /// Not after every commit past the threshold: while commits go on beside a background
    /// checkpoint the log never starts over, and asking again after each one ran 150–230
    /// checkpoints per 2,000 commits, each re-reading the whole log's index for a few new pages.
    ///
    /// With ``Durability/powerLoss`` every commit syncs the log, and a checkpoint's syncs beside
    /// them slow them more than waiting for it between commits does: it always runs on the queue.
    private func scheduleCheckpointIfNeeded() {
        guard !closesAfterUse, let pages = openConnection?.walPages else { return }
        if pages < checkpointAskedAt { checkpointAskedAt = 0 }  // the log started over
        guard pages >= checkpointAskedAt + Self.checkpointThreshold, let checkpointer else { return }
        checkpointAskedAt = pages
        if options.durability != .powerLoss && pages < Self.blockingCheckpointThreshold {
            checkpointer.request()
            return
        }
        guard !checkpointScheduled else { return }
        checkpointScheduled = true
        Task {
            self.checkpointScheduled = false
            if !self.closesAfterUse { checkpointer.checkpointNow() }
        }
    }

    /// Drops everything this store knows of the file without reading it (the ``knownQueues``,
    /// ``knownNextID``, ``knownQueueSettings``, ``knownCommitCounter``, ``knownNoEndingHooks`` and
    /// ``knownClaimQueues``): after a rollback, an application's transaction, a closed connection.
    func forgetWhatIsKnownOfTheFile() {
        knownQueues.removeAll()
        knownNextID = nil
        knownQueueSettings.forgetAll()
        knownCommitCounter = nil
        knownNoEndingHooks = nil
        knownClaimQueues = nil
    }

    /// Runs `body` in a read transaction, turning SQLite errors into ``DurableQueueError``.
    func read<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        transactionDepth += 1
        defer { transactionEnded() }
        do {
            return try connection.read(body)
        } catch {
            throw Self.mapped(error, operation: operation(), path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// The directory holding the file at `path`, as the user named it.
    private static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// The public error for `error`; a ``DurableQueueError`` passes through with the file added.
    static func mapped(_ error: any Error, operation: String, path: String, busyTimeout: Duration) -> DurableQueueError {
        if var error = error as? DurableQueueError {
            if error.path == nil { error.path = path }
            return error
        }
        guard let error = error as? SQLiteError else {
            return DurableQueueError(.storage, "could not \(operation)", path: path, underlying: error)
        }
        if error.isProtectedDataUnavailable {
            return DurableQueueError(
                .protectedDataUnavailable,
                "could not \(operation): the system keeps the file from this process for now "
                    + "(its protection class while the device is locked, or the file is immutable)", path: path, underlying: error)
        }
        let (code, cause): (DurableQueueError.Code, String) =
            switch error.primaryCode {
            case SQLITE_NOTADB: (.notADatabase, "the file is not a database (SQLite cannot read it)")
            case SQLITE_CORRUPT: (.corrupt, "the database file is damaged")
            case SQLITE_CANTOPEN: (.cannotOpen, "the file or its directory cannot be opened")
            case SQLITE_READONLY where error.extendedCode == SQLITE_READONLY | (6 << 8):  // SQLITE_READONLY_DIRECTORY
                (.readOnly, "the directory \(Self.directory(of: path)) is read-only; SQLite must create the file's -wal and -shm there")
            case SQLITE_READONLY: (.readOnly, "the database is read-only")
            case SQLITE_BUSY, SQLITE_LOCKED:
                (
                    .databaseLocked,
                    "the database stayed locked by another connection for more than \(busyTimeout)"
                        + (error.waitingTo.map { ", the busy timeout, while this one waited to \($0)" } ?? "")
                )
            case SQLITE_FULL: (.storage, "the disk is full")
            default: (.storage, error.message)
            }
        return DurableQueueError(code, "could not \(operation): \(cause)", path: path, underlying: error)
    }
}
