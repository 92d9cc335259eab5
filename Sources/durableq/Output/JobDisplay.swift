import DurableDownloads
import DurableQueue
import DurableQueueInspection
import Foundation

/// Shows the jobs a `download` or `run` works through: on a terminal, one progress bar per active
/// transfer redrawn in place plus an overall line; otherwise plain lines (start, progress every
/// second, done, failed, retry) that logs and scripts can read. A start is shown for the attempts
/// this process runs (not those a killed run left running until their lease is taken back), and
/// each start and end names the job and the attempt.
actor JobDisplay {
    private let board: TransferBoard
    private let interactive: Bool
    /// Jobs already reported finished.
    private var announced: Set<JobID> = []
    /// Jobs already reported started (plain output), with the attempt.
    private var started: [JobID: Int] = [:]
    /// Retries already reported (plain output): job and attempt.
    private var retriesShown: [JobID: Int] = [:]
    /// When each running job's last plain progress line was printed.
    private var lastReport: [JobID: ContinuousClock.Instant] = [:]
    /// How many lines the last redraw left below the permanent output (terminal only).
    private var liveLines = 0
    private let plainInterval: Duration = .seconds(1)
    /// The queue whose stored paths the lines show resolved.
    private let queue: JobQueue
    /// The worker of this process, whose leases name the attempts it runs.
    private let workerID: String

    init(board: TransferBoard, interactive: Bool, queue: JobQueue) {
        self.board = board
        self.interactive = interactive
        self.queue = queue
        self.workerID = queue.configuration.workerID
    }

    /// Updates the display for `jobs` (their rows as now stored).
    func show(_ jobs: [JobRecord]) {
        var permanent: [String] = []
        var live: [String] = []
        let now = Date().millisecondsSince1970
        for job in jobs {
            let name = Self.name(of: job)
            if job.state.isTerminal {
                if announced.insert(job.id).inserted { permanent.append(Self.ending(of: job, name: name, queue: queue)) }
                continue
            }
            switch job.state {
            case .running:
                let transfer = board.transfer(job.id)
                if !interactive, job.leaseOwner == workerID, started[job.id] != job.attempts {
                    started[job.id] = job.attempts
                    permanent.append("start \(name) (job \(job.id), attempt \(job.attempts))")
                }
                if interactive {
                    live.append(
                        transfer.map { Self.bar(name: name, $0) } ?? job.progress.map { Self.bar(name: name, fraction: $0) }
                            ?? "\(Self.column(name))  starting…")
                } else if let transfer, lastReport[job.id].map({ $0.duration(to: .now) >= plainInterval }) ?? true {
                    lastReport[job.id] = .now
                    permanent.append("progress " + Self.numbers(name: name, transfer))
                }
            case .scheduled:
                board.pause(job.id)
                let wait = Formatting.duration(seconds: Double(max(0, job.runAt - now)) / 1000)
                let line = "retry \(name) in \(wait)" + (job.error.map { ": " + Formatting.oneLine($0.message) } ?? "")
                if interactive {
                    live.append(line)
                } else if retriesShown[job.id] != job.attempts {
                    retriesShown[job.id] = job.attempts
                    permanent.append(line)
                }
            default:
                break
            }
        }
        if interactive {
            live.append(Self.overall(jobs, board: board))
            var text = liveLines > 0 ? "\u{1B}[\(liveLines)F\u{1B}[J" : ""
            let width = Terminal.width
            for line in permanent { text += line + "\n" }
            for line in live { text += Self.fitting(line, width: width) + "\n" }
            Terminal.write(text)
            liveLines = live.count
        } else {
            for line in permanent { Terminal.print(line) }
        }
    }

    /// Erases the live lines (terminal only), so that a summary takes their place.
    func finish() {
        guard interactive, liveLines > 0 else { return }
        Terminal.write("\u{1B}[\(liveLines)F\u{1B}[J")
        liveLines = 0
    }

    /// A short name for a job: a download's file, a request's method and URL, or the kind and id.
    static func name(of job: JobRecord) -> String {
        let input = Data(job.input.utf8)
        if job.kind == DownloadJob.name, let request = try? JSONDecoder().decode(DownloadRequest.self, from: input) {
            return request.fileName ?? URL(string: request.url)?.lastPathComponent.nonEmpty ?? request.url
        }
        if job.kind == HTTPRequestJob.name, let request = try? JSONDecoder().decode(HTTPRequestSpec.self, from: input) {
            return "\(request.method) \(request.url)"
        }
        if job.kind == DemoStep.name, let step = try? JSONDecoder().decode(DemoStep.Input.self, from: input) {
            return "\(step.label) (\(job.queue))"
        }
        return "\(job.kind) #\(job.id)"
    }

    /// The line printed when a job finishes, naming the job and the attempt that ended it.
    static func ending(of job: JobRecord, name: String, queue: JobQueue) -> String {
        switch job.state {
        case .succeeded:
            let attempt = "(job \(job.id), attempt \(job.attempts))"
            if job.kind == DownloadJob.name, let output = job.output,
                let stored = try? JSONDecoder().decode(DownloadResult.self, from: Data(output.utf8))
            {
                let result = (try? stored.mappingFilePaths(queue.resolvedPath)) ?? stored
                return "done \(name) -> \(result.path) (\(Formatting.bytes(result.bytes)), sha256 \(result.sha256)) \(attempt)"
            }
            if job.kind == HTTPRequestJob.name, let output = job.output,
                let response = try? JSONDecoder().decode(HTTPResponseRecord.self, from: Data(output.utf8))
            {
                return "done \(name) -> HTTP \(response.status) \(attempt)"
            }
            return "done \(name) \(attempt)"
        case .failed:
            let line = "failed \(name) (job \(job.id)): \(Formatting.oneLine(job.error?.message ?? "no error recorded"))"
            return job.kind == DownloadJob.name ? line + "; \(resumeHint)" : line
        default:
            return "cancelled \(name) (job \(job.id))" + (job.kind == DownloadJob.name ? "; \(resumeHint)" : "")
        }
    }

    /// How to go on with a download that failed or was cancelled, keeping what it fetched.
    static let resumeHint = "run the same command again (or `durableq retry` with the job's id) to resume it where it stopped"

    private static func column(_ name: String) -> String {
        let width = 24
        let short = name.count > width ? String(name.prefix(width - 1)) + "…" : name
        return short.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    /// `name  [██████░░░░]  52%  26.0 MiB / 50.0 MiB  5.2 MiB/s  ETA 5s`
    static func bar(name: String, _ transfer: TransferBoard.Transfer) -> String {
        let slots = 20
        var bar = String(repeating: "·", count: slots)
        if let total = transfer.total, total > 0 {
            let filled = Int(Double(slots) * min(1, Double(transfer.bytes) / Double(total)))
            bar = String(repeating: "█", count: filled) + String(repeating: "·", count: slots - filled)
        }
        return "\(column(name))  [\(bar)]  " + numbers(name: nil, transfer)
    }

    /// `name  [██████░░░░]  52%` for a job that reports only a fraction done.
    static func bar(name: String, fraction: Double) -> String {
        let slots = 20
        let filled = Int(Double(slots) * min(1, max(0, fraction)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: slots - filled)
        return "\(column(name))  [\(bar)]  " + Formatting.percent(fraction)
    }

    /// `52%  26.0 MiB / 50.0 MiB  5.2 MiB/s  ETA 5s`, preceded by the name when given.
    static func numbers(name: String?, _ transfer: TransferBoard.Transfer) -> String {
        var parts: [String] = name.map { [$0] } ?? []
        if let total = transfer.total, total > 0 {
            parts.append(Formatting.percent(Double(transfer.bytes) / Double(total)))
            parts.append("\(Formatting.bytes(transfer.bytes)) / \(Formatting.bytes(total))")
        } else {
            parts.append(Formatting.bytes(transfer.bytes))
        }
        parts.append(transfer.rate.map(Formatting.rate) ?? "-")
        parts.append("ETA " + (transfer.secondsLeft.map { Formatting.duration(seconds: $0) } ?? "-"))
        return parts.joined(separator: "  ")
    }

    /// `total  1/3 done  2 running  0 waiting  76.0 MiB of 150.0 MiB  10.4 MiB/s  ETA 7s`
    static func overall(_ jobs: [JobRecord], board: TransferBoard) -> String {
        let finished = jobs.filter(\.state.isTerminal).count
        let failed = jobs.filter { $0.state == .failed || $0.state == .cancelled }.count
        let running = jobs.filter { $0.state == .running }
        let waiting = jobs.count - finished - running.count
        var parts = ["total", "\(finished)/\(jobs.count) done"]
        if failed > 0 { parts.append("\(failed) failed") }
        parts.append("\(running.count) running")
        parts.append("\(waiting) waiting")
        let transfers = running.compactMap { board.transfer($0.id) }
        if !transfers.isEmpty {
            let bytes = transfers.reduce(0) { $0 + $1.bytes }
            let totals = transfers.compactMap(\.total)
            parts.append(
                totals.count == transfers.count
                    ? "\(Formatting.bytes(bytes)) of \(Formatting.bytes(totals.reduce(0, +)))" : Formatting.bytes(bytes))
            let rate = transfers.compactMap(\.rate).reduce(0, +)
            if rate > 0 { parts.append(Formatting.rate(rate)) }
            if let left = transfers.compactMap(\.secondsLeft).max() { parts.append("ETA " + Formatting.duration(seconds: left)) }
        }
        return parts.joined(separator: "  ")
    }

    /// `line` cut to `width` columns, so that it never wraps (a wrapped line would break the redraw).
    static func fitting(_ line: String, width: Int) -> String {
        line.count < width ? line : String(line.prefix(max(1, width - 1)))
    }
}

extension String {
    /// Nil for an empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
