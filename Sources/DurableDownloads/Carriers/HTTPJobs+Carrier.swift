import DurableQueue
import Foundation

extension HTTPJobs {
    /// Places the body `file` that a ``DownloadCarrier`` fetched for `download` at its part file:
    /// call it where the carrier is handed the file (a `URLSession` download delegate's
    /// `didFinishDownloadingTo`), and only for the complete body of a successful response. Never
    /// replaces a file: if something took the part file's name, it throws.
    ///
    /// - Parameters:
    ///   - download: The carried attempt.
    ///   - file: The complete body, where the carrier has it.
    /// - Throws: ``DownloadError`` when the file cannot be placed.
    public func placeCarriedDownload(_ download: CarriedDownload, from file: URL) throws {
        let part = try queue.resolvedPath(download.partPath)
        try PartFile.placeCarried(file.path, at: part)
    }

    /// Reports that `download`'s body is in place: checks it (size, SHA-256), gives it its name (the
    /// request's, else `suggestedName` — the server's `Content-Disposition` —, else the URL's) and
    /// completes the job with its ``DownloadResult``, fenced by the attempt.
    ///
    /// - Parameters:
    ///   - download: The carried attempt, whose body ``placeCarriedDownload(_:from:)`` placed.
    ///   - suggestedName: The server's name for the file (`Content-Disposition`), if it sent one.
    /// - Returns: What the report did; `refused` when the job no longer waits for that attempt (then
    ///   the file stays where it was, as a part file).
    /// - Throws: A storage error, `jobNotFound`; when the body fails its checks, the attempt fails
    ///   instead (as ``failCarriedDownload(_:error:resumeData:)`` reports) and this returns what that did.
    @discardableResult
    public func finishCarriedDownload(_ download: CarriedDownload, suggestedName: String? = nil) async throws -> HandOffCompletion {
        let input = try await queue.resolvedInput(DownloadRequest.self, ofJob: download.job)
        let partPath = try queue.resolvedPath(download.partPath)
        do {
            guard let part = try PartFile.placedByCarrier(at: partPath) else {
                throw DownloadError("the carried body of job \(download.job) is not at \(partPath)")
            }
            let partName = URL(fileURLWithPath: partPath).deletingPathExtension().lastPathComponent
            let name = DownloadJob.finalName(input, partName: partName, serverName: suggestedName)
            let result = try await DownloadJob.finish(
                input, part: part, checkpoint: nil, directory: try DownloadJob.prepare(directory: input.directory), name: name,
                protectedPaths: protectedPaths,
                save: { checkpoint in
                    let saved = try await queue.handOffs.saveCheckpoint(
                        job: download.job, attempt: download.attempt, checkpoint: Array(try JSONEncoder().encode(checkpoint)), progress: 1)
                    guard saved else { throw NotCurrent() }
                },
                storedPath: queue.storedPath)
            return try await queue.handOffs.complete(job: download.job, attempt: download.attempt, output: result)
        } catch is NotCurrent {
            let job = try await queue.reader.job(download.job)
            return .refused(state: job.state, attempt: job.attempts)
        } catch let error as DownloadError {
            return try await failCarriedDownload(download, error: error)
        }
    }

    /// Reports that the carrier's transfer for `download` failed with `error` (an ``HTTPStatusError``
    /// for an error status, with its `Retry-After`; a ``TransportError`` for the connection): the
    /// job retries by its policy and ``RetryableConditions``, or fails.
    ///
    /// - Parameters:
    ///   - download: The carried attempt.
    ///   - error: What went wrong.
    ///   - resumeData: What lets the next attempt's transfer go on from where this one stopped (a
    ///     `URLSession`'s resume data), kept as the job's checkpoint; nil for none.
    @discardableResult
    public func failCarriedDownload(_ download: CarriedDownload, error: any Error, resumeData: Data? = nil) async throws
        -> HandOffCompletion
    {
        if let resumeData {
            let checkpoint = DownloadCheckpoint(bytes: 0, carried: true, resumeData: resumeData)
            _ = try await queue.handOffs.saveCheckpoint(
                job: download.job, attempt: download.attempt, checkpoint: Array(try JSONEncoder().encode(checkpoint)))
        }
        return try await queue.handOffs.fail(
            job: download.job, attempt: download.attempt, error: error, retryable: retryable.allowRetry(after: error))
    }
}

/// A checkpoint the store refused: the attempt is no longer the job's current one.
private struct NotCurrent: Error {}
