import DurableQueueTestSupport
import Foundation
import DurableQueueMigrations
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct OpeningTests {
    /// Power-loss durability flushes the drive's cache too: on Darwin `fsync` does not, so commits
    /// and checkpoints use `F_FULLFSYNC` (`fullfsync`, `checkpoint_fullfsync`; SQLite ignores them
    /// where `fsync` reaches the drive).
    @Test(arguments: Durability.allCases) func eachDurabilitySetsItsSyncPragmas(_ durability: Durability) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions(durability: durability))
        let settings = try ["synchronous", "fullfsync", "checkpoint_fullfsync"].map { try connection.scalarInt64("PRAGMA \($0)") }
        #expect(settings == (durability == .powerLoss ? [2, 1, 1] : [1, 0, 0]), "\(durability): \(settings)")
    }

    /// Switching a new file to WAL mode must upgrade a read lock, which SQLite does not wait for
    /// (no busy handler): the open waits for it itself, as long as the busy timeout, and then
    /// says what it waited for.
    @Test func anOpenWaitsTheBusyTimeoutForAnotherConnectionToLetTheFileSwitchToWAL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        // Another connection reads the new file (rollback mode) in a transaction: a shared lock.
        let reader = try SQLiteConnection(path: path, options: StorageOptions(readOnly: true))
        try reader.execute("BEGIN")
        _ = try reader.scalarInt64("SELECT count(*) FROM sqlite_master")

        let started = ContinuousClock.now
        let error = try #require(throws: DurableQueueError.self) {
            try SQLiteJobStore(path: path, options: StorageOptions(busyTimeout: .milliseconds(300)))
        }
        let waited = ContinuousClock.now - started
        #expect(error.code == .databaseLocked)
        #expect(error.description.contains("while this one waited to switch the file to WAL mode"), "\(error)")
        #expect(waited >= .milliseconds(300), "gave up after \(waited)")

        // Once the reader is done, the file opens and is a queue.
        try reader.execute("ROLLBACK")
        _ = try SQLiteJobStore(path: path, options: StorageOptions(busyTimeout: .milliseconds(300)))
        #expect(try SQLiteMigrator.userVersion(reader) == SchemaMigrations.all.last?.version)
    }

    @Test func aFileOfRandomBytesIsNotADatabase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("photo.jpg")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: URL(fileURLWithPath: path))

        let error = try #require(throws: DurableQueueError.self) { try SQLiteJobStore(path: path) }
        #expect(error.code == .notADatabase)
        #expect(error.description.contains(path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("other.sqlite")
        try SQLiteConnection(path: path, options: StorageOptions()).executeScript("CREATE TABLE photos (id INTEGER)")

        let error = try #require(throws: DurableQueueError.self) { try SQLiteJobStore(path: path) }
        #expect(error.code == .notADatabase)
        #expect(error.message.contains("not a DurableQueue file"))
        let connection = try SQLiteConnection(path: path, options: StorageOptions())
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master") == 1)
    }

    @Test func aDamagedDatabaseGivesAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        do {
            let store = try SQLiteJobStore(path: path)
            _ = try await store.enqueue(batch: (0..<200).map { job(input: "{\"n\":\($0)}") }, now: 1)
        }
        // Fold the WAL into the file, then overwrite everything after the first page with noise.
        try SQLiteConnection(path: path, options: StorageOptions()).executeScript("PRAGMA wal_checkpoint(TRUNCATE)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64 * 1024))
        try handle.close()

        let error = try await #require(throws: DurableQueueError.self) {
            let store = try SQLiteJobStore(path: path)
            _ = try await store.jobs(JobFilter(limit: 1_000))
        }
        #expect([.corrupt, .notADatabase].contains(error.code))
        #expect(error.description.contains(path))
    }

    @Test func aMissingFileIsNotCreatedWhenCreationIsOff() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("missing.sqlite")
        for options in [StorageOptions(createIfMissing: false), StorageOptions(readOnly: true)] {
            let error = try #require(throws: DurableQueueError.self) { try SQLiteJobStore(path: path, options: options) }
            #expect(error.code == .cannotOpen)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aReadOnlyOpenReadsButEveryChangeFailsAndChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let id = try await SQLiteJobStore(path: path).add(job())
        let store = try SQLiteJobStore(path: path, options: StorageOptions(readOnly: true))

        #expect(try await store.job(id).state == .pending)
        let enqueueError = await #expect(throws: DurableQueueError.self) { try await store.add(job()) }
        #expect(enqueueError?.code == .readOnly)
        let cancelError = await #expect(throws: DurableQueueError.self) { try await store.cancel(id, now: 2_000) }
        #expect(cancelError?.code == .readOnly)
        #expect(try await store.job(id).state == .pending)
        #expect(try await store.jobs(JobFilter()).count == 1)
    }

    @Test func aReadOnlyOpenOfAnOldSchemaSaysItNeedsUpgrading() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("old.sqlite")
        // A file of an older DurableQueue.
        try SQLiteMigrator.migrate(SQLiteConnection(path: path, options: StorageOptions()), readOnly: false, migrations: [SchemaMigrations.all[0]])
        let error = try #require(throws: DurableQueueError.self) {
            try SQLiteJobStore(path: path, options: StorageOptions(readOnly: true))
        }
        #expect(error.code == .readOnly)
        #expect(error.message.contains("needs upgrading"))
    }
}
