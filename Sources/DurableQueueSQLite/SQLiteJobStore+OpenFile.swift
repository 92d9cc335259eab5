import DurableQueueCore
import Foundation
import Synchronization

extension SQLiteJobStore {
    /// The connection to the file, opened again if it was closed (see ``setPaused(_:)``).
    ///
    /// - Throws: The ``DurableQueueError`` of opening the file: `cannotOpen` if it is gone,
    ///   `dataUnavailable` while the system keeps it from this process, `schemaTooNew` if a newer
    ///   version migrated it meanwhile.
    var connection: SQLiteConnection {
        get throws {
            if let openConnection { return openConnection }
            return try reopen()
        }
    }

    /// Opens the file again: never creating it (a file that is gone stays gone, and its jobs with
    /// it, rather than starting anew), and checking that its schema is still one this version knows.
    private func reopen() throws -> SQLiteConnection {
        var options = options
        options.createIfMissing = false
        do {
            let connection = try SQLiteConnection(path: path, options: options, immutable: opensImmutable)
            try SQLiteMigrator.migrate(connection, readOnly: true, createsSchema: false)
            openConnection = connection
            return connection
        } catch {
            throw Self.mapped(error, operation: "open the job database again", path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// Closes the file at the end of a call while paused: no call leaves it open behind it.
    func closeIfPaused() {
        if closesAfterUse && openConnection != nil && transactionDepth == 0 { closeConnections() }
    }

    /// A ``read(_:_:)`` or ``write(_:_:)`` ended: while paused, the outermost one closes the file
    /// before its caller hears of the result (the executor's close after each job comes later).
    func transactionEnded() {
        transactionDepth -= 1
        closeIfPaused()
    }

    /// Closes every connection to the file (the checkpointer's too) and forgets what was known
    /// through them: a new connection counts data versions anew.
    private func closeConnections() {
        openConnection = nil
        checkpointer?.close()
        forgetWhatIsKnownOfTheFile()
    }

    /// While `paused`, the store holds nothing open: the file, its `-wal` and `-shm` and its watch
    /// are closed now, and a call meanwhile opens the file for itself and closes it when it has
    /// ended. A suspended app that held a lock on a file in a shared container would be killed.
    /// Unpaused, the file opens at the next call and stays open, and the watch starts again.
    package func setPaused(_ paused: Bool) {
        closesAfterUse = paused
        executor.runAfterEachJob(paused)
        if paused {
            closeConnections()
            changeWatch.withLock { $0 = nil }
        } else if let onChange = changeObserver.withLock({ $0 }) {
            startWatch(onChange)
        }
    }
}
