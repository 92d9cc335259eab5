import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Workers whose wall clocks are ten minutes off (libfaketime), on PostgreSQL, where leases follow
/// the database server's clock: a fast clock steals no live lease, a slow one lets no expired lease
/// live.
@Suite(
    .serialized, .tags(.crash), .timeLimit(.minutes(2)),
    .enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct ClockSkewTests {
    @Test func workersTenMinutesOffNeitherStealLiveLeasesNorLetExpiredOnesLive() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime"), "needs Debian's faketime, which .ci/run installs")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let backend = StoreBackend.postgres
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let ids = try await store.enqueue(
            recordJobs(24), now: Date().millisecondsSince1970
        ).map(\.id.rawValue)
        let log = directory.path("work.log")
        // Jobs longer than the lease, so heartbeats keep them; a lease of 3 s, so that a worker
        // starved on a loaded machine still renews in time (a full run at 1 s once lost one).
        let arguments = ["work", path, log, "--announce-starts", "--lease-ms", "3000", "--job-ms", "4000", "--max-jobs", "4"]

        // A worker on time and one ten minutes fast share the jobs.
        let onTime = try WorkerProcess(arguments)
        let fast = try WorkerProcess(arguments + ["--until-done"], clockOffset: "+10m")
        for _ in 0..<3 { #expect(await onTime.nextLine { $0.hasPrefix("started ") } != nil) }
        // The fast worker has looked for expired leases and claimed while the on-time worker's
        // leases live: its first start comes after both.
        #expect(await fast.nextLine { $0.hasPrefix("started ") } != nil)
        // The on-time worker dies mid-jobs; one ten minutes slow joins.
        onTime.kill()
        _ = await onTime.waitForExit()
        let killedAt = Date().millisecondsSince1970
        let slow = try WorkerProcess(arguments + ["--until-done"], clockOffset: "-10m")
        #expect(await fast.waitForExit() == 0)
        #expect(await slow.waitForExit() == 0)

        let work = try WorkLog(path: log)
        let killedPID = onTime.process.processIdentifier
        let finished = try await backend.make(directory).jobs(JobFilter(states: [.succeeded], limit: 100)).map(\.id.rawValue)
        #expect(Set(finished) == Set(ids), "every job succeeded")
        // A job ran again only when the killed worker had it: nobody took a live lease.
        for job in ids {
            let starts = work.starts.filter { $0.job == job }
            #expect(starts.dropLast().allSatisfy { $0.pid == killedPID }, "job \(job) started by \(starts.map(\.pid)); killed: \(killedPID)")
        }
        // The killed worker's jobs started again within seconds of its leases' end, not ten minutes
        // (judged from the history, stamped with the server's clock; the log has each worker's own).
        var retaken: [Int64] = []
        for job in ids {
            retaken += try await store.history(of: JobID(job)).filter { $0.to == .running && $0.attempt > 1 }.map { $0.at - killedAt }
        }
        #expect(!retaken.isEmpty, "the killed worker held jobs")
        #expect(retaken.allSatisfy { $0 > -1_000 && $0 < 10_000 }, "restarts \(retaken) ms after the kill")
        let processes = Set(work.starts.map(\.pid)).count
        print("clock skew: \(processes) processes (on time, +10 min, -10 min), \(retaken.count) jobs taken back \(retaken.sorted()) ms after the kill")
    }
}
