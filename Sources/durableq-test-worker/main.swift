// A second process for the tests: it works on the same file as the test. Not a product. Usage:
//
// PATH is a SQLite file, or a postgres:// URL for a PostgreSQL database. With CRASHVFS_CUT_AT=N in its
// environment, a SQLite file is opened through the tests' crash VFS, which cuts the power at the N-th
// write or sync (the process then exits 86; see Tests/CDurableQueueCrashVFS), with
// CRASHVFS_DURABILITY=powerLoss at that durability (CRASHVFS_FAIL_AT=N and CRASHVFS_FAIL_COUNT=M
// fail M writes or syncs from the N-th instead, with SQLITE_FULL if CRASHVFS_FAIL_CODE=full); `enqueue`
// then prints "enqueued ID" as each enqueue returns.
//
//   durableq-test-worker open PATH
//       Opens the queue on PATH, upgrading an older file's schema, closes it and prints "opened, N operations
//       failed" (N: the crash VFS's failures, which a failed checkpoint at the close leaves unreported).
//   durableq-test-worker mixed PATH LOG ROUNDS
//       Runs an engine while enqueueing jobs of every feature: see MixedWork.swift.
//   durableq-test-worker enqueue PATH COUNT
//       Prints "ready", enqueues COUNT jobs on queue "shared", one transaction each, prints "done".
//   durableq-test-worker compose PATH
//       Enqueues a sequence "chain" of 5 "step" jobs, each taking the previous output (first input 0),
//       and a group "fan" of 20 named "step" children (c0…c19 with inputs 0…19, at most 4 at once),
//       all retrying without limit; prints "chain ID fan ID".
//   durableq-test-worker cache PATH LOG KEY
//       Runs an engine and asks the "step" cache for KEY (computed by a "step" job of up to 300 ms, input
//       41); prints "value N".
//   durableq-test-worker greet PATH VERSION COUNT
//       Enqueues COUNT "greet" jobs as version VERSION (1, 2 or 3) of that job type stores them, each input
//       naming VERSION as its enqueuer, one transaction each; prints "ids FIRST LAST".
//   durableq-test-worker work PATH LOG [--until-done] [--lease-ms N] [--heartbeat-ms N] [--job-ms N] [--max-jobs N]
//                                  [--storage-timeout-ms N] [--lost-attempt-limit N] [--announce-starts] [--ignore-cancel]
//                                  [--greet-version N]
//       Runs a JobQueue engine (leases of --lease-ms, default 1,000, renewed every --heartbeat-ms, default a
//       third of the lease; at most N jobs at once, default 16; giving up on failing writes after
//       --storage-timeout-ms, default 30 s: it then exits 1 with the error; poison jobs after
//       --lost-attempt-limit attempts lost in a row, default 3, 0 for none) with the "record" job type, whose attempts append "start ID ATTEMPT PID MS"
//       lines to LOG, take 1 to N (default 8) ms, then append "finish ID ATTEMPT PID MS" when they return
//       a value, and "end ID ATTEMPT PID MS" however they end (MS: the wall clock in ms since 1970).
//       With --ignore-cancel the wait is in 10 ms steps and ignores cancellation, as a careless handler would. Prints "ready"
//       once running, and with --announce-starts "started ID" as each attempt starts. With --until-done
//       it stops gracefully when no job is left unfinished; otherwise it runs until killed. It also runs
//       "five-steps" jobs (input N; --announce-starts too): five durable steps s1…s5, each logging "body ID STEP ATTEMPT PID"
//       just before its body returns, the job returning "s1-N,…,s5-N"; and "ledger" jobs (input MS): says
//       "started ID ATTEMPT", waits MS ms heedless of cancellation, then as the transactional step "ledger"
//       inserts (ID, ATTEMPT) into the table ledger and logs "ledger ID ATTEMPT PID" (queue "postgres": $n
//       placeholders); "nap" jobs (input MS): step "before" (logging "body ID before ATTEMPT PID"), a durable
//       sleep of MS ms, a line "woke ID PID MS", step "after", returning "rested"; and "approval" jobs (input
//       MS): step "before", a wait for signal "approved" (a string) of up to MS ms (0: no timeout), a line
//       "approved ID PAYLOAD PID", step "after", returning the payload; after a timeout, a line
//       "timed out ID PID MS" and the output "timed out"; and "tick" jobs, as "record". With --greet-version N it also runs version N of the
//       "greet" job type (1: reads version 1; 2: reads 1 and 2; 3: reads 1, 2 and 3, through input migrations):
//       each attempt logs "greet ID ENQUEUER N PID" once its input is read, then records itself as "record" does.
//   durableq-test-worker sqlite-memory PATH [--initialize-first]
//       Opens a queue on PATH (after sqlite3_initialize() with --initialize-first), enqueues one job
//       and prints "memory N": sqlite3_memory_used(), 0 while SQLite's memory statistics are off.
//   durableq-test-worker report-handoff PATH JOB ATTEMPT OUTPUT
//       Reports that handed-off attempt ATTEMPT of job JOB succeeded with the string OUTPUT, as a carrier
//       in another process would; prints "recorded STATE" or "refused STATE ATTEMPT".
//   durableq-test-worker tick PATH LOG
//       Declares the schedule "every-second" (a "record" job with index 0 every second, missed ticks
//       skipped) and runs an engine until killed; prints "ready" once running.
import CDurableQueueCrashVFS
import CDurableQueueSQLite
import DurableQueue
import DurableQueuePostgres
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `line` and a newline to standard output at once, so the parent sees it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Appends whole lines to a file with one `write` each, so lines of concurrent attempts never mix and
/// a line written before a SIGKILL is in the file.
struct LineLog: Sendable {
    let descriptor: Int32

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    }

    func append(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

/// Wraps an attempt: logs "start" (and, if asked, says "started ID"), waits 1 to `longestMilliseconds`
/// ms (a window for kills and freezes), logs "finish" if it returns a value and "end" in any case.
struct AttemptRecorder: Sendable {
    let log: LineLog
    let longestMilliseconds: Int
    let announcesStarts: Bool
    var ignoresCancellation = false

    func record<T>(_ context: JobContext, result: () -> T) async throws -> T {
        let pid = getpid()
        let attempt = "\(context.id) \(context.attempt) \(pid)"
        log.append("start \(attempt) \(Date().millisecondsSince1970)")
        defer { log.append("end \(attempt) \(Date().millisecondsSince1970)") }
        if announcesStarts { say("started \(context.id)") }
        let milliseconds = Int.random(in: 1...max(1, longestMilliseconds))
        if ignoresCancellation {
            // Works in 10 ms steps without checking for cancellation: after a freeze it goes on
            // where it was, as real work would.
            for step in stride(from: 0, to: milliseconds, by: 10) {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(min(10, milliseconds - step))) {
                        continuation.resume()
                    }
                }
            }
        } else {
            try await Task.sleep(for: .milliseconds(milliseconds))
        }
        log.append("finish \(attempt) \(Date().millisecondsSince1970)")
        return result()
    }
}

