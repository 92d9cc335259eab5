import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableDownloads
@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The SHA-256 of the file at `path`.
private func sha256(ofFileAt path: String) throws -> String {
    sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
}

/// Downloads never corrupt each other, never write outside their own files, never replace a file
/// they did not create, and never start over when they can resume.
@Suite(.timeLimit(.minutes(2))) struct DownloadSafetyTests {
    @Test(arguments: TestTransport.allCases) func twoURLsWithTheSameFileNameEachGetAFileOfTheirOwn(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let first = TestHTTPServer.Resource(size: 300_000)
            let second = TestHTTPServer.Resource(size: 400_000)
            server.serve("a/same.bin", first)
            server.serve("b/same.bin", second)
            server.serve("c/same.bin", TestHTTPServer.Resource(size: 1_000))
            let out = files.path("out")
            let handles = try await [("a", first), ("b", second)].asyncMap { name, _ in
                try await http.download(DownloadRequest(url: server.baseURL + "/files/\(name)/same.bin", directory: out))
            }
            let keys = try await handles.asyncMap { try await http.queue.store.job($0.id).uniqueKey }
            // Held by stored path: the test's directory lies in the temporary one.
            let stored = "{temporary}/" + URL(fileURLWithPath: files.path("")).lastPathComponent + "/out"
            #expect(keys == ["download-to:\(stored)/same.bin", "download-to:\(stored)/same (1).bin"])
            let results = try await handles.asyncMap { try await $0.result() }
            #expect(results.map(\.path) == ["\(out)/same.bin", "\(out)/same (1).bin"])
            for (result, resource) in zip(results, [first, second]) {
                #expect(try sha256(ofFileAt: result.path) == sha256Hex(resource.content()))
            }
            // A third one with that name finds both files there.
            let third = try await http.download(DownloadRequest(url: server.baseURL + "/files/c/same.bin", directory: out))
            #expect(try await third.result().path == "\(out)/same (2).bin")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["same (1).bin", "same (2).bin", "same.bin"])
        }
    }

    @Test(arguments: TestTransport.allCases) func aLinkAtThePartPathIsNeitherFollowedNorCut(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            server.serve("x.bin", TestHTTPServer.Resource(size: 200_000))
            let out = files.path("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let victim = files.path("victim")
            try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
            try FileManager.default.createSymbolicLink(atPath: "\(out)/x.bin.part", withDestinationPath: victim)
            try FileManager.default.createSymbolicLink(atPath: "\(out)/gone.bin.part", withDestinationPath: files.path("nothing"))

            // A name whose part path is a link, even to nothing, is taken: the download is numbered.
            let moved = try await http.download(DownloadRequest(url: server.baseURL + "/files/x.bin", directory: out))
            #expect(try await moved.result().path == "\(out)/x (1).bin")
            // A 404 with a link at the part path leaves the link's target whole.
            let missing = try await http.download(DownloadRequest(url: server.baseURL + "/files/gone.bin", directory: out), options: quickRetries)
            #expect(await (try? missing.result()) == nil)
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
            #expect(!FileManager.default.fileExists(atPath: files.path("nothing")))

            // A link made at the part path after the download took its name is refused, not followed.
            // Paused, not configured paused: `configure` keeps an existing queue's pause as it was (the
            // download started before the link was made, and the test raced it).
            try await http.queue.queues.pause(http.downloadQueue)
            let late = try await http.download(DownloadRequest(url: server.baseURL + "/files/x.bin", directory: out, fileName: "late.bin"))
            try FileManager.default.createSymbolicLink(atPath: "\(out)/late.bin.part", withDestinationPath: victim)
            try await http.queue.queues.resume(http.downloadQueue)
            let error = await #expect(throws: DurableQueueError.self) { try await late.result() }
            #expect(error?.message.contains("late.bin.part is a symbolic link") == true || error?.message.contains("late.bin.part already exists") == true, "\(String(describing: error))")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
            #expect(!FileManager.default.fileExists(atPath: "\(out)/late.bin"))
        }
    }

    @Test(arguments: TestTransport.allCases) func aServerChosenNameNeverReplacesAFileNorTheQueueFile(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let out = files.path("out")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(out)/report.txt"))
            var report = TestHTTPServer.Resource(size: 10_000)
            report.contentDispositionName = "report.txt"
            server.serve("r", report)
            let result = try await http.download(DownloadRequest(url: server.baseURL + "/files/r", directory: out)).result()
            #expect(result.path == "\(out)/report (1).txt")
            #expect(try String(contentsOfFile: "\(out)/report.txt", encoding: .utf8) == "mine")

            // Into the queue file's own directory, named after the queue file and its companions
            // (the journal does not exist: it is refused all the same).
            let queueFile = URL(fileURLWithPath: http.queue.location)
            let here = queueFile.deletingLastPathComponent().path
            for suffix in ["", "-wal", "-shm", "-journal"] {
                var named = TestHTTPServer.Resource(size: 5_000)
                named.contentDispositionName = queueFile.lastPathComponent + suffix
                server.serve("q\(suffix)", named)
                let placed = try await http.download(DownloadRequest(url: server.baseURL + "/files/q\(suffix)", directory: here)).result()
                #expect(placed.path == "\(here)/jobs (1).sqlite\(suffix)")
            }
            #expect(try await http.queue.unfinishedJobCount() == 0, "the queue file still works")
            #expect(!FileManager.default.fileExists(atPath: "\(here)/jobs.sqlite-journal"))
        }
    }

    @Test func placingTheFinishedFileNeverReplacesOneThatIsThere() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let part = try PartFile(path: directory.path("a.part"), created: false, keeping: 0)
        try Array("new".utf8).withUnsafeBytes { try part.append($0) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: directory.path("a")))
        #expect(try part.place(at: directory.path("a")) == false)
        #expect(try String(contentsOfFile: directory.path("a"), encoding: .utf8) == "old")
        #expect(try part.place(at: directory.path("b")) == true)
        #expect(try String(contentsOfFile: directory.path("b"), encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: directory.path("a.part")))
        // A part file that is not the job's own is never opened for writing.
        try Data("other".utf8).write(to: URL(fileURLWithPath: directory.path("c.part")))
        #expect(throws: DownloadError.self) { try PartFile(path: directory.path("c.part"), created: false, keeping: 0) }
        #expect(try String(contentsOfFile: directory.path("c.part"), encoding: .utf8) == "other")
    }

    @Test(arguments: TestTransport.allCases) func interruptionsThatGetFurtherUseNoAttemptAndResumeFromEveryByteOnDisk(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport, checkpointBytes: 1 << 20) { server, http, files in
            var resource = TestHTTPServer.Resource(size: 1_000_000)
            resource.dropAfter = 150_000
            resource.dropCount = 5
            server.serve("big.bin", resource)
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(10))))
            let handle = try await http.download(DownloadRequest(url: server.baseURL + "/files/big.bin", directory: files.path("out")), options: options)
            let result = try await handle.result()
            #expect(try sha256(ofFileAt: result.path) == sha256Hex(resource.content()))
            #expect(try await http.queue.store.job(handle.id).attempts == 6, "five cut responses, each with progress, did not use up two attempts")
            // Each resume started where the bytes on disk ended, though no periodic checkpoint (1 MiB)
            // was reached: always further (bytes still in flight when a connection broke are lost).
            let starts = server.requests.map { $0.header("Range").flatMap { Int($0.dropFirst("bytes=".count).dropLast()) } ?? 0 }
            #expect(starts.count == 6 && zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }, "\(starts)")
            #expect(server.bodyBytesSent < 1_000_000 + 5 * 131_072, "\(server.bodyBytesSent) bytes sent")
        }
    }

    @Test(arguments: TestTransport.allCases) func askingAgainForAFailedOrCancelledDownloadResumesIt(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let out = files.path("out")
            let request = DownloadRequest(url: server.baseURL + "/files/slow.bin", directory: out)
            // Not there yet: the download fails at once (404 does not retry).
            let first = try await http.download(request)
            #expect(await (try? first.result()) == nil)
            // The first response stops sending half-way (without closing): the cancel lands there,
            // however slow the machine (a transfer free to finish did so before the cancel once).
            var resource = TestHTTPServer.Resource(size: 1_000_000)
            resource.dropAfter = 500_000
            resource.dropCount = 1
            resource.stalls = true
            server.serve("slow.bin", resource)
            let again = try await http.download(request)
            #expect(again.id == first.id, "the failed job is retried, not replaced")
            // Cancelled half-way, then asked for again: it goes on from where it stopped.
            try await eventually("a third of the file arrived") { (try await again.progress() ?? 0) >= 0.3 }
            try await again.cancel()
            #expect(try await again.outcome().isCancelled)
            let sentBefore = server.bodyBytesSent
            let last = try await http.download(request)
            #expect(last.id == first.id)
            let result = try await last.result()
            #expect(try sha256(ofFileAt: result.path) == sha256Hex(resource.content()))
            #expect(server.requests.last?.header("Range")?.hasPrefix("bytes=") == true)
            #expect(server.bodyBytesSent - sentBefore < 1_000_000 - 200_000, "the resume fetched only what was missing")
        }
    }

    @Test(arguments: TestTransport.allCases) func aRefusedConnectionFailsEachAttemptWithinTheConnectTimeoutSayingSo(_ transport: TestTransport) async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        defer { withExtendedLifetime(refusing) {} }  // refusing until the test ends
        try await withHTTP(transport: transport, connectTimeout: .milliseconds(500)) { _, http, files in
            let started = ContinuousClock.now
            let handle = try await http.download(
                DownloadRequest(url: "http://127.0.0.1:\(port)/x.bin", directory: files.path("out")),
                options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(10)))))
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(error?.message.contains("TransportError: could not reach 127.0.0.1:\(port): connection refused") == true, "\(String(describing: error))")
        }
    }

    @Test(arguments: TestTransport.allCases) func aURLWithAPasswordIsRefusedAndNothingIsStored(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let url = "http://ada:s3cret@127.0.0.1:\(server.port)/files/x"
            for enqueue in [
                { _ = try await http.download(DownloadRequest(url: url, directory: files.path("out"))) },
                { _ = try await http.enqueue(HTTPRequestSpec(url: url)) },
            ] {
                let error = await #expect(throws: DurableQueueError.self) { try await enqueue() }
                #expect(error?.code == .invalidArgument && error?.message.contains("user name or password") == true)
                #expect(error?.description.contains("s3cret") == false)
            }
            let stored = try await http.queue.store.jobs(JobFilter())
            #expect(stored.isEmpty)
        }
    }

    @Test(arguments: TestTransport.allCases) func aSchemeInCapitalsIsAnHTTPURLAndFilesGetTheUmasksPermissions(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            server.serve("f.bin", TestHTTPServer.Resource(size: 1_000))
            let handle = try await http.download(DownloadRequest(url: "HTTP://127.0.0.1:\(server.port)/files/f.bin", directory: files.path("out")))
            let result = try await handle.result()
            #expect(try await http.queue.store.job(handle.id).input.contains("\"http://127.0.0.1"))
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let umask = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.flatMap { Int($0.split(separator: "\t").last ?? "", radix: 8) })
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: result.path)[.posixPermissions] as? Int)
            #expect(mode == 0o666 & ~umask)
        }
    }
}

extension Sequence {
    /// The results of `transform` on each element, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
