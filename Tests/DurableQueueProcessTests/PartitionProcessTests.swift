import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Partitioned concurrency with real worker processes, on the wall clock.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(2))) struct PartitionProcessTests {
    @Test(arguments: StoreBackend.all) func threeWorkerProcessesNeverRunTwoJobsOfOnePartitionAtOnce(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let now = Date().millisecondsSince1970
        try await store.configure(QueueConfiguration("sync", partitionLimit: 1), now: now)
        let partitions = 4
        let jobs = (0..<48).map { index in
            var new = NewJob(queue: "sync", kind: "record", input: "{\"index\":\(index)}")
            new.partitionKey = "customer-\(index % partitions)"
            return new
        }
        let ids = try await store.enqueue(jobs, now: now).map(\.id.rawValue)
        let partitionOf = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0 % partitions) })

        let workers = try (0..<3).map { _ in
            // Two jobs at most each: the four partitions' jobs are spread over the processes.
            try WorkerProcess(["work", path, directory.path("work.log"), "--until-done", "--job-ms", "100", "--max-jobs", "2"])
        }
        for worker in workers { #expect(await worker.waitForExit() == 0) }

        let log = try WorkLog(path: directory.path("work.log"))
        #expect(Set(log.ends.map(\.job)) == Set(ids), "every job ran")
        var overlaps: [String] = []
        for partition in 0..<partitions {
            // Each attempt's [start, end] on the wall clock; sorted by start, one must end before the next starts.
            let spans = log.starts.filter { partitionOf[$0.job] == partition }.compactMap { start -> (Int64, Int64, Int32)? in
                guard let end = log.ends.first(where: { $0.job == start.job && $0.attempt == start.attempt }) else { return nil }
                return (start.at, end.at, start.pid)
            }.sorted { $0.0 < $1.0 }
            for (previous, next) in zip(spans, spans.dropFirst()) where next.0 < previous.1 {
                overlaps.append("customer-\(partition): \(previous) and \(next)")
            }
        }
        #expect(overlaps.isEmpty, "\(overlaps)")
        let processes = Set(log.starts.map(\.pid)).count
        #expect(processes >= 2, "the work spread over the processes")
        print("partitioned queue: 48 jobs over \(partitions) partitions by \(processes) processes, overlaps \(overlaps.count)")
    }
}
