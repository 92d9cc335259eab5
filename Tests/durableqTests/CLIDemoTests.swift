import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The content of a demo file of `size` bytes, as the demo server generates it: a pattern that
/// repeats every 65,521 bytes, computed once and copied (byte by byte, the 27 MB of the demo took
/// 13 s of CPU in a debug build).
private func demoContent(size: Int) -> [UInt8] {
    let pattern = (0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    var content: [UInt8] = []
    content.reserveCapacity(size)
    while content.count < size { content += pattern.prefix(size - content.count) }
    return content
}

private let demoFiles = ["ocean.bin": 9_000_000, "forest.bin": 6_000_000, "city.bin": 12_000_000]

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct CLIDemoTests {
    /// Every file of the demo is in `directory`/durableq-demo with the right bytes.
    private func expectFiles(in directory: TemporaryDirectory) throws {
        for (name, size) in demoFiles {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory.path("durableq-demo/\(name)"))))
            #expect(bytes.count == size, "\(name)")
            #expect(sha256Hex(bytes) == sha256Hex(demoContent(size: size)), "\(name)")
        }
    }

    @Test func theDemoRunsOfflineOnTheDefaultFileAndFinishesWithinAMinute() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let started = ContinuousClock.now
        let result = try await durableq(["demo", "--rate", "3000000"], in: directory.url.path)
        #expect(result.status == 0, "\(result)")
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(result.stdout.contains("demo: 18 of 18 jobs succeeded"), "\(result.stdout)")
        #expect(result.stdout.contains("kill -9"))
        try expectFiles(in: directory)

        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        let jobs = try await store.jobs(JobFilter(tag: "demo", limit: 100))
        #expect(jobs.count == 18 && jobs.allSatisfy { $0.state == .succeeded })
        // The throttled queue started its calls at least 400 ms apart.
        let starts = jobs.filter { $0.queue == "demo-api" }.compactMap(\.startedAt).sorted()
        #expect(starts.count == 6 && zip(starts.dropFirst(), starts).allSatisfy { $0 - $1 >= 400 }, "\(starts)")
        #expect(try await store.historyIsConsistent())
    }

    @Test func aDemoKilledMidwayResumesWhereItStoppedWhenRunAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let here = directory.url.path
        let first = try WorkerProcess(["demo", "--rate", "400000"], executable: "durableq", directory: here)
        #expect(await first.nextLine { $0.hasPrefix("progress city.bin") } != nil, "plain progress lines without a terminal")
        try await Task.sleep(for: .seconds(2))
        first.kill()
        #expect(await first.waitForExit() == SIGKILL)
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        let unfinished = try await store.count(JobFilter(states: JobFilter.unfinished, tag: "demo"))
        #expect(unfinished > 0)

        let second = try await durableq(["demo", "--rate", "3000000"], in: here)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("resuming \(unfinished) unfinished demo job(s)"), "\(second.stdout)")
        #expect(second.stdout.contains("demo: \(unfinished) of \(unfinished) jobs succeeded"), "\(second.stdout)")
        // Each job's start and end once, naming the attempt: the killed run's attempts are not
        // shown again as starts of this one.
        let lines = second.stdout.split(separator: "\n").map(String.init)
        for prefix in ["start ", "done "] {
            let jobs = lines.filter { $0.hasPrefix(prefix) }.compactMap { line -> String? in
                line.range(of: #"\(job \d+, attempt \d+\)"#, options: .regularExpression).map { String(line[$0]) }
            }
            #expect(jobs.count == lines.filter { $0.hasPrefix(prefix) }.count, "every \(prefix)line names its job and attempt: \(lines)")
            let perJob = Dictionary(grouping: jobs) { $0.split(separator: ",")[0] }
            #expect(perJob.values.allSatisfy { $0.count == 1 }, "a job's \(prefix)line shown twice: \(lines)")
        }
        #expect(lines.filter { $0.hasPrefix("done ") }.count == unfinished, "\(lines)")
        try expectFiles(in: directory)
        // The downloads went on from their checkpoints: nothing was enqueued twice, and the killed
        // attempts were taken back at once (their process is gone).
        #expect(try await store.count(JobFilter(tag: "demo")) == 18)
        let city = try #require(try await store.jobs(JobFilter(kinds: ["durable.download"], limit: 10)).first { $0.input.contains("city.bin") })
        let reasons = try await store.history(of: city.id).compactMap(\.reason)
        #expect(reasons.contains { $0.contains("its process is gone") }, "\(reasons)")
        #expect(try await store.historyIsConsistent())
    }
}