/// Returns its input's index, recording the attempt.
struct RecordJob: Job {
    struct Input: Codable, Sendable { var index: Int }
    static let name = "record"
    let recorder: AttemptRecorder

    func run(_ input: Input, context: JobContext) async throws -> Int {
        try await recorder.record(context) { input.index }
    }
}

/// Adds one to its input, recording the attempt.
struct StepJob: Job {
    static let name = "step"
    let recorder: AttemptRecorder

    func run(_ input: Int, context: JobContext) async throws -> Int {
        try await recorder.record(context) { input + 1 }
    }
}

/// Says "started JOB" first if asked; then five durable steps "s1"…"s5", each waiting 1 to `longestMilliseconds` ms (a window for kills),
/// then logging "body JOB STEP ATTEMPT PID" just before it returns "STEP-INPUT"; returns the steps'
/// outputs joined by commas.
struct FiveStepsJob: Job {
    static let name = "five-steps"
    let log: LineLog
    let longestMilliseconds: Int
    let announcesStarts: Bool

    func run(_ input: Int, context: JobContext) async throws -> String {
        if announcesStarts { say("started \(context.id)") }
        var outputs: [String] = []
        for step in 1...5 {
            let name = "s\(step)"
            outputs.append(
                try await context.step(name) {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 1...max(1, longestMilliseconds))))
                    log.append("body \(context.id) \(name) \(context.attempt) \(getpid())")
                    return "\(name)-\(input)"
                })
        }
        return outputs.joined(separator: ",")
    }
}

