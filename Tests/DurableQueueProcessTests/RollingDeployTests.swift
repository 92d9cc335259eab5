import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A rolling deploy of the worker's "greet" job type (versions 1, 2 and 3; see durableq-test-worker):
/// real worker processes of two versions on one store, each killed in the middle of its work and
/// replaced by the next version's.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(5))) struct RollingDeployTests {
    @Test(arguments: StoreBackend.all)
    func everyJobRunsOnceByAWorkerThatReadsItWithoutAnAttemptSpentOnItsVersion(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let queue = try await backend.queue(in: directory)
        // Jobs enqueued by each version's code, the newest first: each old worker's walk meets jobs
        // it cannot run before its own (20 by version 3, 40 by version 2, 40 by version 1).
        var enqueued: [Int: ClosedRange<Int64>] = [:]
        for (version, count) in [(3, 20), (2, 40), (1, 40)] {
            let enqueuer = try WorkerProcess(["greet", path, String(version), String(count)])
            let line = try #require(await enqueuer.nextLine { $0.hasPrefix("ids ") })
            #expect(await enqueuer.waitForExit() == 0)
            let ids = line.split(separator: " ").dropFirst().compactMap { Int64($0) }
            enqueued[version] = try #require(ids.first)...(try #require(ids.last))
        }
        #expect(enqueued.values.map(\.count).reduce(0, +) == 100)

        // One job at a time each, so that both are still at work when they are killed.
        func worker(_ version: Int, untilDone: Bool = false) throws -> WorkerProcess {
            try WorkerProcess(
                ["work", path, logPath, "--greet-version", String(version), "--announce-starts", "--max-jobs", "1", "--job-ms", "60",
                 "--lease-ms", "1000"] + (untilDone ? ["--until-done"] : []))
        }
        var versionOfProcess: [Int32: Int] = [:]
        let v1 = try worker(1)
        let v2 = try worker(2)
        versionOfProcess[v1.process.processIdentifier] = 1
        versionOfProcess[v2.process.processIdentifier] = 2
        // Each wrote the versions it runs: jobs of versions 1 and 2 have workers, version 3's none.
        try await eventually("both workers wrote the versions they run") {
            let runners = try await Self.runners(queue)
            return runners[1] == 2 && runners[2] == 1 && runners[3] == 0
        }
        // Each old worker is killed as it starts its third attempt (one it will never end), and a
        // version 3 worker takes its place.
        var replacements: [WorkerProcess] = []
        for (index, old) in [v1, v2].enumerated() {
            for _ in 1...3 { #expect(await old.nextLine { $0.hasPrefix("started ") } != nil, "the worker started three attempts") }
            old.kill()
            _ = await old.waitForExit()
            try await backend.settleAfterKill(ofProcess: old.process.processIdentifier)
            if index == 0 {
                // Killed, the version 1 worker left its rows; its process is gone: it runs nothing.
                let runners = try await Self.runners(queue)
                #expect(runners[1] == 1 && runners[3] == 0, "\(runners)")
            }
            let new = try worker(3, untilDone: true)
            versionOfProcess[new.process.processIdentifier] = 3
            replacements.append(new)
        }
        for new in replacements { #expect(await new.waitForExit() == 0, "a version 3 worker ends once every job has") }

        // The version 3 workers deleted their rows as they stopped; the killed workers' rows stay.
        let left = Set(try await queue.store.workerKinds().map(\.workerID)).map { LocalWorker($0)?.processID }
        #expect(Set(left) == [v1.process.processIdentifier, v2.process.processIdentifier], "\(left)")

        // Every job succeeded once.
        let jobs = try await queue.store.jobs(JobFilter(kinds: ["greet"], limit: 1_000))
        #expect(jobs.count == 100 && jobs.allSatisfy { $0.state == .succeeded }, "\(jobs.filter { $0.state != .succeeded }.map { ($0.id, $0.state) })")
        for record in jobs {
            let version = try #require(enqueued.first { $0.value.contains(record.id.rawValue) }?.key)
            #expect(record.version == version)
            #expect(record.output?.hasPrefix("\"hello Ada") == true, "\(record.output ?? "nil")")
            let history = try await queue.store.history(of: record.id)
            #expect(history.filter { $0.to == .succeeded }.count == 1)
            #expect(!history.contains { $0.to == .failed || $0.to == .parked }, "\(history.map(\.reason))")
            // Every claim was by a worker that runs the job's version: no attempt spent on a mismatch.
            for claim in history where claim.reason == "claimed" {
                let pid = try #require(claim.worker.flatMap { $0.split(separator: "-").dropLast().last }.flatMap { Int32($0) })
                let reader = try #require(versionOfProcess[pid], "claimed by an unknown process \(pid)")
                #expect(reader >= version, "job \(record.id) of version \(version) claimed by a version \(reader) worker")
            }
        }

        // And the handlers read every input through the migrations their version has.
        let greetings = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("greet ") }
            .map { $0.split(separator: " ").compactMap { Int($0) } }
        #expect(!greetings.isEmpty && greetings.allSatisfy { $0.count == 4 && $0[2] >= $0[1] }, "\(greetings.filter { $0[2] < $0[1] })")
        #expect(Set(greetings.map { $0[2] }) == [1, 2, 3], "every version ran some")
        #expect(greetings.contains { $0[1] == 1 && $0[2] == 3 }, "version 3 read a version 1 input through two steps")
    }

    /// How many running workers run each waiting version of "greet", by version.
    private static func runners(_ queue: JobQueue) async throws -> [Int: Int] {
        let coverage = try await queue.store.waitingJobCoverage(now: Date().millisecondsSince1970)
        return Dictionary(uniqueKeysWithValues: coverage.filter { $0.job.kind == "greet" }.map { ($0.job.version, $0.workers) })
    }
}
