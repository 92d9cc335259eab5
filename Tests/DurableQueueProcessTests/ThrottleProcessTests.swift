import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Throttled queues with real worker processes, on the wall clock.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(2))) struct ThrottleProcessTests {
    /// A store of `backend` with `count` "record" jobs on queue "shared", throttled by `interval`
    /// from each start; returns its location for the workers.
    private static func throttledStore(
        _ backend: StoreBackend, _ directory: TemporaryDirectory, count: Int, interval: Duration
    ) async throws -> String {
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let now = Date().millisecondsSince1970
        try await store.configure(QueueConfiguration("shared", throttle: Throttle(interval)), now: now)
        let jobs = recordJobs(count, queue: "shared")
        _ = try await store.enqueue(jobs, now: now)
        return path
    }

    @Test(arguments: StoreBackend.all) func aWorkerKilledRightAfterAStartWaitsTheRestOfTheIntervalWhenRestarted(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Enough jobs that a worker the test is slow to kill (a loaded machine) cannot run them all.
        let path = try await Self.throttledStore(backend, directory, count: 50, interval: .milliseconds(200))
        let arguments = ["work", path, directory.path("work.log"), "--announce-starts", "--lease-ms", "5000", "--job-ms", "1"]

        let first = try WorkerProcess(arguments)
        #expect(await first.nextLine { $0.hasPrefix("started ") } != nil)
        first.kill()
        #expect(await first.waitForExit() == SIGKILL)

        let second = try WorkerProcess(arguments)
        #expect(await second.nextLine { $0.hasPrefix("started ") } != nil)
        second.kill()
        _ = await second.waitForExit()

        let starts = try await startTimes(try await backend.make(directory), queue: "shared")
        #expect(starts.count >= 2)
        #expect(gaps(starts).allSatisfy { $0 >= 200 }, "starts \(starts)")
        print("throttle kill test: gaps \(gaps(starts)) ms")
    }

    @Test(arguments: StoreBackend.all) func twoWorkerProcessesOnOneThrottledQueueNeverStartCloserThanTheInterval(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let count = 12
        let path = try await Self.throttledStore(backend, directory, count: count, interval: .milliseconds(100))
        let workers = try (0..<2).map { _ in
            try WorkerProcess(["work", path, directory.path("work.log"), "--until-done", "--job-ms", "150"])
        }
        for worker in workers { #expect(await worker.waitForExit() == 0) }

        let processes = Set(try WorkLog(path: directory.path("work.log")).starts.map(\.pid)).count
        let starts = try await startTimes(try await backend.make(directory), queue: "shared")
        #expect(starts.count == count)
        #expect(gaps(starts).allSatisfy { $0 >= 100 }, "starts \(starts) by \(processes) process(es)")
        print("two throttled workers: \(processes) processes started jobs, gaps \(gaps(starts)) ms")
    }
}
