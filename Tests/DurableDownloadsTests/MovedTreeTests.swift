import DurableDownloads
import DurableDownloadsAsyncHTTPClient
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// An app's container moves (a restore, a device migration, a reinstall): the queue file and every
/// file its jobs name move together, to a new path. Stored relative to the queue file's directory,
/// downloads, request bodies, responses and results still find their files.
@Suite(.timeLimit(.minutes(2))) struct MovedTreeTests {
    @Test func aTreeMovedInTheMiddleOfDownloadsResumesThemAndKeepsItsResults() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let server = try await TestHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let before = root.path("app")
        let after = root.path("moved")
        try FileManager.default.createDirectory(atPath: before + "/bodies", withIntermediateDirectories: true)

        // Two downloads that stall half-way, one that finishes, a large response, and a request
        // whose body is a file, held back until after the move.
        var stalling = TestHTTPServer.Resource(size: 600_000)
        stalling.dropAfter = 200_000
        stalling.dropCount = 1
        stalling.stalls = true
        server.serve("a.bin", stalling)
        server.serve("b.bin", stalling)
        server.serve("done.bin", TestHTTPServer.Resource(size: 50_000))
        server.serve("large-response", TestHTTPServer.Resource(size: 100_000))
        let body = Data((0..<1_000).map { UInt8($0 % 251) })
        try body.write(to: URL(fileURLWithPath: before + "/bodies/upload.bin"))

        let first = try JobQueue(path: before + "/jobs.sqlite")
        let http = HTTPJobs(queue: first, checkpointBytes: 16 << 10)
        http.register()
        // All from one host: the two stalled downloads must not hold back the third.
        try await http.configureDownloadQueue(perHostLimit: 0)
        let engine = Task { try await first.run() }
        let downloads = try await ["a.bin", "b.bin"].asyncMap { name in
            try await http.download(DownloadRequest(url: server.baseURL + "/files/" + name, directory: before + "/downloads"))
        }
        let done = try await http.download(DownloadRequest(url: server.baseURL + "/files/done.bin", directory: before + "/downloads"))
        let response = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/files/large-response"))
        let doneResult = try await done.result(timeout: .seconds(20))
        let responseResult = try await response.result(timeout: .seconds(20))
        try await http.pauseRequests()
        let upload = try await http.enqueue(HTTPRequestSpec(method: "POST", url: server.baseURL + "/echo", bodyFile: before + "/bodies/upload.bin"))
        try await eventually("both downloads are half-way") {
            ["a.bin", "b.bin"].allSatisfy { name in
                ((try? FileManager.default.attributesOfItem(atPath: before + "/downloads/\(name).part")[.size] as? Int) ?? 0) >= 200_000
            }
        }
        // The app is killed (its engine stops: the attempts save their bytes and give the jobs back).
        engine.cancel()
        _ = await engine.result
        let stored = try await first.reader.job(downloads[0].id)
        #expect(stored.input.contains(#""directory":"{queue}\/downloads""#) || stored.input.contains(#""directory":"{queue}/downloads""#), "\(stored.input)")
        #expect(doneResult.path == before + "/downloads/done.bin")
        #expect(responseResult.bodyFile == before + "/responses/response-\(response.id)-1")

        try FileManager.default.moveItem(atPath: before, toPath: after)

        let second = try JobQueue(path: after + "/jobs.sqlite")
        let moved = HTTPJobs(queue: second, checkpointBytes: 16 << 10)
        moved.register()
        let restarted = Task { try await second.run() }
        defer { restarted.cancel() }
        try await moved.resumeRequests()
        for (download, name) in zip(downloads, ["a.bin", "b.bin"]) {
            let result = try await second.handle(DownloadJob.self, id: download.id).result(timeout: .seconds(30))
            #expect(result.path == after + "/downloads/" + name)
            #expect(result.sha256 == sha256Hex(stalling.content()))
            #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: result.path)))) == result.sha256)
        }
        // Each resumed from its part file: the second request of each asked for the rest only.
        for name in ["a.bin", "b.bin"] {
            let ranges = server.requests.filter { $0.uri == "/files/" + name }.map { $0.header("Range") }
            #expect(ranges.count == 2 && ranges[0] == nil && (ranges[1]?.hasPrefix("bytes=") ?? false) && ranges[1] != "bytes=0-", "\(name): \(ranges)")
        }
        // Finished before the move, they open where they are now.
        let finished = try await second.handle(DownloadJob.self, id: done.id).result()
        #expect(finished.path == after + "/downloads/done.bin" && FileManager.default.fileExists(atPath: finished.path))
        let largeResponse = try await second.handle(HTTPRequestJob.self, id: response.id).result()
        let responseFile = try #require(largeResponse.bodyFile)
        let responseBytes = try Data(contentsOf: URL(fileURLWithPath: responseFile))
        #expect(responseFile.hasPrefix(after + "/responses/") && responseBytes.count == 100_000)
        // The body file was read at its new place.
        let echoed = try await second.handle(HTTPRequestJob.self, id: upload.id).result(timeout: .seconds(20))
        #expect(echoed.body == body)
        #expect(!FileManager.default.fileExists(atPath: before), "something was written at the old path")
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
