import CDurableQueueSQLite
import DurableQueueCore
import Foundation

/// One open SQLite connection, confined to the actor that owns it.
///
/// Not `Sendable`: a connection never leaves its owner. It closes itself when released.
final class SQLiteConnection {
    /// The database file.
    let path: String
    private let handle: OpaquePointer
    private let busyWait: BusyWait
    private let walSize = WALSize()
    // Unchecked: the connection never leaves its owner, and no access to these overlaps another.
    @exclusivity(unchecked) private var statements: [StatementKey: SQLiteStatement] = [:]
    /// The statements run last, by the identity of their text (see ``statement(_:)``).
    @exclusivity(unchecked) private var recentStatements = [RecentStatement?](repeating: nil, count: 256)

    /// Opens `path` and applies the options: WAL mode, foreign keys, busy timeout, synchronous level.
    ///
    /// The file is read once here, so a file that is not a database fails now rather than later.
    ///
    /// - Parameter immutable: Opens a read-only file as one nothing changes (SQLite's `immutable`):
    ///   no locks, no `-shm`. Only for a file in a directory nobody can write, where SQLite could not
    ///   create the `-shm` a reader of a WAL file needs (see ``canOnlyBeReadAsImmutable(_:after:)``).
    init(path: String, options: StorageOptions, immutable: Bool = false) throws {
        var flags = SQLITE_OPEN_NOMUTEX
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
                .replacingOccurrences(of: "#", with: "%23")
            name = "file:\(escaped)?immutable=1"
        } else if options.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE | FileProtectionFlags.openFlag(options.fileProtection)
            if options.createIfMissing { flags |= SQLITE_OPEN_CREATE }
        }
        if !options.readOnly && options.createIfMissing {
            Self.createIfMissing(path, permissions: mode_t(options.filePermissions))
        }
        _ = Self.libraryConfigured
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(name, &opened, flags, options.vfs)
        guard code == SQLITE_OK, let opened else {
            let error = SQLiteError(handle: opened, code: code, sql: nil, path: path)
            sqlite3_close_v2(opened)
            throw error
        }
        // SQLite opens a file it may not write read-only without a word: refuse that, saying why.
        if !options.readOnly && sqlite3_db_readonly(opened, "main") == 1 {
            sqlite3_close_v2(opened)
            throw Self.unwritable(path)
        }
        self.path = path
        self.handle = opened
        self.busyWait = BusyWait(timeout: options.busyTimeout)
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_handler(handle, { context, tries in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().shouldRetry(after: tries) ? 1 : 0
        }, Unmanaged.passUnretained(busyWait).toOpaque())
        try configure(options)
        if !options.readOnly { FileProtectionFlags.apply(options.fileProtection, to: [path, path + "-wal", path + "-shm"]) }
    }

    /// The error of a file SQLite could open only read-only: `EPERM` (protected data, an immutable
    /// file) or why else it cannot be written.
    private static func unwritable(_ path: String) -> SQLiteError {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        let reason = descriptor < 0 ? errno : 0
        if descriptor >= 0 { close(descriptor) }
        if reason == EPERM {
            return SQLiteError(
                code: SQLITE_CANTOPEN, message: "the file cannot be opened for writing: operation not permitted", systemErrno: reason, path: path)
        }
        // As SQLite says it when it cannot create the -wal and -shm beside the file.
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let code = access(directory, W_OK) != 0 ? SQLITE_READONLY | (6 << 8) : SQLITE_READONLY  // SQLITE_READONLY_DIRECTORY
        return SQLiteError(code: code, message: "the file cannot be opened for writing", systemErrno: reason, path: path)
    }

    /// Done once, before the process's first connection: SQLite's memory statistics are turned off
    /// unless the application initialized SQLite before (then they stay as they are). With them on,
    /// every allocation inside SQLite takes one mutex shared by all connections of the process and
    /// counts; an enqueue allocates a dozen times (a cursor per index of `jobs`), which cost it 6 %
    /// of SQLite's instructions. `sqlite3_memory_used()` and the heap limits need the statistics: an
    /// application that uses them calls `sqlite3_initialize()` before opening a queue.
    private static let libraryConfigured: Void = {
        _ = durablequeue_sqlite3_disable_memory_statistics()
    }()

    /// Whether `error`, from opening `path` read-only, means the file can only be read as immutable:
    /// its directory is not writable, so SQLite cannot create the `-shm` file a WAL reader needs, and
    /// no `-wal` file exists (so no writer can be at work there either).
    /// Related SQLite documentation: <https://www.sqlite.org/wal.html#readonly>
    static func canOnlyBeReadAsImmutable(_ path: String, after error: any Error) -> Bool {
        guard let error = error as? SQLiteError, [SQLITE_READONLY, SQLITE_CANTOPEN].contains(error.primaryCode) else {
            return false
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return access(directory, W_OK) != 0 && !FileManager.default.fileExists(atPath: path + "-wal")
    }

    /// Creates an empty file at `path` with exactly `permissions` unless something is there already.
    ///
    /// SQLite would create the file with 0644 less the umask, and gives its `-wal` and `-shm` files
    /// the database's permissions: creating it first decides them all. Any failure is left for
    /// `sqlite3_open_v2` to report (a missing directory, say).
    private static func createIfMissing(_ path: String, permissions: mode_t) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, permissions)
        guard descriptor >= 0 else { return }
        _ = fchmod(descriptor, permissions)  // the umask may have taken bits the caller asked for
        close(descriptor)
    }

    deinit {
        // Statements must be finalized before the connection closes; close_v2 would defer otherwise.
        recentStatements.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    private func configure(_ options: StorageOptions) throws {
        // The first read of the file: fails with SQLITE_NOTADB for a file that is not a database.
        _ = try scalarInt64("SELECT count(*) FROM sqlite_master")
        if !options.readOnly {
            // WAL lets readers work while one writer commits; it survives kill -9 at any point.
            // Related SQLite documentation: <https://www.sqlite.org/wal.html>
            try retryingWhileBusy(waitingTo: "switch the file to WAL mode") { try execute("PRAGMA journal_mode = WAL") }
        }
        for pragma in options.durability.pragmas { try execute(pragma) }
        try execute("PRAGMA foreign_keys = ON")
        if !options.readOnly {
            // No checkpoint inside a commit: it may fsync, and a commit can run on a cooperative
            // thread (see SQLiteJobStore.perform). The owner checkpoints on its own queue instead,
            // once walPages passes a threshold. The hook replaces SQLite's automatic checkpoint.
            sqlite3_wal_hook(
                handle,
                { context, _, _, pages in
                    if let context { Unmanaged<WALSize>.fromOpaque(context).takeUnretainedValue().pages = pages }
                    return SQLITE_OK
                }, Unmanaged.passUnretained(walSize).toOpaque())
        }
    }

    /// The pages in the write-ahead log after the last commit on this connection.
    var walPages: Int { Int(walSize.pages) }

    /// Copies the write-ahead log into the database as far as readers allow, without waiting for
    /// them (`PASSIVE`), so that the log can start over.
    func checkpoint() throws {
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(handle: handle, code: code, sql: nil, path: path) }
        walSize.pages = 0
    }

    /// The file's data version: it changes with every commit to the file, by this connection or by
    /// any other, in any process (`SQLITE_FCNTL_DATA_VERSION`; no statement runs).
    var dataVersion: UInt32 {
        var version: UInt32 = 0
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return version
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `sql` (one statement, cached) with `arguments` bound, calling `body` for every row.
    func query(_ sql: String, _ arguments: [(any SQLiteBindable)?] = [], row body: (SQLiteRow) throws -> Void) throws {
        try statement(sql).run(arguments) { row in
            try body(row)
            return true
        }
    }

    /// Runs `sql` (one statement, cached) with `arguments` bound, calling `body` for each row until it
    /// returns false: a query that stops reading as soon as it has what it needs.
    func queryPrefix(_ sql: String, _ arguments: [(any SQLiteBindable)?] = [], while body: (SQLiteRow) throws -> Bool) throws {
        try statement(sql).run(arguments, body: body)
    }

    /// Runs `sql` (one statement, cached) with `arguments` bound, ignoring any rows.
    func execute(_ sql: String, _ arguments: [(any SQLiteBindable)?] = []) throws {
        try statement(sql).run(arguments) { _ in true }
    }

    /// Runs `sql` (one statement, cached) with the parameters `bind` binds, calling `body` for every row.
    func query(_ sql: String, binding bind: (inout ParameterBinder) throws -> Void, row body: (SQLiteRow) throws -> Void) throws {
        try statement(sql).run(binding: bind) { row in
            try body(row)
            return true
        }
    }

    /// Runs `sql` (one statement, cached) with the parameters `bind` binds, ignoring any rows.
    func execute(_ sql: String, binding bind: (inout ParameterBinder) throws -> Void) throws {
        try statement(sql).run(binding: bind) { _ in true }
    }

    /// Runs `sql` and returns the first column of its first row, or nil when it returns no row.
    func scalarInt64(_ sql: String, _ arguments: [(any SQLiteBindable)?] = []) throws -> Int64? {
        var value: Int64?
        try queryPrefix(sql, arguments) { row in
            value = row.optionalInt64(0)
            return false
        }
        return value
    }

    /// Runs one statement an application wrote, with `arguments` bound, calling `body` for every
    /// row. Not cached (applications write many); text holding more than one statement is refused
    /// before anything runs.
    func runApplicationStatement(_ sql: String, _ arguments: [(any SQLiteBindable)?], row body: (SQLiteRow) throws -> Void) throws {
        let statement = try SQLiteStatement(sql: sql, connection: handle, path: path, persistent: false)
        guard statement.remainder.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            throw DurableQueueError.invalidArgument("sql", "holds more than one statement; run each with its own call")
        }
        try statement.run(arguments) { row in
            try body(row)
            return true
        }
    }

    /// Runs a script of several statements, not cached and without arguments (migrations).
    func executeScript(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(handle: handle, code: code, sql: nil, path: path)
        }
    }

    /// Runs `body` again while it fails with `SQLITE_BUSY`, pausing between tries as the busy
    /// handler does, until the busy timeout has passed; then throws its last error, saying that
    /// the connection waited `waitingTo` do something.
    ///
    /// For a statement SQLite answers `SQLITE_BUSY` at once, without calling the busy handler:
    /// switching a new file to WAL mode reads its header, then must upgrade that read lock to an
    /// exclusive one, and a connection holding a lock while it waits could deadlock, so SQLite
    /// does not wait (two processes opening a new file at once: one failed in half the tries).
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/busy_handler.html>
    private func retryingWhileBusy(waitingTo action: String, _ body: () throws -> Void) throws {
        var tries: Int32 = 0
        while true {
            do {
                return try body()
            } catch var error as SQLiteError where error.primaryCode == SQLITE_BUSY {
                guard busyWait.shouldRetry(after: tries) else {
                    error.waitingTo = action
                    throw error
                }
                tries += 1
            }
        }
    }

    /// Runs `body` with the busy timeout off: a statement that would wait for another connection's
    /// lock fails with `SQLITE_BUSY` at once instead.
    func withoutBusyWaiting<T>(_ body: () throws -> T) rethrows -> T {
        busyWait.enabled = false
        defer { busyWait.enabled = true }
        return try body()
    }

    /// Runs `body` in a write transaction: `BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK` if it throws.
    ///
    /// `IMMEDIATE` takes the write lock up front, so the busy timeout covers waiting for other
    /// processes; a deferred transaction that reads and then writes could fail with
    /// `SQLITE_BUSY_SNAPSHOT` whatever the timeout.
    /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    func write<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a read transaction, so that all its statements see one snapshot.
    func read<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN DEFERRED", body)
    }

    private func transaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                try? execute("ROLLBACK")
            }
            throw error
        }
    }

    /// The cached statement of `sql`, prepared on first use.
    ///
    /// A statement's text is most often a constant, the same string in memory at every call: its
    /// identity (the string's bits) finds it among the recent ones without hashing the text,
    /// which cost a fiftieth of a job run one at a time (ten statements). The recent entry keeps
    /// its string, so no other string can have those bits while it is there.
    private func statement(_ sql: String) throws -> SQLiteStatement {
        let bits = identityBits(of: sql)
        let slot = Int(truncatingIfNeeded: (bits.1 >> 4) ^ bits.0 ^ (bits.0 >> 7)) & (recentStatements.count - 1)
        if let recent = recentStatements[slot], recent.bits == bits { return recent.statement }
        let key = StatementKey(sql: sql)
        let statement: SQLiteStatement
        if let cached = statements[key] {
            statement = cached
        } else {
            statement = try SQLiteStatement(sql: sql, connection: handle, path: path, persistent: true)
            statements[key] = statement
        }
        recentStatements[slot] = RecentStatement(sql: sql, statement: statement)
        return statement
    }
}

