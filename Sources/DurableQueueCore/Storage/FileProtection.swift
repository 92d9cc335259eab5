/// A data protection class: when the system lets a file be read and written, on Apple platforms
/// with data protection (see ``StorageOptions/fileProtection``).
///
/// Choose the weakest class your data allows the jobs to need: with ``complete``, nothing can run
/// while the device is locked, so a background task's drain on a locked device only waits.
public enum FileProtection: String, Sendable, Hashable, CaseIterable {
    /// Readable and writable only while the device is unlocked (and for about ten seconds after
    /// it locks). Rules out background work on a locked device.
    case complete
    /// Created while locked and kept open then; otherwise as ``complete``. SQLite reopens its files,
    /// so for a queue this acts as ``complete`` once the device locks.
    case completeUnlessOpen
    /// Readable and writable from the first unlock after a restart on: background work runs on a
    /// locked device. The system's default for an app's files.
    case completeUntilFirstUserAuthentication
    /// Always readable and writable, even before the first unlock.
    case none
}
