import DurableQueue
import Foundation

/// What to download and where: the input of a ``DownloadJob``, stored as JSON (never a secret:
/// credentials come from the ``CredentialsProvider`` when the request is sent).
public struct DownloadRequest: Codable, Sendable, Hashable {
    /// The URL to fetch.
    public var url: String
    /// The directory the file goes to; created as needed. A path, or a stored path such as
    /// `{caches}/downloads`; stored relative to the queue's file bases (see `FileBases`), so that
    /// the download still finds it after the app's container moved.
    public var directory: String
    /// The file's name in ``directory``; nil takes the server's (`Content-Disposition`) or the URL's,
    /// sanitised so that it cannot leave the directory.
    public var fileName: String?
    /// Extra request headers (not secrets).
    public var headers: [String: String]
    /// The expected SHA-256, as hex; a mismatch fails the job and keeps no file.
    public var sha256: String?
    /// The expected size in bytes; a mismatch fails the job and keeps no file.
    public var size: Int64?
    /// The name held for this download in ``directory`` when ``HTTPJobs/download(_:options:)``
    /// enqueued it (``fileName``, the URL's name, or such a name numbered `name (1).ext` when another
    /// download or a file had it): its part file is `<name>.part`, and no other unfinished download
    /// of the file uses that name. nil for a request not enqueued yet.
    public internal(set) var reservedName: String?

    /// Creates a request; see each property.
    public init(
        url: String, directory: String, fileName: String? = nil, headers: [String: String] = [:], sha256: String? = nil,
        size: Int64? = nil
    ) {
        self.url = url
        self.directory = directory
        self.fileName = fileName
        self.headers = headers
        self.sha256 = sha256?.lowercased()
        self.size = size
    }
}

extension DownloadRequest: StoresFilePaths {
    /// The request with its ``directory`` mapped: stored relative to a base that moves with the app.
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> DownloadRequest {
        var request = self
        request.directory = try transform(directory)
        return request
    }
}

/// A finished download: where the file is, its size and its SHA-256.
public struct DownloadResult: Codable, Sendable, Hashable {
    /// The file's path.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// Its SHA-256, as hex.
    public var sha256: String
}

extension DownloadResult: StoresFilePaths {
    /// The result with its ``path`` mapped: stored relative to a base that moves with the app, and
    /// resolved to where the file is now when a handle reads it.
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> DownloadResult {
        var result = self
        result.path = try transform(path)
        return result
    }
}

/// What a download has safely written so far, stored as the job's checkpoint (JSON).
///
/// It is saved before the part file is created: a part file is the job's only if its checkpoint
/// exists, so an attempt never writes to (or cuts) a file some other program or download made.
struct DownloadCheckpoint: Codable, Hashable {
    /// Bytes of the `.part` file that are known good.
    var bytes: Int64
    /// The total size, when the server said it.
    var total: Int64?
    /// The validators of the content those bytes belong to.
    var etag: String?
    var lastModified: String?
    /// Set (with ``sha256``) just before the complete part file is renamed to this path (stored
    /// relative to its base: see ``JobContext/storedPath(_:)``). An attempt
    /// that finds no part file but this file, with these bytes, finishes without fetching again: the
    /// previous one died between the rename and the commit of its result.
    var movedTo: String?
    /// The SHA-256 of the file moved to ``movedTo``, as hex.
    var sha256: String?
    /// Set before the attempt is handed to a ``DownloadCarrier``: the part file is then the carrier's
    /// to place, and it places only a complete body. An attempt that finds this and a part file
    /// finishes without fetching: the carrier placed it and its process died before reporting.
    var carried: Bool?
    /// What the carrier saved when a carried transfer failed, to resume it (a `URLSession`'s resume data).
    var resumeData: Data?
}

