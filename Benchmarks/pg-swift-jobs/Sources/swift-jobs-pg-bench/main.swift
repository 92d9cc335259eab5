// swift-jobs-pg-bench: swift-jobs-postgres in the PostgreSQL peer benchmark, with the arguments and
// the one-line JSON report of the harness's DurableQueue adapter (../../../shared/bench/pg), for the
// workloads a single process runs:
//
//   swift-jobs-pg-bench --workload enqueue|drain --url postgres://USER@HOST:PORT/DB --n N
//                       [--concurrency K] [--batch B] [--dir D]
//
//   enqueue  N awaited `push` calls, one after another (each returns after its commit).
//   drain    N jobs pushed untimed, then a JobQueueProcessor (its default 16 workers, or K) drains
//            them; timed from starting it until every handler has started and no job is pending or
//            processing (read on a connection of this program's own, every millisecond once all
//            handlers started).
//
// swift-jobs has no batch push, and the two-process drain needs the DurableQueue adapter's worker
// protocol: those workloads print an error line. server_cpu_s, server_xids and server_wal_bytes
// are measured as the DurableQueue adapter does (BENCH_PG_POSTMASTER_PID, /proc, pg_current_*).

import Foundation
import Jobs
import JobsPostgres
import Logging
import PostgresMigrations
import PostgresNIO
import ServiceLifecycle
import Synchronization

struct Arguments {
    var workload = ""
    var url = ""
    var n = 0
    var concurrency: Int?

    init() {
        var iterator = CommandLine.arguments.dropFirst().makeIterator()
        while let name = iterator.next() {
            guard let value = iterator.next() else { fail("missing value for \(name)") }
            switch name {
            case "--workload": workload = value
            case "--url": url = value
            case "--n": n = Int(value) ?? -1
            case "--concurrency": concurrency = Int(value)
            case "--batch", "--dir", "--executor": continue
            case "--processes": if value != "1" { fail("--processes: the two-process drain is not implemented for swift-jobs") }
            default: fail("bad argument \(name)")
            }
        }
        guard ["enqueue", "drain"].contains(workload) else { fail("workload \(workload): swift-jobs has no batch push") }
        guard n > 0, url.hasPrefix("postgres") else { fail("--url and --n are required") }
    }
}

