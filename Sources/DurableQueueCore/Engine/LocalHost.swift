#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This machine's name as its kernel knows it (`gethostname`), read once.
///
/// Never `ProcessInfo.hostName`: on Darwin that is a reverse DNS lookup, which can block for
/// seconds (tens of seconds on a fresh install or a captive network) — at an app's launch, a
/// watchdog kill. Nothing on the path of opening a queue may wait for the network.
package enum LocalHost {
    /// The host name, or `localhost` if the kernel has none.
    package static let name: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return name.isEmpty ? "localhost" : name
    }()
}
