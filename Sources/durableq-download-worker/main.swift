// A second process for the download tests: it works on the same file as the test. Not a product. Usage:
//
//   durableq-download-worker PATH URL DIR SHA256 [TRANSPORT]
//       Runs an engine with the HTTP job types (600 ms leases) over TRANSPORT ("AsyncHTTPClient", the
//       default, or "URLSession") until the download of URL into DIR (checked against SHA256 unless it
//       is "") is done; prints "ready" once running, then "downloaded PATH" and "peak-rss-kb N".
//   durableq-download-worker carry PATH REFERENCE URL finish|place     (PATH: a SQLite file or a postgres:// URL)
//       Acts as the carrier of the download attempt REFERENCE (a CarriedDownload's reference) in another
//       process: fetches URL into a file of its own, places it at the part file, prints "placed", then
//       reports the end ("finish": prints "recorded STATE" or "refused STATE ATTEMPT") or waits to be
//       killed ("place").
import DurableDownloads
import DurableDownloadsAsyncHTTPClient
import DurableDownloadsURLSession
import DurableQueue
import DurableQueuePostgres
import Foundation

/// Writes `line` and a newline to standard output at once, so the parent sees it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
if arguments.count == 6 && arguments[1] == "carry" {
    // A carrier in another process: fetches URL into a file of its own, places it at the carried
    // download's part file, then reports ("finish") or waits to be killed ("place").
    do {
        guard let download = CarriedDownload(reference: arguments[3]), let url = URL(string: arguments[4]) else {
            throw DownloadError("REFERENCE is not a carried download's, or URL is not a URL")
        }
        let queue =
            arguments[2].hasPrefix("postgres://")
            ? try await JobQueue(postgres: try PostgresStorage(url: arguments[2])) : try JobQueue(path: arguments[2])
        let http = HTTPJobs(queue: queue, transport: URLSessionTransport())
        let response = try await URLSessionTransport().send(TransportRequest(url: url, timeout: .seconds(60)))
        let fetched = FileManager.default.temporaryDirectory.appendingPathComponent("carried-\(UUID().uuidString)")
        var body = Data()
        for try await chunk in response.body { body.append(contentsOf: chunk) }
        try body.write(to: fetched)
        try http.placeCarriedDownload(download, from: fetched)
        say("placed")
        if arguments[5] == "finish" {
            switch try await http.finishCarriedDownload(download) {
            case .recorded(let state): say("recorded \(state.rawValue)")
            case .refused(let state, let attempt): say("refused \(state.rawValue) \(attempt)")
            }
        } else {
            try await Task.sleep(for: .seconds(3_600))
        }
    } catch {
        FileHandle.standardError.write(Data("durableq-download-worker: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard arguments.count == 5 || arguments.count == 6 else {
    FileHandle.standardError.write(Data("usage: durableq-download-worker PATH URL DIR SHA256 [AsyncHTTPClient|URLSession]\n".utf8))
    exit(2)
}
do {
    let configuration = JobQueue.Configuration(
        leaseDuration: .milliseconds(600), heartbeatInterval: .milliseconds(200), pollInterval: .milliseconds(20))
    let queue = try JobQueue(path: arguments[1], configuration: configuration)
    let http = arguments.count == 6 && arguments[5] == "URLSession" ? HTTPJobs(queue: queue, transport: URLSessionTransport()) : HTTPJobs(queue: queue)
    http.register()
    let handle = try await http.download(
        DownloadRequest(url: arguments[2], directory: arguments[3], sha256: arguments[4].isEmpty ? nil : arguments[4]))
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await queue.run() }
        say("ready")
        let result = try await handle.result()
        say("downloaded \(result.path)")
        group.cancelAll()
        try await group.waitForAll()
    }
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first ?? "0"
    say("peak-rss-kb \(peak)")
} catch {
    FileHandle.standardError.write(Data("durableq-download-worker: \(error)\n".utf8))
    exit(1)
}
