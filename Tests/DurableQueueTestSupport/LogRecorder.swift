import Logging
import Synchronization

/// Keeps the latest messages a logger was given, for a test that reports where a run got stuck.
package final class LogRecorder: Sendable {
    private let messages = Mutex<[String]>([])
    private let capacity: Int

    /// Keeps the last `capacity` messages.
    package init(capacity: Int = 20) { self.capacity = capacity }

    /// A logger that records into this recorder from `level` up.
    package func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    /// The kept messages, oldest first, one per line.
    package var text: String { messages.withLock { $0.joined(separator: "\n") } }

    fileprivate func record(_ message: String) {
        messages.withLock { messages in
            messages.append(message)
            if messages.count > capacity { messages.removeFirst(messages.count - capacity) }
        }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        /// "level message", then the metadata (the logger's and the message's) as `key=value`
        /// pairs sorted by key, if any.
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            recorder.record(pairs.isEmpty ? "\(event.level) \(event.message)" : "\(event.level) \(event.message) \(pairs.joined(separator: " "))")
        }
    }
}
