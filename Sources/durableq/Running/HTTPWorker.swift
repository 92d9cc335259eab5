import AsyncHTTPClient
import DurableDownloads
import DurableDownloadsAsyncHTTPClient
import DurableQueue
import Foundation
import Logging
import Synchronization

/// This process as a worker for the job types the tool knows (downloads and HTTP requests), with
/// a live display of what it runs.
struct HTTPWorker {
    /// The job kinds the tool can run.
    static let kinds = [DownloadJob.name, HTTPRequestJob.name]

    let queue: JobQueue
    let http: HTTPJobs
    let board: TransferBoard
    let logger: Logger

    /// Opens `database` to work on `queues` (all when nil).
    ///
    /// Jobs left running by a process of this host that is gone (kill -9) are taken back at once (on
    /// a file; on PostgreSQL when their leases expire);
    /// on Ctrl-C running jobs are given back immediately, recorded, to resume on the next run.
    init(
        database: DatabaseOptions, queues: Set<String>?, maxConcurrentJobs: Int = 16, network: NetworkOptions, verbose: Bool
    ) async throws {
        var logger = Logger(label: "durableq") { label -> any LogHandler in
            verbose ? StreamLogHandler.standardError(label: label) : SwiftLogNoOpLogHandler()
        }
        logger.logLevel = verbose ? .debug : .critical
        self.logger = logger
        let configuration = JobQueue.Configuration(
            maxConcurrentJobs: maxConcurrentJobs, queues: queues, gracefulShutdownTimeout: .zero, recoverDeadLocalWorkers: true)
        queue = try await database.openQueue(create: true, configuration: configuration)
        let board = TransferBoard()
        self.board = board
        http = HTTPJobs(
            queue: queue, connectTimeout: network.connectTimeout.duration, credentials: try network.provider(),
            downloadProgress: { board.update($0) })
        http.register()
    }

    /// The first 1,000 unfinished jobs of `kinds` (default: those the tool runs) in `queues` (every
    /// queue when nil), oldest first.
    static func unfinished(kinds: Set<String> = Set(Self.kinds), queues: [String]?) -> JobFilter {
        JobFilter(states: JobFilter.unfinished, queues: queues.map(Set.init), kinds: kinds, limit: 1000, order: .oldestFirst)
    }

    /// Works until no job the tool can run is left unfinished in `queues` (or forever), showing
    /// `initial` and every job that shows up.
    ///
    /// - Returns: How the run ended, and the jobs shown.
    func work(
        queues: [String]?, kinds: Set<String> = Set(Self.kinds), showing initial: [JobID], forever: Bool
    ) async throws -> (EngineRunner.Ending, [JobRecord]) {
        let display = JobDisplay(board: board, interactive: Terminal.isInteractive, queue: queue)
        let tracked = Mutex(initial)
        let store = queue.reader
        let latest = Mutex<[JobRecord]>([])
        let ending = try await EngineRunner.run(
            queue, logger: logger, interval: Terminal.isInteractive ? .milliseconds(200) : .milliseconds(250),
            tick: {
                do {
                    let unfinished = try await store.jobs(Self.unfinished(kinds: kinds, queues: queues)).map(\.id)
                    let ids = tracked.withLock { ids in
                        let known = Set(ids)
                        ids += unfinished.filter { !known.contains($0) }
                        return ids
                    }
                    var records: [JobRecord] = []
                    for id in ids { if let job = try? await store.job(id) { records.append(job) } }
                    latest.withLock { $0 = records }
                    await display.show(records)
                } catch {
                    logger.debug("could not read the jobs to display: \(error)")
                }
            },
            isDone: {
                if forever { return false }
                return try await store.count(Self.unfinished(kinds: kinds, queues: queues)) == 0
            })
        await display.finish()
        return (ending, latest.withLock { $0 })
    }
}
