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

    /// Expects `error` to have been thrown and to name the file at `path` and, if given, the `cause`.
    static func expect(
        _ error: DurableQueueError?, names path: String, cause: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let description = error?.description ?? "no error"
        #expect(description.contains(path) && (cause.map(description.contains) ?? true), "\(description)", sourceLocation: sourceLocation)
    }

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
        Self.expect(error, names: path, cause: code == SQLITE_FULL ? "full" : "I/O")

        // Nothing of the batch, the ten before intact; the store goes on.
        #expect(try await store.jobs(JobFilter(limit: 10_000)).count == 10)
        _ = try await store.enqueue(batch: big, now: 3_000)
        #expect(try await store.jobs(JobFilter(limit: 10_000)).count == 2_010)
        #expect(integrityCheck(ofSQLiteFileAt: path) == "ok")
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
        Self.expect(error, names: path)
        _ = try await store.add(job(input: "{\"n\":3}"))
        let inputs = try await store.jobs(JobFilter(limit: 10)).map(\.input)
        #expect(inputs.contains("{\"n\":3}") && inputs.contains("{}"), "\(inputs)")
        #expect(try await store.historyIsConsistent())
    }

    @Test(arguments: [SQLITE_FULL, FailingDiskTests.writeFailed])
    func aClaimAndAnEndingMeetingAFailingDiskThrowNamingTheFileAndChangeNothing(code: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path, options: try Self.throughCrashVFS())
        _ = try await store.enqueue(batch: (0..<20).map { job(input: "{\"n\":\($0)}") }, now: 1_000)
        let cause = code == SQLITE_FULL ? "full" : "I/O"

        crashvfs_fail(Int32(CRASHVFS_WRITE | CRASHVFS_SYNC | CRASHVFS_TRUNCATE), 1, -1, code)
        let claimError = await #expect(throws: DurableQueueError.self) { try await store.take(limit: 5, now: 2_000) }
        crashvfs_heal()
        Self.expect(claimError, names: path, cause: cause)
        #expect(try await store.jobs(JobFilter(state: .pending, limit: 100)).count == 20, "the failed claim took nothing")

        let claimed = try await store.take(limit: 5, now: 3_000)
        #expect(claimed.count == 5)
        let endings = claimed.map { FinishedAttempt(AttemptID(job: $0.id, number: $0.attempt), owner: "w1", outcome: .succeeded(output: "1")) }
        crashvfs_fail(Int32(CRASHVFS_WRITE | CRASHVFS_SYNC | CRASHVFS_TRUNCATE), 1, -1, code)
        let endingError = await #expect(throws: DurableQueueError.self) { try await store.finish(endings, now: 4_000) }
        crashvfs_heal()
        Self.expect(endingError, names: path, cause: cause)
        #expect(try await store.jobs(JobFilter(state: .running, limit: 100)).count == 5, "the failed ending changed nothing")
        #expect(try await store.historyIsConsistent())

        // The same endings, once the disk works: each recorded once.
        let states = try await store.finish(endings, now: 5_000)
        #expect(states.count == 5 && states.values.allSatisfy { $0 == .succeeded })
        for attempt in claimed {
            #expect(try await store.history(of: attempt.id).filter { $0.to == .succeeded }.count == 1)
        }
        #expect(try await store.historyIsConsistent())
    }

    /// A checkpoint (the store's copy of the log into the database, in the background) that the
    /// disk fails halfway through has no caller to tell: it loses nothing, since the log still holds
    /// every commit, and the next checkpoint copies the log whole.
    @Test func aCheckpointThatFailsHalfwayLosesNothingAndTheNextOneCompletesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path, options: try Self.throughCrashVFS())
        let padding = String(repeating: "x", count: 300)
        _ = try await store.enqueue(batch: (0..<400).map { job(input: "{\"n\":\($0),\"pad\":\"\(padding)\"}") }, now: 1_000)
        let checkpointer = try #require(await store.checkpointer)

        let failuresBefore = crashvfs_failures()
        crashvfs_fail(Int32(CRASHVFS_WRITE | CRASHVFS_SYNC), 5, -1, SQLITE_FULL)  // after 4 of its pages
        checkpointer.checkpointNow()
        crashvfs_heal()
        #expect(crashvfs_failures() > failuresBefore, "the fault must have met the checkpoint")
        #expect(try await store.jobs(JobFilter(limit: 1_000)).count == 400)
        _ = try await store.add(job(input: "{\"n\":400}"))

        checkpointer.checkpointNow()
        // The database file alone (its log left behind) now holds every commit.
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let copied = try SQLiteConnection(path: copy, options: StorageOptions())
        #expect(integrityCheck(ofSQLiteFileAt: copy) == "ok")
        #expect(try copied.scalarInt64("SELECT count(*) FROM jobs") == 401)
        #expect(try await store.historyIsConsistent())
    }
}