/// Runs step "prepare", says "started ID ATTEMPT", waits `input` ms without heeding cancellation (a window to freeze the
/// process in, as real work would go on after a thaw), then, as step "ledger" in the queue's
/// transaction, inserts a row (ID, ATTEMPT) into the table `ledger` and logs "ledger ID ATTEMPT PID".
struct LedgerJob: Job {
    static let name = "ledger"
    let log: LineLog

    func run(_ input: Int, context: JobContext) async throws -> String {
        // A first step: this attempt reads the job's recorded steps now, before the wait.
        try await context.step("prepare") {}
        say("started \(context.id) \(context.attempt)")
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(input)) { continuation.resume() }
        }
        let (id, attempt, log) = (context.id.rawValue, context.attempt, log)
        let placeholders = context.queue == "postgres" ? "($1, $2)" : "(?, ?)"
        try await context.step("ledger", inTransaction: { tx in
            try tx.execute("INSERT INTO ledger (job_id, attempt) VALUES \(placeholders)", [.integer(id), .integer(Int64(attempt))])
            // Once the row is written: the transaction holds its write locks until it ends.
            log.append("ledger \(id) \(attempt) \(getpid())")
        })
        return "booked"
    }
}

/// Step "before", a durable sleep of `input` ms, the line "woke ID PID MS", step "after".
struct NapJob: Job {
    static let name = "nap"
    let log: LineLog

    func run(_ input: Int, context: JobContext) async throws -> String {
        try await context.step("before") { log.append("body \(context.id) before \(context.attempt) \(getpid())") }
        try await context.sleep(for: .milliseconds(input))
        log.append("woke \(context.id) \(getpid()) \(Date().millisecondsSince1970)")
        try await context.step("after") { log.append("body \(context.id) after \(context.attempt) \(getpid())") }
        return "rested"
    }
}

/// Step "before", a wait for signal "approved" of up to `input` ms (0: no timeout), the line
/// "approved ID PAYLOAD PID", step "after"; or, after a timeout, the line "timed out ID PID MS".
struct ApprovalJob: Job {
    static let name = "approval"
    let log: LineLog

    func run(_ input: Int, context: JobContext) async throws -> String {
        try await context.step("before") { log.append("body \(context.id) before \(context.attempt) \(getpid())") }
        let payload: String
        do {
            payload = try await context.waitForSignal("approved", as: String.self, timeout: input > 0 ? .milliseconds(input) : nil)
        } catch is SignalTimeoutError {
            log.append("timed out \(context.id) \(getpid()) \(Date().millisecondsSince1970)")
            return "timed out"
        }
        log.append("approved \(context.id) \(payload) \(getpid())")
        try await context.step("after") { log.append("body \(context.id) after \(context.attempt) \(getpid())") }
        return payload
    }
}

/// Version 1 of "greet": a whole name, and the version that enqueued it.
struct GreetV1: Job {
    struct Input: Codable, Sendable { var name: String; var enqueuer: Int }
    static let name = "greet"
    let recorder: AttemptRecorder

    func run(_ input: Input, context: JobContext) async throws -> String {
        recorder.log.append("greet \(context.id) \(input.enqueuer) \(Self.version) \(getpid())")
        return try await recorder.record(context) { "hello \(input.name)" }
    }
}

/// Version 2 of "greet": the name split in two; reads version 1's inputs.
struct GreetV2: Job {
    struct Input: Codable, Sendable { var first: String; var last: String; var enqueuer: Int }
    static let name = "greet"
    static let version = 2
    static let inputMigrations = [InputMigration.from(1, as: GreetV1.Input.self) { GreetV2.splittingName($0) }]
    let recorder: AttemptRecorder

