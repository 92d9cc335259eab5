import DurableQueue
import DurableQueuePostgres
import Foundation

/// The benchmark's workloads, each on a fresh file in `directory`, or with `postgres` (a
/// postgres:// URL without a schema) on a fresh schema of that database.
struct Workloads {
    var directory: URL
    var durability: Durability
    var n: Int
    var postgres: String?
    /// Swift's global executor in this process and the worker processes: "default" or "nio".
    var executor: String

    /// Jobs each engine runs at once: enough that claims and endings are grouped many per transaction.
    static let maxConcurrentJobs = 64

    /// A fresh file's path, or a fresh schema's URL.
    func freshPath(_ name: String) -> String {
        let unique = UUID().uuidString.prefix(8).lowercased()
        if let postgres { return postgres + (postgres.contains("?") ? "&" : "?") + "schema=bench_\(name)_\(unique)" }
        return directory.appendingPathComponent("\(name)-\(unique).sqlite").path
    }

    /// Opens `path` with the benchmark's settings and the no-op job registered, counting starts;
    /// its engine runs `queues` only (nil: every queue).
    func open(_ path: String, counter: StartCounter = StartCounter(), queues: Set<String>? = nil) async throws -> JobQueue {
        let configuration = JobQueue.Configuration(
            storage: StorageOptions(durability: durability), maxConcurrentJobs: Self.maxConcurrentJobs, queues: queues,
            retention: .forever)
        let queue = try await openQueue(path, configuration: configuration)
        queue.register(NoOpJob(started: { counter.increment() }))
        queue.register(ThreeStepJob(started: { counter.increment() }))
        return queue
    }

    /// The SQLite settings of a file opened like the workloads' files (PostgreSQL's are the server's).
    func settings() async throws -> SQLiteSettings {
        if postgres != nil { return SQLiteSettings(version: "none (PostgreSQL)", journalMode: "-", synchronous: "-") }
        let store = try SQLiteJobStore(path: freshPath("settings"), options: StorageOptions(durability: durability))
        let found = try await store.sqliteSettings()
        return SQLiteSettings(version: found.version, journalMode: found.journalMode, synchronous: found.synchronous)
    }

