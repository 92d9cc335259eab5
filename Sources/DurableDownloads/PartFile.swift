import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `.part` file a download streams into, written with plain `write(2)` calls so that every byte
/// written before a checkpoint is in the file even if the process is killed right after.
///
/// Unchecked Sendable: one attempt uses it, from one task at a time.
final class PartFile: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    /// Its length, which is where the next bytes go.
    private(set) var length: Int64

    /// Opens (creating if needed) `path`, cut to `keeping` bytes, or to 0 if it is shorter than that.
    init(path: String, keeping: Int64) throws {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw DownloadError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(descriptor, &info)
        length = Int64(info.st_size) >= keeping ? keeping : 0
        try truncate(to: length)
    }

    deinit { close(descriptor) }

    /// Cuts the file to `length` bytes; later writes append from there.
    func truncate(to length: Int64) throws {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw DownloadError("cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
        self.length = length
    }

    /// Appends `bytes` at the end.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset, off_t(length) + off_t(offset))
            if written < 0 {
                if errno == EINTR { continue }
                throw DownloadError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        length += Int64(bytes.count)
    }

    /// The SHA-256 of the whole file.
    func sha256() throws -> String {
        try Self.sha256(of: descriptor, path: path)
    }

    /// The SHA-256 of the file at `path`, which is only read.
    static func sha256(ofFileAt path: String) throws -> String {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw DownloadError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        return try sha256(of: descriptor, path: path)
    }

    /// The SHA-256 of everything in `descriptor`, read in 1 MiB chunks.
    private static func sha256(of descriptor: Int32, path: String) throws -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 { throw DownloadError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            offset += Int64(count)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Flushes the file to disk.
    func sync() { fsync(descriptor) }
}
