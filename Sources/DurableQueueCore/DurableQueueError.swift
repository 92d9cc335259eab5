/// The error DurableQueue throws: what went wrong, on which file, job or queue, and why.
///
/// Match on ``code``; new codes may be added, so a `switch` over codes needs a `default`.
///
/// For example:
/// ```swift
/// do {
///     try await queue.jobs.cancel(id)
/// } catch let error as DurableQueueError where error.code == .jobNotFound {
///     print("no such job: \(error)")
/// }
/// ```
public struct DurableQueueError: Error, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case jobNotFound, schemaTooNew, notADatabase, corrupt, cannotOpen, databaseLocked, readOnly
            case invalidArgument, timedOut, cancelled, jobFailed, storage, groupNotFound, protectedDataUnavailable
            case versionMismatch
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No job has the given id.
        public static var jobNotFound: Self { .init(.jobNotFound) }
        /// No sequence or group has the given id.
        public static var groupNotFound: Self { .init(.groupNotFound) }
        /// The file was written by a newer DurableQueue whose schema this version does not know.
        public static var schemaTooNew: Self { .init(.schemaTooNew) }
        /// The file is not an SQLite database.
        public static var notADatabase: Self { .init(.notADatabase) }
        /// The file is an SQLite database, but damaged.
        public static var corrupt: Self { .init(.corrupt) }
        /// The file could not be opened: it or its directory is missing, or access is denied.
        public static var cannotOpen: Self { .init(.cannotOpen) }
        /// Another connection held the write lock for longer than the busy timeout.
        public static var databaseLocked: Self { .init(.databaseLocked) }
        /// The file was opened read-only, or cannot be written.
        public static var readOnly: Self { .init(.readOnly) }
        /// The system keeps the file from this process for now: on Apple platforms, a file whose
        /// protection class (``StorageOptions/fileProtection``) locks it while the device is locked;
        /// elsewhere, a file the system forbids for now (`EPERM`, an immutable file). It passes: a
        /// call may be made again later, and a running engine waits for it without failing jobs.
        public static var protectedDataUnavailable: Self { .init(.protectedDataUnavailable) }
        /// An argument was out of range or malformed; nothing was changed.
        public static var invalidArgument: Self { .init(.invalidArgument) }
        /// A wait or an attempt ran past its time limit.
        public static var timedOut: Self { .init(.timedOut) }
        /// The job or the wait was cancelled.
        public static var cancelled: Self { .init(.cancelled) }
        /// The job ended `failed`; the message holds its last error.
        public static var jobFailed: Self { .init(.jobFailed) }
        /// Any other storage failure (disk full, I/O error …); see ``DurableQueueError/underlying``.
        public static var storage: Self { .init(.storage) }
        /// A job's output was stored by another version of its job type (``Job/version``) than the
        /// code reading it, and does not decode as this version's `Output`; the message names both.
        public static var versionMismatch: Self { .init(.versionMismatch) }

        /// The code's name, such as `jobNotFound`.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in words.
    public let message: String
    /// The job concerned, if any.
    public var jobID: JobID?
    /// The queue concerned, if any.
    public var queue: String?
    /// The database file concerned (or, for a database server, its address), if any.
    public var path: String?
    /// The lower-level error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What happened, in words.
    ///   - jobID: The job concerned.
    ///   - queue: The queue concerned.
    ///   - path: The database file concerned.
    ///   - underlying: The lower-level cause.
    public init(
        _ code: Code, _ message: String, jobID: JobID? = nil, queue: String? = nil, path: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.jobID = jobID
        self.queue = queue
        self.path = path
        self.underlying = underlying
    }

    /// The message followed by the job, the queue, the file (or database) and the cause where known.
    public var description: String {
        var text = message
        if let jobID { text += " (job \(jobID))" }
        if let queue { text += " (queue '\(queue)')" }
        if let path { text += path.contains("://") ? " (database \(path))" : " (file \(path))" }
        if let underlying { text += ": \(underlying)" }
        return text
    }

    /// `error`, thrown by a store while doing `operation` (in words) on `location`: itself if it is a
    /// ``DurableQueueError`` (stores throw nothing else), else a `storage` error wrapping it.
    init(storeError error: any Error, operation: String, location: String) {
        if let error = error as? DurableQueueError {
            self = error
        } else {
            self.init(.storage, "could not \(operation)", path: location, underlying: error)
        }
    }

    /// An `invalidArgument` error naming the parameter; thrown before any change is made.
    package static func invalidArgument(_ parameter: String, _ problem: String) -> Self {
        DurableQueueError(.invalidArgument, "invalid \(parameter): \(problem)")
    }
}