/// A statement run recently, found by the identity of its text: the string's bits, which no other
/// string has while this one is kept.
private struct RecentStatement {
    let sql: String
    let statement: SQLiteStatement

    var bits: (UInt64, UInt64) { identityBits(of: sql) }
}

/// The bytes of `value`'s own representation (for a string: its count, flags and storage pointer,
/// not its text), zero-padded to 16: a string is 16 bytes on 64-bit platforms and 12 where pointers
/// are 32 bits (arm64_32: Apple Watch), where a cast to 16 bytes would trap.
package func identityBits<T>(of value: T) -> (UInt64, UInt64) {
    precondition(MemoryLayout<T>.size <= 16, "identityBits takes values of at most 16 bytes")
    var bits: (UInt64, UInt64) = (0, 0)
    withUnsafeBytes(of: value) { source in withUnsafeMutableBytes(of: &bits) { $0.copyMemory(from: source) } }
    return bits
}

/// The statement cache's key: the SQL text, hashed by its length and its last 16 bytes only.
///
/// Hashing the whole text of every statement run (an insert of a job is 700 bytes) cost a
/// twenty-fifth of an enqueue's instructions, and its last 64 bytes still a twenty-fifth of a job
/// run one at a time (ten statements). Texts that agree in length and ending still differ as
/// keys: equality compares them whole (at once when they are the same string in memory, as a
/// statement's constant text is from call to call).
private struct StatementKey: Hashable {
    let sql: String

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        var text = sql
        var ending: (UInt64, UInt64) = (0, 0)
        let count = text.withUTF8 { bytes in
            withUnsafeMutableBytes(of: &ending) { $0.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(16)))) }
            return bytes.count
        }
        hasher.combine(count)
        hasher.combine(ending.0)
        hasher.combine(ending.1)
    }
}

