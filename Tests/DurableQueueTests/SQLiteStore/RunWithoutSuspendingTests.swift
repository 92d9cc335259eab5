import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The SQLite store runs the core's async sequences to their end inside its transaction, on the
/// thread that holds it.
@Suite struct RunWithoutSuspendingTests {
    private struct Boom: Error, Equatable {}

    /// A sum over async calls that never wait, nested as a sequence calls another.
    private static func sum(_ n: Int) async throws -> Int {
        guard n > 0 else { return 0 }
        return try await n + sum(n - 1)
    }

    @Test func aSequenceThatNeverWaitsEndsOnTheCallingThreadBeforeTheCallReturns() throws {
        let caller = ObjectIdentifier(Thread.current)
        let ranOnCaller = Mutex(false)
        let total = try runWithoutSuspending {
            ranOnCaller.withLock { $0 = ObjectIdentifier(Thread.current) == caller }
            // A sequence that runs another inside it, as a row operation may.
            let inner = try runWithoutSuspending { try await Self.sum(10) }
            return try await Self.sum(100) + inner
        }
        #expect(total == 5_050 + 55)
        #expect(ranOnCaller.withLock { $0 })
    }

    @Test func anErrorThrownInsideTheSequenceReachesTheCaller() {
        #expect(throws: Boom.self) {
            try runWithoutSuspending { () async throws -> Int in
                _ = try await Self.sum(3)
                throw Boom()
            }
        }
    }
}
