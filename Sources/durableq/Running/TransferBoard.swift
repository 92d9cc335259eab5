import DurableDownloads
import DurableQueue
import Foundation
import Synchronization

/// The live state of the downloads this process runs, fed by the download progress observer and
/// read by the display. Thread-safe.
final class TransferBoard: Sendable {
    /// One download's numbers.
    struct Transfer: Sendable {
        var jobID: JobID
        var fileName: String
        var bytes: Int64
        var total: Int64?
        /// Recent (seconds since start, bytes) samples for the rate, oldest first.
        var samples: [(time: Double, bytes: Int64)]

        /// Bytes per second over the recent samples; nil until two samples are far enough apart.
        var rate: Double? {
            guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.2 else { return nil }
            return Double(last.bytes - first.bytes) / (last.time - first.time)
        }

        /// Seconds left at the current rate; nil when unknown.
        var secondsLeft: Double? {
            guard let total, let rate, rate > 0 else { return nil }
            return Double(max(0, total - bytes)) / rate
        }
    }

    private let transfers = Mutex<[JobID: Transfer]>([:])
    private let start = ContinuousClock.now
    /// How far back the rate looks.
    private let rateWindow = 3.0

    /// Records `progress` (called on the downloading task, for every chunk).
    func update(_ progress: DownloadProgress) {
        let elapsed = ContinuousClock.now - start
        let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        transfers.withLock { transfers in
            var transfer =
                transfers[progress.jobID]
                ?? Transfer(jobID: progress.jobID, fileName: progress.fileName, bytes: 0, total: nil, samples: [])
            if progress.bytes < transfer.bytes { transfer.samples.removeAll() }  // restarted from zero
            transfer.fileName = progress.fileName
            transfer.bytes = progress.bytes
            transfer.total = progress.total
            // One sample per 50 ms is plenty; drop those older than the window.
            if let last = transfer.samples.last, time - last.time < 0.05 {
                transfer.samples[transfer.samples.count - 1].bytes = progress.bytes
            } else {
                transfer.samples.append((time, progress.bytes))
            }
            while let first = transfer.samples.first, time - first.time > rateWindow, transfer.samples.count > 2 {
                transfer.samples.removeFirst()
            }
            transfers[progress.jobID] = transfer
        }
    }

    /// The transfer of job `id`, if it reported any progress in this process.
    func transfer(_ id: JobID) -> Transfer? {
        transfers.withLock { $0[id] }
    }

    /// Forgets job `id`'s samples (its attempt ended), keeping its numbers.
    func pause(_ id: JobID) {
        transfers.withLock { $0[id]?.samples.removeAll() }
    }
}
