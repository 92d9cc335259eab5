/// Reasons the history shows that every store writes the same way.
package enum HistoryNote {
    /// A job's creation, its first event: stores show it from the job's row (`created_at`,
    /// `created_state`), as the `job_history` view does.
    package static let enqueued = "enqueued"

    /// `30s`, `1500ms`: a delay as the history shows it.
    package static func delay(milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }

    /// A waiting job took a newer enqueue's input and run time (the debounce policy).
    package static func debounced(runAt: Int64, now: Int64) -> String {
        "debounced: input replaced by a newer enqueue; runs " + (runAt > now ? "in \(delay(milliseconds: runAt - now))" : "now")
    }
}

extension HistoryNote {
    /// A waiting job's priority rose by one (its queue's aging).
    package static func aged(to priority: Int, after interval: Int64) -> String {
        "aged: priority \(priority - 1) → \(priority) after waiting \(delay(milliseconds: interval))"
    }
}
