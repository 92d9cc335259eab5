import DurableQueueTestSupport
import Foundation

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The lines `durableq-test-worker work` appends: which attempts started, returned a value ("finish")
/// and ended, in which process, and when.
struct WorkLog {
    struct Entry: Hashable {
        var job: Int64
        var attempt: Int
        var pid: Int32
        /// The wall clock when the line was written, in ms since 1970.
        var at: Int64
    }

    var starts: [Entry] = []
    var finishes: [Entry] = []
    var ends: [Entry] = []

    /// Reads the log at `path` (empty if the file does not exist).
    init(path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let job = Int64(fields[1]), let attempt = Int(fields[2]), let pid = Int32(fields[3]),
                let at = Int64(fields[4])
            else { continue }
            let entry = Entry(job: job, attempt: attempt, pid: pid, at: at)
            switch fields[0] {
            case "start": starts.append(entry)
            case "finish": finishes.append(entry)
            case "end": ends.append(entry)
            default: break
            }
        }
    }

    /// The attempt numbers started for `job`.
    func startedAttempts(of job: Int64) -> [Int] {
        starts.filter { $0.job == job }.map(\.attempt)
    }
}

/// Opens a new file at `path` and enqueues `count` "record" jobs on `queue` (inputs `{"index":N}`,
/// unlimited attempts) for `durableq-test-worker work` to run.
func prefillRecordJobs(_ count: Int, queue: String, on backend: StoreBackend, in directory: TemporaryDirectory) async throws
    -> any JobStore
{
    let store = try await backend.make(directory)
    let jobs = (0..<count).map { NewJob(queue: queue, kind: "record", input: "{\"index\":\($0)}", maxAttempts: nil) }
    _ = try await store.enqueue(jobs, now: Date().millisecondsSince1970)
    return store
}
