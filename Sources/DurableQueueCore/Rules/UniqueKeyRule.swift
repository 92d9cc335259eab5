/// What an enqueue does when an unfinished job already holds its unique key, and what a debounce
/// changes: the one rule both stores apply.
package enum UniqueKeyRule {
    /// What to do with the job holding the key.
    package enum Action: Sendable, Hashable {
        /// Keep it and return it; nothing is inserted (``UniquePolicy/keep``).
        case keep
        /// Give it the new input and run time if it still waits, and return it (``UniquePolicy/debounce``).
        case debounce
        /// Cancel it (a running one is asked to stop), then insert the new job (``UniquePolicy/replace``).
        case replace
    }

    /// The action for an enqueue whose policy is `policy` (never ``UniquePolicy/allow``, which
    /// records no key and so finds no holder).
    package static func action(for policy: UniquePolicy) -> Action {
        switch policy {
        case .keep, .allow: .keep
        case .debounce: .debounce
        case .replace: .replace
        }
    }

    /// The history reason of a job cancelled by ``Action/replace``.
    package static let replacedReason = "replaced by a job with the same unique key"

    /// The states in which a debounce changes the job holding the key: it still waits.
    package static let debouncedStates: [JobState] = [.scheduled, .pending]

    /// What a debounce writes to the job holding the key, now in `state`, for a new job due at
    /// `runAt` (nil: now): its new state, run time and history reason; nil when it no longer waits
    /// (running, or `blocked` in a sequence) and is kept as it is.
    package static func debounce(state: JobState, runAt: Int64?, now: Int64) -> (state: JobState, runAt: Int64, reason: String)? {
        debouncedStates.contains(state) ? debounce(runAt: runAt, now: now) : nil
    }

    /// What a debounce writes to a job that still waits (in one of ``debouncedStates``, which a
    /// store may check in the statement that writes it), for a new job due at `runAt` (nil: now).
    package static func debounce(runAt: Int64?, now: Int64) -> (state: JobState, runAt: Int64, reason: String) {
        let runAt = runAt ?? now
        return (runAt > now ? .scheduled : .pending, runAt, HistoryNote.debounced(runAt: runAt, now: now))
    }
}
