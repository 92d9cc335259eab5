import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What the dashboard and `durableq` read: the search of a job listing and the list of groups.
@Suite struct ListingTests {
    @Test(arguments: StoreBackend.all) func searchMatchesIdKindUniqueKeyTagAndInputIgnoringCase(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let invoice = try await store.add(job("mail", kind: "send-invoice", input: #"{"customer":"ACME Corp"}"#))
            let keyed = try await store.add(job("mail", kind: "send", input: #"{"n":1}"#, uniqueKey: "receipt-77"))
            let tagged = try await store.add(job("mail", kind: "send", input: #"{"n":2}"#, tags: ["Region-North"]))
            let other = try await store.add(job("other", kind: "record", input: #"{"note":"acme in lower case"}"#))
            func search(_ text: String, queue: String? = nil) async throws -> [JobID] {
                try await store.jobs(JobFilter(queues: queue.map { [$0] }, search: text, order: .oldestFirst)).map(\.id)
            }
            #expect(try await search("acme") == [invoice, other])
            #expect(try await search("acme", queue: "mail") == [invoice])
            #expect(try await search("INVOICE") == [invoice])
            #expect(try await search("RECEIPT-7") == [keyed])
            #expect(try await search("north") == [tagged])
            #expect(try await search(String(other.rawValue)) == [other])  // its id (no text holds a 4)
            #expect(try await search("%") == [])  // not a pattern: a character like any other
            #expect(try await store.count(JobFilter(search: "acme")) == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func aJobsRecordShowsItsPartitionAndItsGroup(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            var partitioned = job("sync")
            partitioned.partitionKey = "customer-7"
            let alone = try await store.add(partitioned)
            let group = try await store.enqueue(
                composition: .sequence([.job(job("q"), name: "only", takesPreviousOutput: false)]), now: 1_000)
            let step = try #require(try await store.jobs(JobFilter(queues: ["q"])).first)
            #expect(try await store.job(alone).partitionKey == "customer-7")
            #expect(try await store.job(alone).group == nil)
            #expect(step.group == group && step.partitionKey == nil)
        }
    }

    @Test(arguments: StoreBackend.all) func queueNamesAreListedSortedWithoutCountingJobs(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            #expect(try await store.queueNames().isEmpty)
            _ = try await store.add(job("mail"))
            try await store.configure(QueueConfiguration("archive"), now: 1_000)
            #expect(try await store.queueNames() == ["archive", "mail"])
        }
    }

    @Test(arguments: StoreBackend.all) func groupsListsOutermostGroupsNewestFirstWithTheirChildrenCounted(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let step = { (input: String) in CompositionNode.job(job("q", input: input), name: nil, takesPreviousOutput: false) }
            let first = try await store.enqueue(composition: .sequence([step("1"), step("2")]), now: 1_000)
            let second = try await store.enqueue(
                composition: .group(.concurrent, [step("3"), .sequence([step("4")]), step("5")], maxConcurrent: 0, name: "fan"), now: 1_000)
            let claimed = try await store.take("q", limit: 10)
            let three = try #require(claimed.first { $0.input == "3" })
            try await store.finish([FinishedAttempt(three.attemptID, owner: "w1", outcome: .succeeded(output: "3"))], now: 2_000)

            let groups = try await store.groups(limit: 10)
            #expect(groups.map(\.id) == [second, first])  // the nested sequence is not listed on its own
            #expect(groups[0].kind == "concurrent" && groups[0].name == "fan" && groups[0].state == .running)
            #expect(groups[0].children == 3 && groups[0].succeeded == 1)
            #expect(groups[1].kind == "sequence" && groups[1].children == 2 && groups[1].succeeded == 0)
            #expect(try await store.groups(limit: 1).map(\.id) == [second])
            await #expect(throws: DurableQueueError.self) { try await store.groups(limit: 0) }
        }
    }
}
