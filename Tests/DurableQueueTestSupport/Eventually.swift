import Foundation
import Testing

/// Waits (in real time, at most `seconds`) until `condition` holds; records an issue if it never does.
package func eventually(
    _ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    throw CancellationError()
}
