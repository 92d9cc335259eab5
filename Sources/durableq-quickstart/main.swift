import DurableQueue

/// A job type: a stable name, a Codable input, and an async handler returning a Codable output.
struct MakeThumbnail: Job {
    struct Input: Codable, Sendable {
        var photo: String
        var width: Int
    }
    static let name = "make-thumbnail"

    func run(_ input: Input, context: JobContext) async throws -> String {
        try await context.saveProgress(0.5)  // stored in the job row; `sqlite3` shows it
        try Task.checkCancellation()  // cancellation is cooperative
        return "\(input.photo) at \(input.width) px (attempt \(context.attempt))"
    }
}

// Open (or create) the file and register every job type this process runs.
let queue = try JobQueue(path: "quickstart.sqlite")
queue.register(MakeThumbnail())

// Run the engine. In a server, add `queue` to a swift-service-lifecycle ServiceGroup instead.
let engine = Task { try await queue.run() }

// Enqueue: returns once the job is committed to the file.
let thumbnail = try await queue.enqueue(MakeThumbnail.self, .init(photo: "cat.jpg", width: 320))

// Observe its states, then get its typed result.
for try await state in thumbnail.stateChanges {
    print("job \(thumbnail.id): \(state)")
}
print(try await thumbnail.result())

// Options: queue, priority, delay or run-at, retries, timeout, unique key, tags.
let later = try await queue.enqueue(
    MakeThumbnail.self, .init(photo: "dog.jpg", width: 640),
    options: .init(priority: .low, delay: .seconds(3600), retry: .init(maxAttempts: 5), tags: ["thumbnails"]))

// Cancel: durable, and a cancelled job never runs, not even after a crash.
try await later.cancel()
print("job \(later.id): \(try await later.state())")

// Stop the engine (a ServiceGroup does this on SIGTERM): running jobs finish, the rest stay in the file.
engine.cancel()
try await engine.value
