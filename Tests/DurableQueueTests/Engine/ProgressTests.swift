import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Saves the progress values the test lets through its gate, one at a time.
struct Stepped: Job {
    static let name = "stepped"
    let steps: StepGate
    func run(_ fractions: [Double], context: JobContext) async throws -> String {
        for fraction in fractions {
            await steps.next()
            try await context.saveProgress(fraction)
        }
        await steps.next()
        return "done"
    }
}

/// Lets a job go one step each time the test calls `allow()`.
final class StepGate: Sendable {
    private let allowed = Mutex(0)
    private let taken = Mutex(0)
    func allow() { allowed.withLock { $0 += 1 } }
    func next() async {
        while true {
            let go = taken.withLock { taken in
                guard taken < allowed.withLock({ $0 }) else { return false }
                taken += 1
                return true
            }
            if go { return }
            await sleepIgnoringCancellation(milliseconds: 2)
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct ProgressTests {
    @Test(arguments: StoreBackend.all) func aHandleReadsAndFollowsTheProgressItsHandlerSaves(_ backend: StoreBackend) async throws {
        let steps = StepGate()
        try await withRunningQueue(on: backend, register: { $0.register(Stepped(steps: steps)) }) { queue in
            let handle = try await queue.enqueue(Stepped.self, [0.25, 0.5, 1])
            #expect(try await handle.progress() == nil)
            // Nothing is saved yet, so the stream yields nothing until the first step goes.
            steps.allow()
            var seen: [Double] = []
            for try await fraction in handle.progressChanges {
                seen.append(fraction)
                steps.allow()
            }
            #expect(seen == [0.25, 0.5, 1])
            #expect(try await handle.progress() == 1)
            #expect(try await handle.state() == .succeeded)
        }
    }

    @Test(arguments: StoreBackend.all) func aHandleInAnotherProcessSeesTheProgress(_ backend: StoreBackend) async throws {
        let steps = StepGate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runner = try await backend.queue(in: directory, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        runner.register(Stepped(steps: steps))
        // Another JobQueue on the file hears of saves only by polling, as another process would.
        let watcher = try await backend.queue(in: directory, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        let handle = try await watcher.enqueue(Stepped.self, [0.5])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await runner.run() }
            steps.allow()
            var seen: [Double] = []
            for try await fraction in watcher.handle(Stepped.self, id: handle.id).progressChanges {
                seen.append(fraction)
                steps.allow()
            }
            #expect(seen == [0.5])
            group.cancelAll()
        }
    }
}
