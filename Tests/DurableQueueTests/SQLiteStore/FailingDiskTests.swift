import CDurableQueueCrashVFS
import CDurableQueueSQLite
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A store opened through the tests' crash VFS (`StorageOptions.vfs`), whose disk fails on purpose:
/// each call that meets the fault throws a clear error naming the file, nothing is half-written, and
/// the store goes on once the disk does. Serialized: the VFS's faults are the whole process's.
@Suite(.serialized) struct FailingDiskTests {
    /// SQLite's extended codes of a failed write and a failed sync (macros Swift does not import).
    static let writeFailed = SQLITE_IOERR | (3 << 8)
    static let syncFailed = SQLITE_IOERR | (4 << 8)

    /// Options that open the file through the crash VFS (registered once).
    static func throughCrashVFS() throws -> StorageOptions {
        try #require(crashvfs_register() == SQLITE_OK)
        var options = StorageOptions()
        options.vfs = CRASHVFS_NAME
        return options
    }

    @Test func aFileOpensThroughTheVFSItsOptionsNameAndAnUnknownNameIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let before = crashvfs_operations()
        let store = try SQLiteJobStore(path: directory.path("jobs.sqlite"), options: try Self.throughCrashVFS())
        _ = try await store.add(job())
        #expect(crashvfs_operations() > before, "the writes went through the VFS")

        var unknown = StorageOptions()
        unknown.vfs = "no-such-vfs"
        let error = try #require(throws: DurableQueueError.self) { try SQLiteJobStore(path: directory.path("other.sqlite"), options: unknown) }
        #expect(error.description.contains("no-such-vfs"), "\(error)")
    }

    @Test(arguments: [SQLITE_FULL, FailingDiskTests.writeFailed])
    func aBatchMeetingAFailingDiskThrowsNamingTheFileAndLeavesNothingHalfWritten(code: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path, options: try Self.throughCrashVFS())
        _ = try await store.enqueue(batch: (0..<10).map { job(input: "{\"n\":\($0)}") }, now: 1_000)

        // The disk fails from the third write on: in the middle of the batch's pages.
        crashvfs_fail(Int32(CRASHVFS_WRITE), 3, -1, code)
        let big = (0..<2_000).map { job(input: "{\"n\":\($0),\"pad\":\"\(String(repeating: "x", count: 200))\"}") }
        let error = await #expect(throws: DurableQueueError.self) { try await store.enqueue(batch: big, now: 2_000) }
        crashvfs_heal()
        #expect(crashvfs_failures() > 0)
        #expect(error?.description.contains(path) == true, "\(String(describing: error))")
        #expect(error?.description.contains(code == SQLITE_FULL ? "full" : "I/O") == true, "\(String(describing: error))")

        // Nothing of the batch, the ten before intact; the store goes on.
        #expect(try await store.jobs(JobFilter(limit: 10_000)).count == 10)
        _ = try await store.enqueue(batch: big, now: 3_000)
        #expect(try await store.jobs(JobFilter(limit: 10_000)).count == 2_010)
        var integrity = ""
        try SQLiteConnection(path: path, options: StorageOptions()).query("PRAGMA integrity_check") { integrity = $0.string(0) }
        #expect(integrity == "ok")
    }

    @Test func aCommitWhoseSyncFailsIsReportedAndTheStoreGoesOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        var options = try Self.throughCrashVFS()
        options.durability = .powerLoss  // a sync at every commit
        let store = try SQLiteJobStore(path: path, options: options)
        _ = try await store.add(job())

        crashvfs_fail(Int32(CRASHVFS_SYNC), 1, 1, Self.syncFailed)
        let error = await #expect(throws: DurableQueueError.self) { try await store.add(job(input: "{\"n\":2}")) }
        crashvfs_heal()
        #expect(error?.description.contains(path) == true, "\(String(describing: error))")
        _ = try await store.add(job(input: "{\"n\":3}"))
        let inputs = try await store.jobs(JobFilter(limit: 10)).map(\.input)
        #expect(inputs.contains("{\"n\":3}") && inputs.contains("{}"), "\(inputs)")
        #expect(try await store.historyIsConsistent())
    }
}