    /// N enqueues, each awaited (committed) before the next, by `callers` concurrent callers.
    func enqueue(callers: Int) async throws -> Measurement {
        let queue = try await open(freshPath("enqueue"))
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in 0..<callers {
                group.addTask {
                    for index in stride(from: caller, to: n, by: callers) {
                        _ = try await queue.enqueue(NoOpJob.self, NoOpJob.Input(index))
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = secondsSince(start)
        return Measurement(workload: callers == 1 ? "enqueue" : "enqueue_\(callers)_callers", jobs: n, seconds: seconds)
    }

    /// N jobs in batches of 1,000, one transaction each.
    func batch() async throws -> Measurement {
        let queue = try await open(freshPath("batch"))
        let start = ContinuousClock.now
        try await prefill(queue, count: n)
        return Measurement(workload: "batch", jobs: n, seconds: secondsSince(start))
    }

    /// Enqueues `count` jobs in batches of 1,000.
    func prefill(_ queue: JobQueue, count: Int, from first: Int = 0) async throws {
        var index = first
        while index < first + count {
            let end = min(first + count, index + 1000)
            _ = try await queue.enqueue(NoOpJob.self, batch: (index..<end).map(NoOpJob.Input.init))
            index = end
        }
    }

    /// Enqueues `count` jobs in batches of 1,000, each to run at `runAt`.
    func prefill(_ queue: JobQueue, count: Int, runAt: Date) async throws {
        var index = 0
        while index < count {
            let end = min(count, index + 1000)
            _ = try await queue.enqueue(NoOpJob.self, batch: (index..<end).map(NoOpJob.Input.init), options: EnqueueOptions(runAt: runAt))
            index = end
        }
    }

    /// N prefilled jobs, the file reopened, drained by the engine until none is unfinished.
    func drain() async throws -> Measurement {
        let path = freshPath("drain")
        try await prefill(try await open(path), count: n)
        return try await timeDrain(path, workload: "drain")
    }

    /// N prefilled jobs over N / 10 partition keys (ten each) on a queue whose keys take turns
    /// (``Fairness/byKey``), the file reopened, drained by the engine. `interleaved`: the keys'
    /// jobs were enqueued in turn (the fair order is the table's order); else key by key (the fair
    /// order visits the table's rows ten apart).
    func drainFair(interleaved: Bool) async throws -> Measurement {
        let path = freshPath("fair")
        let queue = try await open(path)
        try await queue.queues.configure(QueueConfiguration("default", fairness: .byKey))
        let keys = max(1, n / 10)
        if interleaved {
            for index in 0..<n {
                _ = try await queue.enqueue(NoOpJob.self, NoOpJob.Input(index), options: EnqueueOptions(partitionKey: "key-\(index % keys)"))
            }
        } else {
            for key in 0..<keys {
                let inputs = (key * 10..<min(n, key * 10 + 10)).map(NoOpJob.Input.init)
                guard !inputs.isEmpty else { break }
                _ = try await queue.enqueue(NoOpJob.self, batch: inputs, options: EnqueueOptions(partitionKey: "key-\(key)"))
            }
        }
        return try await timeDrain(path, workload: interleaved ? "drain_fair_interleaved" : "drain_fair_key_by_key")
    }

    /// Limits per key at scale: N jobs drained from a backlog of `backlog` waiting jobs over
    /// `backlog / 10` partition keys (ten each, the keys in turn) on a queue whose keys take turns,
    /// may each run one job at once and are each throttled to a start per millisecond (so every
    /// claim reads each key it meets and every start writes its key's row); beside, in the same
    /// run, the same drain of a plain backlog (no keys, no limits) and of a keyed backlog of N.
    func keyedBacklog(_ backlog: Int) async throws -> Measurement {
        let keyed = try await drainFromBacklog(backlog, keyed: true)
        let plain = try await drainFromBacklog(backlog, keyed: false)
        let small = try await drainFromBacklog(n, keyed: true)
        return Measurement(
            workload: "keys_backlog", jobs: n, seconds: Double(n) / keyed.rate,
            extra: [
                ("backlog_jobs", Double(backlog)), ("keys", Double(max(1, backlog / 10))), ("plain_jobs_per_sec", plain.rate),
                ("ratio_to_plain", keyed.rate / plain.rate), ("keyed_small_backlog_jobs_per_sec", small.rate),
                ("ratio_to_small_backlog", keyed.rate / small.rate), ("enqueue_secs", keyed.enqueueSeconds),
                ("plain_enqueue_secs", plain.enqueueSeconds),
            ])
    }

    /// N prefilled jobs over N / 10 keys (ten each, the keys in turn) on a fair queue whose keys may
    /// each run one job at once and start one a millisecond, the file reopened, drained by the engine:
    /// the plain drain's counterpart for the cost of limits per key (callgrind's instructions per job).
    func drainKeyed() async throws -> Measurement {
        let path = freshPath("keyed")
        try await prefill(path, count: n, keyed: true)
        return try await timeDrain(path, workload: "drain_keyed")
    }

    /// Enqueues `count` jobs on `path` in batches of 1,000; when `keyed`, over `count / 10` keys in
    /// turn on a fair queue with one running job and a 1 ms throttle per key.
    private func prefill(_ path: String, count: Int, keyed: Bool) async throws {
        let filler = try await open(path)
        if keyed {
            try await filler.queues.configure(
                QueueConfiguration("default", partitionLimit: 1, fairness: .byKey, keyThrottle: Throttle(.milliseconds(1))))
        }
        let keys = max(1, count / 10)
        var index = 0
        while index < count {
            let range = index..<min(count, index + 1000)
            _ = try await filler.enqueue(
                NoOpJob.self,
                batch: range.map { (NoOpJob.Input($0), EnqueueOptions(partitionKey: keyed ? "key-\($0 % keys)" : nil)) })
            index = range.upperBound
        }
    }

    /// Enqueues `backlog` jobs (1,000 per batch; over `backlog / 10` keys, in turn, on a
    /// limited fair queue when `keyed`), reopens, and times the engine through the first N starts.
    private func drainFromBacklog(_ backlog: Int, keyed: Bool) async throws -> (rate: Double, enqueueSeconds: Double) {
        let path = freshPath(keyed ? "keys" : "plain_backlog")
        let enqueueStart = ContinuousClock.now
        try await prefill(path, count: backlog, keyed: keyed)
        let enqueueSeconds = secondsSince(enqueueStart)
        if postgres == nil { sync() }
        let counter = StartCounter()
        let queue = try await open(path, counter: counter)
        let engine = Task { try await queue.run() }
        while counter.value == 0 { try await Task.sleep(for: .microseconds(200)) }
        let start = ContinuousClock.now
        let target = min(n, backlog)
        while counter.value < target { try await Task.sleep(for: .milliseconds(2)) }
        let rate = Double(target) / secondsSince(start)
        engine.cancel()
        _ = try? await engine.value
        return (rate, enqueueSeconds)
    }

    /// N jobs enqueued to run a moment later, drained once all are due: each is promoted from
    /// `scheduled` to `pending` (with its history row) before it is claimed, as a delayed job or a
    /// retry is.
    func drainScheduled() async throws -> Measurement {
        let path = freshPath("scheduled")
        let runAt = Date().addingTimeInterval(1)
        try await prefill(try await open(path), count: n, runAt: runAt)
        let wait = runAt.timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000) + 1)) }
        return try await timeDrain(path, workload: "drain_scheduled")
    }

    /// N prefilled jobs of three durable steps each, drained by the engine: each step commits its
    /// output and history row in a transaction of its own, fenced by the attempt.
    func drainSteps() async throws -> Measurement {
        let path = freshPath("steps")
        let queue = try await open(path)
        var index = 0
        while index < n {
            let end = min(n, index + 1000)
            _ = try await queue.enqueue(ThreeStepJob.self, batch: (index..<end).map(NoOpJob.Input.init))
            index = end
        }
        return try await timeDrain(path, workload: "drain_three_steps")
    }

    /// N prefilled jobs, the second half each waiting for one job of the first (``Dependency``),
    /// drained by the engine: each dependency's ending unblocks its dependent, which then starts.
    func drainDependent() async throws -> Measurement {
        let path = freshPath("dependent")
        let queue = try await open(path)
        let parents = n / 2
        var index = 0
        while index < parents {
            let end = min(parents, index + 1000)
            let handles = try await queue.enqueue(NoOpJob.self, batch: (index..<end).map(NoOpJob.Input.init))
            _ = try await queue.enqueue(
                NoOpJob.self,
                batch: zip(handles, (parents + index)..<(parents + end)).map { handle, child in
                    var options = EnqueueOptions()
                    options.dependsOn = [Dependency("parent", on: handle)]
                    return (NoOpJob.Input(child), options)
                })
            index = end
        }
        return try await timeDrain(path, workload: "drain_dependent")
    }

    /// N jobs in one concurrent group that runs 16 at a time, drained by the engine: each ending
    /// advances the group, which starts the next child.
    func drainGroup() async throws -> Measurement {
        let path = freshPath("group")
        let children = (0..<n).map { Composition.job(NoOpJob.self, NoOpJob.Input($0)) }
        _ = try await open(path).enqueue(.group(children, maxConcurrent: 16))
        return try await timeDrain(path, workload: "drain_group")
    }

    /// N prefilled plain jobs drained by an engine that runs the queue `default` only, in a file
    /// where 10,000 other jobs, unfinished on the queue `others`, use what plain jobs do not: 2,500
    /// hold unique and partition keys, 2,500 are dependencies and their dependents, 2,500 wait in
    /// 25 concurrent groups, 2,500 are jobs of durable steps. Beside ``drain()``: what a plain job
    /// pays for the features other jobs use (issue 71: the same, within 2 %).
    func drainCrowded() async throws -> Measurement {
        let path = freshPath("crowded")
        let queue = try await open(path)
        let others = EnqueueOptions(queue: "others")
        _ = try await queue.enqueue(
            NoOpJob.self,
            batch: (0..<2_500).map { index in
                var options = others
                options.uniqueKey = "key-\(index)"
                options.partitionKey = "tenant-\(index % 100)"
                return (NoOpJob.Input(index), options)
            })
        let parents = try await queue.enqueue(NoOpJob.self, batch: (0..<1_250).map(NoOpJob.Input.init), options: others)
        _ = try await queue.enqueue(
            NoOpJob.self,
            batch: parents.enumerated().map { index, parent in
                var options = others
                options.dependsOn = [Dependency("parent", on: parent)]
                return (NoOpJob.Input(index), options)
            })
        for group in 0..<25 {
            let children = (0..<100).map { Composition.job(NoOpJob.self, NoOpJob.Input(group * 100 + $0), options: others) }
            _ = try await queue.enqueue(.group(children, maxConcurrent: 4))
        }
        _ = try await queue.enqueue(ThreeStepJob.self, batch: (0..<2_500).map(NoOpJob.Input.init), options: others)
        let othersLeft = try await queue.unfinishedJobCount()
        try await prefill(queue, count: n)
        return try await timeDrain(path, workload: "drain_crowded", queues: ["default"], leaving: othersLeft)
    }

    /// Opens the prefilled file at `path` and times its engine, which runs `queues` (nil: every
    /// queue), until only `leaving` jobs (of other queues) are unfinished.
    private func timeDrain(_ path: String, workload: String, queues: Set<String>? = nil, leaving: Int = 0) async throws
        -> Measurement
    {
        let counter = StartCounter()
        let queue = try await open(path, counter: counter, queues: queues)
        let start = ContinuousClock.now
        let engine = Task { try await queue.run() }
        // Polls the file only once every job has started, so that counting does not slow the drain.
        while counter.value < n { try await Task.sleep(for: .milliseconds(1)) }
        while try await queue.unfinishedJobCount() > leaving { try await Task.sleep(for: .milliseconds(1)) }
        let seconds = secondsSince(start)
        engine.cancel()
        _ = try? await engine.value
        return Measurement(workload: workload, jobs: n, seconds: seconds)
    }

    /// Enqueue → handler start on an idle engine, in-process: p50 and p99 over `samples` jobs.
    func latency(samples: Int = 1000) async throws -> Measurement {
        let (starts, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let configuration = JobQueue.Configuration(storage: StorageOptions(durability: durability), retention: .forever)
        let queue = try await openQueue(freshPath("latency"), configuration: configuration)
        queue.register(NoOpJob(started: { continuation.yield(.now) }))
        let engine = Task { try await queue.run() }
        var iterator = starts.makeAsyncIterator()
        var delays: [Double] = []
        let total = ContinuousClock.now
        for index in 0..<(samples + 50) {
            let sent = ContinuousClock.now
            _ = try await queue.enqueue(NoOpJob.self, NoOpJob.Input(index))
            guard let started = await iterator.next() else { break }
            let delay = started - sent
            // The first 50 warm the engine up.
            if index >= 50 { delays.append(Double(delay.components.attoseconds) / 1e15 + Double(delay.components.seconds) * 1000) }
            try await Task.sleep(for: .milliseconds(1))  // idle between jobs
        }
        engine.cancel()
        _ = try? await engine.value
        delays.sort()
        return Measurement(
            workload: "latency", jobs: delays.count, seconds: secondsSince(total),
            extra: [("p50_ms", percentile(delays, 0.5)), ("p99_ms", percentile(delays, 0.99))])
    }

    /// With `backlog` jobs waiting: the time to open and start the first job, the drain rate of N
    /// jobs and the enqueue rate of N jobs (the median of `rounds` each), and the peak memory.
    func backlog(_ backlog: Int, rounds: Int) async throws -> Measurement {
        let path = freshPath("backlog")
        try await prefill(try await open(path), count: backlog)
        // The prefill leaves hundreds of megabytes of dirty pages; the kernel writing them back
        // during the measurement would slow it by as much as half, and by a different amount each run.
        sync()
        let counter = StartCounter()
        let start = ContinuousClock.now
        let queue = try await open(path, counter: counter)
        var ready = 0.0
        var drains: [Double] = []
        for round in 1...rounds {
            let before = counter.value
            let engine = Task { try await queue.run() }
            while counter.value == before { try await Task.sleep(for: .microseconds(200)) }
            if round == 1 { ready = secondsSince(start) }
            let drainStart = ContinuousClock.now
            while counter.value < before + n { try await Task.sleep(for: .milliseconds(2)) }
            drains.append(Double(n) / secondsSince(drainStart))
            engine.cancel()
            _ = try? await engine.value
        }
        var enqueues: [Double] = []
        for round in 0..<rounds {
            let enqueueStart = ContinuousClock.now
            for index in 0..<n { _ = try await queue.enqueue(NoOpJob.self, NoOpJob.Input(backlog + round * n + index)) }
            enqueues.append(Double(n) / secondsSince(enqueueStart))
        }
        let drain = drains.sorted()[rounds / 2]
        return Measurement(
            workload: "backlog", jobs: n, seconds: Double(n) / drain,
            extra: [
                ("backlog_jobs", Double(backlog)), ("open_ready_secs", ready), ("drain_jobs_per_sec", drain),
                ("enqueue_jobs_per_sec", enqueues.sorted()[rounds / 2]), ("peak_rss_mb", peakRSSKilobytes() / 1024),
                ("drain_min_jobs_per_sec", drains.min() ?? 0), ("drain_max_jobs_per_sec", drains.max() ?? 0),
            ])
    }

    /// Open → first claim, as an app's launch meets it: the milliseconds from opening the queue
    /// to its first job's handler starting, on a fresh file (created and migrated by the open; one
    /// job enqueued) and on an existing file (N finished jobs and one waiting), each the median of
    /// `rounds` processes' worth of opens (a new `JobQueue` each time, as a launch makes one).
    func openToFirstClaim(rounds: Int) async throws -> Measurement {
        func firstStart(_ path: String, enqueueFirst: Bool) async throws -> Double {
            let counter = StartCounter()
            let start = ContinuousClock.now
            let queue = try await open(path, counter: counter)
            if enqueueFirst { _ = try await queue.enqueue(NoOpJob.self, NoOpJob.Input(0)) }
            let drain = Task { try await queue.drain() }
            while counter.value == 0 { try await Task.sleep(for: .microseconds(100)) }
            let milliseconds = secondsSince(start) * 1000
            _ = try await drain.value
            return milliseconds
        }
        var fresh: [Double] = []
        var existing: [Double] = []
        let path = freshPath("open-existing")
        try await prefill(try await open(path), count: n)
        _ = try await open(path).drain()
        for round in 0..<rounds {
            fresh.append(try await firstStart(freshPath("open-fresh"), enqueueFirst: true))
            _ = try await open(path).enqueue(NoOpJob.self, NoOpJob.Input(n + round))
            existing.append(try await firstStart(path, enqueueFirst: false))
        }
        let freshMedian = fresh.sorted()[rounds / 2]
        let existingMedian = existing.sorted()[rounds / 2]
        return Measurement(
            workload: "open", jobs: rounds, seconds: (fresh.reduce(0, +) + existing.reduce(0, +)) / 1000,
            extra: [
                ("fresh_open_to_first_start_ms", freshMedian), ("existing_open_to_first_start_ms", existingMedian),
                ("existing_finished_jobs", Double(n)), ("fresh_max_ms", fresh.max() ?? 0), ("existing_max_ms", existing.max() ?? 0),
            ])
    }

    /// N prefilled jobs drained by `processes` worker processes (this executable with `--worker`).
    func processes(_ processes: Int) async throws -> Measurement {
        let path = freshPath("processes")
        try await prefill(try await open(path), count: n)
        let start = ContinuousClock.now
        let children = try (0..<processes).map { _ in
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
            child.arguments = ["--worker", path, "--sync", durability == .powerLoss ? "full" : "normal", "--executor", executor]
            try child.run()
            return child
        }
        for child in children { child.waitUntilExit() }
        return Measurement(workload: "drain_\(processes)_process\(processes == 1 ? "" : "es")", jobs: n, seconds: secondsSince(start))
    }

    /// Throttle precision: 50 jobs on a queue throttled to one start per 20 ms; the average gap
    /// between starts minus the interval.
    func throttle() async throws -> Measurement {
        let queue = try await open(freshPath("throttle"))
        try await queue.queues.configure(QueueConfiguration("paced", throttle: Throttle(.milliseconds(20))))
        let handles = try await queue.enqueue(NoOpJob.self, batch: (0..<51).map(NoOpJob.Input.init), options: EnqueueOptions(queue: "paced"))
        let start = ContinuousClock.now
        let engine = Task { try await queue.run() }
        for handle in handles { _ = try await handle.result() }
        let seconds = secondsSince(start)
        engine.cancel()
        _ = try? await engine.value
        let records = try await queue.reader.jobs(JobFilter(queue: "paced", limit: 100)).compactMap(\.startedAt).sorted()
        let gaps = zip(records.dropFirst(), records).map { Double($0 - $1) }
        let average = gaps.reduce(0, +) / Double(max(1, gaps.count))
        return Measurement(
            workload: "throttle_20ms", jobs: handles.count, seconds: seconds,
            extra: [("average_gap_ms", average), ("average_error_ms", average - 20), ("max_gap_ms", gaps.max() ?? 0)])
    }
}

/// A queue on `path`: a SQLite file, or a PostgreSQL database named by a postgres:// URL.
func openQueue(_ path: String, configuration: JobQueue.Configuration) async throws -> JobQueue {
    if path.hasPrefix("postgres://") {
        return try await JobQueue(postgres: try PostgresStorage(url: path), configuration: configuration)
    }
    return try JobQueue(path: path, configuration: configuration)
}

/// The `--worker PATH` mode: drains the file (or database) and exits.
func runWorker(path: String, durability: Durability) async throws {
    let configuration = JobQueue.Configuration(
        storage: StorageOptions(durability: durability), maxConcurrentJobs: Workloads.maxConcurrentJobs, retention: .forever)
    let queue = try await openQueue(path, configuration: configuration)
    queue.register(NoOpJob(started: {}))
    let engine = Task { try await queue.run() }
    // Counting is a scan of the jobs table on PostgreSQL (about 5 ms at 10,000 jobs): asked every
    // 5 ms, it took most of a core from the server the workers share.
    let poll = path.hasPrefix("postgres://") ? 50 : 5
    while try await queue.unfinishedJobCount() > 0 { try await Task.sleep(for: .milliseconds(poll)) }
    engine.cancel()
    _ = try? await engine.value
}
