import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueue

/// Texts bound in place must stay as they were until the statement's run ends, however many and
/// however long they are; and what SQLite stores must be the texts themselves.
@Suite struct TextArgumentsTests {
    @Test func everyTextStaysInPlaceUntilClearedAcrossChunks() {
        let texts = TextArguments()
        for run in 0..<3 {
            let lengths = [10, 5_000, 4_090, 20, 3_000, 1, 9_000, 700]
            let originals = lengths.enumerated().map { index, length in
                (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &+ run) }
            }
            let copies = originals.map { original in original.withUnsafeBytes { texts.store($0) } }
            for (original, copy) in zip(originals, copies) {
                #expect(Array(UnsafeRawBufferPointer(start: copy, count: original.count)) == original)
            }
            texts.clear()
        }
    }

    @Test func longAndManyTextsAreStoredAsTheyWere() async throws {
        try await withSQLiteStore { store, _ async throws in
            let long = String(repeating: "é✓ ", count: 3_000)  // 18,000 bytes: longer than a chunk
            let jobs = (0..<40).map { index in job(kind: "k\(index)", input: "\"\(index % 5 == 0 ? long : "short \(index)")\"") }
            let ids = try await store.enqueue(batch: jobs, now: 1).map(\.id)
            for (job, id) in zip(jobs, ids) {
                let record = try await store.job(id)
                #expect(record.input == job.input && record.kind == job.kind)
            }
        }
    }
}
