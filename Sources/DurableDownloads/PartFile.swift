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
/// A download only ever writes a part file it created: it is created exclusively, never through a
/// symbolic link, and a file found at its path that the job did not create is left alone.
///
/// Unchecked Sendable: one attempt uses it, from one task at a time.
final class PartFile: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    /// Its length, which is where the next bytes go.
    private(set) var length: Int64

    /// Opens the download's part file at `path`, cut to `keeping` bytes (or to 0 if shorter).
    ///
    /// - Parameter created: Whether an earlier attempt of the job may have created the file (its
    ///   checkpoint says so): then a file there is reopened, if it is a regular file and not a link.
    ///   Otherwise, or if none is there, it is created, and a file already there is not the job's.
    /// - Throws: ``DownloadError`` if the path is a link, not a regular file, or a file the job did
    ///   not create.
    init(path: String, created: Bool, keeping: Int64) throws {
        self.path = path
        var descriptor: Int32 = created ? open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC) : -1
        if !created || (descriptor < 0 && errno == ENOENT) {
            // 0o666 less the umask, as curl and browsers create files.
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { throw Self.refusal(path, errno: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw DownloadError("\(path) is not a regular file: the download will not write to it")
        }
        self.descriptor = descriptor
        length = Int64(info.st_size) >= keeping ? keeping : 0
        try truncate(to: length)
    }

    private static func refusal(_ path: String, errno code: Int32) -> DownloadError {
        switch code {
        case EEXIST:
            DownloadError("\(path) already exists and is not this download's: move it away to download here")
        case ELOOP:
            DownloadError("\(path) is a symbolic link: the download will not write through it")
        default:
            DownloadError("cannot create \(path): \(String(cString: strerror(code)))")
        }
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

    /// Gives the complete file the name `destination`, unless something already has that name.
    ///
    /// - Returns: false if `destination` exists (nothing changed); true once the file has that name
    ///   and the part file's name is gone.
    /// - Throws: ``DownloadError`` if the part file is no longer the file this download wrote, or the
    ///   file system refuses.
    func place(at destination: String) throws -> Bool {
        var info = stat()
        var written = stat()
        guard lstat(path, &info) == 0, fstat(descriptor, &written) == 0, info.st_ino == written.st_ino, info.st_dev == written.st_dev
        else { throw DownloadError("\(path) was replaced while downloading: not moving it into place") }
        // A hard link never replaces an existing file; then the part file's name goes.
        if link(path, destination) == 0 {
            unlink(path)
            return true
        }
        switch errno {
        case EEXIST:
            return false
        case EPERM, ENOTSUP, EOPNOTSUPP, EMLINK:
            // A file system without hard links: take the name with an empty file of our own, then
            // rename over it (rename replaces only what this download just created).
            let placeholder = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard placeholder >= 0 else {
                if errno == EEXIST { return false }
                throw DownloadError("cannot create \(destination): \(String(cString: strerror(errno)))")
            }
            close(placeholder)
            guard rename(path, destination) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(destination)
                throw DownloadError("cannot move the download to \(destination): \(reason)")
            }
            return true
        default:
            throw DownloadError("cannot move the download to \(destination): \(String(cString: strerror(errno)))")
        }
    }

    /// The SHA-256 of the whole file.
    func sha256() throws -> String {
        try Self.sha256(of: descriptor, path: path)
    }

    /// The SHA-256 of the file at `path`, which is only read.
    static func sha256(ofFileAt path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
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

    /// Flushes the file to the drive (see ``flushToDrive(_:)``).
    func sync() { flushToDrive(descriptor) }
}

extension PartFile {
    /// The part file a carrier placed at `path` (complete: a carrier places only a whole body),
    /// opened with all its bytes; nil when there is none.
    static func placedByCarrier(at path: String) throws -> PartFile? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return try PartFile(path: path, created: true, keeping: Int64(info.st_size))
    }

    /// Whether `path` is a symbolic link.
    static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Gives the carrier's file `source` the name `path`, never replacing what is there: a hard
    /// link, then `source`'s name goes; across file systems, a copy beside `path` linked the same way.
    static func placeCarried(_ source: String, at path: String) throws {
        if link(source, path) == 0 {
            unlink(source)
            return
        }
        let failure = errno
        guard failure == EXDEV else {
            throw DownloadError("cannot place the downloaded file at \(path): \(String(cString: strerror(failure)).lowercased())")
        }
        let incoming = path + ".incoming"
        unlink(incoming)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: incoming)
        } catch {
            throw DownloadError("cannot copy the downloaded file beside \(path): \(error)")
        }
        defer { unlink(incoming) }
        guard link(incoming, path) == 0 else {
            throw DownloadError("cannot place the downloaded file at \(path): \(String(cString: strerror(errno)).lowercased())")
        }
        unlink(source)
    }
}
