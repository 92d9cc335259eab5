import NIOCore

/// Runs tasks on one NIO event loop: the loop of the store's connections. A task that prefers it
/// (`withTaskExecutorPreference`) sends its statements and reads their answers without a hand-off
/// between the loop's thread and Swift's cooperative pool for every statement.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop of the store's connections, where the tasks that prefer this executor run.
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
