import DurableQueue
import Foundation

/// The `mixed` command: an engine runs while ROUNDS rounds of jobs using every feature are enqueued,
/// one call at a time: each round a plain "record" job, one with a unique key shared by every fourth
/// round, one on the queue "keyed" (one job per partition key at once, 5 ms between a key's starts),
/// and one that depends on the round's plain job; every fourth round also a sequence of three "step"
/// jobs, a group of three (two at once), a "five-steps" job and a "ledger" job (its transactional
/// step). A schedule adds a "tick" job every second. Prints "enqueued ID" as each job's enqueue
/// returns, "enqueued group ID" as each composition's does, "succeeded ID" and "succeeded group ID"
/// as their results return, and "done" once every result has, a tick job has run and no job is left
/// unfinished.
func mixedWork(path: String, logPath: String, rounds: Int) async throws {
    let configuration = JobQueue.Configuration(
        maxConcurrentJobs: 8, leaseDuration: .milliseconds(1_000), heartbeatInterval: .milliseconds(300), pollInterval: .milliseconds(20))
    let queue = try await openQueue(path, configuration: configuration)
    let recorder = AttemptRecorder(log: LineLog(path: logPath), longestMilliseconds: 2, announcesStarts: false)
    queue.register(RecordJob(recorder: recorder))
    queue.register(StepJob(recorder: recorder))
    queue.register(FiveStepsJob(log: recorder.log, longestMilliseconds: 2, announcesStarts: false))
    queue.register(LedgerJob(log: recorder.log))
    let (ticks, ticked) = AsyncStream.makeStream(of: Void.self)
    queue.register(TickJob(recorder: recorder, ticked: ticked))
    try await queue.queues.configure(QueueConfiguration("keyed", partitionLimit: 1, keyThrottle: Throttle(.milliseconds(5))))
    _ = try await queue.transaction { tx in
        try tx.execute("CREATE TABLE IF NOT EXISTS ledger (job_id bigint NOT NULL, attempt bigint NOT NULL)")
    }
    try await queue.schedules.save(name: "tick", TickJob.self, input: 0, rule: .every(.seconds(1), missed: .skip))

    try await withThrowingTaskGroup(of: Void.self) { engine in
        engine.addTask { try await queue.run() }
        try await withThrowingTaskGroup(of: Void.self) { results in
            func follow<J: Job>(_ handle: JobHandle<J>) {
                say("enqueued \(handle.id)")
                results.addTask {
                    _ = try await handle.result()
                    say("succeeded \(handle.id)")
                }
            }
            func follow(_ handle: GroupHandle) {
                say("enqueued group \(handle.id)")
                results.addTask {
                    _ = try await handle.result()
                    say("succeeded group \(handle.id)")
                }
            }
            for round in 0..<rounds {
                let plain = try await queue.enqueue(RecordJob.self, RecordJob.Input(index: round))
                follow(plain)
                follow(try await queue.enqueue(RecordJob.self, RecordJob.Input(index: round), options: EnqueueOptions(uniqueKey: "u\(round / 4)")))
                follow(
                    try await queue.enqueue(
                        RecordJob.self, RecordJob.Input(index: round), options: EnqueueOptions(queue: "keyed", partitionKey: "k\(round % 3)")))
                var dependent = EnqueueOptions()
                dependent.dependsOn = [Dependency("plain", on: plain)]
                follow(try await queue.enqueue(RecordJob.self, RecordJob.Input(index: round), options: dependent))
                guard round % 4 == 0 else { continue }
                follow(
                    try await queue.enqueue(
                        .sequence([.job(StepJob.self, round)] + (1..<3).map { _ in .jobUsingPreviousOutput(StepJob.self) }, name: "chain\(round)")))
                follow(try await queue.enqueue(.group((0..<3).map { .job(StepJob.self, $0, name: "c\($0)") }, maxConcurrent: 2, name: "fan\(round)")))
                follow(try await queue.enqueue(FiveStepsJob.self, round))
                follow(try await queue.enqueue(LedgerJob.self, 1))
            }
            try await results.waitForAll()
        }
        for await _ in ticks { break }
        while try await queue.unfinishedJobCount() != 0 { try await Task.sleep(for: .milliseconds(20)) }
        say("done")
        engine.cancelAll()
    }
}

/// The job a schedule enqueues: records its attempt as "record" does and tells `ticked` it ran.
struct TickJob: Job {
    static let name = "tick"
    let recorder: AttemptRecorder
    var ticked: AsyncStream<Void>.Continuation?

    func run(_ input: Int, context: JobContext) async throws -> Int {
        let value = try await recorder.record(context) { input }
        ticked?.yield()
        return value
    }
}
