import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A worker ID in the default form `<host>-<pid>-<suffix>`, and whether its process is gone.
struct LocalWorker {
    /// The host part of the ID.
    let host: String
    /// The process ID part.
    let processID: pid_t

    /// Parses a default worker ID; nil for any other form.
    init?(_ workerID: String) {
        let parts = workerID.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[parts.count - 1].count == 8, let pid = pid_t(parts[parts.count - 2]), pid > 0 else {
            return nil
        }
        self.host = parts[..<(parts.count - 2)].joined(separator: "-")
        self.processID = pid
    }

    /// The worker IDs among `owners` that name a process of this host that no longer exists.
    ///
    /// A process that still exists (even one that reused the ID's pid) counts as alive, except this
    /// process itself under another worker ID: that is an earlier process which had the same pid.
    static func deadOwners(among owners: [String], currentWorkerID: String) -> [String] {
        let info = ProcessInfo.processInfo
        return owners.filter { owner in
            guard owner != currentWorkerID, let worker = LocalWorker(owner), worker.host == LocalHost.name else { return false }
            if worker.processID == info.processIdentifier { return true }
            return kill(worker.processID, 0) == -1 && errno == ESRCH
        }
    }
}
