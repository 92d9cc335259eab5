import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The test's view of the worker's "five-steps" job type (five durable steps; see durableq-test-worker).
private struct FiveSteps: Job {
    static let name = "five-steps"
    func run(_ input: Int, context: JobContext) async throws -> String { "" }
}

/// Durable steps across `kill -9`: a worker killed at random moments, many times, while jobs of five
/// steps run; every step whose output was committed ran its body exactly once, with the attempt that
/// committed it, and every job's output is right.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(5))) struct StepProcessTests {
    @Test(arguments: StoreBackend.all) func aStepWhoseOutputWasCommittedNeverRunsAgainWhateverTheKills(_ backend: StoreBackend) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("steps.log")
        let queue = try await backend.queue(in: directory)
        let unlimited = EnqueueOptions(retry: .unlimited(backoff: .constant(.zero)))
        var jobs: [JobID: Int] = [:]
        for input in 0..<16 { jobs[try await queue.enqueue(FiveSteps.self, input, options: unlimited).id] = input }

        // A kill may land before a job's next step several rounds in a row: no limit of lost attempts
        // (poison jobs are PoisonProcessTests' concern).
        // Each kill comes, while jobs are unfinished, after the worker's first start and a random number
        // of its step bodies (0 to 6; a body's line is written just before its step commits): counted
        // in events, not time, since a loaded machine can take longer than any pause to start a job, and
        // kills that interrupt nothing prove nothing.
        func allSucceeded() async throws -> Bool { try await queue.store.jobs(JobFilter(state: .succeeded, limit: 16)).count == 16 }
        for _ in 0..<8 {
            let worker = try WorkerProcess([
                "work", path, logPath, "--lease-ms", "500", "--job-ms", "150", "--max-jobs", "4", "--lost-attempt-limit", "0",
                "--announce-starts",
            ])
            #expect(await worker.waitForLine("ready"), "seed \(seed)")
            if try await !allSucceeded() {
                #expect(await worker.nextLine { $0.hasPrefix("started ") } != nil, "seed \(seed)")
            }
            let bodies = Int.random(in: 0...6, using: &random)
            let pid = worker.process.processIdentifier
            try await eventually("\(bodies) step bodies ran in worker \(pid) (seed \(seed))", seconds: 60) {
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                let ran = log.split(separator: "\n").filter { $0.hasPrefix("body ") && $0.hasSuffix(" \(pid)") }.count
                if ran >= bodies { return true }
                return try await allSucceeded()
            }
            worker.kill()
            _ = await worker.waitForExit()
            try await backend.settleAfterKill(ofProcess: worker.process.processIdentifier)
        }
        let last = try WorkerProcess([
            "work", path, logPath, "--lease-ms", "500", "--job-ms", "150", "--max-jobs", "4", "--until-done", "--lost-attempt-limit", "0",
        ])
        #expect(await last.waitForExit() == 0, "seed \(seed)")

        // "body JOB STEP ATTEMPT PID" for each body that ran to its end.
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("body ") }
        let bodies = lines.map { $0.split(separator: " ") }.map { (job: JobID(Int64($0[1])!), step: String($0[2]), attempt: Int($0[3])!) }
        var rerunsBeforeCommit = 0
        for (id, input) in jobs {
            #expect(try await queue.handle(FiveSteps.self, id: id).result() == (1...5).map { "s\($0)-\(input)" }.joined(separator: ","))
            let steps = try await queue.store.steps(of: id)
            #expect(steps.map(\.name) == ["s1", "s2", "s3", "s4", "s5"], "job \(id), seed \(seed)")
            for step in steps {
                let runs = bodies.filter { $0.job == id && $0.step == step.name }
                #expect(runs.filter { $0.attempt == step.attempt }.count == 1, "job \(id) \(step.name): \(runs) (seed \(seed))")
                #expect(runs.allSatisfy { $0.attempt <= step.attempt }, "job \(id) \(step.name) ran after its commit: \(runs) (seed \(seed))")
                rerunsBeforeCommit += runs.filter { $0.attempt < step.attempt }.count
            }
        }
        let attempts = try await jobs.keys.asyncMap { try await queue.store.job($0).attempts }.reduce(0, +)
        print("steps kill test (\(backend.name)): seed \(seed), 8 kills, \(attempts) attempts for 16 jobs, \(rerunsBeforeCommit) bodies ran again (killed before their commit)")
        #expect(attempts > 16, "no kill interrupted a job: the test proved nothing (seed \(seed))")
        #expect(try await queue.store.historyIsConsistent())
    }
}

