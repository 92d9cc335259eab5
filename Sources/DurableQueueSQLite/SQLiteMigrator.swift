import DurableQueueCore
import DurableQueueMigrations

/// Brings a file's schema up to date, one migration per transaction, tracked in `PRAGMA user_version`.
enum SQLiteMigrator {
    /// `PRAGMA application_id` of a DurableQueue file ("DQue"), set by the first migration.
    static let applicationID: Int64 = 0x4451_7565

    /// Applies every migration newer than the file's `user_version`, in order.
    ///
    /// Each runs in its own `BEGIN IMMEDIATE` transaction that re-reads the version first, so two
    /// processes opening a new file at once apply each migration exactly once.
    ///
    /// - Parameter createsSchema: Whether an empty file may become a DurableQueue file; when false
    ///   (the caller asked not to create a file) an empty file is not one, and stays untouched.
    /// - Throws: `schemaTooNew` for a file written by a newer version; `notADatabase` for an SQLite
    ///   file that holds other tables, or an empty one unless `createsSchema`; `readOnly` when a
    ///   read-only file needs migrating.
    static func migrate(
        _ connection: SQLiteConnection, readOnly: Bool, createsSchema: Bool = true, migrations: [SchemaMigration] = SchemaMigrations.all
    ) throws {
        let latest = migrations.last?.version ?? 0
        // The version and the tables from one snapshot: another process migrating the new file
        // meanwhile commits both at once, so a file at version 0 with tables is never its doing.
        let (found, tables) = try connection.read { (try userVersion(connection), try connection.scalarInt64("SELECT count(*) FROM sqlite_master")) }
        if found > latest {
            throw DurableQueueError(
                .schemaTooNew,
                "the file's schema version \(found) is newer than this DurableQueue supports (\(latest)); "
                    + "open it with a newer DurableQueue", path: connection.path)
        }
        if found == 0, tables != 0 {
            throw DurableQueueError(
                .notADatabase, "not a DurableQueue file: it holds other tables and no DurableQueue schema",
                path: connection.path)
        }
        if found == 0 && (readOnly || !createsSchema) {
            throw DurableQueueError(.notADatabase, "not a DurableQueue file: the file is empty", path: connection.path)
        }
        if found > 0, try connection.scalarInt64("PRAGMA application_id") != applicationID {
            throw DurableQueueError(.notADatabase, "not a DurableQueue file: its application_id differs", path: connection.path)
        }
        guard found < latest else { return }
        if readOnly {
            throw DurableQueueError(
                .readOnly, "the file's schema version \(found) needs upgrading to \(latest), which a read-only open cannot do",
                path: connection.path)
        }
        // A migration may rebuild a table; with foreign keys on, dropping the old one would cascade
        // to the rows that reference it. The pragma has no effect inside a transaction, so it is set
        // around them, and every migration checks the keys itself before it commits.
        try connection.executeScript("PRAGMA foreign_keys = OFF")
        do {
            try apply(migrations.filter { $0.version > found }, to: connection)
        } catch {
            // The migration's error is the one to report; the pragma is restored as well as it can be.
            try? connection.executeScript("PRAGMA foreign_keys = ON")
            throw error
        }
        try connection.executeScript("PRAGMA foreign_keys = ON")
    }

    /// Applies `migrations` in order, each in its own transaction, unless another process did first.
    private static func apply(_ migrations: [SchemaMigration], to connection: SQLiteConnection) throws {
        for migration in migrations {
            try connection.write {
                guard try userVersion(connection) < migration.version else { return }
                try connection.executeScript(migration.sql)
                if try connection.scalarInt64("SELECT count(*) FROM pragma_foreign_key_check") != 0 {
                    throw DurableQueueError(
                        .corrupt, "migration \(migration.name) would leave rows that reference missing rows",
                        path: connection.path)
                }
                // The version is a constant of this build, never input.
                try connection.executeScript("PRAGMA user_version = \(migration.version)")
            }
        }
    }

    /// The file's `PRAGMA user_version`.
    static func userVersion(_ connection: SQLiteConnection) throws -> Int {
        Int(try connection.scalarInt64("PRAGMA user_version") ?? 0)
    }
}
