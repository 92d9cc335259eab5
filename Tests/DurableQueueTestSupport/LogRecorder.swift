import Logging
import Synchronization

/// Keeps the latest messages a logger was given, for a test that reports where a run got stuck.
package final class LogRecorder: Sendable {
    private let messages = Mutex<(kept: [String], recorded: Int)>(([], 0))
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
    package var text: String { messages.withLock { $0.kept.joined(separator: "\n") } }

    /// How many messages were recorded so far, kept or not: a mark for ``messages(since:)``.
    package var recorded: Int { messages.withLock { $0.recorded } }

    /// The kept messages recorded after `mark` (a ``recorded`` read earlier), oldest first.
    package func messages(since mark: Int) -> [String] {
        messages.withLock { messages in Array(messages.kept.suffix(max(0, min(messages.recorded - mark, messages.kept.count)))) }
    }

    fileprivate func record(_ message: String) {
        messages.withLock { messages in
            messages.kept.append(message)
            messages.recorded += 1
            if messages.kept.count > capacity { messages.kept.removeFirst(messages.kept.count - capacity) }
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
