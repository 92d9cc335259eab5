import DurableQueueTestSupport
import Foundation
import Testing

/// Nothing on the path of opening a queue and starting its first job may wait for the network: an
/// app's launch has a watchdog, and a reverse DNS lookup (what Darwin's `ProcessInfo.hostName`
/// does) can take seconds. Watched with strace on a worker process, from its start to the end of
/// its first job.
@Suite(.timeLimit(.minutes(1))) struct OpeningOfflineTests {
    @Test(.enabled(if: TestEnvironment.serversEnabled || FileManager.default.isExecutableFile(atPath: Self.strace), "needs strace"))
    func openingAQueueAndRunningItsFirstJobAsksNoResolverAndOpensNoInternetSocket() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.strace), "\(Self.strace) is missing: `bash .ci/run` installs it")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("queue.sqlite")
        let enqueue = try WorkerProcess(["enqueue", file, "1"])
        #expect(await enqueue.waitForExit() == 0)

        let trace = directory.path("trace.txt")
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: Self.strace)
        worker.arguments = [
            "-f", "-qq", "-e", "trace=openat,open,socket,connect", "-o", trace,
            WorkerProcess.productsDirectory.appendingPathComponent("durableq-test-worker").path,
            "work", file, directory.path("log.txt"), "--until-done",
        ]
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = FileHandle.nullDevice
        #expect(try await ProcessExit.run(worker).status() == 0)
        let log = try String(contentsOfFile: directory.path("log.txt"), encoding: .utf8)
        #expect(log.contains("finish 1 1 "), "the job ran: \(log)")

        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        #expect(calls.count > 10, "strace saw the worker's calls")
        let resolver = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf"]
        let lookups = calls.filter { call in resolver.contains { call.contains("\"\($0)\"") } }
        let internet = calls.filter { $0.contains("AF_INET") }
        #expect(lookups.isEmpty, "the worker asked the resolver: \(lookups.prefix(3))")
        #expect(internet.isEmpty, "the worker opened an internet socket: \(internet.prefix(3))")
    }

    private static let strace = "/usr/bin/strace"
}
