import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What the handlers of one test tell each other.
private final class Flags: Sendable {
    let spinning = Atomic(false)
    let quickRan = Atomic(false)
}

/// Computes on its thread without suspending: for 50 ms at least, or (`waitsForQuick`) until a
/// ``Quick`` handler ran, 20 s at most. Returns whether it saw that.
private struct Spin: Job {
    static let name = "spin"
    struct Input: Codable, Sendable { var waitsForQuick: Bool }
    let flags: Flags

    func run(_ input: Input, context: JobContext) async throws -> Bool {
        let clock = ContinuousClock()
        let started = clock.now
        guard input.waitsForQuick else {
            while clock.now - started < .milliseconds(50) {}
            return false
        }
        flags.spinning.store(true, ordering: .sequentiallyConsistent)
        while !flags.quickRan.load(ordering: .sequentiallyConsistent) && clock.now - started < .seconds(20) {}
        return flags.quickRan.load(ordering: .sequentiallyConsistent)
    }
}

/// Says it ran.
private struct Quick: Job {
    static let name = "quick"
    let flags: Flags

    func run(_ input: Int, context: JobContext) async throws -> Int {
        flags.quickRan.store(true, ordering: .sequentiallyConsistent)
        return input
    }
}

/// On PostgreSQL the engine's tasks run on the event loop of the store's connections, and a
/// handler starts on that thread: a handler that computes long before it first suspends must not
/// hold up every other job's statements more than once.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .timeLimit(.minutes(1)))
struct HandlerStartTests {
    @Test func aKindWhoseHandlerKeptTheLoopLongStartsElsewhereFromThenOn() async throws {
        let flags = Flags()
        let log = LogRecorder(capacity: 200)
        try await withRunningQueue(
            makeStore: StoreBackend.postgres.make,
            configuration: JobQueue.Configuration(maxConcurrentJobs: 4, pollInterval: .milliseconds(20)),
            logger: log.logger(level: .notice),
            register: { queue in
                queue.register(Spin(flags: flags))
                queue.register(Quick(flags: flags))
            }
        ) { queue in
            // The first attempt keeps the loop's thread for 50 ms: noticed once.
            let first = try await queue.enqueue(Spin.self, Spin.Input(waitsForQuick: false))
            #expect(try await first.result(timeout: .seconds(30)) == false)
            let notices = log.text.split(separator: "\n").filter { $0.contains("a handler of 'spin' kept the database connections' thread") }
            #expect(notices.count == 1, "\(log.text)")

            // The next spins until a quick job ran: that job's claim, start and statements need
            // the loop, so it runs only if this handler computes elsewhere.
            let second = try await queue.enqueue(Spin.self, Spin.Input(waitsForQuick: true))
            try await eventually("the second handler spins", seconds: 30) { flags.spinning.load(ordering: .sequentiallyConsistent) }
            let quick = try await queue.enqueue(Quick.self, 7)
            #expect(try await quick.result(timeout: .seconds(30)) == 7)
            #expect(try await second.result(timeout: .seconds(30)) == true)
        }
    }
}
