import ArgumentParser
import DurableDownloads
import DurableQueue
import Foundation

/// `durableq download URL…`: durable, resumable downloads with progress bars.
struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download files durably: progress bars, Ctrl-C and kill -9 safe, resumed by running it again.",
        discussion: """
            The downloads are jobs in the file (queue "downloads"). Ctrl-C stops at once and keeps what was \
            written; running the same command again, or `durableq run`, resumes every unfinished download \
            from its last checkpoint, also after kill -9 or a reboot. A URL already downloaded to the same \
            directory (and still there) is not fetched again.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var network: NetworkOptions

    @Argument(help: "The http(s) URLs to download.")
    var urls: [String]
    @Option(help: ArgumentHelp("The directory the files go to (created as needed).", valueName: "dir"))
    var to: String = "."
    @Option(parsing: .unconditional, help: "How many downloads run at once (stored as the downloads queue's limit).")
    var concurrency: Int = 3
    @Option(
        parsing: .unconditional,
        help: "How many downloads of one host (and port) run at once (stored as the downloads queue's per-host limit; 0: no limit).")
    var perHost: Int = HTTPJobs.defaultPerHostLimit
    @Option(help: ArgumentHelp("The expected SHA-256 (hex) of the file; only with one URL.", valueName: "hex"))
    var sha256: String?
    @Option(
        parsing: .unconditional,
        help: "Attempts per download that got no further before it fails (one that saved more of the file does not count).")
    var maxAttempts: Int = 10
    @Flag(help: "Log the engine's work to standard error.")
    var verbose = false

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("name at least one URL") }
        for url in urls {
            do {
                _ = try HTTPJobs.checked(url: url)
            } catch let error as DurableQueueError {
                throw ValidationError(error.message)
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ValidationError("--to names '\(to)', which is a file, not a directory")
        }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1, not \(concurrency)") }
        guard perHost >= 0 else { throw ValidationError("--per-host must be 0 (no limit) or more, not \(perHost)") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1, not \(maxAttempts)") }
        if let sha256 {
            guard urls.count == 1 else { throw ValidationError("--sha256 checks one file: name exactly one URL") }
            guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else {
                throw ValidationError("--sha256 must be 64 hexadecimal digits")
            }
        }
    }

    func run() async throws {
        let worker = try await HTTPWorker(
            database: database, queues: ["downloads"], maxConcurrentJobs: concurrency, network: network,
            verbose: verbose)
        let store = worker.queue.reader
        var settings = try await store.queue(named: worker.http.downloadQueue) ?? QueueConfiguration(worker.http.downloadQueue)
        settings.concurrencyLimit = concurrency
        settings.partitionLimit = perHost
        try await worker.queue.queues.configure(settings)

        let directory = URL(fileURLWithPath: to, isDirectory: true).standardizedFileURL.path
        var ours: [JobID] = []
        let finished = try await store.jobs(JobFilter(state: .succeeded, queue: worker.http.downloadQueue, limit: 10_000))
        for url in urls {
            let request = DownloadRequest(url: try HTTPJobs.checked(url: url), directory: directory, sha256: sha256)
            if let done = Self.existingDownload(of: request, among: finished, in: worker.queue) {
                Terminal.print("already downloaded \(url) -> \(done.path) (job \(done.id))")
                continue
            }
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: maxAttempts, backoff: .exponential(maximum: .seconds(30))))
            ours.append(try await worker.http.download(request, options: options).id)
        }
        let earlier = try await store.jobs(HTTPWorker.unfinished(kinds: [DownloadJob.name], queues: ["downloads"])).map(\.id)
        let shown = earlier.filter { !ours.contains($0) } + ours
        guard !shown.isEmpty else { return }

        let (ending, jobs) = try await worker.work(queues: ["downloads"], showing: shown, forever: false)
        let mine = jobs.filter { ours.contains($0.id) }
        let succeeded = mine.filter { $0.state == .succeeded }.count
        let unsuccessful = mine.filter { $0.state == .failed || $0.state == .cancelled }.count
        switch ending {
        case .interrupted:
            throw CommandFailure(
                message: "interrupted: unfinished downloads stay in \(database.db); run the same command again, "
                    + "or `durableq run`, to resume them", status: 130)
        case .done:
            Terminal.print("\(succeeded) downloaded, \(unsuccessful) failed")
            if unsuccessful > 0 { throw ExitCode.failure }
        }
    }

    /// Among `finished` jobs, a download of the same URL to the same directory whose file is still there.
    static func existingDownload(of request: DownloadRequest, among finished: [JobRecord], in queue: JobQueue) -> (id: JobID, path: String)? {
        for job in finished where job.kind == DownloadJob.name {
            guard let stored = try? JSONDecoder().decode(DownloadRequest.self, from: Data(job.input.utf8)),
                let input = try? stored.mappingFilePaths(queue.resolvedPath),
                input.url == request.url, input.directory == request.directory, input.fileName == request.fileName,
                let output = job.output, let storedResult = try? JSONDecoder().decode(DownloadResult.self, from: Data(output.utf8)),
                let result = try? storedResult.mappingFilePaths(queue.resolvedPath),
                request.sha256 == nil || request.sha256 == result.sha256,
                FileManager.default.fileExists(atPath: result.path)
            else { continue }
            return (job.id, result.path)
        }
        return nil
    }
}
