import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The four views of the Getting Started article, as it calls them, on both stores: each does what
/// it says to the rows, and what one view does another process sees.
@Suite(.timeLimit(.minutes(2))) struct QueueViewsTests {
    @Test(arguments: StoreBackend.all) func theQueuesViewConfiguresPausesAndResumesANamedQueue(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        try await queue.queues.configure(QueueConfiguration("thumbnails", concurrencyLimit: 2))
        try await queue.queues.pause("thumbnails")
        #expect(try await queue.queues.configuration(of: "thumbnails") == QueueConfiguration("thumbnails", concurrencyLimit: 2, isPaused: true))
        let updated = try await queue.queues.update("thumbnails") { $0.concurrencyLimit = 3 }
        #expect(updated.concurrencyLimit == 3 && updated.isPaused, "update keeps what its closure leaves")
        try await queue.queues.resume("thumbnails")
        #expect(try await queue.queues.configuration(of: "thumbnails")?.isPaused == false)
        await #expect(throws: DurableQueueError.self) { try await queue.queues.pause("nowhere") }
    }

    @Test(arguments: StoreBackend.all) func theJobsViewCancelsRetriesAndDeletesBySelectionAndById(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let store = queue.store
        let tagged = try await store.add(job("thumbnails", tags: ["thumbnails"]), now: 1_000)
        let other = try await store.add(job("thumbnails"), now: 1_001)
        let elsewhere = try await store.add(job("mail", tags: ["thumbnails"]), now: 1_002)

        #expect(try await queue.unfinishedJobCount() == 3)
        #expect(try await queue.jobs.cancel(JobSelection(tag: "thumbnails")) == 2)
        #expect(try await store.job(tagged).state == .cancelled)
        #expect(try await store.job(elsewhere).state == .cancelled)
        #expect(try await store.job(other).state == .pending)

        #expect(try await queue.jobs.retry(JobSelection(states: [.cancelled], queues: ["thumbnails"])) == 1)
        #expect(try await store.job(tagged).state == .pending)
        #expect(try await store.job(elsewhere).state == .cancelled, "another queue: not selected")

        try await queue.jobs.cancel(other)
        #expect(try await store.job(other).state == .cancelled)
        #expect(try await queue.jobs.delete(JobSelection(states: [.cancelled])) == 2)
        await #expect(throws: DurableQueueError.self) { try await store.job(other) }
        #expect(try await queue.unfinishedJobCount() == 1)
    }

    @Test(arguments: StoreBackend.all) func theSchedulesViewSavesPausesListsAndRemovesASchedule(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        try await queue.schedules.save(name: "nightly", Echo.self, input: "all", rule: .cron("0 3 * * *"))
        try await queue.schedules.pause("nightly")
        #expect(try await queue.schedules.list().map(\.name) == ["nightly"])
        #expect(try await queue.schedules.list().first?.isPaused == true)
        try await queue.schedules.resume("nightly")
        #expect(try await queue.schedules.list().first?.isPaused == false)
        #expect(try await queue.schedules.remove("nightly"))
        #expect(try await queue.schedules.list().isEmpty)
        #expect(try await !queue.schedules.remove("nightly"), "nothing left to remove")
    }
}
