import DurableQueueTestSupport
import Synchronization
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A file the system keeps from the process for a while — on a phone, a protected file while the
/// device is locked; here, a file made immutable (`EPERM`, the same error): calls throw their own
/// error code, and a running engine waits instead of failing jobs or stopping.
@Suite(.timeLimit(.minutes(1))) struct ProtectedDataTests {
    @Test func whileTheFileCannotBeOpenedCallsSaySoAndTheEngineWaitsThenGoesOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        // Failing writes stop an engine after 300 ms; an unavailable file must not.
        let queue = try JobQueue(
            sqlite: path, options: StorageOptions(),
            configuration: JobQueue.Configuration(pollInterval: .milliseconds(20), storageFailureTimeout: .milliseconds(300)))
        queue.register(Echo())
        let ended = Gate()
        let engine = Task {
            defer { ended.isOpen.withLock { $0 = true } }
            try await queue.run()
        }
        defer { engine.cancel() }
        #expect(try await queue.enqueue(Echo.self, "before").result(timeout: .seconds(10)) == "before")

        // The app is suspended with its file closed, and the device locks.
        await queue.pauseInThisProcess()
        let waiting = try await queue.enqueue(Echo.self, "waiting")
        guard let locked = ImmutableFile(path) else {
            if TestEnvironment.serversEnabled { Issue.record("needs root and a file system with immutable files (ext4), as CI has") }
            return
        }
        defer { locked.release() }
        let error = await #expect(throws: DurableQueueError.self) { try await queue.enqueue(Echo.self, "refused") }
        #expect(error?.code == .protectedDataUnavailable, "\(String(describing: error))")

        // Resumed while still locked: the engine cannot open the file, and waits.
        await queue.resumeInThisProcess()
        // A handle waiting meanwhile waits too.
        let waitingResult = Task { try await queue.handle(Echo.self, id: waiting.id).result(timeout: .seconds(15)) }
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(!ended.isOpen.withLock { $0 }, "the engine stopped while the file was unavailable")
        locked.release()

        #expect(try await waitingResult.value == "waiting")
        #expect(try await queue.enqueue(Echo.self, "after").result(timeout: .seconds(10)) == "after")
        #expect(!ended.isOpen.withLock { $0 })
    }

    @Test func openingAFileTheSystemForbidsThrowsProtectedDataUnavailable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        _ = try SQLiteJobStore(path: path)
        guard let locked = ImmutableFile(path) else {
            if TestEnvironment.serversEnabled { Issue.record("needs root and a file system with immutable files (ext4), as CI has") }
            return
        }
        defer { locked.release() }
        let error = #expect(throws: DurableQueueError.self) { try JobQueue(sqlite: path, options: StorageOptions()) }
        #expect(error?.code == .protectedDataUnavailable && error?.path == path, "\(String(describing: error))")
    }
}
