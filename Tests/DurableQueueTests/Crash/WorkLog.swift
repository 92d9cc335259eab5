import Foundation

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

/// A small seeded generator (SplitMix64), so a failing run can be repeated with its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
