import DurableQueue
import Foundation
import Synchronization

/// The benchmark's job: a ~100-byte JSON input, a handler that does nothing but count.
struct NoOpJob: Job {
    struct Input: Codable, Sendable {
        var task: String
        var job: String
        var to: String
        var tmpl: String
        var lang: String

        /// The same 100-byte payload as the C baseline's.
        init(_ index: Int) {
            // Zero-padded to six digits without String(format:), slow enough to show in the batch numbers.
            let digits = String(index)
            let number = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
            task = "send_welcome"
            job = number
            to = "user\(number)@example.com"
            tmpl = "welcome_v2"
            lang = "en"
        }
    }
    static let name = "bench.noop"

    let started: @Sendable () -> Void

    func run(_ input: Input, context: JobContext) async throws -> Bool {
        started()
        return true
    }
}

/// The benchmark's job of three durable steps: the no-op job's input, each step returning a small
/// value, committed with its history row (see `JobContext.step`).
struct ThreeStepJob: Job {
    typealias Input = NoOpJob.Input
    static let name = "bench.steps"

    let started: @Sendable () -> Void

    func run(_ input: Input, context: JobContext) async throws -> Int {
        started()
        let first = try await context.step("first") { 1 }
        let second = try await context.step("second") { first + 1 }
        return try await context.step("third") { second + 1 }
    }
}

/// A thread-safe counter of handler starts.
final class StartCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one start.
    func increment() { count.add(1, ordering: .relaxed) }

    /// The starts so far.
    var value: Int { count.load(ordering: .relaxed) }
}