/// The test's view of the worker's "ledger" job type (see durableq-test-worker).
private struct Ledger: Job {
    static let name = "ledger"
    func run(_ input: Int, context: JobContext) async throws -> String { "" }
}

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(2))) struct FrozenStepProcessTests {
    /// A worker frozen (SIGSTOP) past its lease while another process takes its job over and books
    /// the ledger step; thawed, the frozen attempt's transactional step runs its body, but its record
    /// is refused and its row rolls back with it.
    @Test(arguments: StoreBackend.all) func aFrozenAttemptRecordsNoStepAndItsTransactionsWritesRollBack(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("ledger.log")
        let queue = try await backend.queue(in: directory)
        let postgres = backend.name != StoreBackend.sqlite.name
        _ = try await queue.transaction { tx in try tx.execute("CREATE TABLE ledger (job_id bigint NOT NULL, attempt bigint NOT NULL)") }
        let job = try await queue.enqueue(Ledger.self, 1_500, options: EnqueueOptions(queue: postgres ? "postgres" : "default"))

        let frozen = try WorkerProcess(["work", path, logPath, "--lease-ms", "500", "--heartbeat-ms", "150"])
        #expect(await frozen.waitForLine("started \(job.id) 1"))
        // Frozen outside a write transaction: the step just committed wakes the worker's own claim,
        // and a process frozen inside one keeps SQLite's write lock, so no other could take the job
        // over. (PostgreSQL's claims lock no running job's row.)
        try await eventually("the worker is frozen outside a write transaction") {
            frozen.freeze()
            guard !postgres, try holdsSQLiteWriteLock(frozen.process.processIdentifier, database: path) else { return true }
            frozen.thaw()
            return false
        }
        try await eventually("the frozen worker's lease ran out") {
            try await queue.store.job(job.id).leaseExpiresAt.map { $0 < Date().millisecondsSince1970 } ?? false
        }
        let other = try WorkerProcess(["work", path, logPath, "--lease-ms", "500", "--heartbeat-ms", "150", "--until-done"])
        #expect(await other.waitForExit() == 0)
        #expect(try await queue.handle(Ledger.self, id: job.id).result(timeout: .seconds(5)) == "booked")
        frozen.thaw()
        // The thawed attempt ran its step's body (its log line), then its record was refused.
        try await eventually("the frozen attempt ran its step's body") {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("ledger \(job.id) 1 \(frozen.process.processIdentifier)")
        }
        // Until that attempt's transaction has ended: a write to the ledger waits for it.
        _ = try await queue.transaction { tx in
            if postgres { try tx.execute("LOCK TABLE ledger IN SHARE MODE") }  // SQLite's BEGIN IMMEDIATE waits already
        }
        frozen.kill()
        _ = await frozen.waitForExit()
        try await backend.settleAfterKill(ofProcess: frozen.process.processIdentifier)

        let rows = try await queue.transaction { tx in try tx.query("SELECT job_id, attempt FROM ledger") }
        #expect(rows == [[.integer(job.id.rawValue), .integer(2)]], "\(rows)")
        let steps = try await queue.store.steps(of: job.id)
        #expect(steps.map(\.name) == ["prepare", "ledger"] && steps.map(\.attempt) == [1, 2], "\(steps)")
        #expect(try await queue.store.historyIsConsistent())
    }
}

/// Whether process `pid` holds the write lock of the SQLite database at `database` (WAL mode: a
/// POSIX lock on byte 120 of its `-shm` file, as `/proc/locks` lists it).
private func holdsSQLiteWriteLock(_ pid: Int32, database: String) throws -> Bool {
    let attributes = try FileManager.default.attributesOfItem(atPath: database + "-shm")
    guard let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value else { return false }
    for line in try String(contentsOfFile: "/proc/locks", encoding: .utf8).split(separator: "\n") {
        // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 120 120"
        let fields = line.split(separator: " ")
        guard fields.count >= 8, fields[1] == "POSIX", fields[3] == "WRITE", Int32(fields[4]) == pid,
            fields[5].split(separator: ":").last.flatMap({ UInt64($0) }) == inode,
            let start = Int(fields[6]), let end = Int(fields[7]) ?? (fields[7] == "EOF" ? Int.max : nil)
        else { continue }
        if start <= 120 && 120 <= end { return true }
    }
    return false
}

extension Sequence {
    /// The values of `transform` for each element, in order, awaited one by one.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