func fail(_ message: String) -> Never {
    print(#"{"error": "swift-jobs-pg-bench: \#(message)"}"#)
    exit(2)
}

/// The payload of every peer: the same 100 bytes of JSON fields.
struct NoOpJob: JobParameters {
    static let jobName = "send_welcome"
    let task: String
    let job: String
    let to: String
    let tmpl: String
    let lang: String

    init(_ index: Int) {
        let number = String(repeating: "0", count: max(0, 6 - String(index).count)) + String(index)
        task = "send_welcome"
        job = number
        to = "user\(number)@example.com"
        tmpl = "welcome_v2"
        lang = "en"
    }
}

/// Handler starts, counted.
final class Starts: Sendable {
    let count = Mutex(0)
}

func postgresConfiguration(_ url: String) -> PostgresClient.Configuration {
    guard let components = URLComponents(string: url), let host = components.host else { fail("bad --url \(url)") }
    let database = String(components.path.dropFirst())
    return PostgresClient.Configuration(
        host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
        database: database.isEmpty ? nil : database, tls: .disable)
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func cpuSeconds() -> (user: Double, sys: Double) {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return (
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
        Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    )
}

/// CPU seconds of the PostgreSQL server: the postmaster (its own and its reaped children's) plus
/// every live child; nil without BENCH_PG_POSTMASTER_PID.
func serverCPUSeconds() -> Double? {
    guard let text = ProcessInfo.processInfo.environment["BENCH_PG_POSTMASTER_PID"], let postmaster = Int(text) else { return nil }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    var total = 0.0
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.first?.isNumber == true {
        guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 15, let parent = Int(fields[1]) else { continue }
        let own = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        if Int(entry) == postmaster {
            total += own + (Double(fields[13]) ?? 0) + (Double(fields[14]) ?? 0)
        } else if parent == postmaster {
            total += own
        }
    }
    return total / ticks
}

/// A connection of this program's own for the counters and the end of a drain.
struct Probe {
    let client: PostgresClient

    func int(_ sql: String) async throws -> Int64 {
        for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) { return value }
        return -1
    }

    func counters() async throws -> (xid: Int64, wal: Int64) {
        (try await int("SELECT pg_current_xact_id()::text::bigint"), try await int("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"))
    }

    /// No job waits in swift_jobs.queues and none is pending or processing.
    func allFinished() async throws -> Bool {
        try await int(
            "SELECT (SELECT count(*) FROM swift_jobs.queues) + (SELECT count(*) FROM swift_jobs.jobs WHERE status IN (0, 1))") == 0
    }
}

let arguments = Arguments()
var logger = Logger(label: "swift-jobs-pg-bench")
logger.logLevel = .warning

let report: [String: Any] = try await withThrowingTaskGroup(of: Void.self) { group in
    let configuration = postgresConfiguration(arguments.url)
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let probeClient = PostgresClient(configuration: configuration, backgroundLogger: logger)
    group.addTask { await client.run() }
    group.addTask { await probeClient.run() }
    let probe = Probe(client: probeClient)
    let migrations = DatabaseMigrations()
    let queue = JobQueue(await .postgres(client: client, migrations: migrations, logger: logger), logger: logger)
    try await migrations.apply(client: client, groups: [.jobQueue], logger: logger, dryRun: false)
    let starts = Starts()
    queue.registerJob(parameters: NoOpJob.self) { _, _ in starts.count.withLock { $0 += 1 } }

    if arguments.workload == "drain" {
        for index in 0..<arguments.n { try await queue.push(NoOpJob(index)) }
        // As the other adapters: the prefill's pages written out before the timed section.
        _ = try await probeClient.query("CHECKPOINT")
    }
    let cpu0 = cpuSeconds(), server0 = serverCPUSeconds(), counters0 = try await probe.counters()
    let start = monotonic()
    var processor: ServiceGroup?
    if arguments.workload == "enqueue" {
        for index in 0..<arguments.n { try await queue.push(NoOpJob(index)) }
    } else {
        let options = JobQueueProcessorOptions(numWorkers: arguments.concurrency ?? JobQueueProcessorOptions().numWorkers)
        let services = ServiceGroup(services: [queue.processor(options: options)], logger: logger)
        processor = services
        group.addTask { try await services.run() }
        while starts.count.withLock({ $0 }) < arguments.n { try await Task.sleep(for: .milliseconds(1)) }
        while try await !probe.allFinished() { try await Task.sleep(for: .milliseconds(1)) }
    }
    let secs = monotonic() - start
    let cpu1 = cpuSeconds(), server1 = serverCPUSeconds(), counters1 = try await probe.counters()
    await processor?.triggerGracefulShutdown()
    let pushed = try await probe.int("SELECT count(*) FROM swift_jobs.jobs")
    let started = starts.count.withLock { $0 }
    let ok = arguments.workload == "enqueue" ? pushed == Int64(arguments.n) : started == arguments.n
    var report: [String: Any] = [
        "system": "swift-jobs-postgres", "version": "swift-jobs 1.3.1, swift-jobs-postgres 1.3.0",
        "runtime": "Swift (release)", "workload": arguments.workload, "processed": arguments.n, "ok": ok, "secs": secs,
        "jobs_per_sec": Double(arguments.n) / secs, "cpu_user_s": cpu1.user - cpu0.user, "cpu_sys_s": cpu1.sys - cpu0.sys,
        "server_xids": Int(counters1.xid - counters0.xid) - 1, "server_wal_bytes": Int(counters1.wal - counters0.wal),
        "handler_starts": started, "jobs_rows_after": pushed,
        "max_concurrent_jobs": arguments.workload == "drain" ? (arguments.concurrency ?? JobQueueProcessorOptions().numWorkers) : 0,
    ]
    if let server0, let server1 { report["server_cpu_s"] = server1 - server0 }
    group.cancelAll()
    return report
}
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
exit((report["ok"] as? Bool) == true ? 0 : 1)
