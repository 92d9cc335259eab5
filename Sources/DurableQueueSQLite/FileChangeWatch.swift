import Dispatch
import DurableQueueCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls a handler soon after any process writes a SQLite file or its write-ahead log, so that an
/// idle engine can sleep instead of polling: on Linux an inotify watch of the file's directory
/// (it outlives the log being deleted and made again); on Darwin a dispatch source on the log.
///
/// The handler runs on the watch's own queue, for the engine to read the file's data version there
/// (its own commits wake it too, and change nothing it has not seen).
///
/// Unchecked Sendable: its one property is set in `init` and only cancelled in `deinit` (a dispatch
/// source may be cancelled from any thread).
final class FileChangeWatch: @unchecked Sendable {
    private let source: any DispatchSourceProtocol

    /// Watches the database at `path`; nil where the platform or the file offers no watch (the
    /// engine then polls).
    init?(path: String, onChange: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "DurableQueue.file-watch")
        #if os(Linux)
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let watched: Set<String> = [name, name + "-wal"]
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            guard inotify_add_watch(descriptor, directory, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)) >= 0 else {
                close(descriptor)
                return nil
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            source.setEventHandler {  // the source holds itself until cancelled (deinit)
                if Self.readEvents(descriptor).contains(where: watched.contains) { onChange() }
                Self.rest(source, on: queue)
            }
            source.setCancelHandler { close(descriptor) }
        #elseif canImport(Darwin)
            let descriptor = open(path + "-wal", O_EVTONLY)
            guard descriptor >= 0 else { return nil }
            let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write, .extend], queue: queue)
            source.setEventHandler {  // the source holds itself until cancelled (deinit)
                onChange()
                Self.rest(source, on: queue)
            }
            source.setCancelHandler { close(descriptor) }
        #else
            return nil
        #endif
        self.source = source
        source.resume()
    }

    deinit { source.cancel() }

    /// How long the watch rests after each event it handles: the events of a busy stretch of
    /// commits (this process's own among them, a few per commit) are handled at most 50 times a
    /// second, not once each, which cost a third more instructions per enqueue. The first commit
    /// after a quiet spell is still heard at once.
    static let restInterval: DispatchTimeInterval = .milliseconds(20)

    /// Stops `source` for ``restInterval``; the events that come meanwhile wait in the kernel and are
    /// handled together when it resumes.
    private static func rest(_ source: any DispatchSourceProtocol, on queue: DispatchQueue) {
        source.suspend()
        // A dispatch source may be resumed from any thread; Dispatch does not mark it Sendable.
        nonisolated(unsafe) let suspended = source
        queue.asyncAfter(deadline: .now() + restInterval) { suspended.resume() }
    }

    #if os(Linux)
        /// The names of the files the pending inotify events are about.
        private static func readEvents(_ descriptor: Int32) -> [String] {
            var names: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return names }
                var offset = 0
                // Each event: wd, mask, cookie, len (4 bytes each), then `len` bytes of name, NUL-padded.
                while offset + 16 <= count {
                    let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                    let name = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    names.append(String(decoding: name, as: UTF8.self))
                    offset += 16 + length
                }
            }
        }
    #endif
}
