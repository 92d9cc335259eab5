import DurableQueue

/// How far a running download is, reported to an ``HTTPJobs`` progress observer as bytes arrive.
///
/// Observers run in the process that runs the download, on the task that writes the file: keep
/// them quick (store the numbers, draw elsewhere). The durable record is the job's `progress` and
/// checkpoint, saved every `checkpointBytes`.
public struct DownloadProgress: Sendable, Hashable {
    /// The download job.
    public var jobID: JobID
    /// The URL being fetched.
    public var url: String
    /// The file's name as far as known (the request's, else the URL's).
    public var fileName: String
    /// Bytes in the file so far, including those kept from earlier attempts.
    public var bytes: Int64
    /// The total size, when the server said it.
    public var total: Int64?
    /// Bytes this attempt kept from earlier ones (a resume starts here).
    public var resumedFrom: Int64
}

/// Called with a download's progress as bytes arrive; see ``DownloadProgress``.
public typealias DownloadProgressObserver = @Sendable (DownloadProgress) -> Void
