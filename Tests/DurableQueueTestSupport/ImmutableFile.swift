import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Makes a file immutable for a while (Linux's `chattr +i`, as root on a file system that has the
/// flag): opening it for writing then fails with `EPERM`, the error a protected file gives on a
/// locked Apple device. Nil where it cannot be done (not root, another file system or platform).
package struct ImmutableFile {
    package let path: String

    /// Makes `path` immutable; nil if this machine cannot.
    package init?(_ path: String) {
        self.path = path
        guard Self.setImmutable(path, true) else { return nil }
    }

    /// Makes the file mutable again.
    package func release() {
        _ = Self.setImmutable(path, false)
    }

    private static func setImmutable(_ path: String, _ immutable: Bool) -> Bool {
        #if os(Linux)
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            // FS_IOC_GETFLAGS / FS_IOC_SETFLAGS and FS_IMMUTABLE_FL, from <linux/fs.h>.
            var flags: Int32 = 0
            guard ioctl(descriptor, UInt(0x8008_6601), &flags) == 0 else { return false }
            flags = immutable ? flags | 0x10 : flags & ~0x10
            return ioctl(descriptor, UInt(0x4008_6602), &flags) == 0
        #else
            return false
        #endif
    }
}