/// Downloads a URL to a file, resuming after crashes, kills and dropped connections.
///
/// The body streams to `<file>.part`. Every `checkpointBytes` (an ``HTTPJobs`` setting) the bytes written so far and the
/// content's ETag / Last-Modified are committed as the job's checkpoint; the next attempt (after a
/// crash, a retry or a dropped connection) cuts the part file to the checkpoint and asks for the rest
/// with `Range` and `If-Range`; an attempt that fails while its process lives first checkpoints
/// every byte it wrote. A `200` instead of `206`, or changed validators, start over from zero; a
/// `416` on a file already complete finishes it. On success the optional size and SHA-256 are
/// checked and the file takes its final name atomically, never replacing an existing file (then it
/// is numbered, `name (1).ext`) nor the queue's own files.
public struct DownloadJob: Job {
    public typealias Input = DownloadRequest
    public typealias Output = DownloadResult
    public static let name = "durable.download"
    /// Downloads need the network: they wait while the queue's network conditions say offline.
    public static let needsNetwork = true

    /// What carries the bytes.
    let transport: any HTTPTransport
    let credentials: CredentialsProvider?
    let retryable: RetryableConditions
    /// How many bytes between two checkpoints (and progress updates).
    let checkpointBytes: Int64
    /// How long the body may stay silent before the attempt gives up (and retries with a resume).
    let idleTimeout: Duration
    /// Told about every chunk written, if set.
    let progressObserver: DownloadProgressObserver?
    /// Paths no download may take: the queue file and its companions.
    let protectedPaths: Set<String>
    /// The data protection class of part files (see `HTTPJobs`).
    let fileProtection: FileProtection?
    /// What fetches downloads outside the process, if anything (see `HTTPJobs`).
    let carrier: (any DownloadCarrier)?

    public func shouldRetry(after error: any Error) -> Bool {
        retryable.allowRetry(after: error)
    }

    public func run(_ input: DownloadRequest, context: JobContext) async throws -> DownloadResult {
        guard let url = URL(string: input.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw DownloadError("'\(input.url)' is not an http(s) URL")
        }
        let directory = try Self.prepare(directory: input.directory)
        let partName = input.reservedName ?? FileName.sanitized(input.fileName ?? FileName.fromURL(url) ?? "download")
        let partPath = directory.appendingPathComponent(partName + ".part").path

        var checkpoint = context.checkpoint.flatMap { try? JSONDecoder().decode(DownloadCheckpoint.self, from: Data($0)) }
        if let checkpoint, let moved = Self.alreadyMoved(checkpoint, partPath: partPath, context: context) { return moved }
        if checkpoint?.carried == true, let placed = try PartFile.placedByCarrier(at: partPath) {
            // A carrier placed the complete body, and its process died before it reported.
            return try await finish(input, part: placed, checkpoint: nil, directory: directory, name: partName, context: context)
        }
        if let carrier {
            try await handOff(
                input, url: url, partPath: partPath, ours: checkpoint != nil, resumeData: checkpoint?.resumeData, to: carrier,
                context: context)
        }
        let created = checkpoint != nil
        if checkpoint == nil {
            // The job's claim on the part file, committed before the file exists (see DownloadCheckpoint).
            checkpoint = DownloadCheckpoint(bytes: 0)
            try await save(DownloadCheckpoint(bytes: 0), context: context)
        }
        let part = try PartFile(path: partPath, created: created, keeping: checkpoint?.bytes ?? 0)
        FileProtectionFlags.apply(fileProtection, to: [partPath])
        if part.length == 0 { checkpoint = DownloadCheckpoint(bytes: 0) }
        var serverName: String?
        // At most one restart from zero per attempt (a 200 or a 416 that does not mean "complete").
        do {
            for _ in 0..<2 {
                let outcome = try await fetch(
                    url, input: input, part: part, checkpoint: &checkpoint, serverName: &serverName, context: context)
                if outcome == .complete { break }
                try part.truncate(to: 0)
                checkpoint = DownloadCheckpoint(bytes: 0)
            }
        } catch {
            // An empty part file keeps nothing worth resuming: leave no litter (the file is the job's).
            if part.length == 0 { try? FileManager.default.removeItem(atPath: part.path) }
            throw error
        }
        let name = Self.finalName(input, partName: partName, serverName: serverName)
        return try await finish(input, part: part, checkpoint: checkpoint, directory: directory, name: name, context: context)
    }

