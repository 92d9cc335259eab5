import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(5))) struct DownloadCrashTests {
    @Test(arguments: TestTransport.allCases) func aDownloadKilledAtRandomMomentsEndsWithTheRightBytesFetchedAboutOnce(
        _ transport: TestTransport
    ) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let server = try await TestHTTPServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let size = 50 << 20
        var resource = TestHTTPServer.Resource(size: size)
        // Slow enough that a worker killed late (a loaded machine: CI once saw one finish all 50 MiB
        // between kills) still cannot fetch the whole file: that takes 12.5 s at 4 MiB/s.
        resource.bytesPerSecond = 4 << 20
        server.serve("big.bin", resource)
        let expected = sha256Hex(resource.content())
        let arguments = [
            directory.path("jobs.sqlite"), server.baseURL + "/files/big.bin", directory.path("out"), expected, transport.rawValue,
        ]

        let partPath = directory.path("out/big.bin.part")
        func partialBytes() -> Int { (try? FileManager.default.attributesOfItem(atPath: partPath)[.size] as? Int) ?? 0 }
        // Up to 10 kills, stopping at half the file so that the last run always has bytes to fetch
        // (a run gets at most about 2 MiB past the last kill's bytes).
        var kills = 0
        while kills < 10 && partialBytes() < size / 2 {
            let before = partialBytes()
            let worker = try WorkerProcess(arguments, executable: "durableq-download-worker")
            #expect(await worker.waitForLine("ready"), "seed \(seed), \(transport.rawValue)")
            // Once this worker has the download (the killed one's lease ran out) and has written up to
            // 2 MiB past the last kill's bytes (a random amount: a kill at a random point of its
            // transfer, whatever the machine's speed).
            let past = before + Int.random(in: 1...(2 << 20), using: &random)
            try await eventually("the worker fetched bytes (seed \(seed), \(transport.rawValue))", seconds: 60) { partialBytes() >= past }
            worker.kill()
            _ = await worker.waitForExit()
            kills += 1
        }
        let partial = partialBytes()
        #expect(
            !FileManager.default.fileExists(atPath: directory.path("out/big.bin")),
            "a worker finished the download before its kill: the test proved nothing (seed \(seed))")
        let last = try WorkerProcess(arguments, executable: "durableq-download-worker")
        let done = await last.nextLine { $0.hasPrefix("downloaded ") }
        #expect(await last.waitForExit() == 0, "seed \(seed), \(transport.rawValue)")
        try await server.shutdown()

        #expect(done == "downloaded \(directory.path("out/big.bin"))", "seed \(seed), \(transport.rawValue)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory.path("out/big.bin"))))
        #expect(sha256Hex(bytes) == expected, "seed \(seed), \(transport.rawValue)")
        let sent = server.bodyBytesSent
        print("download kill test: seed \(seed), \(kills) kills, \(partial) bytes before the last run, \(sent) bytes sent for \(size)")
        #expect(partial > 0 && partial < size, "the kills landed mid-transfer (seed \(seed))")
        #expect(sent < size + kills * (1 << 20), "at most one checkpoint (1 MiB) fetched again per kill (seed \(seed))")
    }

    /// AsyncHTTPClient only: URLSession's delegate is pushed each chunk as it arrives, and no
    /// platform pauses a data task's reading (FoundationNetworking always proceeds; a suspended task
    /// starts over), so its memory follows how far the network outruns the disk (1 GiB over loopback:
    /// a peak of 94–139 MiB, measured 2026-11-26).
    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads peak memory from /proc"),
        arguments: [TestTransport.asyncHTTPClient])
    func downloadingOneGigabyteKeepsMemoryFlat(_ transport: TestTransport) async throws {
        let server = try await TestHTTPServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let resource = TestHTTPServer.Resource(size: 1 << 30)
        server.serve("huge.bin", resource)
        let worker = try WorkerProcess(
            [directory.path("jobs.sqlite"), server.baseURL + "/files/huge.bin", directory.path("out"), "", transport.rawValue],
            executable: "durableq-download-worker")
        let peak = await worker.nextLine { $0.hasPrefix("peak-rss-kb ") }
        #expect(await worker.waitForExit() == 0)
        try await server.shutdown()
        let kilobytes = try #require(peak.flatMap { Int($0.split(separator: " ").last ?? "") })
        print("1 GiB download over \(transport.rawValue): peak RSS \(kilobytes / 1024) MiB")
        #expect(kilobytes < 64 * 1024)
        #expect((try FileManager.default.attributesOfItem(atPath: directory.path("out/huge.bin"))[.size] as? Int) == 1 << 30)
    }
}