    /// Version 1's input as version 2's.
    static func splittingName(_ old: GreetV1.Input) -> Input {
        let parts = old.name.split(separator: " ", maxSplits: 1).map(String.init)
        return Input(first: parts.first ?? "", last: parts.count > 1 ? parts[1] : "", enqueuer: old.enqueuer)
    }

    func run(_ input: Input, context: JobContext) async throws -> String {
        recorder.log.append("greet \(context.id) \(input.enqueuer) \(Self.version) \(getpid())")
        return try await recorder.record(context) { "hello \(input.first)" }
    }
}

/// Version 3 of "greet": a language besides; reads versions 1 and 2 through a chain of two steps.
struct GreetV3: Job {
    struct Input: Codable, Sendable { var first: String; var last: String; var language: String; var enqueuer: Int }
    static let name = "greet"
    static let version = 3
    static let inputMigrations = [
        InputMigration.from(1, as: GreetV1.Input.self) { GreetV2.splittingName($0) },
        InputMigration.from(2, as: GreetV2.Input.self) { Input(first: $0.first, last: $0.last, language: "en", enqueuer: $0.enqueuer) },
    ]
    let recorder: AttemptRecorder

    func run(_ input: Input, context: JobContext) async throws -> String {
        recorder.log.append("greet \(context.id) \(input.enqueuer) \(Self.version) \(getpid())")
        return try await recorder.record(context) { input.language == "en" ? "hello \(input.first)" : "hi \(input.first)" }
    }
}

/// A queue on `path`: a SQLite file, or the PostgreSQL database a postgres:// URL names.
func openQueue(
    _ path: String, configuration: JobQueue.Configuration = JobQueue.Configuration(),
    logger: Logger = Logger(label: "worker", factory: { _ in SwiftLogNoOpLogHandler() })
) async throws -> JobQueue {
    if path.hasPrefix("postgres://") {
        return try await JobQueue(postgres: try PostgresStorage(url: path), configuration: configuration, logger: logger)
    }
    var configuration = configuration
    if opensThroughCrashVFS {
        guard crashvfs_register() == SQLITE_OK else { throw DurableQueueError(.storage, "could not register the crash VFS") }
        configuration.storage.vfs = CRASHVFS_NAME
        if ProcessInfo.processInfo.environment["CRASHVFS_DURABILITY"] == "powerLoss" { configuration.storage.durability = .powerLoss }
    }
    return try JobQueue(path: path, configuration: configuration, logger: logger)
}

/// Whether SQLite files open through the tests' crash VFS (CRASHVFS_CUT_AT or CRASHVFS_FAIL_AT is set).
let opensThroughCrashVFS = ProcessInfo.processInfo.environment["CRASHVFS_CUT_AT"] != nil
    || ProcessInfo.processInfo.environment["CRASHVFS_FAIL_AT"] != nil

