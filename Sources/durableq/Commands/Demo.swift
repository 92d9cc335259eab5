import ArgumentParser
import DurableDownloads
import DurableQueue
import Foundation

/// `durableq demo`: shows the product on the default file: downloads from a local server with
/// progress bars, a throttled queue, a sequence and a group, and resuming after an interruption.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show DurableQueue working: downloads, a throttled queue, a sequence and a group; interrupt it and run it again.",
        discussion: """
            Everything is local: a built-in web server on 127.0.0.1 serves the files, which go to \
            ./durableq-demo/. Interrupt it (Ctrl-C, or kill -9 from another terminal) and run it again: \
            it resumes where it stopped, downloads included. The jobs stay in the file (tag "demo") for \
            `durableq list --tag demo`, `durableq show ID` or sqlite3.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var network: NetworkOptions

    @Option(help: ArgumentHelp("Bytes per second the demo server sends each file at.", valueName: "rate"))
    var rate: Int = 600_000

    /// The files the demo server serves, and their sizes.
    static let files = ["ocean.bin": 9_000_000, "forest.bin": 6_000_000, "city.bin": 12_000_000]
    /// Where the downloads go.
    static let directory = "durableq-demo"
    /// The queues the demo's jobs use.
    static let queues = ["downloads", "demo-api", "demo"]

    func validate() throws {
        guard rate >= 10_000 else { throw ValidationError("--rate must be at least 10000 bytes per second") }
    }

    func run() async throws {
        let worker = try await HTTPWorker(
            database: database, queues: Set(Self.queues), maxConcurrentJobs: 8, network: network, verbose: false)
        worker.queue.register(DemoStep())
        let store = worker.queue.reader
        let waiting = try await store.jobs(JobFilter(states: JobFilter.unfinished, tag: "demo", limit: 1_000))
        // Downloads left from an interrupted demo name the port of the server that served them.
        let previousPort = waiting.lazy.compactMap { job -> Int? in
            guard job.kind == DownloadJob.name,
                let request = try? JSONDecoder().decode(DownloadRequest.self, from: Data(job.input.utf8))
            else { return nil }
            return URL(string: request.url)?.port
        }.first
        let server = try await Self.startServer(port: previousPort, rate: rate)
        do {
            try await show(worker: worker, server: server, waiting: waiting.count)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Enqueues a round (unless `waiting` jobs of one remain) and runs it with a live display.
    private func show(worker: HTTPWorker, server: DemoFileServer, waiting: Int) async throws {
        let store = worker.queue.reader

        if waiting == 0 {
            try await enqueueDemo(on: worker, port: server.port)
            Terminal.print("demo: 3 downloads from a local server, 6 calls on a throttled queue, a 3-step sequence and a group of 6")
        } else {
            Terminal.print("demo: resuming \(waiting) unfinished demo job(s) where they stopped")
        }
        Terminal.print(
            "interrupt it with Ctrl-C (or kill -9 \(getpid())) and run `swift run durableq demo` again to watch it resume\n")

        let shown = try await store.jobs(JobFilter(states: JobFilter.unfinished, tag: "demo", limit: 1_000)).map(\.id)
        let (ending, jobs) = try await worker.work(
            queues: Self.queues, kinds: Set(HTTPWorker.kinds + [DemoStep.name]), showing: shown, forever: false)
        if case .interrupted = ending {
            throw CommandFailure(
                message: "interrupted: the unfinished jobs wait in \(database.db); run `swift run durableq demo` again to resume them",
                status: 130)
        }
        let succeeded = jobs.filter { $0.state == .succeeded }.count
        Terminal.print("""

            demo: \(succeeded) of \(jobs.count) jobs succeeded; files in ./\(Self.directory)/. Look inside:
              swift run durableq status
              swift run durableq list --tag demo
              swift run durableq serve        (the web dashboard: open the URL it prints)
              sqlite3 -box \(database.db) "select job_id, kind, at, from_state, to_state, reason from job_history where kind = 'demo-step' limit 12"
            Run it again for a new round.
            """)
        if succeeded < jobs.count { throw ExitCode.failure }
    }

    /// A new round: the downloads (into a fresh ./durableq-demo), a throttled queue, a sequence and a group.
    private func enqueueDemo(on worker: HTTPWorker, port: Int) async throws {
        let queue = worker.queue
        let directory = URL(fileURLWithPath: Self.directory, isDirectory: true).standardizedFileURL
        try? FileManager.default.removeItem(at: directory)
        var downloads = try await queue.reader.queue(named: "downloads") ?? QueueConfiguration("downloads")
        downloads.concurrencyLimit = 3
        try await queue.queues.configure(downloads)
        for name in Self.files.keys.sorted() {
            let request = DownloadRequest(url: "http://127.0.0.1:\(port)/files/\(name)", directory: directory.path)
            _ = try await worker.http.download(request, options: EnqueueOptions(tags: ["demo"]))
        }
        // A third-party API allowing one call every 400 ms, whatever the number of workers.
        try await queue.queues.configure(QueueConfiguration("demo-api", throttle: Throttle(.milliseconds(400))))
        let api = EnqueueOptions(queue: "demo-api", tags: ["demo"])
        for call in 1...6 {
            _ = try await queue.enqueue(DemoStep.self, DemoStep.Input(label: "api call \(call)", milliseconds: 300), options: api)
        }
        let options = EnqueueOptions(queue: "demo", tags: ["demo"])
        let steps: [String] = ["fetch", "transform", "publish"]
        _ = try await queue.enqueue(
            .sequence(
                steps.map { step in
                    .job(DemoStep.self, DemoStep.Input(label: "pipeline: \(step)", milliseconds: 2_000), name: step, options: options)
                }, name: "pipeline"))
        _ = try await queue.enqueue(
            .group(
                (1...6).map { .job(DemoStep.self, DemoStep.Input(label: "thumbnail \($0)", milliseconds: 1_500), name: "t\($0)", options: options) },
                maxConcurrent: 2, name: "thumbnails"))
    }

    /// The demo server, on `port` (that of an interrupted demo) if it is free, else on any port.
    private static func startServer(port: Int?, rate: Int) async throws -> DemoFileServer {
        if let port, let server = try? await DemoFileServer(files: files, bytesPerSecond: rate, port: port) { return server }
        return try await DemoFileServer(files: files, bytesPerSecond: rate, port: 0)
    }
}
