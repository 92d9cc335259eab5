import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The test's view of the worker's "nap" job type (a durable sleep between two steps).
private struct Nap: Job {
    static let name = "nap"
    func run(_ input: Int, context: JobContext) async throws -> String { "" }
}

/// The test's view of the worker's "approval" job type (a wait for signal "approved").
private struct Approval: Job {
    static let name = "approval"
    func run(_ input: Int, context: JobContext) async throws -> String { "" }
}

/// Durable sleeps and signals across real processes: a sleep outlives the worker killed while it
/// sleeps and resumes in the next one after its time, never before; a signal sent by the `durableq`
/// command wakes a job a worker process left waiting; a cancel from the command reaches it.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(2))) struct SignalProcessTests {
    /// The log's lines that start with `prefix`, split into words.
    private func lines(_ path: String, _ prefix: String) throws -> [[Substring]] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix(prefix + " ") }
            .map { $0.split(separator: " ") }
    }

    @Test(arguments: StoreBackend.all) func aSleepOutlivesAKilledWorkerAndResumesInTheNextAfterItsTimeNotBefore(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("nap.log")
        let queue = try await backend.queue(in: directory)
        let job = try await queue.enqueue(Nap.self, 2_000, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 1)))

        // Leases the test does not need short: the job sleeps (holding none) when the first worker
        // is killed, and the lines counted below are written outside steps, which an attempt whose
        // lease ran out on a starved machine would write again (500 ms did, under load).
        let errors = directory.path("worker.err")
        let first = try WorkerProcess(["work", path, logPath, "--lease-ms", "3000"], errorLog: errors)
        // A worker that exits before it is ready says why on its standard error.
        #expect(await first.waitForLine("ready"), "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        try await eventually("the job sleeps") { try await queue.store.job(job.id).state == .scheduled }
        first.kill()
        _ = await first.waitForExit()
        try await backend.settleAfterKill(ofProcess: first.process.processIdentifier)
        let sleptAt = try #require(try await queue.store.history(of: job.id).last { $0.reason?.hasSuffix("(durable sleep)") == true }?.at)

        // The restarted worker: the job waits for its time, then goes on from its sleep.
        let second = try WorkerProcess(["work", path, logPath, "--lease-ms", "3000", "--until-done"])
        #expect(await second.waitForExit() == 0)
        #expect(try await queue.handle(Nap.self, id: job.id).result() == "rested")
        let woke = try lines(logPath, "woke")
        #expect(woke.count == 1, "\(woke)")
        #expect(woke.first.map { Int32($0[2]) } == second.process.processIdentifier, "woke in the restarted worker")
        let wokeAt = try #require(woke.first.flatMap { Int64($0[3]) })
        // Not before its time: the wake time the sleep recorded (2 s from the call, which came a
        // little before the history row of the attempt's end).
        let wakeTime = try #require(try await queue.store.steps(of: job.id).first { $0.name == "sleep 1" }.flatMap { Int64($0.output) })
        #expect(wokeAt >= wakeTime, "woke \(wakeTime - wokeAt) ms before its time")
        #expect((1_000...2_000).contains(wakeTime - sleptAt), "the sleep recorded \(wakeTime - sleptAt) ms from its end's history row")
        let bodies = try lines(logPath, "body").map { "\($0[2]) by \(Int32($0[4]) == first.process.processIdentifier ? "first" : "second")" }
        #expect(bodies == ["before by first", "after by second"], "each step's body once")
        #expect(try await queue.store.job(job.id).attempts == 1, "the sleep spent no attempt of the one allowed")
        #expect(try await queue.store.historyIsConsistent())
    }

    @Test(arguments: StoreBackend.all) func aSignalFromTheCommandWakesAJobAWorkerProcessLeftWaitingAndACancelReachesOne(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("approval.log")
        let queue = try await backend.queue(in: directory)
        let approved = try await queue.enqueue(Approval.self, 0)
        let cancelled = try await queue.enqueue(Approval.self, 0)

        // A lease the test does not need short: the "approved" and body lines counted below are
        // written outside steps, and an attempt whose lease ran out on a starved machine writes
        // them again (a 500 ms lease did, with both cores busy).
        let worker = try WorkerProcess(["work", path, logPath, "--lease-ms", "3000"])
        defer { worker.kill() }
        #expect(await worker.waitForLine("ready"))
        try await eventually("both jobs wait") {
            let states = [try await queue.store.job(approved.id).state, try await queue.store.job(cancelled.id).state]
            return states == [.waiting, .waiting]
        }

        // Another process, the command, sends the signal; the worker, idle, hears of it and goes on.
        let signal = try WorkerProcess(["signal", "--db", path, "\(approved.id)", "approved", #""ada""#], executable: "durableq")
        #expect(await signal.waitForLine("job \(approved.id): signal 'approved' received; pending"))
        #expect(await signal.waitForExit() == 0)
        #expect(try await queue.handle(Approval.self, id: approved.id).result(timeout: .seconds(10)) == "ada")
        let taken = try lines(logPath, "approved")
        #expect(taken.map { "\($0[1]) \($0[2])" } == ["\(approved.id) ada"] && taken.first.map { Int32($0[3]) } == worker.process.processIdentifier)
        #expect(try lines(logPath, "body").filter { $0[1] == "\(approved.id)" }.map { String($0[2]) } == ["before", "after"])

        // The command cancels the other waiting job at once; a signal then finds it finished.
        let cancel = try WorkerProcess(["cancel", "--db", path, "\(cancelled.id)"], executable: "durableq")
        #expect(await cancel.waitForExit() == 0)
        #expect(try await queue.store.job(cancelled.id).state == .cancelled)
        let late = try WorkerProcess(["signal", "--db", path, "\(cancelled.id)", "approved", #""bob""#], executable: "durableq")
        #expect(await late.waitForExit() == 1)
        // Refused, not stored: the job stays cancelled and nothing can wake it.
        #expect(try await queue.store.job(cancelled.id).state == .cancelled)
        #expect(try lines(logPath, "approved").count == 1)
        #expect(try await queue.store.historyIsConsistent())
    }

    @Test(arguments: StoreBackend.all) func aWaitInAWorkerProcessTimesOutAndACancelReachesASleepingJob(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("timeout.log")
        let queue = try await backend.queue(in: directory)
        let waiting = try await queue.enqueue(Approval.self, 1_000)
        let sleeping = try await queue.enqueue(Nap.self, 60_000)

        // A short lease: timeouts are enforced with the recovery of expired leases (every half lease).
        let worker = try WorkerProcess(["work", path, logPath, "--lease-ms", "400"])
        defer { worker.kill() }
        #expect(await worker.waitForLine("ready"))
        try await eventually("one job waits and the other sleeps") {
            [try await queue.store.job(waiting.id).state, try await queue.store.job(sleeping.id).state] == [.waiting, .scheduled]
        }
        let waitedAt = try #require(try await queue.store.history(of: waiting.id).last { $0.to == .waiting }?.at)
        #expect(try await queue.handle(Approval.self, id: waiting.id).result(timeout: .seconds(10)) == "timed out")
        let timedOut = try lines(logPath, "timed").filter { $0.count > 1 && $0[1] == "out" }
        #expect(timedOut.count == 1 && timedOut.first.map { Int32($0[3]) } == worker.process.processIdentifier, "\(timedOut)")
        let timedOutAt = try #require(timedOut.first.flatMap { Int64($0[4]) })
        #expect(timedOutAt - waitedAt >= 1_000, "timed out \(timedOutAt - waitedAt) ms after the wait began")
        #expect(try await queue.store.history(of: waiting.id).contains { $0.reason == "the wait for signal 'approved' timed out" })

        let cancel = try WorkerProcess(["cancel", "--db", path, "\(sleeping.id)"], executable: "durableq")
        #expect(await cancel.waitForExit() == 0)
        #expect(try await queue.store.job(sleeping.id).state == .cancelled)
        #expect(try lines(logPath, "woke").isEmpty)
        #expect(try await queue.store.historyIsConsistent())
    }
}
