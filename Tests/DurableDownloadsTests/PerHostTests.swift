import DurableDownloads
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Transfers are keyed by host, as a browser's: at most two of one host at once on a queue the HTTP
/// jobs create, while other hosts' go on; a queue configured otherwise keeps its own limit.
@Suite(.timeLimit(.minutes(2))) struct PerHostTests {
    @Test func theKeyIsTheHostWithItsPortUnlessTheSchemesDefault() {
        #expect(HTTPJobs.hostKey(of: "https://Example.COM/a") == "example.com")
        #expect(HTTPJobs.hostKey(of: "https://example.com:443/a") == "example.com")
        #expect(HTTPJobs.hostKey(of: "http://example.com:80/a") == "example.com")
        #expect(HTTPJobs.hostKey(of: "http://127.0.0.1:8080/a") == "127.0.0.1:8080")
        #expect(HTTPJobs.hostKey(of: "https://example.com:80/a") == "example.com:80")
    }

    @Test(arguments: TestTransport.allCases) func atMostTwoDownloadsOfOneHostRunAtOnceWhileAnotherHostsStartsAtOnce(
        _ transport: TestTransport
    ) async throws {
        let other = try await TestHTTPServer()
        do {
            try await withHTTP(transport: transport) { server, http, files in
                var slow = TestHTTPServer.Resource(size: 200_000)
                slow.bytesPerSecond = 400_000
                for index in 0..<4 { server.serve("a\(index).bin", slow) }
                other.serve("b.bin", slow)
                let busy = HTTPJobs.hostKey(of: server.baseURL)!
                var handles: [JobHandle<DownloadJob>] = []
                for index in 0..<4 {
                    handles.append(
                        try await http.download(DownloadRequest(url: server.baseURL + "/files/a\(index).bin", directory: files.path("out"))))
                }
                let lone = try await http.download(DownloadRequest(url: other.baseURL + "/files/b.bin", directory: files.path("out")))
                // While they run: the most running at once per host.
                let most = Mutex<[String: Int]>([:])
                let watch = Task {
                    while !Task.isCancelled {
                        let running = try await http.queue.reader.jobs(JobFilter(state: .running, queue: http.downloadQueue, limit: 100))
                        let byKey = Dictionary(grouping: running, by: { $0.partitionKey ?? "" }).mapValues(\.count)
                        most.withLock { most in most.merge(byKey) { max($0, $1) } }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
                for handle in handles + [lone] { _ = try await handle.result(timeout: .seconds(30)) }
                watch.cancel()
                let peaks = most.withLock { $0 }
                #expect(peaks[busy] == 2, "\(peaks)")
                // The other host's download did not wait for the busy host's: it started before
                // the busy host's third one.
                let starts = try await (handles + [lone]).asyncMap { handle in
                    try await http.queue.store.history(of: handle.id).first { $0.to == .running }?.at ?? .max
                }
                let busyStarts = starts.prefix(4).sorted()
                #expect(starts[4] < busyStarts[2], "\(starts)")
                #expect(try await http.queue.queues.configuration(of: http.downloadQueue)?.partitionLimit == HTTPJobs.defaultPerHostLimit)
            }
        } catch {
            try await other.shutdown()
            throw error
        }
        try await other.shutdown()
    }

    @Test func aQueueConfiguredBeforeKeepsItsOwnLimit() async throws {
        try await withHTTP { _, http, _ in
            try await http.configureDownloadQueue(concurrencyLimit: 4, perHostLimit: 3)
            try await http.configureRequestQueue(perHostLimit: 0)
            _ = try await http.enqueue(HTTPRequestSpec(url: "http://127.0.0.1:9/x"), options: EnqueueOptions(delay: .seconds(3600)))
            #expect(try await http.queue.queues.configuration(of: http.requestQueue)?.partitionLimit == 0)
            #expect(try await http.queue.queues.configuration(of: http.downloadQueue)?.partitionLimit == 3)
            let job = try #require(try await http.queue.reader.jobs(JobFilter(queue: http.requestQueue, limit: 1)).first)
            #expect(job.partitionKey == "127.0.0.1:9")
        }
    }
}
