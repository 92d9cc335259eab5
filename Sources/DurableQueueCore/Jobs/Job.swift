/// A type of work the queue can run: a stable name, a `Codable` input, and an async handler.
///
/// Jobs are registered types rather than closures because a closure cannot survive a restart: the
/// queue stores the name and the input, and any process that registered the type can run it later.
/// A conforming type holds what its handler needs (an HTTP client, a directory …).
///
/// For example:
/// ```swift
/// struct SendEmail: Job {
///     struct Input: Codable, Sendable { var to: String; var subject: String }
///     static let name = "send-email"
///
///     func run(_ input: Input, context: JobContext) async throws -> String {
///         "sent to \(input.to)"
///     }
/// }
/// ```
public protocol Job: Sendable {
    /// What one job of this type works on; stored as JSON in the `input` column.
    associatedtype Input: Codable & Sendable
    /// What the job returns; stored as JSON in the `output` column.
    associatedtype Output: Codable & Sendable

    /// The name stored in the `kind` column. Keep it stable: jobs already in files refer to it.
    static var name: String { get }

    /// The version of ``Input``, stored with each job enqueued by this code (the `version` column).
    /// Raise it when a change to `Input` means that older code cannot read what this code stores,
    /// or that this code cannot read what older code stored without ``inputMigrations``.
    ///
    /// A worker claims a job only if it can run its version: the version it registered, or an
    /// earlier one its ``inputMigrations`` reach. Jobs of any other version wait `pending`, no attempt
    /// spent, for a worker that runs them. The default is 1. See <doc:UpgradingYourJobs>.
    static var version: Int { get }

    /// How inputs stored by earlier versions become this version's: one step per version, each
    /// reading the JSON of version *n* and writing that of *n* + 1, chained up to ``version``.
    ///
    /// Without steps a worker runs only jobs of its own ``version``. With steps from 1 and 2 a worker
    /// at version 3 runs jobs of versions 1, 2 and 3. The default is none.
    static var inputMigrations: [InputMigration] { get }

    /// Runs one attempt.
    ///
    /// Check `Task.isCancelled` (or call `try Task.checkCancellation()`) in long loops: cancelling
    /// the job, its timeout and shutdown all cancel the attempt's task.
    ///
    /// - Parameters:
    ///   - input: The job's input.
    ///   - context: The job's id, attempt, queue, checkpoint, and a way to save progress.
    /// - Returns: The output, recorded before anyone waiting on the job hears of it.
    /// - Throws: Any error; whether another attempt follows is up to ``shouldRetry(after:)`` and the
    ///   job's ``RetryPolicy``.
    func run(_ input: Input, context: JobContext) async throws -> Output

    /// Whether `error`, thrown by ``run(_:context:)``, deserves another attempt (if any is left).
    ///
    /// The default retries every error except `CancellationError`.
    func shouldRetry(after error: any Error) -> Bool

    /// Whether a job of this type needs the network to run: a drain's report says whether any such
    /// job waits (``DrainReport/waitingWorkNeedsNetwork``), so that an app asks the system for
    /// background time with network connectivity only when it needs it. The default is `false`.
    static var needsNetwork: Bool { get }

    /// What a job of this type needs of the network: while the queue's
    /// ``JobQueue/Configuration/network`` conditions do not meet it, its jobs wait in `pending`
    /// without spending an attempt. The default is ``NetworkRequirement/connected`` for a type that
    /// ``needsNetwork``, else ``NetworkRequirement/notRequired``.
    static var networkRequirement: NetworkRequirement { get }
}

extension Job {
    /// 1: the first version of a job type's input.
    public static var version: Int { 1 }

    /// None: a worker runs only jobs of its own ``version``.
    public static var inputMigrations: [InputMigration] { [] }

    /// `false`: the job runs without the network.
    public static var needsNetwork: Bool { false }

    /// ``NetworkRequirement/connected`` for a type that ``needsNetwork``, else ``NetworkRequirement/notRequired``.
    public static var networkRequirement: NetworkRequirement { needsNetwork ? .connected : .notRequired }

    /// Retries every error except `CancellationError` and ``SignalTimeoutError`` (which a retry would
    /// meet again: the timeout is recorded).
    public func shouldRetry(after error: any Error) -> Bool {
        !(error is CancellationError) && !(error is SignalTimeoutError)
    }
}
