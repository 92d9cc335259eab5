import Foundation
import Synchronization

/// The exit of a child `Process`, awaited (or waited for) without spinning.
///
/// Foundation's `waitUntilExit()` on Linux turns the calling thread's run loop until the child has
/// exited; a run loop with nothing to run returns at once, so the wait spins a core all along (perf:
/// 7 % of a whole test run's CPU, on a 2-core machine that also runs the workers waited for). This
/// ends the waits from the termination handler Foundation calls once it has reaped the child, or,
/// whichever comes first, from a thread blocked in `waitid` until the child exits.
///
/// Foundation on Linux learns of the exit only when a socket the child inherited is closed at its
/// last copy: a process the child leaves behind (`sh -c 'server &'`, a daemon such as tmux's server)
/// or one spawned elsewhere at that moment may hold a copy for as long as it lives, and the exit is
/// not seen until then (a CI run hung on three such children, zombies nobody reaped). The thread
/// reads the exit status without reaping (`WNOWAIT`), records it, then reaps. Whoever reaps second
/// (the thread or Foundation) finds nothing (Foundation then reports 0: its `terminationStatus` is not
/// to be read, use the awaited status), so a status is recorded only from a child not yet reaped,
/// and waiters hear it only after the reap: once a status is known the process is gone.
package final class ProcessExit: Sendable {
    private struct State {
        /// The status read first from the unreaped child.
        var status: Int32?
        /// Whether someone has reaped the child and the waiters have heard the status.
        var told = false
        var waiters: [@Sendable (Int32) -> Void] = []
    }

    private let state = Mutex(State())
    /// The child's process ID, once it has started.
    private let pid = Mutex<pid_t?>(nil)

    /// Watches `process`, which must not have started yet: sets its termination handler, which
    /// Foundation calls once its `waitpid` has returned (with the status, or with nothing if the
    /// thread reaped the child first, after recording the status).
    private init(watching process: Process) {
        process.terminationHandler = { [self] process in
            record(process.terminationStatus)
            tellWaiters()
        }
    }

    /// Starts `process` (like `run()`) and returns the watch on its exit.
    package static func run(_ process: Process) throws -> ProcessExit {
        let exit = ProcessExit(watching: process)
        try process.run()
        let pid = process.processIdentifier
        exit.pid.withLock { $0 = pid }
        Thread.detachNewThread { exit.waitAndReap(pid) }
        return exit
    }

    /// Blocks until child `pid` has exited, records its status (the signal's number if a signal
    /// ended it, as Foundation's `terminationStatus`), reaps it and tells the waiters. Returns at
    /// once if Foundation reaped it first (ECHILD): its termination handler tells them.
    private func waitAndReap(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            guard errno == EINTR else { return }
        }
        record(info._sifields._sigchld.si_status)
        while waitid(P_PID, id_t(pid), &info, WEXITED) != 0 && errno == EINTR {}
        tellWaiters()
    }

    /// The exit status (the signal's number for a child killed by one), once the child has exited.
    /// If the awaiting task is cancelled (a test's time limit), the child is killed (SIGKILL) so that
    /// the wait ends and the test fails instead of hanging the run.
    package func status() async -> Int32 {
        let pid = pid.withLock { $0 }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                whenExited { continuation.resume(returning: $0) }
            }
        } onCancel: {
            if let pid { _ = kill(pid, SIGKILL) }
        }
    }

    /// ``status()`` for synchronous code, which blocks its thread anyway (reading the child's output to
    /// its end; a short child: `ip`, `sqlite3`, `tmux`). Async code awaits ``status()``.
    package func wait() -> Int32 {
        let exited = DispatchSemaphore(value: 0)
        whenExited { _ in exited.signal() }
        exited.wait()
        return state.withLock { $0.status ?? -1 }
    }

    private func whenExited(_ body: @escaping @Sendable (Int32) -> Void) {
        let status = state.withLock { state -> Int32? in
            if !state.told { state.waiters.append(body) }
            return state.told ? state.status : nil
        }
        if let status { body(status) }
    }

    /// Records `status` unless a status was recorded first.
    private func record(_ status: Int32) {
        state.withLock { state in
            if state.status == nil { state.status = status }
        }
    }

    /// Tells the waiters the recorded status, once.
    private func tellWaiters() {
        let (status, waiters) = state.withLock { state -> (Int32, [@Sendable (Int32) -> Void]) in
            guard !state.told, let status = state.status else { return (0, []) }
            state.told = true
            defer { state.waiters = [] }
            return (status, state.waiters)
        }
        for waiter in waiters { waiter(status) }
    }
}
