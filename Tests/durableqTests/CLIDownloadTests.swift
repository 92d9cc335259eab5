import DurableDownloads
import DurableDownloadsAsyncHTTPClient
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Starts a test server serving `files` (name → resource), runs `body`, and shuts the server down.
func withServer(
    _ files: [String: TestHTTPServer.Resource], _ body: (TestHTTPServer, TemporaryDirectory) async throws -> Void
) async throws {
    let server = try await TestHTTPServer()
    for (name, resource) in files { server.serve(name, resource) }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    do {
        try await body(server, directory)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
}

/// A resource of `size` bytes sent at `bytesPerSecond`.
private func slow(_ size: Int, bytesPerSecond: Int) -> TestHTTPServer.Resource {
    var resource = TestHTTPServer.Resource(size: size)
    resource.bytesPerSecond = bytesPerSecond
    return resource
}

/// The percentage of the first plain `progress` line's numbers (`progress big.bin 37% …`).
private func percent(_ line: String) -> Int {
    line.split(separator: " ").first { $0.hasSuffix("%") }.flatMap { Int($0.dropLast()) } ?? 0
}

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct CLIDownloadTests {
    @Test func aDownloadKilledMidTransferFinishesWhenTheSameCommandRunsAgain() async throws {
        // 8 s of transfer: a progress line read late on a loaded machine still leaves time to kill.
        let resource = slow(8 << 20, bytesPerSecond: 1 << 20)
        try await withServer(["big.bin": resource]) { server, directory in
            let here = directory.url.path
            let arguments = ["download", server.baseURL + "/files/big.bin", "--to", "out"]
            let first = try WorkerProcess(arguments, executable: "durableq", directory: here)
            let progress = await first.nextLine { $0.hasPrefix("progress big.bin") && percent($0) >= 30 }
            #expect(progress != nil, "plain progress lines without a terminal")
            first.kill()
            #expect(await first.waitForExit() == SIGKILL)
            let partial = try FileManager.default.attributesOfItem(atPath: directory.path("out/big.bin.part"))[.size] as? Int ?? 0
            #expect(partial >= 1 << 20 && partial < 8 << 20, "killed mid-transfer with a checkpoint: \(partial) bytes")

            let started = ContinuousClock.now
            let second = try await durableq(arguments, in: here)
            #expect(second.status == 0, "\(second)")
            #expect(second.stdout.contains("done big.bin -> \(directory.path("out/big.bin"))"), "\(second.stdout)")
            #expect(second.stdout.contains("1 downloaded, 0 failed"))
            #expect(ContinuousClock.now - started < .seconds(20), "the dead process's job was taken back without waiting for its lease")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory.path("out/big.bin"))))
            #expect(sha256Hex(bytes) == sha256Hex(resource.content()))
            #expect(server.requests.last?.header("Range")?.hasPrefix("bytes=") == true, "the second run resumed")
            #expect(server.bodyBytesSent < (8 << 20) + (2 << 20), "at most a checkpoint's worth fetched again")

            let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
            let reasons = try await store.history(of: JobID(1)).compactMap(\.reason)
            #expect(reasons.contains { $0.contains("its process is gone") }, "\(reasons)")
            #expect(try await store.historyIsConsistent())

            // Once done, running it again fetches nothing.
            let requests = server.requests.count
            let third = try await durableq(arguments, in: here)
            #expect(third.status == 0 && third.stdout.contains("already downloaded"), "\(third)")
            #expect(server.requests.count == requests)
        }
    }

    @Test func ctrlCStopsCleanlyAndDurableqRunResumes() async throws {
        let resource = slow(6 << 20, bytesPerSecond: 2 << 20)
        try await withServer(["f.bin": resource]) { server, directory in
            let here = directory.url.path
            let worker = try WorkerProcess(
                ["download", server.baseURL + "/files/f.bin", "--to", "out", "--sha256", sha256Hex(resource.content())],
                executable: "durableq", directory: here)
            #expect(await worker.nextLine { $0.hasPrefix("progress f.bin") && percent($0) >= 20 } != nil)
            kill(worker.process.processIdentifier, SIGINT)
            #expect(await worker.waitForExit() == 130)
            let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
            let job = try await store.job(JobID(1))
            #expect(job.state == .pending && job.attempts == 0, "given back, the attempt not counted")
            #expect(try await store.transitions(JobID(1)).last == "running>pending")
            #expect(FileManager.default.fileExists(atPath: directory.path("out/f.bin.part")))

            let run = try await durableq(["run"], in: here)
            #expect(run.status == 0 && run.stdout.contains("1 succeeded, 0 failed"), "\(run)")
            #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: directory.path("out/f.bin"))))) == sha256Hex(resource.content()))
            #expect(try await durableq(["run"], in: here).stdout == "nothing to run\n")
        }
    }

    @Test func runWorksThroughDownloadsAndRequestsAndFailsWhenOneFails() async throws {
        try await withServer(["a.bin": TestHTTPServer.Resource(size: 100_000)]) { server, directory in
            let here = directory.url.path
            let queue = try JobQueue(path: directory.path("durableq.sqlite"))
            let http = HTTPJobs(queue: queue, responseDirectory: directory.path("responses"))
            _ = try await http.download(DownloadRequest(url: server.baseURL + "/files/a.bin", directory: directory.path("out")))
            _ = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/echo"))
            let ok = try await durableq(["run"], in: here)
            #expect(ok.status == 0 && ok.stdout.contains("2 succeeded, 0 failed"), "\(ok)")
            #expect(ok.stdout.contains("done a.bin") && ok.stdout.contains("HTTP 200"))

            _ = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/status/404"))
            let failing = try await durableq(["run", "--queue", "http"], in: here)
            #expect(failing.status == 1 && failing.stdout.contains("0 succeeded, 1 failed"), "\(failing)")
            #expect(failing.stdout.contains("failed GET \(server.baseURL)/status/404"))
        }
    }

    @Test func aFileThatCannotGrowStopsRunWithTheErrorAndStatusOneAndTheRestRunsLater() async throws {
        let files = Dictionary(uniqueKeysWithValues: (0..<30).map { ("f\($0).bin", TestHTTPServer.Resource(size: 16 << 10)) })
        try await withServer(files) { server, directory in
            let path = directory.path("durableq.sqlite")
            try await enqueueDownloads(of: files.keys.sorted(), from: server, into: directory.path("out"), file: path)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            // The log has room for a few commits, then every write fails (as on a full disk).
            let errorLog = directory.path("run.err")
            let run = try WorkerProcess(
                ["run", "--storage-timeout", "1s"], executable: "durableq", directory: directory.url.path, errorLog: errorLog,
                fileSizeLimit: size / 1024 + 64)
            _ = await run.readOutput()
            #expect(await run.waitForExit() == 1)
            let message = try String(contentsOfFile: errorLog, encoding: .utf8)
            // The seconds are those that passed (1 s, or more on a loaded machine).
            #expect(message.hasPrefix("durableq: error: stopped after ") && message.contains(" s of failing writes: could not "), "\(message)")
            #expect(message.contains("disk I/O error (file durableq.sqlite)"), "\(message)")
            #expect(!message.contains("while executing") && !message.contains("COMMIT"), "no SQL in the message: \(message)")
            #expect(integrityCheck(ofSQLiteFileAt: path) == "ok")

            let rerun = try await durableq(["run"], in: directory.url.path)
            #expect(rerun.status == 0, "\(rerun)")
            let store = try SQLiteJobStore(path: path)
            #expect(try await store.jobs(JobFilter(limit: 100)).allSatisfy { $0.state == .succeeded })
            for name in files.keys { #expect(FileManager.default.fileExists(atPath: directory.path("out/\(name)"))) }
        }
    }

    /// Enqueues downloads of `names` into `directory` in a new queue file, and closes it.
    private func enqueueDownloads(of names: [String], from server: TestHTTPServer, into directory: String, file: String) async throws {
        let http = HTTPJobs(queue: try JobQueue(path: file))
        for name in names { _ = try await http.download(DownloadRequest(url: server.baseURL + "/files/" + name, directory: directory)) }
    }

    @Test(.enabled(if: TestEnvironment.serversEnabled || FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
    func onATerminalTheProgressBarsRedrawInPlace() async throws {
        try await withServer(["a.bin": slow(6 << 20, bytesPerSecond: 2 << 20), "b.bin": slow(6 << 20, bytesPerSecond: 2 << 20)]) {
            server, directory in
            let socket = "durableq-test-\(UUID().uuidString.prefix(8))"
            let binary = WorkerProcess.productsDirectory.appendingPathComponent("durableq").path
            let command =
                "cd \(directory.url.path) && \(binary) download \(server.baseURL)/files/a.bin \(server.baseURL)/files/b.bin --to out; "
                + "echo EXIT=$?; sleep 60"
            try tmux(socket, ["new-session", "-d", "-x", "160", "-y", "30", command])
            defer { _ = try? tmux(socket, ["kill-server"]) }

            var screens: [[String]] = []
            while true {
                try await Task.sleep(for: .milliseconds(250))
                let screen = try tmux(socket, ["capture-pane", "-p"]).split(separator: "\n").map(String.init)
                screens.append(screen)
                if screen.contains(where: { $0.hasPrefix("EXIT=") }) { break }
                #expect(screens.count < 200, "the download finishes: \(screen)")
                if screens.count >= 200 { return }
            }
            let final = try #require(screens.last)
            #expect(final.contains("EXIT=0") && final.contains("2 downloaded, 0 failed"), "\(final)")
            #expect(final.contains { $0.hasPrefix("done a.bin") } && final.contains { $0.hasPrefix("done b.bin") })
            #expect(!final.contains { $0.contains("[") && $0.contains("ETA") }, "the bars are gone at the end")

            // While running, each screen shows one bar per file (redrawn, not appended) and a total line.
            let running = screens.filter { screen in screen.contains { $0.hasPrefix("a.bin") && $0.contains("%") } }
            #expect(running.count >= 3, "several frames captured mid-transfer")
            for screen in running {
                #expect(screen.filter { $0.hasPrefix("a.bin") && $0.contains("[") }.count == 1, "\(screen)")
                #expect(screen.filter { $0.hasPrefix("total") }.count == 1, "\(screen)")
            }
            let percents = running.compactMap { screen in screen.first { $0.hasPrefix("a.bin") }.map(percent) }
            #expect(Set(percents).count >= 2 && percents == percents.sorted(), "the same line shows growing numbers: \(percents)")
        }
    }
}

/// Runs `tmux -L socket arguments…` and returns its standard output.
///
/// The first command starts the tmux server, which keeps the descriptors it inherits: its output
/// goes to a file, not a pipe, so that reading it never waits for the server to end.
@discardableResult
private func tmux(_ socket: String, _ arguments: [String]) throws -> String {
    let process = Process()
    // Foundation notices the end of a child when descriptors it shares with the child close; the
    // tmux server would inherit them and live on, so close every descriptor above 2 first.
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments =
        ["-c", #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && exec {fd}>&-; done; exec /usr/bin/tmux "$@""#, "tmux", "-L", socket]
        + arguments
    let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outputFile) }
    process.standardOutput = try FileHandle(forWritingTo: outputFile)
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    _ = try ProcessExit.run(process).wait()
    return String(decoding: try Data(contentsOf: outputFile), as: UTF8.self)
}
