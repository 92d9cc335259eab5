import DurableQueue
import Foundation

/// Something outside the process that fetches downloads — a background `URLSession`, which goes on
/// while the app is suspended or terminated — while the queue keeps the bookkeeping: which job and
/// attempt, where the file goes, what to retry.
///
/// With a carrier (``HTTPJobs`` `downloadCarrier:`), a download's attempt is *handed off*
/// (`JobContext.handOff(to:reference:deadline:start:)`): the job waits `handed_off`, holding no
/// worker, until the carrier reports. When the carrier's transfer ends it:
/// 1. places the body, only a complete one of a successful response, with
///    ``HTTPJobs/placeCarriedDownload(_:from:)`` — synchronously, in the callback that hands it the
///    file (the system deletes that file when the callback returns);
/// 2. reports with ``HTTPJobs/finishCarriedDownload(_:suggestedName:)`` (the file is checked, named
///    and the job completed with its SHA-256) or ``HTTPJobs/failCarriedDownload(_:error:resumeData:)``.
///
/// A process killed between the two finishes without fetching again: the relaunched queue finds
/// the transfer unknown to the carrier, gives the job back, and its next attempt finds the placed
/// body. The carrier's `carriedReferences()` (of `HandOffCarrier`) are the references of its transfers
/// (``CarriedDownload/reference``).
public protocol DownloadCarrier: HandOffCarrier {
    /// Called once by ``HTTPJobs/register()``: the carrier reports to `http` from then on (events of
    /// a relaunch included).
    func attach(to http: HTTPJobs)

    /// Starts fetching `request` for `download`, and returns once the transfer is under way.
    ///
    /// - Parameters:
    ///   - download: The attempt, and the part file its body goes to.
    ///   - request: What to fetch: the URL and the headers, credentials included (never stored).
    ///   - resumeData: What the carrier saved when an earlier attempt's transfer failed (see
    ///     ``HTTPJobs/failCarriedDownload(_:error:resumeData:)``), to go on from there; nil to start.
    func carry(_ download: CarriedDownload, request: TransportRequest, resumeData: Data?) async throws

    /// How long a carried download may take before its attempt counts as failed (the job retries
    /// by its policy); nil for no limit.
    var deadline: Duration? { get }
}

extension DownloadCarrier {
    /// No limit.
    public var deadline: Duration? { nil }
}

/// One attempt of a download handed to a ``DownloadCarrier``: which job and attempt, and the part
/// file the complete body goes to. Its ``reference`` names the transfer (a `URLSessionTask`'s
/// `taskDescription`); credentials and headers are never in it.
public struct CarriedDownload: Sendable, Hashable, Codable {
    /// The download job.
    public var job: JobID
    /// The attempt that was handed off: the fence of the report.
    public var attempt: Int
    /// The part file, stored relative to its base (see `FileBases`): resolve it with
    /// `JobQueue.resolvedPath(_:)` when the body arrives, the app's container may have moved.
    public var partPath: String

    /// A carried download; ``DownloadJob`` makes them.
    public init(job: JobID, attempt: Int, partPath: String) {
        self.job = job
        self.attempt = attempt
        self.partPath = partPath
    }

    /// What the carrier calls the transfer: this value as JSON text.
    public var reference: String {
        String(decoding: (try? JSONEncoder.sorted.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The carried download a ``reference`` names; nil for text that is not one.
    public init?(reference: String) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(reference.utf8)) else { return nil }
        self = decoded
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys: a value's text is always the same.
    fileprivate static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
