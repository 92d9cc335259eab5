import DurableQueueTestSupport
import Foundation
import CDurableQueueSQLite
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

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

/// Runs `body` with a connection to a new file in its own temporary directory, then removes it.
private func withConnection(_ body: (SQLiteConnection) throws -> Void) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try body(try SQLiteConnection(path: directory.path("statements.sqlite"), options: StorageOptions()))
}

/// A parameter bound past the statement's last one is an error, not silently dropped.
@Suite struct ParameterBinderTests {
    @Test func aParameterTheStatementDoesNotHaveFailsTheRun() throws {
        try withConnection { connection throws in
            try connection.execute("CREATE TABLE t (a INTEGER, b TEXT)")
            try connection.execute("INSERT INTO t (a, b) VALUES (?1, ?2)") { binder in
                binder.bind(Int64(1))
                binder.bind("one")
            }
            let error = #expect(throws: SQLiteError.self) {
                try connection.execute("INSERT INTO t (a, b) VALUES (?1, ?2)") { binder in
                    binder.bind(Int64(2))
                    binder.bind("two")
                    binder.bind("three")
                }
            }
            #expect(error?.primaryCode == SQLITE_RANGE)
            #expect(try connection.scalarInt64("SELECT count(*) FROM t") == 1)
        }
    }
}

/// A text is bound whole, a zero byte inside it included; one without reads back as it was.
@Suite struct TextBindingTests {
    @Test func textsWithAndWithoutZeroBytesReadBackWhole() throws {
        try withConnection { connection throws in
            try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
            let texts = ["plain", "zero \u{0} inside", "\u{0}", "é ✓ \u{0}\u{0} end", String(repeating: "long ", count: 2_000)]
            for (id, text) in texts.enumerated() {
                try connection.execute("INSERT INTO t (id, text) VALUES (?1, ?2)") { binder in
                    binder.bind(Int64(id))
                    binder.bind(text)
                }
            }
            var read: [String] = []
            try connection.query("SELECT text FROM t ORDER BY id") { row in read.append(row.string(0)) }
            #expect(read == texts)
            #expect(try connection.scalarInt64("SELECT length(text) FROM t WHERE id = 0") == 5)
        }
    }
}

/// A state bound as static text is the state's stored text: each reads back as its raw value.
@Suite struct StaticTextBindingTests {
    @Test(arguments: JobState.allCases) func aStateBoundAsStaticTextReadsBackAsItsRawValue(_ state: JobState) throws {
        try withConnection { connection throws in
            try connection.execute("CREATE TABLE t (text TEXT NOT NULL)")
            try connection.execute("INSERT INTO t (text) VALUES (?1)") { binder in binder.bind(state.staticText) }
            var read: [String] = []
            try connection.query("SELECT text FROM t") { row in read.append(row.string(0)) }
            #expect(read == [state.rawValue])
        }
    }
}

/// Statements are found by the identity of their text first: texts built anew at each call, small
/// ones (whose bits are their bytes) and many texts sharing the recent slots must each run their
/// own statement.
@Suite struct StatementCacheTests {
    @Test func everyTextRunsItsOwnStatementWhateverItsIdentity() throws {
        try withConnection { connection throws in
            let constant = "SELECT 7, 'a constant text: the same string in memory at every call'"
            for _ in 0..<3 {
                for number in 0..<600 {
                    let built = "SELECT \(number), 'a text built anew at each call, longer than a small string'"
                    #expect(try connection.scalarInt64(built) == Int64(number))
                    #expect(try connection.scalarInt64("SELECT \(number % 10)") == Int64(number % 10))
                    #expect(try connection.scalarInt64(constant) == 7)
                }
            }
        }
    }
}
