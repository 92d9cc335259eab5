#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Flushes a file's data to the drive itself. On Darwin `fsync` only hands the data to the drive,
/// whose cache can still lose it on power loss, so this asks for `F_FULLFSYNC`, falling back to
/// `fsync` where the file system refuses it; elsewhere `fsync` flushes the drive's cache too.
func flushToDrive(_ descriptor: Int32) {
    #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return }
    #endif
    fsync(descriptor)
}
