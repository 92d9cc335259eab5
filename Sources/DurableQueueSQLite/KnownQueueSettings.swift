import DurableQueueCore

/// The insert settings of the queues read so far, while the file's data version is the one they
/// hold for (see ``SQLiteJobStore/knownQueueSettings``).
struct KnownQueueSettings {
    private var byName: [String: SQLiteJobStore.QueueInsertSettings] = [:]
    /// The queue found last: most enqueues go where the one before went, and comparing its name
    /// spared an enqueue 350 instructions of hashing it.
    private var last: (name: String, settings: SQLiteJobStore.QueueInsertSettings)?
    /// The file's data version after this store's last commit.
    var dataVersion: UInt32 = 0

    /// The settings of queue `name`, if known.
    mutating func settings(of name: String) -> SQLiteJobStore.QueueInsertSettings? {
        if let last, last.name == name { return last.settings }
        guard let settings = byName[name] else { return nil }
        last = (name, settings)
        return settings
    }

    /// Records that queue `name` has `settings`.
    mutating func remember(_ settings: SQLiteJobStore.QueueInsertSettings, of name: String) {
        byName[name] = settings
        last = (name, settings)
    }

    /// Forgets queue `name`'s settings: they are read again when next needed.
    mutating func forget(_ name: String) {
        byName[name] = nil
        if last?.name == name { last = nil }
    }

    /// Forgets every queue's settings.
    mutating func forgetAll() {
        byName.removeAll()
        last = nil
    }
}
