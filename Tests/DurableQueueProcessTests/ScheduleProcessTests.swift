import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A schedule fired by several worker processes at once, some killed and restarted meanwhile.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(2))) struct ScheduleProcessTests {
    @Test(arguments: StoreBackend.all) func threeProcessesKilledAndRestartedEnqueueExactlyOneJobPerTick(_ backend: StoreBackend) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        _ = try await backend.make(directory)  // create the file (or schema) before the workers open it
        let arguments = ["tick", path, directory.path("work.log")]
        func started() async throws -> WorkerProcess {
            let errors = directory.path("worker-errors.log")
            let worker = try WorkerProcess(arguments, errorLog: errors)
            // Once in a full run on PostgreSQL a worker exited before it was ready: say why.
            #expect(await worker.waitForLine("ready"), "a worker did not start: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
            return worker
        }

        var workers = [try await started(), try await started(), try await started()]
        // For 20 s, kill one of the three every 1…3 s (at a random moment of the second) and start
        // another: two keep running meanwhile, so no tick passes with nobody to fire it.
        let end = ContinuousClock.now + .seconds(20)
        var kills = 0
        while ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(Int.random(in: 1_000...3_000, using: &random)))
            let victim = Int.random(in: 0..<workers.count, using: &random)
            workers[victim].kill()
            _ = await workers[victim].waitForExit()
            kills += 1
            workers[victim] = try await started()
        }
        for worker in workers {
            worker.kill()
            _ = await worker.waitForExit()
        }

        let store = try await backend.make(directory)
        let jobs = try await store.jobs(JobFilter(tag: "schedule:every-second", limit: 1_000))
        let ticks = jobs.map(\.runAt).sorted()
        #expect(ticks.count >= 18, "\(ticks.count) ticks in 20 s (seed \(seed))")
        #expect(Set(ticks).count == ticks.count, "a tick enqueued more than one job (seed \(seed))")
        let gaps = zip(ticks.dropFirst(), ticks).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 == 1_000 }, "ticks missing while processes ran: gaps \(gaps.filter { $0 != 1_000 }) (seed \(seed))")
        #expect(ticks.allSatisfy { $0 % 1_000 == 0 })
        let schedule = try #require(try await store.schedules(named: "every-second").first)
        #expect(schedule.lastTickAt == ticks.last)
        print("schedule process test: seed \(seed), \(kills) kills, \(ticks.count) jobs for \(Set(ticks).count) ticks")
    }
}
