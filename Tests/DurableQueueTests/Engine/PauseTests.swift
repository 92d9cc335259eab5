import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Runs until cancelled on its first `input` starts (in this process), then returns: a long
/// download a pause interrupts.
private struct Interruptible: Job {
    static let name = "interruptible"
    let tracker: RunTracker
    func run(_ blockingStarts: Int, context: JobContext) async throws -> String {
        tracker.started("attempt \(context.attempt)")
        defer { tracker.ended("") }
        if tracker.startedInputs.count <= blockingStarts {
            while true { try await Task.sleep(for: .milliseconds(2)) }
        }
        return "done"
    }
}

/// `pauseInThisProcess()` and `resumeInThisProcess()`, as an app's scene phase calls them: no
/// claims while paused, running attempts given back uncounted, nothing of the file held open, and
/// everything going on after the resume.
@Suite(.timeLimit(.minutes(1))) struct PauseTests {
    /// A queue on `backend` in `directory` running `Interruptible` and `Echo`, its tracker, and
    /// where its store is.
    private static func queue(on backend: StoreBackend, in directory: TemporaryDirectory) async throws -> (JobQueue, RunTracker, String) {
        let tracker = RunTracker()
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(Interruptible(tracker: tracker))
        queue.register(Echo())
        return (queue, tracker, try await backend.location(directory))
    }

    @Test(arguments: StoreBackend.all) func pausesGiveRunningAttemptsBackUncountedCloseTheFileAndResumeGoesOn(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (queue, tracker, file) = try await Self.queue(on: backend, in: directory)
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        // One attempt allowed: a pause that counted it, or failed the job, would end the job.
        let download = try await queue.enqueue(Interruptible.self, 2, options: EnqueueOptions(retry: .never))

        for pause in 1...2 {
            try await eventually("start \(pause) runs") { tracker.running == 1 && tracker.startedInputs.count == pause }
            await queue.pauseInThisProcess()
            #expect(queue.isPausedInThisProcess)
            #expect(tracker.running == 0, "the attempt was stopped")
            let record = try await queue.store.job(download.id)
            #expect(record.state == .pending && record.attempts == 0, "pause \(pause): \(record.state), \(record.attempts) attempts")
            #expect(try await queue.store.history(of: download.id).last?.reason == "given back: this process paused")
            if backend.name == StoreBackend.sqlite.name {
                // Closed at once, and kept closed while the engine, its maintenance and the
                // schedules wait (a second's looks: a poll would open it).
                for _ in 0..<50 {
                    let open = openFiles(startingWith: file)
                    #expect(open == [], "pause \(pause) left the file open: \(open)")
                    if !open.isEmpty { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }

            // Paused: an enqueue works, but nothing is claimed, and the file is closed again.
            let echo = try await queue.enqueue(Echo.self, "while paused \(pause)")
            let waiting = Task { try await echo.result(timeout: .seconds(30)) }
            try await Task.sleep(for: .milliseconds(400))
            #expect(try await queue.store.job(echo.id).state == .pending, "claimed while paused")
            #expect(tracker.startedInputs.count == pause, "the download started again while paused")
            if backend.name == StoreBackend.sqlite.name {
                try await eventually("the enqueue's connection is closed", seconds: 2) { openFiles(startingWith: file) == [] }
            }

            await queue.resumeInThisProcess()
            #expect(!queue.isPausedInThisProcess)
            #expect(try await value(of: waiting, within: 10, "the handle's result after the resume") { "none" } == "while paused \(pause)")
        }
        #expect(try await download.result(timeout: .seconds(10)) == "done")
        let record = try await queue.store.job(download.id)
        #expect(record.state == .succeeded && record.attempts == 1)
        #expect(
            try await queue.store.transitions(download.id) == [
                "nil>pending", "pending>running", "running>pending", "pending>running", "running>pending", "pending>running",
                "running>succeeded",
            ])
    }

    @Test(arguments: StoreBackend.all) func aPauseEndsADrainAndADrainWhilePausedRunsThenLeavesTheFileClosed(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let queue = try await backend.queue(in: directory)
        queue.register(Interruptible(tracker: tracker))
        let file = try await backend.location(directory)
        let download = try await queue.enqueue(Interruptible.self, 1)

        let drain = Task { try await queue.drain() }
        try await eventually("the download runs") { tracker.running == 1 }
        await queue.pauseInThisProcess()
        let report = try await value(of: drain, within: 5, "the drain returns after the pause") { "\(tracker.running) running" }
        #expect(report.ending == .paused && report.jobsGivenBack == 1 && report.attemptsRun == 0 && report.jobsStillDue == 1)

        // A background task's drain while paused runs the job, and the file is closed after it.
        let second = try await queue.drain()
        #expect(second.ending == .nothingDue && second.attemptsRun == 1 && second.jobsStillDue == 0)
        #expect(try await queue.store.job(download.id).state == .succeeded)
        #expect(queue.isPausedInThisProcess)
        if backend.name == StoreBackend.sqlite.name {
            try await eventually("the drain's connection is closed", seconds: 2) { openFiles(startingWith: file) == [] }
        }
    }

    @Test(arguments: StoreBackend.all) func aDrainWhileAPausedRunRunsIsLentTheTimeAndPausesItAgain(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (queue, tracker, file) = try await Self.queue(on: backend, in: directory)
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        try await Task.sleep(for: .milliseconds(100))  // the engine's loops start
        await queue.pauseInThisProcess()

        // Background time: what is due runs, and the engine is paused again.
        let quick = try await queue.enqueue(Echo.self, "quick")
        let report = try await queue.drain(until: Date().addingTimeInterval(10))
        #expect(report.ending == .nothingDue && report.attemptsRun == 1 && report.jobsStillDue == 0, "\(report)")
        #expect(try await queue.store.job(quick.id).state == .succeeded)
        #expect(queue.isPausedInThisProcess)
        if backend.name == StoreBackend.sqlite.name { #expect(openFiles(startingWith: file) == []) }

        // The time expires while a job runs: it is given back, and the engine paused again.
        let long = try await queue.enqueue(Interruptible.self, 1)
        let drain = Task { try await queue.drain() }
        try await eventually("the long job runs") { tracker.running == 1 }
        drain.cancel()
        let cancelled = try await value(of: drain, within: 5, "the cancelled drain returns") { "\(tracker.running) running" }
        #expect(cancelled.ending == .cancelled && cancelled.jobsGivenBack == 1 && cancelled.attemptsRun == 0, "\(cancelled)")
        #expect(try await queue.store.job(long.id).state == .pending)
        #expect(queue.isPausedInThisProcess && tracker.running == 0)
        if backend.name == StoreBackend.sqlite.name { #expect(openFiles(startingWith: file) == []) }

        await queue.resumeInThisProcess()
        #expect(try await queue.handle(Interruptible.self, id: long.id).result(timeout: .seconds(10)) == "done")
    }

    @Test func aQueueReleasedWhilePausedGoesAwayCleanly() async throws {
        // The store closes its file after each call while paused, on its own queue: the call that
        // held the last reference must not leave that close a store already gone.
        // One file for every round: its schema is made once, so a round costs an open, a pause and
        // three calls (200 files, each migrated, took most of the time limit on a loaded machine).
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        for _ in 0..<200 {
            try Task.checkCancellation()
            let queue = try JobQueue(path: path)
            await queue.pauseInThisProcess()
            let handle = try await queue.enqueue(Echo.self, "while paused")
            // Paused, the process still enqueues and reads (each call opening the file again).
            #expect(try await queue.store.job(handle.id).state == .pending)
        }
        // Every queue is gone, and with it every file it opened (closed on the store's own queue).
        try await eventually("every released queue's files are closed") { openFiles(startingWith: path).isEmpty }
    }
}