/// Runs the engine; with `untilDone`, stops it once every job has finished.
func work(
    path: String, logPath: String, untilDone: Bool, leaseMilliseconds: Int64, heartbeatMilliseconds: Int64?, jobMilliseconds: Int,
    maxJobs: Int, storageTimeoutMilliseconds: Int, lostAttemptLimit: Int?, announcesStarts: Bool, ignoresCancellation: Bool,
    greetVersion: Int?
) async throws {
    var logger = Logger(label: "worker") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .debug
    var configuration = JobQueue.Configuration(
        maxConcurrentJobs: maxJobs, leaseDuration: .milliseconds(leaseMilliseconds),
        heartbeatInterval: .milliseconds(heartbeatMilliseconds ?? leaseMilliseconds / 3), pollInterval: .milliseconds(20),
        storageFailureTimeout: .milliseconds(storageTimeoutMilliseconds))
    configuration.lostAttemptLimit = lostAttemptLimit
    let queue = try await openQueue(path, configuration: configuration, logger: logger)
    let recorder = AttemptRecorder(
        log: LineLog(path: logPath), longestMilliseconds: jobMilliseconds, announcesStarts: announcesStarts,
        ignoresCancellation: ignoresCancellation)
    queue.register(RecordJob(recorder: recorder))
    queue.register(StepJob(recorder: recorder))
    queue.register(FiveStepsJob(log: recorder.log, longestMilliseconds: jobMilliseconds, announcesStarts: announcesStarts))
    queue.register(LedgerJob(log: recorder.log))
    queue.register(NapJob(log: recorder.log))
    queue.register(ApprovalJob(log: recorder.log))
    queue.register(TickJob(recorder: recorder))
    switch greetVersion {
    case 1: queue.register(GreetV1(recorder: recorder))
    case 2: queue.register(GreetV2(recorder: recorder))
    case 3: queue.register(GreetV3(recorder: recorder))
    default: break
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await queue.run() }
        say("ready")
        if untilDone {
            group.addTask {
                // A count that fails (the server restarting) is not the end: the engine decides when to give up.
                while (try? await queue.unfinishedJobCount()) != 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            // Whichever ends first: the work, or the engine (which then stopped for an error).
            try await group.next()
            group.cancelAll()
        }
        try await group.waitForAll()
    }
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "enqueue" where arguments.count == 4:
        guard let count = Int(arguments[3]) else { throw DurableQueueError(.invalidArgument, "COUNT is not a number") }
        let queue = try await openQueue(arguments[2])
        say("ready")
        for index in 0..<count {
            let job = try await queue.enqueue(RecordJob.self, RecordJob.Input(index: index), options: EnqueueOptions(queue: "shared"))
            if opensThroughCrashVFS { say("enqueued \(job.id)") }
        }
        say("done")
    case "open" where arguments.count == 3:
        // Opens PATH (upgrading an older file's schema), then closes it: the store checkpoints the log.
        do { _ = try await openQueue(arguments[2]) }
        say("opened, \(crashvfs_failures()) operations failed")
    case "mixed" where arguments.count == 5:
        guard let rounds = Int(arguments[4]) else { throw DurableQueueError(.invalidArgument, "ROUNDS is not a number") }
        try await mixedWork(path: arguments[2], logPath: arguments[3], rounds: rounds)
    case "open-together" where arguments.count == 4:
        // Started beside others, it opens PATH (new, most often) only once GATE exists, so that
        // every one of them opens it at the same moment.
        say("waiting")
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: arguments[3]) && ContinuousClock.now < deadline { usleep(200) }
        let queue = try await openQueue(arguments[2])
        _ = try await queue.enqueue(RecordJob.self, RecordJob.Input(index: 0))
        say("done")
    case "greet" where arguments.count == 5:
        guard let version = Int(arguments[3]), (1...3).contains(version), let count = Int(arguments[4]), count > 0 else {
            throw DurableQueueError(.invalidArgument, "VERSION must be 1, 2 or 3 and COUNT positive")
        }
        let queue = try await openQueue(arguments[2])
        var ids: [Int64] = []
        for index in 0..<count {
            let name = "Ada\(index) Lovelace"
            switch version {
            case 1: ids.append(try await queue.enqueue(GreetV1.self, GreetV1.Input(name: name, enqueuer: 1)).id.rawValue)
            case 2: ids.append(try await queue.enqueue(GreetV2.self, GreetV2.splittingName(GreetV1.Input(name: name, enqueuer: 2))).id.rawValue)
            default:
                ids.append(
                    try await queue.enqueue(GreetV3.self, GreetV3.Input(first: "Ada\(index)", last: "Lovelace", language: "en", enqueuer: 3))
                        .id.rawValue)
            }
        }
        say("ids \(ids.first ?? 0) \(ids.last ?? 0)")
    case "compose" where arguments.count == 3:
        let queue = try await openQueue(arguments[2])
        // Kills interrupt attempts, and each interrupted attempt counts: let steps retry forever.
        let options = EnqueueOptions(retry: .unlimited(backoff: .constant(.zero)))
        let chain = try await queue.enqueue(
            .sequence(
                [.job(StepJob.self, 0, options: options)]
                    + (1..<5).map { _ in .jobUsingPreviousOutput(StepJob.self, options: options) }, name: "chain"))
        let fan = try await queue.enqueue(
            .group((0..<20).map { .job(StepJob.self, $0, name: "c\($0)", options: options) }, maxConcurrent: 4, name: "fan"))
        say("chain \(chain.id) fan \(fan.id)")
    case "cache" where arguments.count == 5:
        let queue = try await openQueue(arguments[2], configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(
            StepJob(recorder: AttemptRecorder(log: LineLog(path: arguments[3]), longestMilliseconds: 300, announcesStarts: false)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await queue.run() }
            say("ready")
            let value = try await queue.cache(for: StepJob.self).value(forKey: arguments[4], computedBy: 41)
            say("value \(value)")
            group.cancelAll()
            try await group.waitForAll()
        }
    case "work" where arguments.count >= 4:
        let rest = Array(arguments.dropFirst(4))
        func number(after flag: String) -> Int? {
            rest.firstIndex(of: flag).flatMap { rest.indices.contains($0 + 1) ? Int(rest[$0 + 1]) : nil }
        }
        try await work(
            path: arguments[2], logPath: arguments[3], untilDone: rest.contains("--until-done"),
            leaseMilliseconds: Int64(number(after: "--lease-ms") ?? 1_000),
            heartbeatMilliseconds: number(after: "--heartbeat-ms").map(Int64.init), jobMilliseconds: number(after: "--job-ms") ?? 8,
            maxJobs: number(after: "--max-jobs") ?? 16, storageTimeoutMilliseconds: number(after: "--storage-timeout-ms") ?? 30_000,
            lostAttemptLimit: number(after: "--lost-attempt-limit").map { $0 == 0 ? nil : $0 } ?? 3,
            announcesStarts: rest.contains("--announce-starts"), ignoresCancellation: rest.contains("--ignore-cancel"),
            greetVersion: number(after: "--greet-version"))
    case "sqlite-memory" where arguments.count >= 3:
        if arguments.dropFirst(3).contains("--initialize-first") { sqlite3_initialize() }
        let queue = try await openQueue(arguments[2])
        _ = try await queue.enqueue(RecordJob.self, RecordJob.Input(index: 0))
        say("memory \(sqlite3_memory_used())")
    case "report-handoff" where arguments.count == 6:
        guard let job = Int64(arguments[3]), let attempt = Int(arguments[4]) else {
            throw DurableQueueError(.invalidArgument, "JOB and ATTEMPT must be numbers")
        }
        let queue = try await openQueue(arguments[2])
        switch try await queue.handOffs.complete(job: JobID(job), attempt: attempt, output: arguments[5]) {
        case .recorded(let state): say("recorded \(state.rawValue)")
        case .refused(let state, let current): say("refused \(state.rawValue) \(current)")
        }
    case "tick" where arguments.count == 4:
        let queue = try await openQueue(arguments[2], configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(RecordJob(recorder: AttemptRecorder(log: LineLog(path: arguments[3]), longestMilliseconds: 8, announcesStarts: false)))
        try await queue.schedules.save(
            name: "every-second", RecordJob.self, input: RecordJob.Input(index: 0), rule: .every(.seconds(1), missed: .skip))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await queue.run() }
            say("ready")
            try await group.waitForAll()
        }
    default:
        FileHandle.standardError.write(Data("usage: durableq-test-worker open PATH | mixed PATH LOG ROUNDS | enqueue PATH COUNT | open-together PATH GATE | compose PATH | greet PATH VERSION COUNT | report-handoff PATH JOB ATTEMPT OUTPUT | cache PATH LOG KEY | sqlite-memory PATH [--initialize-first] | tick PATH LOG | work PATH LOG [--until-done] [--lease-ms N] [--heartbeat-ms N] [--job-ms N] [--max-jobs N] [--storage-timeout-ms N] [--lost-attempt-limit N] [--announce-starts] [--ignore-cancel] [--greet-version N]\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("durableq-test-worker: \(error)\n".utf8))
    exit(1)
}
