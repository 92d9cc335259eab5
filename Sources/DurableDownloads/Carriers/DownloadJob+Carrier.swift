import DurableQueue
import Foundation

extension DownloadJob {
    /// Hands this attempt to `carrier`: the checkpoint says the part file is the carrier's to place
    /// (committed first), any part file of an earlier attempt goes, and the carrier starts. Never
    /// returns: the attempt ends handed off.
    ///
    /// - Parameters:
    ///   - ours: Whether the part file (if any) is this job's (a checkpoint existed): a file that is
    ///     not is refused, as an in-process attempt refuses it.
    ///   - resumeData: What the carrier saved when the previous attempt's transfer failed.
    func handOff(
        _ input: DownloadRequest, url: URL, partPath: String, ours: Bool, resumeData: Data?, to carrier: any DownloadCarrier,
        context: JobContext
    ) async throws -> Never {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: partPath, isDirectory: &isDirectory) || PartFile.isLink(partPath)
        if exists && !ours {
            throw DownloadError("\(partPath) already exists and is not this download's: move it away to download here")
        }
        try await context.save(progress: 0, checkpoint: Array(try JSONEncoder().encode(DownloadCheckpoint(bytes: 0, carried: true, resumeData: resumeData))))
        if exists { unlink(partPath) }
        var headers = input.headers.sorted { $0.key < $1.key }.map { HeaderField($0.key, $0.value) }
        if let credentials { headers.replace(with: try await credentials(url)) }
        let download = CarriedDownload(job: context.id, attempt: context.attempt, partPath: context.storedPath(partPath))
        let request = TransportRequest(url: url, headers: headers, timeout: carrier.deadline ?? .seconds(7 * 86_400))
        try await context.handOff(to: carrier.name, reference: download.reference, deadline: carrier.deadline) {
            try await carrier.carry(download, request: request, resumeData: resumeData)
        }
    }
}
