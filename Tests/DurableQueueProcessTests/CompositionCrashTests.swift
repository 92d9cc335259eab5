import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct CompositionCrashTests {
    @Test(arguments: StoreBackend.all) func sequencesAndGroupsKilledAtRandomFinishEveryStepOnceInOrder(_ backend: StoreBackend) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")

        let composer = try WorkerProcess(["compose", path])
        let ids = try #require(await composer.nextLine { $0.hasPrefix("chain ") }).split(separator: " ")
        #expect(await composer.waitForExit() == 0)
        let chain = GroupID(try #require(Int64(ids[1])))
        let fan = GroupID(try #require(Int64(ids[3])))

        // Kill each worker as it starts an attempt (its first or second), so that kills land mid-step.
        // A worker ends by itself once no job is unfinished (--until-done): that exit, not a time
        // without starts, says the work is done. Steps take 1…1000 ms, so a worker may finish some
        // before its kill: up to 10 kills, while work is left.
        var kills = 0
        while kills < 10 {
            // Two jobs at a time: a kill that comes late (a loaded machine reads the start late) still
            // finds work left, where sixteen at once finished the group within a second. The kills land
            // on the same jobs round after round: no limit of lost attempts (poison jobs are
            // PoisonProcessTests' concern).
            let worker = try WorkerProcess([
                "work", path, logPath, "--until-done", "--announce-starts", "--lease-ms", "400", "--job-ms", "1000",
                "--max-jobs", "2", "--lost-attempt-limit", "0",
            ])
            // Killed as its first or second attempt starts (each start begins a step of 1…1000 ms).
            let wanted = Int.random(in: 1...2, using: &random)
            var starts = 0
            while starts < wanted, await worker.nextLine(matching: { $0.hasPrefix("started ") }) != nil { starts += 1 }
            guard starts > 0 else {
                #expect(await worker.waitForExit() == 0, "seed \(seed)")
                break  // it found nothing left to do
            }
            worker.kill()
            _ = await worker.waitForExit()
            kills += 1
        }
        #expect(kills >= 5, "the jobs finished after only \(kills) kills (seed \(seed))")
        let last = try WorkerProcess(["work", path, logPath, "--until-done", "--lease-ms", "400", "--lost-attempt-limit", "0"])
        #expect(await last.waitForExit() == 0, "seed \(seed)")

        let store = try await backend.make(directory)
        let log = try WorkLog(path: logPath)
        let sequence = try await store.groupResult(chain)
        let group = try await store.groupResult(fan)
        #expect(sequence.state == .succeeded && group.state == .succeeded, "seed \(seed)")
        #expect(canonicalJSON(sequence.output) == #"{"0":1,"1":2,"2":3,"3":4,"4":5}"#, "each step added one to the previous output (seed \(seed))")
        #expect(try (0..<20).map { try group.output("c\($0)", as: Int.self) } == Array(1...20), "seed \(seed)")

        var interrupted = 0
        var previousSuccess: Int64?
        for (index, child) in (sequence.children + group.children).enumerated() {
            guard case .job(let id, _) = child.content else { continue }
            let history = try await store.history(of: id)
            let successes = history.filter { $0.to == .succeeded }
            #expect(successes.count == 1, "job \(id) (seed \(seed))")
            guard let success = successes.first else { continue }
            // Run to success exactly once after its last interruption: the succeeding attempt started
            // once, and no attempt started after it.
            let started = log.startedAttempts(of: id.rawValue)
            #expect(started.filter { $0 == success.attempt }.count == 1, "job \(id) (seed \(seed))")
            #expect(started.allSatisfy { $0 <= success.attempt }, "job \(id) ran after succeeding (seed \(seed))")
            interrupted += started.filter { $0 < success.attempt }.count
            // A step of the sequence started only after the step before it succeeded: every process
            // here reads one clock (this machine's, or the database server's), and a claim reads it
            // after the success it follows was committed.
            if index < sequence.children.count {
                let firstStart = try #require(history.first { $0.to == .running }?.at)
                if let previousSuccess { #expect(firstStart >= previousSuccess, "job \(id) (seed \(seed))") }
                previousSuccess = success.at
            }
        }
        #expect(try await store.historyIsConsistent(), "seed \(seed)")
        print("composition crash test: seed \(seed), \(interrupted) interrupted attempts, \(log.starts.count) starts")
        #expect(interrupted > 0, "the kills interrupted no attempt; the test proved nothing (seed \(seed))")
    }

    @Test(arguments: StoreBackend.all) func twoProcessesAskingForTheSameUncachedKeyStartOneJob(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        _ = try await backend.make(directory)  // create the file (or schema) before both processes open it
        let logPath = directory.path("work.log")
        let askers = try (0..<2).map { _ in try WorkerProcess(["cache", path, logPath, "answer"]) }
        for asker in askers {
            #expect(await asker.nextLine { $0.hasPrefix("value ") } == "value 42")
            #expect(await asker.waitForExit() == 0)
        }
        let store = try await backend.make(directory)
        #expect(try await store.jobs(JobFilter(limit: 10)).count == 1)
        #expect(try WorkLog(path: logPath).starts.count == 1)
        #expect(try await store.cacheEntry(namespace: "step", key: "answer")?.state == .complete)
    }
}