/// Waits for another connection's lock: in steps of 100 µs at first, then in steps that double
/// up to 10 ms, until the busy timeout.
///
/// SQLite's own busy handler sleeps 1, 2, 5, 10 … ms between tries: a process waiting for another
/// process's commit (a fraction of a millisecond) slept through several of them, and two worker
/// processes on one file left a third of the machine idle. The first ten tries (a millisecond)
/// catch such a commit as it ends; a longer wait (a long transaction, a backup) backs off, so that
/// a 5-second wait wakes about 520 times, not 50,000 (on a phone, each wakeup costs battery).
final class BusyWait {
    private let timeout: Duration
    private var waitingSince = ContinuousClock.now
    /// Off while the store tries a call on the caller's thread, which must not wait.
    var enabled = true

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Whether to try again after `tries` failed tries of the current wait; sleeps first.
    func shouldRetry(after tries: Int32) -> Bool {
        guard enabled else { return false }
        let now = ContinuousClock.now
        if tries == 0 { waitingSince = now }
        guard now - waitingSince < timeout else { return false }
        usleep(Self.pause(afterTries: tries))
        return true
    }

    /// The pause in µs after `tries` failed tries: 100 for the first ten, then doubling up to 10,000.
    static func pause(afterTries tries: Int32) -> UInt32 {
        tries < 10 ? 100 : min(10_000, 100 << min(7, UInt32(tries - 9)))
    }
}

/// The write-ahead log's size in pages, as the commit hook last reported it.
private final class WALSize {
    var pages: Int32 = 0
}
