import DurableQueue
import Foundation

// The article "Running in an App" shows the code between the markers; AppJobsSampleTests runs it
// and checks that the article's copy is this one.
// sample:begin
/// Runs an app's jobs: the engine in the foreground, paused in the background, and drains in the
/// background time the system grants.
final class AppJobs: Sendable {
    let queue: JobQueue
    private let engine: Task<Void, any Error>

    init(queue: JobQueue) {
        self.queue = queue
        engine = Task { try await queue.run() }
    }

    /// The scene went to the background: stop, give running work back, close the file.
    func enteredBackground() async {
        await queue.pauseInThisProcess()
    }

    /// The scene is active again: go on where the jobs were left.
    func becameActive() async {
        await queue.resumeInThisProcess()
    }

    /// A background task's time, until `deadline` or its expiry (cancel the calling task): what
    /// is due runs, and the report says when to ask for time again.
    func backgroundTime(until deadline: Date?) async throws -> DrainReport {
        try await queue.drain(until: deadline)
    }

    /// The app quits: the engine gives running work back.
    func stop() async {
        engine.cancel()
        _ = await engine.result
    }
}
// sample:end
