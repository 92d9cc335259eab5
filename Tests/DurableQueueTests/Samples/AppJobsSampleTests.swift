import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The app sample of the "Running in an App" article compiles, runs as it says, and is the
/// article's copy.
@Suite(.timeLimit(.minutes(1))) struct AppJobsSampleTests {
    @Test func theSampleRunsJobsPausesClosingTheFileAndDrainsInBackgroundTime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let queue = try JobQueue(path: path, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(Echo())
        let app = AppJobs(queue: queue)
        #expect(try await queue.enqueue(Echo.self, "foreground").result(timeout: .seconds(10)) == "foreground")

        await app.enteredBackground()
        #expect(openFiles(startingWith: path) == [])
        let later = try await queue.enqueue(Echo.self, "in background time")
        let report = try await app.backgroundTime(until: Date().addingTimeInterval(10))
        #expect(report.attemptsRun == 1 && report.jobsStillDue == 0 && report.nextDueAt == nil)
        #expect(try await queue.handle(Echo.self, id: later.id).result() == "in background time")
        #expect(openFiles(startingWith: path) == [])

        await app.becameActive()
        #expect(try await queue.enqueue(Echo.self, "active again").result(timeout: .seconds(10)) == "active again")
        await app.stop()
    }

    @Test func theArticleShowsTheSample() throws {
        let sample = try String(contentsOf: packageRoot.appendingPathComponent("Tests/DurableQueueTests/Samples/AppJobs.swift"), encoding: .utf8)
        let code = try #require(sample.components(separatedBy: "// sample:begin\n").last?.components(separatedBy: "// sample:end").first)
        let article = try String(
            contentsOf: packageRoot.appendingPathComponent("Sources/DurableQueueCore/DurableQueueCore.docc/RunningInAnApp.md"), encoding: .utf8)
        #expect(article.contains("```swift\n" + code + "```"), "the article's AppJobs differs from Tests/DurableQueueTests/Samples/AppJobs.swift")
    }
}
