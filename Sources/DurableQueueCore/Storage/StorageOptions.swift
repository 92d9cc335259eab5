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
    /// The permission bits a new file gets, exactly (the process's umask does not change them);
    /// SQLite gives its `-wal` and `-shm` files the same. Default `0o600`: only the owner reads
    /// or writes, since the file holds inputs, outputs and errors (URLs, request bodies …). An
    /// existing file keeps its permissions.
    public var filePermissions: Int
    /// The data protection class of the file and its `-wal` and `-shm` (Apple platforms with data
    /// protection: iOS, iPadOS, tvOS, watchOS, visionOS; ignored elsewhere). nil (the default)
    /// leaves the app's default class, `completeUntilFirstUserAuthentication` unless the app's
    /// entitlement says otherwise. While the class keeps the file locked, calls throw
    /// ``DurableQueueError/Code/protectedDataUnavailable`` and a running engine waits.
    public var fileProtection: FileProtection?
    /// The SQLite VFS the file is opened through, by the name it was registered under
    /// (`sqlite3_vfs_register`): an encrypting or compressing VFS, or one that simulates a failing
    /// disk in tests. nil (the default): the platform's default VFS. A name no VFS has fails the
    /// open with ``DurableQueueError/Code/storage`` naming it.
    public var vfs: String?

    /// Creates options; every parameter has the default described on its property.
    public init(
        durability: Durability = .processCrash,
        busyTimeout: Duration = .seconds(5),
        readOnly: Bool = false,
        createIfMissing: Bool = true,
        filePermissions: Int = 0o600,
        fileProtection: FileProtection? = nil
    ) {
        self.fileProtection = fileProtection
        self.durability = durability
        self.busyTimeout = busyTimeout
        self.readOnly = readOnly
        self.createIfMissing = createIfMissing
        self.filePermissions = filePermissions
    }

    /// Throws `invalidArgument` naming the first setting out of range.
    package func validate() throws {
        guard (0...0o777).contains(filePermissions) else {
            throw DurableQueueError.invalidArgument("filePermissions", "0o\(String(filePermissions, radix: 8)) is not within 0o000…0o777")
        }
        if busyTimeout < .zero { throw DurableQueueError.invalidArgument("busyTimeout", "\(busyTimeout) is negative") }
    }
}

/// What a committed change survives: SQLite's `synchronous` setting, in WAL mode.
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>
public enum Durability: String, Sendable, Hashable, CaseIterable {
    /// `synchronous=NORMAL`: a commit survives the process being killed at any moment (kill -9, a
    /// crash); a power loss or OS crash may undo the commits since the file's last checkpoint (the
    /// latest ones), never corrupt the file. The default.
    case processCrash
    /// `synchronous=FULL` with `fullfsync` and `checkpoint_fullfsync`: a commit also survives power
    /// loss and OS crashes, at the cost of a flush per commit. On Darwin a plain `fsync` leaves the
    /// data in the drive's cache, so commits and checkpoints flush with `F_FULLFSYNC` (SQLite
    /// ignores both settings elsewhere, where `fsync` reaches the drive).
    case powerLoss
}
