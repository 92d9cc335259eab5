import Dispatch
import DurableQueueCore
import Synchronization

extension SQLiteJobStore {
    /// SQLite tells nobody of another process's commit, so the store watches the file
    /// (``FileChangeWatch``) and calls `onChange` when its data version moved: a commit by another
    /// connection, never this store's own. False where the file cannot be watched; engines then poll.
    ///
    /// While this store commits (within the last 20 ms), the file's events are mostly its own: the
    /// watch looks again 20 ms later instead of reading the data version at once, which competed
    /// with the engine's own calls for the store (a busy drain's endings were grouped less well).
    package nonisolated func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> Bool {
        changeObserver.withLock { $0 = onChange }
        return startWatch(onChange)
    }

    /// Whether the file is watched (not while the process is paused, nor where it cannot be).
    package nonisolated var hearsChanges: Bool { changeWatch.withLock { $0 != nil } }

    /// Watches the file for `onChange`; false where it cannot be watched.
    @discardableResult
    nonisolated func startWatch(_ onChange: @escaping @Sendable () -> Void) -> Bool {
        let filter = OtherWriterFilter()
        let watch = FileChangeWatch(path: path) { [weak self] in
            filter.fileChanged(
                busy: { [weak self] in self?.committedWithin(nanoseconds: 20_000_000) ?? false },
                read: { [weak self] in await self?.changeTokenUnlessPaused() }, onChange: onChange)
        }
        guard let watch else { return false }
        changeWatch.withLock { $0 = watch }
        return true
    }

    /// The data version, unless the process paused (a read of the watch under way when it paused
    /// must not open the file again).
    private func changeTokenUnlessPaused() -> Int64? {
        closesAfterUse ? nil : try? changeToken()
    }

    /// Whether this store committed within the last `nanoseconds`.
    nonisolated func committedWithin(nanoseconds: UInt64) -> Bool {
        DispatchTime.now().uptimeNanoseconds &- lastCommitAt.load(ordering: .relaxed) < nanoseconds
    }
}

/// Passes on a burst of file events as one read of the data version, and the read on as a change
/// only when the version moved: a store's own commits write the file too.
final class OtherWriterFilter: Sendable {
    private struct State {
        var reading = false
        var readAgain = false
        var lastVersion: Int64?
    }

    private let state = Mutex(State())

    /// The file changed: reads the version (`read`) unless a read is under way, which then reads
    /// once more, and calls `onChange` for each version it has not seen before. While `busy` says
    /// the store itself is writing, it looks again 20 ms later instead.
    func fileChanged(
        busy: @escaping @Sendable () -> Bool, read: @escaping @Sendable () async -> Int64?,
        onChange: @escaping @Sendable () -> Void
    ) {
        let starts = state.withLock { state -> Bool in
            if state.reading {
                state.readAgain = true
                return false
            }
            state.reading = true
            return true
        }
        guard starts else { return }
        Task {
            while busy() { try? await Task.sleep(for: .milliseconds(20)) }
            while true {
                let version = await read()
                let moved = state.withLock { state -> Bool in
                    defer { if version != nil { state.lastVersion = version } }
                    return version != nil && version != state.lastVersion
                }
                if moved { onChange() }
                let again = state.withLock { state -> Bool in
                    if state.readAgain {
                        state.readAgain = false
                        return true
                    }
                    state.reading = false
                    return false
                }
                if !again { return }
            }
        }
    }
}
