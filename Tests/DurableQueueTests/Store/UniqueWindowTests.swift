import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Unique keys over a window of time, and debouncing, on every backend.
@Suite struct UniqueWindowTests {
    private func windowed(_ key: String, _ window: Int64, input: String = "{}") -> NewJob {
        var new = job(input: input, uniqueKey: key)
        new.uniqueWindowMilliseconds = window
        return new
    }

    private func succeed(_ store: any JobStore, _ id: JobID, now: Int64) async throws {
        let claimed = try await store.take(now: now)
        #expect(claimed.map(\.id) == [id])
        try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .succeeded(output: "1"))], now: now)
    }

    @Test(arguments: StoreBackend.all) func aWindowKeepsAnyJobWithTheKeyEnqueuedWithinItFinishedOrNot(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let first = try await store.enqueue(windowed("digest", 60_000), now: 1_000).id
            try await succeed(store, first, now: 2_000)
            // Finished, but enqueued 59 s before: still holds the key for the window.
            #expect(try await store.enqueue(windowed("digest", 60_000), now: 60_999) == .existing(first))
            // Without a window only an unfinished job holds a key.
            #expect(try await store.enqueue(job(uniqueKey: "digest"), now: 3_000) == .inserted(JobID(first.rawValue + 1)))
            let second = JobID(first.rawValue + 1)
            try await succeed(store, second, now: 4_000)
            // The window counts from the newest job with the key (enqueued at 3 000).
            #expect(try await store.enqueue(windowed("digest", 60_000), now: 62_000) == .existing(second))
            #expect(try await store.enqueue(windowed("digest", 60_000), now: 63_000) == .inserted(JobID(first.rawValue + 2)))
            #expect(try await store.enqueue(windowed("other", 60_000), now: 63_000) == .inserted(JobID(first.rawValue + 3)))
        }
    }

    @Test(arguments: StoreBackend.all) func debounceGivesTheWaitingJobTheNewInputAndRunTime(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            func debounced(_ input: String, runAt: Int64) -> NewJob {
                job(input: input, runAt: runAt, uniqueKey: "reindex", policy: .debounce)
            }
            let first = try await store.enqueue(debounced(#"{"n":1}"#, runAt: 6_000), now: 1_000)
            #expect(first == .inserted(first.id))
            #expect(try await store.enqueue(debounced(#"{"n":2}"#, runAt: 8_000), now: 3_000) == .existing(first.id))
            var record = try await store.job(first.id)
            #expect(canonicalJSON(record.input) == #"{"n":2}"# && record.runAt == 8_000 && record.state == .scheduled)
            #expect(try await store.history(of: first.id).last?.reason == "debounced: input replaced by a newer enqueue; runs in 5s")
            #expect(try await store.take(now: 7_000).isEmpty, "pushed past its first run time")

            // Due now: pending at once.
            #expect(try await store.enqueue(debounced(#"{"n":3}"#, runAt: 7_500), now: 7_500) == .existing(first.id))
            record = try await store.job(first.id)
            #expect(record.state == .pending && canonicalJSON(record.input) == #"{"n":3}"#)
            #expect(try await store.transitions(first.id) == ["nil>scheduled", "scheduled>scheduled", "scheduled>pending"])

            // A running job keeps its input; the new one is not enqueued (as with keep).
            let running = try await store.take(now: 7_600)
            #expect(running.map(\.id) == [first.id])
            #expect(try await store.enqueue(debounced(#"{"n":4}"#, runAt: 9_000), now: 7_700) == .existing(first.id))
            #expect(canonicalJSON(try await store.job(first.id).input) == #"{"n":3}"#)
            #expect(try await store.jobs(JobFilter()).count == 1)
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func theQueueTakesAWindowAndADebounceFromItsOptions(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        queue.register(Echo())
        let hourly = EnqueueOptions(uniqueKey: "digest", uniqueWindow: .seconds(3600))
        let first = try await queue.enqueue(Echo.self, "a", options: hourly)
        #expect(try await queue.runDueJobs() == 1)
        #expect(try await queue.enqueue(Echo.self, "b", options: hourly).id == first.id, "finished, but within the hour")

        let later = EnqueueOptions(delay: .seconds(60), uniqueKey: "reindex", uniquePolicy: .debounce)
        let waiting = try await queue.enqueue(Echo.self, "x", options: later)
        #expect(try await queue.enqueue(Echo.self, "y", options: later).id == waiting.id)
        #expect(canonicalJSON(try await queue.store.job(waiting.id).input) == "\"y\"")

        await #expect(throws: DurableQueueError.self) {
            try await queue.schedules.save(name: "s", Echo.self, input: "z", options: later, rule: .every(.minutes(1)))
        }
    }

    @Test func aWindowNeedsAKeyAndTheKeepPolicy() throws {
        var new = job(uniqueKey: "k", policy: .replace)
        new.uniqueWindowMilliseconds = 1_000
        #expect(throws: DurableQueueError.self) { try new.validate() }
        new.uniquePolicy = .keep
        new.uniqueWindowMilliseconds = 0
        #expect(throws: DurableQueueError.self) { try new.validate() }
        new.uniqueWindowMilliseconds = 1_000
        try new.validate()
    }
}