    /// The download directory as a standardized URL, created as needed.
    ///
    /// - Throws: ``DownloadError`` (which does not retry) when it cannot be one: a file has its name,
    ///   or it cannot be created.
    static func prepare(directory path: String) throws -> URL {
        let directory = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw DownloadError("\(directory.path) exists and is not a directory") }
            return directory
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            let reason = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? "\(error)"
            throw DownloadError("cannot create the directory \(directory.path): \(reason)")
        }
        return directory
    }

    /// The result of an earlier attempt that moved the file into place and died before its result was
    /// committed; nil if the checkpoint does not say so or the file is no longer what was moved.
    private static func alreadyMoved(_ checkpoint: DownloadCheckpoint, partPath: String, context: JobContext) -> DownloadResult? {
        guard let stored = checkpoint.movedTo, let path = try? context.resolvedPath(stored), let digest = checkpoint.sha256,
              (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) == checkpoint.bytes,
              (try? PartFile.sha256(ofFileAt: path)) == digest
        else { return nil }
        // Died between giving the file its name and removing the part file's name: the part file
        // (the job's) is the same file.
        unlink(partPath)
        return DownloadResult(path: path, bytes: checkpoint.bytes, sha256: digest)
    }

    private enum FetchOutcome { case complete, restart }

    /// One request: resumes from the checkpoint and streams the rest into the part file.
    private func fetch(
        _ url: URL, input: DownloadRequest, part: PartFile, checkpoint: inout DownloadCheckpoint?, serverName: inout String?,
        context: JobContext
    ) async throws -> FetchOutcome {
        var headers = input.headers.sorted { $0.key < $1.key }.map { HeaderField($0.key, $0.value) }
        if let credentials { headers.replace(with: try await credentials(url)) }
        let resumeFrom = part.length
        if resumeFrom > 0 {
            var resume = [("Range", "bytes=\(resumeFrom)-")]
            if let validator = checkpoint?.etag ?? checkpoint?.lastModified { resume.append(("If-Range", validator)) }
            headers.replace(with: resume)
        }
        let response = try await transport.send(TransportRequest(url: url, headers: headers, timeout: .seconds(3600)))
        serverName = response.header("Content-Disposition").flatMap(FileName.fromContentDisposition)
        let etag = response.header("ETag")
        let lastModified = response.header("Last-Modified")
        switch response.status {
        case 206:
            guard Self.rangeStart(response) == resumeFrom,
                  checkpoint == nil || checkpoint?.etag == nil || etag == nil || checkpoint?.etag == etag
            else { return .restart }
        case 200:
            if resumeFrom > 0 { try part.truncate(to: 0) }
        case 416 where resumeFrom > 0:
            // Already complete if the server's length is what we hold.
            let total = response.header("Content-Range").flatMap { Int64($0.split(separator: "/").last ?? "") }
            return total == resumeFrom || input.size == resumeFrom ? .complete : .restart
        case 400...:
            throw HTTPStatusError(
                status: response.status, body: try await response.body.prefix(),
                retryAfter: response.header("Retry-After").flatMap(Int64.init).map { .seconds($0) })
        default:
            throw HTTPStatusError(status: response.status, body: "", retryAfter: nil)
        }
        let total = response.header("Content-Length").flatMap(Int64.init).map { $0 + part.length }
        var saved = DownloadCheckpoint(bytes: part.length, total: total, etag: etag, lastModified: lastModified)
        try await save(saved, context: context)
        let report = progressReporter(
            context: context, url: input.url, fileName: input.fileName ?? serverName ?? FileName.fromURL(url), total: total,
            resumedFrom: part.length)
        report?(part.length)
        do {
            saved = try await IdleWatchdog.run(timeout: idleTimeout) { [saved, checkpointBytes] watchdog in
                var saved = saved
                for try await chunk in response.body {
                    watchdog.heard()
                    try chunk.withUnsafeBytes { try part.append($0) }
                    report?(part.length)
                    if part.length - saved.bytes >= checkpointBytes {
                        saved.bytes = part.length
                        try await save(saved, context: context)
                    }
                }
                return saved
            }
        } catch {
            // The process lives: every byte written is in the file, so the next attempt resumes from
            // all of them rather than from the last periodic checkpoint.
            if part.length > saved.bytes {
                saved.bytes = part.length
                try? await save(saved, context: context)
            }
            throw error
        }
        saved.bytes = part.length
        try await save(saved, context: context)
        checkpoint = saved
        if let total, part.length != total {
            // A body cut short of its length is a transport failure: retry, resuming from the checkpoint.
            throw TransportError.closedEarly(url)
        }
        return .complete
    }

    /// The name the finished file takes: one the caller chose (numbered when taken) wins over the
    /// server's (`Content-Disposition`), which wins over the part file's.
    static func finalName(_ input: DownloadRequest, partName: String, serverName: String?) -> String {
        input.fileName != nil ? partName : serverName.map(FileName.sanitized) ?? partName
    }

    /// ``finish(_:part:checkpoint:directory:name:protectedPaths:save:storedPath:)`` for this attempt.
    private func finish(
        _ input: DownloadRequest, part: PartFile, checkpoint: DownloadCheckpoint?, directory: URL, name: String, context: JobContext
    ) async throws -> DownloadResult {
        try await Self.finish(
            input, part: part, checkpoint: checkpoint, directory: directory, name: name, protectedPaths: protectedPaths,
            save: { try await save($0, context: context) }, storedPath: context.storedPath)
    }

    /// Checks the file, then gives it `name` in `directory`, or the first free numbered name
    /// (`name (1).ext` …) when a file (not this download's) or the queue's own file has it; each
    /// destination is recorded in the checkpoint (by `save`) before the move.
    static func finish(
        _ input: DownloadRequest, part: PartFile, checkpoint: DownloadCheckpoint?, directory: URL, name: String,
        protectedPaths: Set<String>, save: (DownloadCheckpoint) async throws -> Void, storedPath: (String) -> String
    ) async throws -> DownloadResult {
        let digest = try part.sha256()
        if let size = input.size, size != part.length {
            try? FileManager.default.removeItem(atPath: part.path)
            throw DownloadError("expected \(size) bytes, received \(part.length)")
        }
        if let expected = input.sha256, expected != digest {
            try? FileManager.default.removeItem(atPath: part.path)
            throw DownloadError("SHA-256 mismatch: expected \(expected), received \(digest)")
        }
        part.sync()
        var moving = checkpoint ?? DownloadCheckpoint(bytes: part.length, total: part.length)
        moving.bytes = part.length
        moving.sha256 = digest
        for number in 0..<1_000 {
            let destination = directory.appendingPathComponent(FileName.numbered(name, number)).standardizedFileURL
            guard destination.deletingLastPathComponent().path == directory.path else {
                throw DownloadError("the file name '\(name)' would leave \(directory.path)")
            }
            let resolved = destination.resolvingSymlinksInPath().path
            if protectedPaths.contains(resolved) || FileName.isTaken(destination.path) { continue }
            moving.movedTo = storedPath(destination.path)
            try await save(moving)
            if try part.place(at: destination.path) {
                return DownloadResult(path: destination.path, bytes: part.length, sha256: digest)
            }
        }
        throw DownloadError("no free name for '\(name)' in \(directory.path)")
    }

    /// A function that tells the progress observer (if any) how many bytes the file holds.
    private func progressReporter(context: JobContext, url: String, fileName: String?, total: Int64?, resumedFrom: Int64)
        -> (@Sendable (Int64) -> Void)?
    {
        guard let progressObserver else { return nil }
        let base = DownloadProgress(
            jobID: context.id, url: url, fileName: FileName.sanitized(fileName ?? "download"), bytes: resumedFrom, total: total,
            resumedFrom: resumedFrom)
        return { bytes in
            var progress = base
            progress.bytes = bytes
            progressObserver(progress)
        }
    }

    private func save(_ checkpoint: DownloadCheckpoint, context: JobContext) async throws {
        let progress = checkpoint.total.map { $0 > 0 ? min(1, Double(checkpoint.bytes) / Double($0)) : 1 } ?? 0
        try await context.save(progress: progress, checkpoint: Array(try JSONEncoder().encode(checkpoint)))
    }

    /// The first byte of a `Content-Range: bytes N-M/T` header.
    private static func rangeStart(_ response: TransportResponse) -> Int64? {
        guard let range = response.header("Content-Range"), range.hasPrefix("bytes ") else { return nil }
        return Int64(range.dropFirst("bytes ".count).split(separator: "-").first ?? "")
    }
}
