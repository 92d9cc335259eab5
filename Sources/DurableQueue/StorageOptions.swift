/// How DurableQueue opens and writes its SQLite file.
///
/// The defaults suit an app or server that must not lose work when its process dies.
public struct StorageOptions: Sendable, Hashable {
    /// What a committed change survives.
    public var durability: Durability
    /// How long a write waits for another process's write lock before failing with
    /// ``DurableQueueError/Code/databaseLocked``.
    public var busyTimeout: Duration
    /// Opens the file read-only: every change fails with ``DurableQueueError/Code/readOnly``.
    public var readOnly: Bool
    /// Creates the file when it does not exist (ignored when read-only).
    public var createIfMissing: Bool

    /// Creates options; every parameter has the default described on its property.
    public init(
        durability: Durability = .processCrash,
        busyTimeout: Duration = .seconds(5),
        readOnly: Bool = false,
        createIfMissing: Bool = true
    ) {
        self.durability = durability
        self.busyTimeout = busyTimeout
        self.readOnly = readOnly
        self.createIfMissing = createIfMissing
    }
}

/// What a committed change survives: SQLite's `synchronous` setting, in WAL mode.
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>
public enum Durability: String, Sendable, Hashable, CaseIterable {
    /// `synchronous=NORMAL`: a commit survives the process being killed at any moment (kill -9, a
    /// crash); a power loss or OS crash may undo the last commits, never corrupt the file. The default.
    case processCrash
    /// `synchronous=FULL`: a commit also survives power loss and OS crashes, at the cost of an fsync
    /// per commit.
    case powerLoss

    var synchronousPragma: String {
        switch self {
        case .processCrash: "PRAGMA synchronous = NORMAL"
        case .powerLoss: "PRAGMA synchronous = FULL"
        }
    }
}
