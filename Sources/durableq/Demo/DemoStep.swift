import DurableQueue

/// The demo's sample job: it works for a moment (checking for cancellation) and says what it did.
struct DemoStep: Job {
    /// What to do.
    struct Input: Codable, Sendable {
        /// Shown in its result.
        var label: String
        /// How long it works, in milliseconds.
        var milliseconds: Int
    }

    static let name = "demo-step"

    func run(_ input: Input, context: JobContext) async throws -> String {
        let steps = 10
        for step in 1...steps {
            try await Task.sleep(for: .milliseconds(input.milliseconds / steps))
            try await context.saveProgress(Double(step) / Double(steps))
        }
        return "\(input.label) done"
    }
}
